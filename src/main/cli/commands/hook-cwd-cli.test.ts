// A hook payload whose `cwd` names another project than the session's transcript: the session is filed by the
// transcript's own folder, never into the project the payload names. Run through `sh -c`, as an agent runs a hook,
// against real SQLite stores of two projects.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { sessionFolder, transcriptCwds } from '../../core/hooks/transcript-cwd.ts';
import { openStore } from '../../core/store/index.ts';
import { tempDirs, writeTree } from '../../core/testing/tmp.ts';
import { runCliCaptured } from '../testing/run-cli.ts';

const tmp = tempDirs('cp-hook-cwd-');
afterAll(() => tmp.cleanup());
const bin = fileURLToPath(new URL('../bin.mjs', import.meta.url));
const FIXTURE = new URL('../../core/hooks/fixtures/ratelimit.claude.jsonl', import.meta.url);

/** Handoffs the store holds (what PreCompact stores for the session). */
function handoffs(db: string): number {
  if (!existsSync(db)) return 0;
  const s = openStore(db, { loadVec: false, readonly: true });
  try {
    return (s.db.prepare("SELECT count(*) AS n FROM packet_snapshots WHERE template LIKE 'handoff-%'").get() as { n: number }).n;
  } finally {
    s.close();
  }
}

describe('hook payload cwd against the transcript\'s own', () => {
  it('a spoofed cwd naming project beta does not write alpha\'s session into beta\'s store', async () => {
    const home = tmp.make();
    const work = tmp.make();
    const alpha = join(work, 'alpha-repo');
    const beta = join(work, 'beta-repo');
    writeTree(alpha, { 'README.md': '# Alpha\n\nthe alpha service\n' });
    writeTree(beta, { 'README.md': '# Beta\n\nthe beta service\n' });
    const env = { CONTEXTPACK_HOME: home };
    for (const [name, repo] of [['alpha', alpha], ['beta', beta]] as const) {
      expect((await runCliCaptured(['projects', 'new', name], { env })).code).toBe(0);
      expect((await runCliCaptured(['ingest', repo, '--project', name], { env })).code).toBe(0);
    }
    // The session was held in alpha: its transcript says so on every entry.
    const transcript = join(work, 'session.jsonl');
    writeFileSync(transcript, readFileSync(FIXTURE, 'utf8').replaceAll('"cwd": "/home/dev/shop-api"', `"cwd": ${JSON.stringify(alpha)}`));
    const payload = JSON.stringify({ session_id: 'spoof-1', transcript_path: transcript, cwd: beta, hook_event_name: 'PreCompact', trigger: 'manual' });
    const payloadFile = join(work, 'payload.json');
    writeFileSync(payloadFile, payload);
    const r = spawnSync('sh', ['-c', `"${process.execPath}" "${bin}" hook PreCompact --foreground < "${payloadFile}"`], { env: { ...process.env, ...env }, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const alphaDb = join(home, 'projects', 'alpha', 'contextpack.db');
    const betaDb = join(home, 'projects', 'beta', 'contextpack.db');
    expect(handoffs(betaDb)).toBe(0);
    expect(handoffs(alphaDb)).toBe(1);
    const log = readFileSync(join(home, 'projects', 'alpha', 'contextpack-data', 'logs', 'hooks.jsonl'), 'utf8');
    expect(log).toContain(`payload cwd ${beta} is not the transcript's (${alpha})`);
  }, 60_000);

  it('reads the folder from Claude Code entries and Codex session_meta / turn_context, not from a tool call\'s arguments', () => {
    const dir = tmp.make();
    const claude = join(dir, 'c.jsonl');
    writeFileSync(claude, [
      JSON.stringify({ type: 'user', cwd: '/w/a', message: { role: 'user', content: 'hi' } }),
      JSON.stringify({ type: 'assistant', cwd: '/w/a', message: { role: 'assistant', content: [{ type: 'tool_use', input: { cwd: '/w/elsewhere', command: 'ls' } }] } }),
      JSON.stringify({ type: 'user', cwd: '/w/a/sub', message: { role: 'user', content: 'next' } }),
    ].join('\n') + '\n');
    expect(transcriptCwds(claude)).toEqual(['/w/a', '/w/a/sub']);
    const codex = join(dir, 'x.jsonl');
    writeFileSync(codex, [
      JSON.stringify({ type: 'session_meta', payload: { id: 'x', cwd: '/w/b' } }),
      JSON.stringify({ type: 'response_item', payload: { type: 'function_call', arguments: '{"cwd":"/w/elsewhere"}' } }),
      JSON.stringify({ type: 'turn_context', payload: { cwd: '/w/b' } }),
    ].join('\n') + '\n');
    expect(transcriptCwds(codex)).toEqual(['/w/b']);
    expect(sessionFolder('/w/b', codex)).toEqual({ cwd: '/w/b', mismatch: null });
    expect(sessionFolder('/w/z', codex).cwd).toBe('/w/b');
    // Nothing recorded (a transcript not yet written, another format): the payload's cwd stands.
    expect(sessionFolder('/w/z', join(dir, 'missing.jsonl'))).toEqual({ cwd: '/w/z', mismatch: null });
    // The agent moved into a subfolder of the same project: not a mismatch.
    expect(sessionFolder('/w/a/sub/deeper', claude, (x, y) => x.startsWith('/w/a') && y.startsWith('/w/a')).mismatch).toBeNull();
  });
});
