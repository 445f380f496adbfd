// Issue #22 item 3 on the CLI: the same caps as the API and MCP schemas (shared/limits.ts), enforced by the engine's
// own doors, with the same message naming the cap; nothing over a cap is stored.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DECISION_FIELD_MAX, MEMORY_CONTENT_MAX, NOTES_MAX, QUERY_MAX, TRANSCRIPT_MAX } from '../../shared/limits.ts';
import { tempDirs } from '../core/testing/tmp.ts';
import { runCliCaptured } from './testing/run-cli.ts';

const tmp = tempDirs('cp-size-caps-');
afterAll(() => tmp.cleanup());
const cli = (args: string[]) => runCliCaptured(args);

describe('size caps on the CLI', () => {
  const dir = tmp.make();
  const db = join(dir, 'caps.db');

  it('memory content, decision fields, notes, transcripts and queries are refused over their caps, naming them', async () => {
    const lesson = join(dir, 'lesson.json');
    writeFileSync(lesson, JSON.stringify({ lesson: 'l'.repeat(MEMORY_CONTENT_MAX) }));
    const m = await cli(['memory', 'add', '--db', db, '--type', 'learning', '--title', 'Huge lesson', '--content-file', lesson]);
    expect(m.code).not.toBe(0);
    expect(m.stderr).toMatch(new RegExp(`content is too long: \\d+ characters of JSON, over the cap of ${MEMORY_CONTENT_MAX} characters of JSON`));

    const d = await cli(['decision', 'new', '--db', db, '--title', 'Long', '--decision', 'd'.repeat(DECISION_FIELD_MAX + 1), '--rationale', 'r', '--importance', '5']);
    expect(d.code).not.toBe(0);
    expect(d.stderr).toContain(`decision new: --decision: decision is too long: ${DECISION_FIELD_MAX + 1} characters, over the cap of ${DECISION_FIELD_MAX} characters`);

    const notes = join(dir, 'notes.md');
    writeFileSync(notes, `Done: x\n${'n'.repeat(NOTES_MAX)}`);
    const s = await cli(['session', 'end', '--db', db, '--notes', notes]);
    expect(s.code).not.toBe(0);
    expect(s.stderr).toContain(`notes is too long: ${NOTES_MAX + 8} characters, over the cap of ${NOTES_MAX} characters`);

    const transcript = join(dir, 'chat.md');
    writeFileSync(transcript, `## User\n${'t'.repeat(TRANSCRIPT_MAX)}`);
    const h = await cli(['handoff', '--type', 'continuation', '--transcript', transcript, '--db', db]);
    expect(h.code).not.toBe(0);
    expect(h.stderr).toContain(`transcript is too long: ${TRANSCRIPT_MAX + 8} characters, over the cap of ${TRANSCRIPT_MAX} characters`);

    const q = await cli(['search', 'q'.repeat(QUERY_MAX + 1), '--db', db]);
    expect(q.stderr).toContain(`query is too long: ${QUERY_MAX + 1} characters, over the cap of ${QUERY_MAX} characters`);
    const p = await cli(['pack', '--query', 'q'.repeat(QUERY_MAX + 1), '--db', db]);
    expect(p.code).not.toBe(0);
    expect(p.stderr).toContain(`query is too long: ${QUERY_MAX + 1} characters, over the cap of ${QUERY_MAX} characters`);

    // Nothing over a cap was stored; at the cap's edge it is.
    expect((await cli(['memory', 'search', '--db', db, '--json'])).json().hits).toEqual([]);
    writeFileSync(lesson, JSON.stringify({ lesson: 'l'.repeat(MEMORY_CONTENT_MAX - 20) }));
    expect((await cli(['memory', 'add', '--db', db, '--type', 'learning', '--title', 'Big lesson', '--content-file', lesson])).code).toBe(0);
  });
});
