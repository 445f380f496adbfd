import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as packet from '../../core/packet/index.ts';
import { openStore, type Store } from '../../core/store/index.ts';
import { tempDirs } from '../../core/testing/tmp.ts';
import { createPacketsAdapter } from './packets.ts';

// Counts how often the packet sources (prepared statements over the whole store) are built.
vi.mock('../../core/packet/index.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../core/packet/index.ts')>();
  return { ...original, createStoreSources: vi.fn(original.createStoreSources) };
});

const tmp = tempDirs('cp-packets-adapter-');
let store: Store;

beforeAll(() => {
  store = openStore(join(tmp.make(), 'p.db'));
});
afterAll(() => {
  store.close();
  tmp.cleanup();
});

describe('packets adapter', () => {
  it('builds the packet sources once, not per build or replay', async () => {
    const built = vi.mocked(packet.createStoreSources);
    built.mockClear();
    const adapter = createPacketsAdapter(store.db);
    const a = await adapter.build({ query: 'anything', maxTokens: 1000 });
    await adapter.build({ query: 'something else', maxTokens: 1000 });
    expect((await adapter.replay(a.hash)).identical).toBe(true);
    expect(built).toHaveBeenCalledTimes(1);
  });
});
