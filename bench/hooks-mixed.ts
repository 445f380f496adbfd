// npm run bench:hooks-mixed [-- --seconds 150 --sessions 24]
// Issue #33's target, with real processes on one project: `contextpack serve` (an HTTP client writing memories and
// reading stats), `contextpack watch` (files of the ingested folder edited every second), an MCP client (the official
// SDK over stdio: remember + stats) and N agent sessions whose hooks run as the agent runs them (`sh -c`, payload on
// stdin, the writing events detached): PreCompact twice per session with the transcript grown between, Stop, and
// SessionEnd at the end. Afterwards: every capture stored (0 lost), PRAGMA integrity_check ok, no duplicate rows.
// Exit code 1 when a capture was lost.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
// @ts-expect-error plain JavaScript module without type declarations
import { freshBundle } from '../src/main/cli/fresh-bundle.mjs';
import { inflightPath } from '../src/main/core/hooks/inflight.ts';
import { spooledCaptures } from '../src/main/core/hooks/spool.ts';
import { generateLongTranscript } from '../src/main/core/session/testing/long-transcript.ts';
import { openStore } from '../src/main/core/store/index.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '150' }, sessions: { type: 'string', default: '24' }, keep: { type: 'boolean', default: false } } });
const SECONDS = Number(values.seconds);
const SESSIONS = Number(values.sessions);
const bin = fileURLToPath(new URL('../src/main/cli/bin.mjs', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const tmp = mkdtempSync(join(tmpdir(), 'cp-bench-mixed-'));
const home = join(tmp, 'home');
const env = { ...process.env, CONTEXTPACK_HOME: home, CONTEXTPACK_MODELS_DIR: join(tmp, 'models') };
mkdirSync(env.CONTEXTPACK_MODELS_DIR, { recursive: true });
const cli = (args: string[]) => {
  const r = spawnSync(process.execPath, [bin, ...args], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`contextpack ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
};
console.log(`CLI: ${freshBundle(fileURLToPath(new URL('../', import.meta.url))) && !process.env.CONTEXTPACK_CLI_SOURCES ? 'the bundle in out/cli' : 'the TypeScript sources (run `npm run build:cli` for the bundle)'}`);

// The project: a folder of sources, ingested.
const repo = join(tmp, 'repo');
for (let i = 0; i < 30; i++) {
  mkdirSync(join(repo, 'src'), { recursive: true });
  writeFileSync(join(repo, 'src', `mod${i}.ts`), `// module ${i}\nexport function handler${i}(order: number): number {\n  return order * ${i + 1};\n}\n`);
}
cli(['projects', 'new', 'mixed']);
cli(['ingest', repo, '--project', 'mixed']);
const db = join(home, 'projects', 'mixed', 'contextpack.db');

// Sessions: a Claude Code transcript each, 4k–16k tokens, their own session id.
const sessions = Array.from({ length: SESSIONS }, (_, i) => {
  const id = `mixed-${String(i).padStart(2, '0')}-${Math.random().toString(36).slice(2, 8)}`;
  const file = join(tmp, 'sessions', `${id}.jsonl`);
  mkdirSync(join(tmp, 'sessions'), { recursive: true });
  writeFileSync(file, generateLongTranscript({ tokens: 4_000 + (i % 7) * 2_000, seed: i + 1 }).text.replaceAll('"bench-session"', JSON.stringify(id)));
  return { id, file };
});
const grow = (s: { id: string; file: string }, n: number) =>
  appendFileSync(s.file, `${JSON.stringify({ type: 'user', sessionId: s.id, uuid: `grow-${n}`, timestamp: new Date().toISOString(), message: { role: 'user', content: `Step ${n}: also cover the refund path of handler${n % 30}.` } })}\n`);

const failures = { serve: 0, mcp: 0, hooks: 0 };
const counts = { serve: 0, mcp: 0, watchEdits: 0, preCompact: 0, stop: 0, sessionEnd: 0 };
const children: ChildProcess[] = [];

// serve, with its per-run token from the URL it prints.
// The workbench's files are not what is measured: an empty renderer folder stands in when none is built.
const renderer = join(tmp, 'renderer');
mkdirSync(renderer, { recursive: true });
writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>bench</title>');
const serve = spawn(process.execPath, [bin, 'serve', '--project', 'mixed', '--port', '0', '--renderer', renderer], { env, stdio: ['ignore', 'pipe', 'pipe'] });
children.push(serve);
const url = await new Promise<string>((resolve, reject) => {
  let out = '';
  serve.stdout!.on('data', (d) => {
    out += d;
    const m = /open (http:\/\/[^\s#]+)#token=(\S+)/.exec(out);
    if (m) resolve(`${m[1]}|${m[2]}`);
  });
  serve.on('exit', (c) => reject(new Error(`serve exited ${c}`)));
});
const [base, token] = url.split('|') as [string, string];
const api = async (method: string, input: unknown) => {
  const r = await fetch(`${base.replace(/\/$/, '')}/api/${method}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-contextpack-token': token }, body: JSON.stringify(input) });
  const body = (await r.json()) as { ok: boolean };
  if (!body.ok) throw new Error(JSON.stringify(body));
};

const watch = spawn(process.execPath, [bin, 'watch', '--project', 'mixed', '--no-embed'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
children.push(watch);

const mcp = new Client({ name: 'bench-hooks-mixed', version: '0' });
await mcp.connect(new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', '--project', 'mixed', '--tools', 'all'], env: env as Record<string, string>, stderr: 'ignore' }));

const t0 = Date.now();
const until = t0 + SECONDS * 1000;
const loops: Promise<void>[] = [];
loops.push(
  (async () => {
    for (let n = 0; Date.now() < until; n++) {
      try {
        await api('memory.create', { type: 'learning', title: `serve learning ${n}`, content: { lesson: `lesson ${n} written over HTTP while hooks run` } });
        await api('stats.get', {});
        counts.serve++;
      } catch (err) {
        failures.serve++;
        if (failures.serve <= 3) console.error(`serve: ${(err as Error).message}`);
      }
      await sleep(400);
    }
  })(),
);
loops.push(
  (async () => {
    for (let n = 0; Date.now() < until; n++) {
      try {
        const r = (await mcp.callTool({ name: 'remember', arguments: { type: 'learning', title: `mcp learning ${n}`, content: { lesson: `lesson ${n} remembered over MCP while hooks run` } } })) as { isError?: boolean; content: { text?: string }[] };
        if (r.isError) throw new Error(r.content[0]?.text ?? 'error');
        const s = (await mcp.callTool({ name: 'stats', arguments: {} })) as { isError?: boolean };
        if (s.isError) throw new Error('stats failed');
        counts.mcp++;
      } catch (err) {
        failures.mcp++;
        if (failures.mcp <= 3) console.error(`mcp: ${(err as Error).message}`);
      }
      await sleep(500);
    }
  })(),
);
loops.push(
  (async () => {
    for (let n = 0; Date.now() < until; n++) {
      appendFileSync(join(repo, 'src', `mod${n % 30}.ts`), `export const edit${n} = ${n};\n`);
      counts.watchEdits++;
      await sleep(1000);
    }
  })(),
);

/** A hook as the agent runs it: `sh -c`, payload on stdin, returns when the hook process exits (its worker runs on). */
const hook = (event: string, s: { id: string; file: string }, extra: object) =>
  new Promise<void>((resolve) => {
    const child = spawn('sh', ['-c', `"${process.execPath}" "${bin}" hook ${event}`], { env, cwd: repo, stdio: ['pipe', 'ignore', 'ignore'] });
    child.stdin.end(JSON.stringify({ session_id: s.id, transcript_path: s.file, cwd: repo, hook_event_name: event, ...extra }));
    child.on('close', () => resolve());
  });

// Each session: PreCompact at two moments (the transcript grown before each), a Stop between, SessionEnd at the end.
const span = Math.max(10, SECONDS - 15) * 1000;
loops.push(
  ...sessions.map(async (s, i) => {
    const at = (f: number) => t0 + 2_000 + ((i / SESSIONS) * 0.4 + f) * span * 0.9;
    await sleep(Math.max(0, at(0.05) - Date.now()));
    grow(s, i);
    await hook('PreCompact', s, { trigger: 'auto' });
    counts.preCompact++;
    await sleep(Math.max(0, at(0.3) - Date.now()));
    grow(s, i + 100);
    await hook('Stop', s, {});
    counts.stop++;
    await sleep(Math.max(0, at(0.55) - Date.now()));
    grow(s, i + 200);
    await hook('PreCompact', s, { trigger: 'manual' });
    counts.preCompact++;
    await sleep(Math.max(0, Math.min(until - 3_000, at(0.6)) - Date.now()));
    grow(s, i + 300);
    await hook('SessionEnd', s, { reason: 'logout' });
    counts.sessionEnd++;
  }),
);
await Promise.all(loops);
const loadEnd = Date.now();

// The detached workers finish after the run: wait until no marker is left and nothing waits in the spool.
const busy = () => sessions.some((s) => ['PreCompact', 'Stop', 'SessionEnd'].some((e) => existsSync(inflightPath(db, e as 'PreCompact', s.id))));
for (let i = 0; i < 1200 && (busy() || spooledCaptures(db).some((c) => c.state === 'waiting')); i++) await sleep(250);
const settleMs = Date.now() - loadEnd;
await mcp.close();
for (const c of children) c.kill('SIGINT');
await sleep(1500);

const spool = spooledCaptures(db);
const store = openStore(db, { loadVec: false, readonly: true });
const n = (sql: string, ...args: unknown[]) => (store.db.prepare(sql).get(...args) as { n: number }).n;
const handoffsBySession = new Map<string, number>();
for (const r of store.db.prepare("SELECT bytes FROM packet_snapshots WHERE template = 'handoff-continuation'").all() as { bytes: Buffer }[]) {
  const id = (JSON.parse(r.bytes.toString('utf8')) as { source: { session_id: string } }).source.session_id;
  handoffsBySession.set(id, (handoffsBySession.get(id) ?? 0) + 1);
}
const ended = store.db.prepare('SELECT id, count(*) AS n FROM agent_sessions GROUP BY id').all() as { id: string; n: number }[];
const integrity = (store.db.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check).join('; ');
const dupMemories = n("SELECT count(*) AS n FROM (SELECT title FROM memories WHERE type = 'learning' AND (title LIKE 'serve learning %' OR title LIKE 'mcp learning %') GROUP BY title HAVING count(*) > 1)");
const serveRows = n("SELECT count(*) AS n FROM memories WHERE title LIKE 'serve learning %'");
const mcpRows = n("SELECT count(*) AS n FROM memories WHERE title LIKE 'mcp learning %'");
store.close();

const logFile = join(home, 'projects', 'mixed', 'contextpack-data', 'logs', 'hooks.jsonl');
const log = existsSync(logFile) ? readFileSync(logFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { ok: boolean; event: string; message: string }) : [];
failures.hooks = log.filter((l) => !l.ok && !/^spooled/.test(l.message)).length;
const lostHandoffs = sessions.reduce((a, s) => a + Math.max(0, 2 - (handoffsBySession.get(s.id) ?? 0)), 0);
const lostEnds = sessions.filter((s) => !ended.some((e) => e.id === s.id)).length;
const dupSessions = ended.filter((e) => e.n > 1).length;
console.log(
  `load: ${SECONDS} s, ${SESSIONS} sessions; serve ${counts.serve} write+stats rounds (${failures.serve} failed, ${serveRows} memories stored), MCP ${counts.mcp} remember+stats rounds (${failures.mcp} failed, ${mcpRows} stored), ` +
    `${counts.watchEdits} file edits under watch; hooks: ${counts.preCompact} PreCompact, ${counts.stop} Stop, ${counts.sessionEnd} SessionEnd`,
);
console.log(`workers settled ${(settleMs / 1000).toFixed(1)} s after the load; spooled on the way: ${log.filter((l) => /^spooled/.test(l.message)).length}, stored from the spool: ${log.filter((l) => /stored a spooled capture/.test(l.message)).length}; still waiting ${spool.filter((c) => c.state === 'waiting').length}, failed ${spool.filter((c) => c.state === 'failed').length}`);
console.log(`captures lost: ${lostHandoffs} of ${counts.preCompact} PreCompact handoffs, ${lostEnds} of ${SESSIONS} session ends; hook errors logged: ${failures.hooks}`);
console.log(`integrity_check: ${integrity}; duplicates: ${dupSessions} sessions recorded twice, ${dupMemories} memories stored twice`);
const ok = lostHandoffs === 0 && lostEnds === 0 && integrity === 'ok' && dupSessions === 0 && dupMemories === 0 && failures.serve === 0 && failures.mcp === 0;
console.log(ok ? 'PASS: 0 captures lost, integrity ok, no duplicates' : 'FAIL');
if (!values.keep) rmSync(tmp, { recursive: true, force: true });
else console.log(`kept: ${tmp}`);
process.exit(ok ? 0 : 1);
