// sessions.handoff with preview: the workbench's "Build handoff" shows a package and changes nothing in the project
// (issue #34: a transcript looked at from another repository must not become the current state of every packet).
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Api } from './index.ts';
import { apiFixture } from './testing/api-fixture.ts';

const fx = apiFixture('cp-api-preview-', { loadVec: false });
const { ok } = fx;
let api: Api;
const fixture = (name: string) => ({ name, text: readFileSync(new URL(`../core/session/fixtures/${name}`, import.meta.url), 'utf8') });
beforeAll(() => ({ api } = fx));

describe('sessions.handoff preview', () => {
  it('answers the same package and stores nothing: no snapshot, no state memory, no saved findings; saving afterwards stores it', async () => {
    const states = async () => (await ok('memory.search', { types: ['state', 'decision', 'issue', 'learning'] })).hits.length;
    const before = { packets: (await ok('packets.list', {})).length, memories: await states() };
    const input = { type: 'continuation', transcript: fixture('failure.chat.md'), from: 'a', to: 'b' };
    const preview = await ok('sessions.handoff', { ...input, preview: true });
    expect(preview).toMatchObject({ stored: false, recorded_memory_id: null, saved: null });
    expect(preview.text).toContain('# HANDOFF PACKAGE (continuation)');
    expect({ packets: (await ok('packets.list', {})).length, memories: await states() }).toEqual(before);
    expect(await api.dispatch('sessions.handoffGet', { hash: preview.hash })).toMatchObject({ ok: false });

    expect(await api.dispatch('sessions.handoff', { ...input, preview: true, save: true })).toMatchObject({ ok: false, error: { code: 'invalid_input', issues: [{ field: 'save' }] } });

    const saved = await ok('sessions.handoff', { ...input, save: true });
    expect(saved.hash).toBe(preview.hash);
    expect(saved).toMatchObject({ stored: true, recorded_memory_id: expect.any(String) });
    expect((await ok('packets.list', {})).length).toBe(before.packets + 1);
  });
});
