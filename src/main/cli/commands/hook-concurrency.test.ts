// Issue #33 item 1 with real processes: hooks beside other writers of the same project lose no capture. A `memory add`
// loop runs beside several PreCompact hooks (each `sh -c` as the agent runs it, its worker detached); a store locked
// past the hook's deadline gets the capture spooled, reported by `stats` and SessionStart, and stored by the next
// command. Also the hook's bounds: a FIFO as the transcript, a huge stdin.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { inflightPath } from '../../core/hooks/inflight.ts';
import { spooledCaptures } from '../../core/hooks/spool.ts';
import { openStore } from '../../core/store/index.ts';
import { tempDirs } from '../../core/testing/tmp.ts';

const tmp = tempDirs('cp-hookc-');
afterAll(() => tmp.cleanup());

const bin = fileURLToPath(new URL('../bin.mjs', import.meta.url));
const FIXTURE = new URL('../../core/hooks/fixtures/ratelimit.claude.jsonl', import.meta.url);
const SESSION = '3b1f6c0e-9d2a-4e57-8a41-5f0c2d7e9b13';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function setup() {
  const home = tmp.make();
  const work = tmp.make();
  const env = { ...process.env, CONTEXTPACK_HOME: home, CONTEXTPACK_MODELS_DIR: join(home, 'models') };
  const db = join(home, 'contextpack.db');
  const log = () => (existsSync(join(home, 'contextpack-data', 'logs', 'hooks.jsonl')) ? readFileSync(join(home, 'contextpack-data', 'logs', 'hooks.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { event: string; ok: boolean; message: string; session_id: string }) : []);
  /** One session's transcript (the fixture under another session id). */
  const session = (id: string) => {
    const file = join(work, `${id}.jsonl`);
    writeFileSync(file, readFileSync(FIXTURE, 'utf8').replaceAll(SESSION, id));
    return file;
  };
  const cli = (args: string[], input = '', extraEnv: Record<string, string> = {}) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [bin, ...args], { env: { ...env, ...extraEnv } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.stdin.on('error', () => {});
      child.stdin.end(input);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  /** The hook as the agent runs it: a shell command, payload on stdin. */
  const hook = (event: string, id: string, transcript: string, extra: object = {}, extraEnv: Record<string, string> = {}) =>
    new Promise<number | null>((resolve) => {
      const child = spawn('sh', ['-c', `"${process.execPath}" "${bin}" hook ${event}`], { env: { ...env, ...extraEnv }, stdio: ['pipe', 'ignore', 'ignore'] });
      child.stdin.end(JSON.stringify({ session_id: id, transcript_path: transcript, cwd: work, hook_event_name: event, ...extra }));
      child.on('close', resolve);
    });
  const counts = () => {
    const s = openStore(db, { loadVec: false, readonly: true });
    try {
      const n = (sql: string) => (s.db.prepare(sql).get() as { n: number }).n;
      return {
        handoffs: n("SELECT count(*) AS n FROM packet_snapshots WHERE template LIKE 'handoff-%'"),
        learnings: n("SELECT count(*) AS n FROM memories WHERE type = 'learning'"),
        integrity: (s.db.pragma('integrity_check') as { integrity_check: string }[])[0]!.integrity_check,
      };
    } finally {
      s.close();
    }
  };
  return { home, env, db, log, session, cli, hook, counts };
}

describe('hooks beside other writers (real processes)', () => {
  it('a memory add loop beside four PreCompact hooks: every handoff and every memory is stored, once', async () => {
    const { db, log, session, cli, hook, counts } = setup();
    expect((await cli(['memory', 'add', '--type', 'learning', '--title', 'seed', '--set', 'lesson=first'])).code).toBe(0);
    const ids = ['sess-a', 'sess-b', 'sess-c', 'sess-d'];
    let adds = 0;
    let addFailures = 0;
    let hooksDone = false;
    const loop = (async () => {
      while (!hooksDone || adds < 6) {
        const r = await cli(['memory', 'add', '--type', 'learning', '--title', `loop ${adds}`, '--set', `lesson=loop lesson number ${adds}`]);
        if (r.code !== 0) addFailures++;
        adds++;
      }
    })();
    await sleep(300);
    const codes = await Promise.all(ids.map((id) => hook('PreCompact', id, session(id), { trigger: 'auto' })));
    expect(codes).toEqual([0, 0, 0, 0]);
    // The workers are detached: wait until each has logged its run and removed its marker.
    for (let i = 0; i < 600; i++) {
      const done = ids.every((id) => log().some((l) => l.session_id === id && l.event === 'PreCompact') && !existsSync(inflightPath(db, 'PreCompact', id)));
      if (done) break;
      await sleep(100);
    }
    hooksDone = true;
    await loop;
    const pre = log().filter((l) => l.event === 'PreCompact');
    expect(pre.filter((l) => !l.ok)).toEqual([]);
    expect(pre.filter((l) => /^stored continuation handoff/.test(l.message))).toHaveLength(4);
    expect(addFailures).toBe(0);
    expect(counts()).toEqual({ handoffs: 4, learnings: adds + 1, integrity: 'ok' });
    expect(spooledCaptures(db)).toEqual([]);
  }, 180_000);

  it('a store locked past the deadline: the capture is spooled, stats and SessionStart say so, the next command stores it', async () => {
    const { db, log, session, cli, counts } = setup();
    expect((await cli(['memory', 'add', '--type', 'learning', '--title', 'seed', '--set', 'lesson=first'])).code).toBe(0);
    const transcript = session('sess-locked');
    // Another process holds the write lock for 4 s.
    const holder = spawn(process.execPath, ['-e', `const D=require('better-sqlite3');const d=new D(${JSON.stringify(db)});d.exec('BEGIN IMMEDIATE');d.prepare("INSERT INTO meta(key,value) VALUES('holder','x')").run();process.stdout.write('locked\\n');Atomics.wait(new Int32Array(new SharedArrayBuffer(4)),0,0,4000);d.exec('COMMIT');d.close();`], { cwd: fileURLToPath(new URL('../../../../', import.meta.url)) });
    const released = new Promise((r) => holder.on('close', r));
    await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
    const payload = JSON.stringify({ session_id: 'sess-locked', transcript_path: transcript, cwd: '/nowhere', hook_event_name: 'PreCompact', trigger: 'auto' });
    const pre = await cli(['hook', 'PreCompact', '--foreground'], payload, { CONTEXTPACK_HOOK_DEADLINE_MS: '300' });
    expect(pre.code).toBe(0);
    expect(log().at(-1)).toMatchObject({ event: 'PreCompact', ok: false });
    expect(log().at(-1)!.message).toMatch(/^spooled \(kept on disk, stored by the next hook or command\): the store stayed busy/);
    expect(spooledCaptures(db)).toMatchObject([{ event: 'PreCompact', session_id: 'sess-locked', state: 'waiting' }]);
    // The agent's transcript may go away: the spool kept its bytes.
    writeFileSync(transcript, '');

    const stats = await cli(['stats']);
    expect(stats.stdout).toMatch(/hook captures: 1 waiting to be stored/);
    const start = await cli(['hook', 'SessionStart'], JSON.stringify({ session_id: 'sess-locked', transcript_path: transcript, cwd: '/nowhere', hook_event_name: 'SessionStart', source: 'startup' }));
    expect(start.stdout).toMatch(/^> ContextPack: hook captures: 1 waiting to be stored/);

    await released;
    const add = await cli(['memory', 'add', '--type', 'learning', '--title', 'after', '--set', 'lesson=after the lock']);
    expect(add.code).toBe(0);
    // The SessionStart above may have started a drain of its own: one of the two stores it, never both.
    for (let i = 0; i < 100 && spooledCaptures(db).length > 0; i++) await sleep(100);
    expect(spooledCaptures(db)).toEqual([]);
    expect(counts()).toMatchObject({ handoffs: 1, integrity: 'ok' });
    expect(log().some((l) => l.ok && /stored a spooled capture \(captured .*\): stored continuation handoff/.test(l.message))).toBe(true);
    expect((await cli(['stats'])).stdout).not.toMatch(/hook captures/);
  }, 120_000);

  it('a FIFO as transcript_path is refused at once; a huge stdin is refused without being read', async () => {
    const { home, db, log, cli } = setup();
    const fifo = join(tmp.make(), 'session.jsonl');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const t0 = Date.now();
    for (const flags of [[], ['--foreground']]) {
      const r = await cli(['hook', 'PreCompact', ...flags], JSON.stringify({ session_id: 'fifo', transcript_path: fifo, hook_event_name: 'PreCompact' }));
      expect(r.code).toBe(0);
      expect(log().at(-1)).toMatchObject({ ok: false, event: 'PreCompact' });
      expect(log().at(-1)!.message).toMatch(/a FIFO, not a regular file \(refused\)$/);
    }
    expect(Date.now() - t0).toBeLessThan(20_000);
    // The capture that could not be made is reported as failed, not only logged.
    expect(spooledCaptures(db).filter((c) => c.state === 'failed')).toHaveLength(2);
    expect((await cli(['stats'])).stdout).toMatch(/hook captures: 2 failed \(latest: PreCompact: transcript .*a FIFO/);
    // Read, then forgotten on request.
    expect((await cli(['hook', 'drain', '--clear-failed'])).stdout).toBe('removed 2 failed capture(s)\n');
    expect((await cli(['stats'])).stdout).not.toMatch(/hook captures/);
    // 64 MiB on stdin: refused at the payload cap, not after buffering it all.
    const big = Buffer.alloc(64 << 20, 0x20);
    const child = spawn(process.execPath, [bin, 'hook', 'SessionStart'], { env: { ...process.env, CONTEXTPACK_HOME: home } });
    child.stdin.on('error', () => {});
    child.stdin.end(big);
    const code = await new Promise((r) => child.on('close', r));
    expect(code).toBe(0);
    expect(log().at(-1)!.message).toMatch(/hook payload: larger than 1048576 bytes/);
  }, 60_000);
});
