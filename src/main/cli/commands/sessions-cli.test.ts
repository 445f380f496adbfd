import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDirs } from '../../core/testing/tmp.ts';
import { runCliCaptured } from '../testing/run-cli.ts';

const tmp = tempDirs('cp-sesscli-');
afterAll(() => tmp.cleanup());
const FIX = fileURLToPath(new URL('../../core/session/fixtures/', import.meta.url));

const cli = (args: string[], stdin = '') => runCliCaptured(args, { stdin });

describe('session commands', () => {
  const dir = tmp.make();
  const db = join(dir, 'cli.db');

  it('capacity: levels from --tokens, and from a transcript with the real tokenizer', async () => {
    const r = await cli(['capacity', '--tokens', '181000', '--window', '200000']);
    expect(r.stdout.split('\n')[0]).toBe('ORANGE 181,000 / 200,000 tokens (90.5 %)');
    expect(r.stdout).toContain('Action: Initiate compaction immediately');
    const j = (await cli(['capacity', '--transcript', join(FIX, 'failure.chat.md'), '--window', '2000', '--json'])).json();
    expect(j).toMatchObject({ format: 'markdown-chat', turns: 12, level: 'GREEN' });
    expect(j.tokens).toBeGreaterThan(700);
    expect((await cli(['capacity'])).code).toBe(2);
  });

  it('capacity of a Cline task folder counts it as written; an unknown file names the formats read', async () => {
    const task = join(dir, 'task-17');
    mkdirSync(task);
    const secret = `api_key = "${'Qx9'.repeat(14)}"`;
    writeFileSync(join(task, 'api_conversation_history.json'), JSON.stringify([{ role: 'user', content: [{ type: 'text', text: `<task>Rotate the key ${secret}</task>` }] }, { role: 'assistant', content: [{ type: 'text', text: 'Rotating it.' }] }], null, 2));
    const j = (await cli(['capacity', '--transcript', task, '--json'])).json();
    expect(j).toMatchObject({ format: 'cline', turns: 2, transcript: join(task, 'api_conversation_history.json') });
    // Counted with the secret as written (the gate applies to what leaves, never to what is measured).
    expect(j.tokens).toBeGreaterThan(25);
    const notes = join(dir, 'notes.txt');
    writeFileSync(notes, 'just some notes\n');
    const r = await cli(['capacity', '--transcript', notes]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`${notes}: not a recognized transcript`);
    for (const f of ['claude-code', 'codex', 'pi', 'cline', 'aider', 'markdown-chat']) expect(r.stderr).toContain(`${f}:`);
  });

  it('reports malformed transcript lines by number and keeps the rest', async () => {
    const bad = join(dir, 'bad.jsonl');
    const lines = readFileSync(join(FIX, 'decision.claude.jsonl'), 'utf8').split('\n');
    lines.splice(2, 0, '{ not json');
    writeFileSync(bad, lines.join('\n'));
    const r = await cli(['capacity', '--transcript', bad, '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`${bad}:3: invalid JSON`);
    expect(r.json().turns).toBe(25);
  });

  it('handoff → packets → replay (md, json, exact bytes); --reassemble is refused for a handoff', async () => {
    const h = await cli(['handoff', '--db', db, '--type', 'continuation', '--transcript', join(FIX, 'midtask.codex.jsonl'), '--from', 'impl-1', '--to', 'impl-2', '--json']);
    expect(h.code).toBe(0);
    const { context_snapshot_hash: hash, package: p } = h.json();
    expect(p.compaction.preservation_validation).toBe(true);
    expect(h.stderr).toMatch(/^handoff [0-9a-f]{16} \(handoff-continuation\): [\d,]+ \/ 40,000 tokens/);
    expect((await cli(['packets', '--db', db])).stdout).toContain('handoff-continuation');
    const md = await cli(['replay', hash.slice(0, 12), '--db', db, '--format', 'md']);
    expect(md.stdout.startsWith(`<!-- contextpack handoff continuation context_snapshot_hash sha256:${hash} -->`)).toBe(true);
    expect(JSON.parse((await cli(['replay', hash, '--db', db, '--format', 'json'])).stdout).context_snapshot_hash).toBe(hash);
    const raw = await cli(['replay', hash, '--db', db, '--raw']);
    const { createHash } = await import('node:crypto');
    expect(createHash('sha256').update(raw.stdout).digest('hex')).toBe(hash);
    const re = await cli(['replay', hash, '--db', db, '--reassemble']);
    expect(re.code).toBe(2);
    expect(re.stderr).toContain('replayed from its stored bytes only');
  });

  it('hierarchy own: a non-owner edit is refused naming the owner', async () => {
    await cli(['hierarchy', 'add', '--db', db, '--level', '2', '--title', 'Architecture', '--body', 'x']);
    expect((await cli(['hierarchy', 'own', '§2.1', '--db', db, '--agent', 'arch-1'])).stdout).toBe('§2.1 owned by arch-1 (exclusive)\n');
    const e = await cli(['hierarchy', 'edit', '§2.1', '--db', db, '--body', 'y', '--agent', 'impl-9']);
    expect(e.code).toBe(2);
    expect(e.stderr).toContain('write by impl-9 refused: §2.1 is owned by arch-1');
    expect((await cli(['hierarchy', 'own', '§2.1', '--db', db, '--agent', 'arch-1', '--transfer', 'impl-9'])).code).toBe(0);
    expect((await cli(['hierarchy', 'edit', '§2.1', '--db', db, '--body', 'y', '--agent', 'impl-9'])).code).toBe(0);
    expect((await cli(['hierarchy', 'owners', '--db', db, '--audit'])).stdout.split('\n').filter(Boolean).map((l) => l.split(/\s+/)[1])).toEqual(['transfer', 'refused', 'acquire']);
  });

  it('session end saves the findings; memory update / resolve change the next packet', async () => {
    const notes = join(dir, 'notes.md');
    writeFileSync(notes, 'BUG-7 [CRITICAL]: checkout double-charges on retry\nTODO: idempotency keys\n');
    const s = await cli(['session', 'end', '--db', db, '--notes', notes, '--agent', 'impl-1', '--json']);
    expect(s.json().saved.created).toHaveLength(2);
    const bug = s.json().saved.created.find((c: { title: string }) => c.title.startsWith('BUG-7')).id;
    expect((await cli(['session', 'list', '--db', db])).stdout).toContain('impl-1: ');
    const pack1 = await cli(['pack', '--db', db, '--query', 'checkout retry']);
    expect(pack1.stdout).toContain('BUG-7: checkout double-charges on retry');
    const u = await cli(['memory', 'update', bug, '--db', db, '--importance', '10', '--set', 'attempted_fixes[]=retry guard', '--json']);
    expect(u.json().memory).toMatchObject({ importance: 10, content: { attempted_fixes: ['retry guard'] } });
    expect((await cli(['memory', 'resolve', bug, '--db', db, '--resolution', 'idempotency keys'])).stdout).toBe(`${bug}  resolved\n`);
    const pack2 = await cli(['pack', '--db', db, '--query', 'checkout retry']);
    expect(pack2.stdout).not.toContain('BUG-7: checkout double-charges on retry');
    expect((await cli(['memory', 'audit', bug, '--db', db])).stdout.split('\n')[0]).toContain('RESOLVED');
  });

  it('pack --conversation-file reads an agent transcript as its conversation', async () => {
    const r = await cli(['pack', '--db', db, '--query', 'profile endpoints', '--template', 'layered-v1', '--conversation-file', join(FIX, 'midtask.codex.jsonl'), '--format', 'json']);
    expect(r.code).toBe(0);
    const text = r.stdout;
    expect(text).toContain('Blockers: DB migration approval needed from DBA team');
    expect(text).toContain('→ apply_patch');
  });

  it('ingest recognizes a transcript by content, whatever its name', async () => {
    const root = tmp.make();
    copyFileSync(join(FIX, 'midtask.codex.jsonl'), join(root, 'session-log.jsonl'));
    copyFileSync(join(FIX, 'failure.chat.md'), join(root, 'notes.md'));
    copyFileSync(join(FIX, 'decision.claude.jsonl'), join(root, 'session.log'));
    const db2 = join(tmp.make(), 'i.db');
    expect((await cli(['ingest', root, '--db', db2, '--no-embed'])).code).toBe(0);
    const hits = (await cli(['search', 'permission denied avatars', '--db', db2, '--json'])).json();
    const hit = (hits.hits ?? hits)[0];
    expect(hit.anchor).toMatch(/^turn=\d+$/);
    const md = (await cli(['search', 'SameSite Strict cookie root cause', '--db', db2, '--json'])).json();
    expect((md.hits ?? md)[0].anchor).toMatch(/^turn=\d+$/);
    const log = (await cli(['search', 'BullMQ Redis background jobs', '--db', db2, '--json'])).json();
    expect((log.hits ?? log)[0]).toMatchObject({ anchor: expect.stringMatching(/^turn=\d+$/) });
    expect(JSON.stringify((log.hits ?? log)[0])).toContain('session.log');
  });
});
