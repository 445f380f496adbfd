// The flywheel end to end (#27): a recorded Claude Code session goes PreCompact → SessionStart(compact) →
// SessionEnd through `contextpack hook`, as Claude Code would call it (payload on stdin), against real SQLite stores.
import { spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { clearInflight, inflightPath, markInflight } from '../../core/hooks/index.ts';
import { spooledCaptures } from '../../core/hooks/spool.ts';
import { searchMemories } from '../../core/memory/index.ts';
import { migrations, openStore, setMeta } from '../../core/store/index.ts';
import { tempDirs, writeTree } from '../../core/testing/tmp.ts';
import { runCliCaptured } from '../testing/run-cli.ts';

const tmp = tempDirs('cp-hook-');
afterAll(() => tmp.cleanup());

const FIXTURE = new URL('../../core/hooks/fixtures/ratelimit.claude.jsonl', import.meta.url);
const SESSION = '3b1f6c0e-9d2a-4e57-8a41-5f0c2d7e9b13';
const AWS_ID = 'AKIAZ4QW7TRB2XN5PLMK';
const AWS_SECRET = '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';

/** A ContextPack home with a project `shop` that has ingested the repository the agent works in. */
async function setup() {
  const home = tmp.make();
  const work = tmp.make();
  const repo = join(work, 'shop-api');
  writeTree(repo, { 'README.md': '# Shop API\n\nExpress service: auth, orders, payments.\n' });
  const env = { CONTEXTPACK_HOME: home };
  expect((await runCliCaptured(['projects', 'new', 'shop'], { env })).code).toBe(0);
  expect((await runCliCaptured(['ingest', repo, '--project', 'shop'], { env })).code).toBe(0);
  const transcript = join(work, `${SESSION}.jsonl`);
  // The session ran in the repository, as its transcript records (the hook checks the payload's cwd against it).
  writeFileSync(transcript, readFileSync(FIXTURE, 'utf8').replaceAll('"cwd": "/home/dev/shop-api"', `"cwd": ${JSON.stringify(repo)}`));
  const db = join(home, 'projects', 'shop', 'contextpack.db');
  // In-process and in the foreground: the detached path (the default) is tested with real processes below.
  const hook = (event: string, extra: object, cwd = join(repo, 'src'), flags = ['--foreground']) =>
    runCliCaptured(['hook', event, ...flags], { env, stdin: JSON.stringify({ session_id: SESSION, transcript_path: transcript, cwd, hook_event_name: event, ...extra }) });
  const log = () => (existsSync(join(home, 'projects', 'shop', 'contextpack-data', 'logs', 'hooks.jsonl')) ? readFileSync(join(home, 'projects', 'shop', 'contextpack-data', 'logs', 'hooks.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)) : []);
  return { home, repo, env, transcript, db, hook, log };
}

function counts(dbPath: string) {
  const s = openStore(dbPath, { loadVec: false, readonly: true });
  try {
    const n = (sql: string) => (s.db.prepare(sql).get() as { n: number }).n;
    return {
      handoffs: n("SELECT count(*) AS n FROM packet_snapshots WHERE template LIKE 'handoff-%'"),
      memories: n('SELECT count(*) AS n FROM memories'),
      sessions: n('SELECT count(*) AS n FROM agent_sessions'),
    };
  } finally {
    s.close();
  }
}

/** Every byte the project keeps: the database (and its WAL) and the data folder's logs. */
function everyByte(dir: string): string {
  let all = '';
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) all += readFileSync(join(e.parentPath, e.name)).toString('latin1');
  }
  return all;
}

describe('contextpack hook: PreCompact → SessionStart(compact) → SessionEnd', () => {
  it('saves the session before compaction, hands it back after, records what it learned; twice changes nothing', async () => {
    const { home, db, hook, log, env } = await setup();

    const pre = await hook('PreCompact', { trigger: 'auto' });
    expect(pre).toMatchObject({ code: 0, stdout: '' });
    // The project came from the agent's cwd (inside the ingested repository), not from a flag.
    const stored = log().at(-1);
    expect(stored).toMatchObject({ event: 'PreCompact', project: 'shop', ok: true, session_id: SESSION });
    expect(stored.message).toMatch(/^stored continuation handoff [0-9a-f]{16} /);
    const hash16 = /handoff ([0-9a-f]{16})/.exec(stored.message)![1]!;
    expect(counts(db)).toMatchObject({ handoffs: 1, sessions: 0 });
    // Replayable: the stored package verifies by hash.
    const replay = await runCliCaptured(['replay', hash16, '--project', 'shop'], { env });
    expect(replay.code).toBe(0);
    expect(replay.stdout).toContain('Add rate limiting to POST /login');

    const start = await hook('SessionStart', { source: 'compact' });
    expect(start.code).toBe(0);
    const ctx = start.stdout;
    expect(ctx).toContain(`ContextPack handoff of session ${SESSION}`);
    expect(ctx).toContain(hash16);
    // The current task and what remains, as the transcript states them; the agent's last report quoted as such.
    const task = ctx.slice(ctx.indexOf('## Task'));
    expect(task.split('\n')[1]).toMatch(/^> .*Add rate limiting to POST \/login/);
    const next = ctx.slice(ctx.indexOf('## What remains')).split('\n## ')[0]!;
    expect(next).toContain('Retry-After');
    expect(next).toContain('429 body matches the error schema');
    expect(next).toContain('docs/api.md');
    expect(ctx).toContain('Use express-rate-limit with a Redis store');
    expect(ctx.length).toBeLessThanOrEqual(9_500);
    // The default budget: 1,500 tokens at 4 characters a token.
    expect(ctx.length / 4).toBeLessThanOrEqual(1_500);
    expect(ctx).toMatch(/## The agent's last report \(turn \d+, line \d+\)\n\[quoted transcript/);

    const end = await hook('SessionEnd', { reason: 'prompt_input_exit' });
    expect(end).toMatchObject({ code: 0, stdout: '' });
    expect(log().at(-1)).toMatchObject({ event: 'SessionEnd', ok: true });
    const s = openStore(db, { loadVec: false, readonly: true });
    const saved = searchMemories(s.db, { limit: 50 }).map((h) => [h.memory.memory_type, h.memory.title] as const);
    const sessions = s.db.prepare('SELECT id, headline, summary FROM agent_sessions').all() as { id: string; headline: string; summary: string }[];
    s.close();
    // Real findings, each once: the decision, the open TODO, the lesson, the task state; no tool output, no noise.
    const found = saved.filter(([type]) => type !== 'state');
    expect(found.map(([type]) => type).sort()).toEqual(['decision', 'issue', 'learning']);
    expect(found).toContainEqual(['decision', 'Use express-rate-limit with a Redis store for the login limiter']);
    expect(found.find(([t]) => t === 'issue')![1]).toMatch(/^TODO: the 429 response body is Express's default text/);
    expect(found.find(([t]) => t === 'learning')![1]).toMatch(/^express-rate-limit keys on req\.ip/);
    expect(saved.filter(([t]) => t === 'state').length).toBeGreaterThanOrEqual(1);
    // The summary HISTORY shows, with provenance (transcript line) and without the home folder.
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.id).toBe(SESSION);
    expect(sessions[0]!.headline).toMatch(/^claude-code: .+ — \d+ done, 1 decision/);
    expect(JSON.parse(sessions[0]!.summary).decisions_made[0].source).toMatch(/\.jsonl:\d+$/);

    // Nothing secret left the gate: not in the context printed, nor anywhere in the project's files.
    for (const text of [pre.stdout, pre.stderr, start.stdout, end.stdout, end.stderr, everyByte(join(home, 'projects', 'shop'))]) {
      expect(text).not.toContain(AWS_ID);
      expect(text).not.toContain(AWS_SECRET);
    }

    // Idempotent: the same transcript again gives the same hash and adds nothing.
    const before = counts(db);
    expect((await hook('PreCompact', { trigger: 'auto' })).code).toBe(0);
    expect(log().at(-1).message).toContain(`already stored continuation handoff ${hash16}`);
    expect((await hook('SessionEnd', { reason: 'other' })).code).toBe(0);
    expect(log().at(-1).message).toMatch(/^already recorded session /);
    expect(counts(db)).toEqual(before);
    // Without the record of what was captured, the run builds again and finds it all stored: still nothing added.
    const w = openStore(db, { loadVec: false });
    expect(w.db.prepare("DELETE FROM meta WHERE key LIKE 'hooks.%'").run().changes).toBe(2);
    w.close();
    expect((await hook('PreCompact', { trigger: 'auto' })).code).toBe(0);
    expect(log().at(-1).message).toMatch(new RegExp(`^already stored continuation handoff ${hash16} \\(`));
    expect((await hook('SessionEnd', { reason: 'other' })).code).toBe(0);
    expect(log().at(-1).message).toMatch(/^already recorded session .*saved 0 memories$/);
    expect(counts(db)).toEqual(before);
  });

  it('a fresh start prints the rehydration bundle and the MCP pointer; resume without a handoff falls back to it', async () => {
    const { hook } = await setup();
    await hook('SessionEnd', {});
    const start = await hook('SessionStart', { source: 'startup' });
    expect(start.code).toBe(0);
    expect(start.stdout).toContain('# PROJECT MEMORY');
    // The state the session ended in and what it learned (decisions older than rehydration's 30 days are left out).
    expect(start.stdout).toContain('Document the login limit in docs/api.md');
    expect(start.stdout).toContain("express-rate-limit keys on req.ip");
    expect(start.stdout).toContain('contextpack mcp --project shop');
    const resume = await hook('SessionStart', { source: 'resume', session_id: 'another-session' });
    expect(resume.stdout).toContain('# PROJECT MEMORY');
    // Codex's form: the documented hookSpecificOutput, the context in additionalContext.
    const json = await hook('SessionStart', { source: 'startup' }, undefined, ['--format', 'json']);
    expect(JSON.parse(json.stdout).hookSpecificOutput).toEqual({ hookEventName: 'SessionStart', additionalContext: start.stdout });
  });

  it("a second session of the project is handed its own task, not the first one's", async () => {
    const { hook, env, repo } = await setup();
    await hook('PreCompact', {});
    const other = join(tmp.make(), 'other.jsonl');
    const line = (type: string, content: unknown, ts: string) => JSON.stringify({ type, sessionId: 'second-session', timestamp: ts, message: { role: type, content } });
    writeFileSync(other, [line('user', 'The checkout e2e test is flaky on CI: find out why and make it deterministic.', '2026-03-05T09:00:00Z'), line('assistant', 'Looking at the checkout test and its fixtures first.', '2026-03-05T09:00:20Z')].join('\n') + '\n');
    const payload = (event: string, extra: object) => JSON.stringify({ session_id: 'second-session', transcript_path: other, cwd: repo, hook_event_name: event, ...extra });
    expect((await runCliCaptured(['hook', 'PreCompact', '--foreground'], { env, stdin: payload('PreCompact', {}) })).code).toBe(0);
    const start = await runCliCaptured(['hook', 'SessionStart'], { env, stdin: payload('SessionStart', { source: 'compact' }) });
    expect(start.stdout).toContain('ContextPack handoff of session second-session');
    const task = start.stdout.slice(start.stdout.indexOf('## Task')).split('\n')[1];
    expect(task).toContain('The checkout e2e test is flaky on CI');
    expect(start.stdout).not.toContain('Add rate limiting');
  });

  it('outside every remembered root the project comes from --project', async () => {
    const { env, transcript } = await setup();
    const r = await runCliCaptured(['hook', 'SessionStart', '--project', 'shop'], { env, stdin: JSON.stringify({ session_id: 'x', transcript_path: transcript, cwd: tmp.make(), hook_event_name: 'SessionStart', source: 'startup' }) });
    expect(r.stdout).toContain('contextpack mcp --project shop');
  });
});

describe('contextpack hook never blocks the agent', () => {
  it('a malformed payload, a wrong field or a missing transcript: exit 0, the reason logged, nothing written', async () => {
    const { env, hook, log, db, transcript } = await setup();
    const bad = await runCliCaptured(['hook', 'PreCompact', '--project', 'shop'], { env, stdin: '{"session_id": "abc", "transcript_path": ' });
    expect(bad).toMatchObject({ code: 0, stdout: '' });
    expect(bad.stderr).toMatch(/hook payload: not JSON/);
    expect(log().at(-1)).toMatchObject({ ok: false, event: 'PreCompact' });

    const wrongType = await runCliCaptured(['hook', 'SessionEnd', '--project', 'shop'], { env, stdin: JSON.stringify({ session_id: 42, transcript_path: transcript }) });
    expect(wrongType.code).toBe(0);
    expect(log().at(-1).message).toBe('hook payload: "session_id" must be a string, got number');

    const mismatch = await runCliCaptured(['hook', 'PreCompact', '--project', 'shop'], { env, stdin: JSON.stringify({ hook_event_name: 'SessionEnd' }) });
    expect(mismatch.code).toBe(0);
    expect(log().at(-1).message).toBe('hook payload: "hook_event_name" is SessionEnd, but the command was called for PreCompact');

    // Checked before any worker is started, and again by the worker.
    const missing = await hook('PreCompact', { transcript_path: join(tmp.make(), 'gone.jsonl') }, undefined, []);
    expect(missing).toMatchObject({ code: 0, stdout: '' });
    expect(log().at(-1).message).toMatch(/^transcript .*gone\.jsonl: ENOENT$/);
    await hook('PreCompact', { transcript_path: join(tmp.make(), 'gone.jsonl') });
    expect(missing).toMatchObject({ code: 0, stdout: '' });
    expect(log().at(-1)).toMatchObject({ ok: false, project: 'shop' });
    expect(log().at(-1).message).toMatch(/^transcript .*gone\.jsonl: ENOENT$/);

    const noPath = await hook('SessionEnd', { transcript_path: null }, undefined, []);
    expect(noPath.code).toBe(0);
    expect(log().at(-1).message).toMatch(/"transcript_path" is missing/);

    const notTranscript = join(tmp.make(), 'notes.jsonl');
    writeFileSync(notTranscript, '{"hello": "world"}\n');
    expect((await hook('PreCompact', { transcript_path: notTranscript })).code).toBe(0);
    expect(log().at(-1).message).toMatch(/not a recognized transcript/);

    // A worker still recording this session: the next Stop does not start another; it waits in the spool behind it.
    markInflight(inflightPath(db, 'Stop', SESSION), process.pid);
    expect((await hook('Stop', {}, undefined, [])).code).toBe(0);
    expect(log().at(-1)).toMatchObject({ ok: true, event: 'Stop', message: 'queued: a Stop worker for this session is still running; it stores this capture next' });
    expect(spooledCaptures(db)).toEqual(expect.arrayContaining([expect.objectContaining({ event: 'Stop', state: 'waiting', session_id: SESSION })]));
    clearInflight(inflightPath(db, 'Stop', SESSION));

    expect(counts(db)).toMatchObject({ handoffs: 0, sessions: 0 });
  });

  it('a store written by a newer build, or damaged: exit 0, logged, the file untouched', async () => {
    const { hook, log, db } = await setup();
    const s = openStore(db, { loadVec: false });
    s.db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(Math.max(...migrations.map((m) => m.version)) + 1000, 'from-the-future', '2030-01-01T00:00:00Z');
    s.close();
    const bytes = readFileSync(db);
    const r = await hook('PreCompact', { trigger: 'manual' });
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(log().at(-1)).toMatchObject({ ok: false, event: 'PreCompact' });
    expect(log().at(-1).message).toMatch(/written by a newer ContextPack/);
    expect(readFileSync(db).equals(bytes)).toBe(true);
    const start = await hook('SessionStart', { source: 'compact' });
    expect(start).toMatchObject({ code: 0, stdout: '' });

    const { hook: hook2, log: log2, db: db2 } = await setup();
    // Many meta rows written last, so the last page is a leaf of a table every open reads.
    const filled = openStore(db2, { loadVec: false });
    filled.db.transaction(() => {
      for (let i = 0; i < 3000; i++) setMeta(filled.db, `k${String(i).padStart(5, '0')}`, `value ${i} `.repeat(8));
    })();
    filled.close();
    // Overwrite the cell pointers of the last page: the file fails its integrity check and opens read-only.
    const b = readFileSync(db2);
    b.fill(0xff, b.length - 4096 + 8, b.length - 4096 + 40);
    writeFileSync(db2, b);
    const size = statSync(db2).size;
    const end = await hook2('SessionEnd', {});
    expect(end.code).toBe(0);
    expect(log2().at(-1)).toMatchObject({ ok: false, event: 'SessionEnd' });
    expect(log2().at(-1).message).toMatch(/wrote nothing$/);
    expect(readFileSync(db2).equals(b)).toBe(true);
    expect(statSync(db2).size).toBe(size);
  });
});

describe('contextpack hook as the agent runs it (separate processes, the writing events detached)', () => {
  const bin = fileURLToPath(new URL('../bin.mjs', import.meta.url));
  it('PreCompact returns before the handoff is built; SessionStart(compact) right after waits for it and prints it', async () => {
    const { env, repo, transcript, log, db } = await setup();
    const run = (event: string, extra: object) =>
      spawnSync(process.execPath, [bin, 'hook', event], { env: { ...process.env, ...env }, encoding: 'utf8', input: JSON.stringify({ session_id: SESSION, transcript_path: transcript, cwd: repo, hook_event_name: event, ...extra }) });
    const pre = run('PreCompact', { trigger: 'manual' });
    expect(pre.status).toBe(0);
    // The agent appends after the hook fired: the worker reads the session as it stood.
    appendFileSync(transcript, JSON.stringify({ type: 'user', sessionId: SESSION, timestamp: '2026-03-04T15:59:00Z', message: { role: 'user', content: 'TASK: something typed after the compaction started' } }) + '\n');
    const start = run('SessionStart', { source: 'compact' });
    expect(start.status).toBe(0);
    expect(start.stdout).toContain(`ContextPack handoff of session ${SESSION}`);
    expect(start.stdout).toContain('Add rate limiting to POST /login');
    expect(start.stdout).not.toContain('something typed after');
    expect(log().filter((l) => l.event === 'PreCompact' && l.ok)).toHaveLength(1);

    expect(run('SessionEnd', { reason: 'logout' }).status).toBe(0);
    const marker = inflightPath(db, 'SessionEnd', SESSION);
    for (let i = 0; i < 400 && existsSync(marker); i++) await new Promise((r) => setTimeout(r, 50));
    expect(log().at(-1)).toMatchObject({ event: 'SessionEnd', ok: true });
    expect(counts(db).sessions).toBe(1);
  });
});

describe('contextpack hook with Codex', () => {
  it('a Codex rollout: PreCompact stores its handoff, SessionStart --format json hands it back as additionalContext', async () => {
    const home = tmp.make();
    const rollout = join(tmp.make(), 'rollout-2026-01-20T13-00-53-0194a7c2-midtask.jsonl');
    copyFileSync(new URL('../../core/session/fixtures/midtask.codex.jsonl', import.meta.url), rollout);
    const env = { CONTEXTPACK_HOME: home };
    const payload = (event: string, extra: object) => JSON.stringify({ session_id: '0194a7c2-midtask', transcript_path: rollout, cwd: '/work/api', hook_event_name: event, model: 'gpt-5-codex', turn_id: 't1', ...extra });
    expect((await runCliCaptured(['hook', 'PreCompact', '--foreground'], { env, stdin: payload('PreCompact', { trigger: 'auto' }) })).code).toBe(0);
    const start = await runCliCaptured(['hook', 'SessionStart', '--format', 'json'], { env, stdin: payload('SessionStart', { source: 'resume', permission_mode: 'default' }) });
    const ctx = JSON.parse(start.stdout).hookSpecificOutput.additionalContext as string;
    expect(ctx).toContain('ContextPack handoff of session 0194a7c2-midtask');
    expect(ctx).toContain('> Implement user profile API endpoints');
    expect(ctx).toContain('65 % complete (as the transcript states)');
    expect(ctx).toContain('- Implement PATCH with partial update support');
    expect(ctx).toContain('DB migration approval needed from DBA team');
    expect((await runCliCaptured(['hook', 'Stop', '--foreground'], { env, stdin: payload('Stop', { stop_hook_active: false, last_assistant_message: 'ok' }) })).code).toBe(0);
    const lines = readFileSync(join(home, 'contextpack-data', 'logs', 'hooks.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.at(-1)).toMatchObject({ event: 'Stop', ok: true });
    expect(lines.at(-1).message).toMatch(/^recorded session 0194a7c2-midtask: codex: /);
  });
});
