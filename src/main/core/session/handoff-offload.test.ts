// A large handoff is built in a worker thread (issue #33 item 3): the same package, byte for byte, as the build in
// place, from the same transcript, store and time; a bad transcript fails with the same error class.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { addMemory } from '../memory/index.ts';
import { openStore } from '../store/index.ts';
import { tempDirs } from '../testing/tmp.ts';
import { parseTranscript, TranscriptError } from '../transcripts/index.ts';
import { buildHandoffOffThread } from './handoff-offload.ts';
import { buildHandoff } from './handoff.ts';

const tmp = tempDirs('cp-offload-');
afterAll(() => tmp.cleanup());

const history = (pairs: number) => {
  const parts = ['# aider chat started at 2026-01-05 10:00:00\n\n', '#### pick the queue\n\nDECISION: use SQLite as the queue because it is already a dependency\n\n'];
  for (let i = 1; i < pairs; i++) parts.push(`#### step ${i}\n\nok\n\n`);
  return parts.join('');
};

describe('handoff off the event loop', () => {
  it('builds in a worker the package the build in place gives', async () => {
    const dbPath = join(tmp.make(), 'p.db');
    const store = openStore(dbPath, { loadVec: false });
    addMemory(store.db, { memory_type: 'issue', title: 'Queue backlog grows at night', content: { description: 'the worker stalls', severity: 'high' } });
    const text = history(3_000);
    const now = '2026-02-01T00:00:00.000Z';
    const request = { type: 'continuation' as const, from: 'a', to: 'b' };
    const events: unknown[] = [];
    const off = await buildHandoffOffThread({ dbPath, transcript: { name: 'h.md', text }, request, now }, { redactionLog: (e) => events.push(e) });
    const here = buildHandoff({ ...request, transcript: parseTranscript(text, 'h.md') }, { db: store.db, now: () => new Date(now) });
    store.close();
    expect(off.built.hash).toBe(here.hash);
    expect(off.built.markdown).toBe(here.markdown);
    expect(off.built.package.context_summary.open_issues.map((i) => i.title)).toContain('Queue backlog grows at night');
    expect(off.transcript).toMatchObject({ name: 'h.md', format: 'aider', turns: here.transcript!.turns.length });
  });
  it('a transcript it cannot read fails as the build in place would', async () => {
    await expect(buildHandoffOffThread({ dbPath: null, transcript: { name: 'x.txt', text: 'hello' }, request: { type: 'continuation' }, now: '2026-02-01T00:00:00.000Z' })).rejects.toBeInstanceOf(TranscriptError);
  });
});
