import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rehydrate, searchMemories } from '../memory/index.ts';
import { getExecutiveSummary } from '../hierarchy/index.ts';
import { assemble, createStoreSources, renderPacket } from '../packet/index.ts';
import { openStore } from '../store/index.ts';
import { tempDirs } from '../testing/tmp.ts';
import { parseTranscript } from '../transcripts/index.ts';
import { endSession, listSessions, notesTranscript } from './session-end.ts';

const tmp = tempDirs('cp-sessend-');
afterAll(() => tmp.cleanup());
const NOTES = `Session notes, auth work

Done: rotated the JWT signing key
DECISION: Keep refresh tokens in an httpOnly cookie Rationale: not readable by scripts Alternatives: localStorage (rejected: XSS)
BUG-88 [HIGH]: refresh fails after a key rotation
TODO: add a key rotation runbook
Lesson: rotate keys with an overlap window
`;

describe('session end (#17 item 2)', () => {
  it("records 002's session summary from DECISION: / BUG- / TODO: lines and saves the findings once", () => {
    const store = openStore(join(tmp.make(), 's.db'), { loadVec: false });
    const db = store.db;
    const r = endSession(db, notesTranscript(NOTES, 'notes.md'), { agent: 'impl-1', now: () => new Date('2026-02-01T18:00:00Z') });
    const s = r.summary;
    expect(Object.keys(s).sort()).toEqual(['current_state', 'decisions_made', 'done', 'file_modifications', 'issues_encountered', 'learnings', 'metrics', 'session_metadata', 'source']);
    expect(s.done).toEqual(['Done: rotated the JWT signing key']);
    expect(s.decisions_made.map((d) => d.title)).toEqual(['Keep refresh tokens in an httpOnly cookie']);
    expect(s.decisions_made[0]!.alternatives).toEqual([{ name: 'localStorage', reason: 'XSS' }]);
    expect(s.issues_encountered.map((i) => [i.kind, i.id])).toEqual([['bug', 'BUG-88'], ['todo', 'todo:2']]);
    expect(s.learnings).toEqual(['rotate keys with an overlap window']);
    expect(s.session_metadata).toMatchObject({ agent_ids: ['impl-1'], end_time: '2026-02-01T18:00:00.000Z' });
    expect(r.headline).toBe('impl-1: Done: rotated the JWT signing key — 1 done, 1 decision, 1 bug, 1 TODO');
    expect(r.saved.created.map((c) => c.memory_type).sort()).toEqual(['decision', 'issue', 'issue', 'learning']);
    const again = endSession(db, notesTranscript(NOTES, 'notes.md'), { agent: 'impl-1', now: () => new Date('2026-02-02T18:00:00Z') });
    expect(again.saved.created).toEqual([]);
    expect(again.saved.duplicates).toHaveLength(4);
    expect(listSessions(db)).toHaveLength(2);
    store.close();
  });

  it('HISTORY lists the recorded sessions and not the ingest log (packets do not depend on its length); rehydration has the continuity block', async () => {
    const store = openStore(join(tmp.make(), 's.db'), { loadVec: false });
    const db = store.db;
    db.prepare("INSERT INTO ingest_log (started_at, finished_at, roots, added, updated, removed, failed) VALUES ('2026-01-30T10:00:00Z', '2026-01-30T10:00:01Z', '[\"/p\"]', 5, 0, 0, 0)").run();
    endSession(db, parseTranscript(readFileSync(new URL('./fixtures/failure.chat.md', import.meta.url), 'utf8'), 'failure.chat.md'), { agent: 'impl-2' });
    endSession(db, notesTranscript(NOTES, 'notes.md'), { agent: 'impl-1', now: () => new Date('2026-02-01T18:00:00Z') });
    const text = renderPacket((await assemble({ query: 'refresh token' }, { db: null, sources: createStoreSources(db) }, 'md')).packet, 'x', 'md');
    const history = text.slice(text.indexOf('HISTORY'), text.indexOf('INTEL'));
    expect(history).toContain('impl-1: Done: rotated the JWT signing key — 1 done, 1 decision, 1 bug, 1 TODO');
    expect(history).toContain('impl-2: task: The login e2e test started failing');
    expect(history).not.toMatch(/ingest run/);
    const b = rehydrate(db, { summary: getExecutiveSummary(db), touch: false, now: () => new Date('2026-02-03T20:00:00Z') });
    expect(b.session_continuity).toEqual({ last_session_end: '2026-02-01T18:00:00.000Z', minutes_since_last_session: 3000, time_since_last_session: '2 days 2 hours', sessions_in_project: 2 });
    expect(b.text).toContain('## Session Continuity');
    expect(searchMemories(db, { types: ['issue'] }).map((h) => h.memory.title).sort()).toEqual([
      'BUG-2847: OAuth login fails after the SameSite=Strict cookie change',
      'BUG-88: refresh fails after a key rotation',
      "TODO: add a regression test that asserts the session cookie's SameSite attribute",
      'TODO: add a key rotation runbook',
    ].sort());
    store.close();
  });
});
