// npm run bench:cli [-- --runs 5]
// Whole-process wall time (spawn to exit) of the CLI against `node -e 0` on the same machine, median of N runs,
// taken round-robin so load from other processes hits every command alike. Targets (issue #11): `contextpack --help`
// ≤ 4× and `contextpack search` on a small store ≤ 6× of `node -e 0`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
// @ts-expect-error plain JavaScript module without type declarations
import { freshBundle } from '../src/main/cli/fresh-bundle.mjs';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const RUNS = Number(values.runs);
const bin = fileURLToPath(new URL('../src/main/cli/bin.mjs', import.meta.url));

const tmp = mkdtempSync(join(tmpdir(), 'cp-bench-cli-'));
// A throwaway user-data folder and an empty models folder: the run must not depend on what this machine has installed.
const env = { ...process.env, CONTEXTPACK_HOME: join(tmp, 'home'), CONTEXTPACK_MODELS_DIR: join(tmp, 'models') };
mkdirSync(env.CONTEXTPACK_MODELS_DIR, { recursive: true });
const db = join(tmp, 'small.db');
const project = join(tmp, 'project');
mkdirSync(project);
for (let i = 0; i < 20; i++) {
  writeFileSync(join(project, `note-${i}.md`), `# Note ${i}\n\n## Retries\n\nUpload ${i} retries with exponential backoff and jitter.\n\n## Other\n\nNothing about topic ${i * 7}.\n`);
}

function run(args: string[]): number {
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

run([bin, 'ingest', project, '--db', db]);

const cases: { name: string; args: string[] }[] = [
  { name: 'node -e 0', args: ['-e', '0'] },
  { name: 'contextpack --help', args: [bin, '--help'] },
  { name: 'contextpack search (20 files)', args: [bin, 'search', 'exponential backoff', '--db', db] },
  { name: 'contextpack stats', args: [bin, 'stats', '--db', db] },
];
const times = new Map(cases.map((c) => [c.name, [] as number[]]));
for (const c of cases) run(c.args); // warm the page cache
for (let i = 0; i < RUNS; i++) for (const c of cases) times.get(c.name)!.push(run(c.args));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const base = median(times.get('node -e 0')!);
const targets: Record<string, number> = { 'contextpack --help': 4, 'contextpack search (20 files)': 6 };
const bundle = freshBundle(fileURLToPath(new URL('../', import.meta.url)), env) as string | null;
console.log(`node ${process.version}, ${RUNS} runs each, round-robin; median wall time of the whole process`);
console.log(`CLI runs ${bundle ? 'the bundle in out/cli/ (fresh)' : 'the TypeScript sources (no fresh bundle: npm run build:cli; or CONTEXTPACK_CLI_SOURCES=1)'}`);
console.log(`${'command'.padEnd(32)} median ms  × node -e 0  target`);
for (const c of cases) {
  const m = median(times.get(c.name)!);
  const ratio = m / base;
  const t = targets[c.name];
  console.log(`${c.name.padEnd(32)} ${m.toFixed(1).padStart(9)}  ${ratio.toFixed(2).padStart(10)}  ${t ? `≤ ${t}× ${ratio <= t ? 'PASS' : 'FAIL'}` : ''}`);
}
rmSync(tmp, { recursive: true, force: true });
