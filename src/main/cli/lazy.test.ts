// A CLI that starts at once: `--help` and a BM25 search load neither the other commands' modules nor the heavy
// libraries, from the sources and from the bundle alike; the bundle runs only while it matches the sources.
import { spawnSync } from 'node:child_process';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestPaths } from '../core/ingest/index.ts';
import { openStore } from '../core/store/index.ts';
import { tempDirs, writeTree } from '../core/testing/tmp.ts';
import { commands } from './commands/index.ts';
// @ts-expect-error plain JavaScript module without type declarations
import { freshBundle } from './fresh-bundle.mjs';

const bin = fileURLToPath(new URL('./bin.mjs', import.meta.url));
const tmp = tempDirs('cp-lazy-');
let hooks: string;
let db: string;

const HEAVY = ['@huggingface/transformers', 'onnxruntime-node', 'onnxruntime-common', 'unpdf', 'htmlparser2', 'gpt-tokenizer', '@modelcontextprotocol/sdk', 're2'];

beforeAll(async () => {
  const dir = tmp.make();
  // Records every module the child resolves (import and require alike) and prints the list at exit.
  hooks = join(dir, 'record-modules.mjs');
  writeFileSync(
    hooks,
    `import { registerHooks } from 'node:module';
const seen = new Set();
registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); seen.add(r.url); return r; } });
process.on('exit', () => process.stderr.write('\\nLOADED ' + JSON.stringify([...seen]) + '\\n'));
`,
  );
  const root = tmp.make();
  writeTree(root, { 'a.md': '# Retries\n\nexponential backoff with jitter\n', 'b.html': '<h1>Page</h1><p>backoff</p>' });
  db = join(dir, 'small.db');
  const store = openStore(db);
  await ingestPaths(store.db, [root]);
  store.close();
});
afterAll(() => tmp.cleanup());

function loaded(args: string[], env: Record<string, string> = {}): { urls: string[]; stdout: string; status: number | null } {
  const r = spawnSync(process.execPath, ['--import', pathToFileURL(hooks).href, bin, ...args], {
    encoding: 'utf8',
    env: { ...process.env, CONTEXTPACK_MODELS_DIR: tmp.make(), CONTEXTPACK_HOME: tmp.make(), ...env },
  });
  const line = r.stderr.split('\n').find((l) => l.startsWith('LOADED '));
  if (!line) throw new Error(`no module list: ${r.stderr}`);
  return { urls: JSON.parse(line.slice(7)) as string[], stdout: r.stdout, status: r.status };
}

const heavyIn = (urls: string[]) => HEAVY.filter((h) => urls.some((u) => u.includes(`/node_modules/${h}/`)));

describe.each([
  ['sources', { CONTEXTPACK_CLI_SOURCES: '1' }],
  ['bundle when built, else sources', {}],
])('start-up (%s)', (_label, env) => {
  it('--help lists every command and loads no command module, no store and no heavy library', () => {
    const r = loaded(['--help'], env);
    expect(r.status).toBe(0);
    for (const c of commands) expect(r.stdout).toContain(`  ${c.name}`);
    expect(heavyIn(r.urls)).toEqual([]);
    expect(r.urls.filter((u) => u.includes('/node_modules/better-sqlite3/') || u.includes('/src/main/cli/commands/search.ts'))).toEqual([]);
  });

  it('a BM25 search loads SQLite but no model runtime, PDF, HTML, tokenizer or MCP library', () => {
    const r = loaded(['search', 'backoff', '--db', db], env);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('a.md#retries');
    // re2 is the redaction gate every printed hit passes (issue #10); its rules compile only when used.
    expect(heavyIn(r.urls).filter((h) => h !== 're2')).toEqual([]);
    expect(r.urls.some((u) => u.includes('/node_modules/better-sqlite3/'))).toBe(true);
  });
});

describe('lazy command entries', () => {
  it('name and summary of each entry are those of the command its module exports', async () => {
    for (const entry of commands) {
      const cmd = 'load' in entry ? await entry.load() : entry;
      expect(cmd.name).toBe(entry.name);
      expect(cmd.summary).toBe(entry.summary);
    }
  });
});

describe('the bundle runs only while it matches its sources', () => {
  it('is fresh with matching sizes and mtimes, stale after an edit or a missing file, and off with CONTEXTPACK_CLI_SOURCES=1', () => {
    const root = tmp.make() + '/';
    mkdirSync(join(root, 'out/cli'), { recursive: true });
    writeTree(root, { 'src/a.ts': 'export const a = 1;\n' });
    const t = new Date('2026-01-01T00:00:00Z');
    utimesSync(join(root, 'src/a.ts'), t, t);
    const manifest = (size: number, mtimeMs: number, path = 'src/a.ts') => writeFileSync(join(root, 'out/cli/manifest.json'), JSON.stringify({ entry: 'contextpack.mjs', files: [{ path, size, mtimeMs }] }));
    manifest(20, t.getTime());
    expect(freshBundle(root, {})).toBe(`${root}out/cli/contextpack.mjs`);
    expect(freshBundle(root, { CONTEXTPACK_CLI_SOURCES: '1' })).toBeNull();
    manifest(21, t.getTime());
    expect(freshBundle(root, {})).toBeNull();
    manifest(20, t.getTime() + 1);
    expect(freshBundle(root, {})).toBeNull();
    manifest(20, t.getTime(), 'src/gone.ts');
    expect(freshBundle(root, {})).toBeNull();
    writeFileSync(join(root, 'out/cli/manifest.json'), '{ not json');
    expect(freshBundle(root, {})).toBeNull();
  });
});
