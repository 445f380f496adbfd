import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { openStore, type Store } from '../../core/store/index.ts';
import { tempDirs } from '../../core/testing/tmp.ts';
import { createApi, type Api } from '../index.ts';

export interface ApiFixture {
  store: Store;
  api: Api;
  /** The app's data folder (imports, logs) and the store's folder. */
  dataDir: string;
  /** Calls a method and returns its value; a failed call throws with the method and the error. */
  ok<T = any>(method: string, input: unknown): Promise<T>;
}

/**
 * The API over a real store in a fresh folder, for one test file: opened before its tests, closed after. The
 * fields are filled in beforeAll, so read them inside tests (or destructure them in a beforeAll of your own).
 */
export function apiFixture(prefix: string, opts: { loadVec?: boolean } = {}): ApiFixture {
  const tmp = tempDirs(prefix);
  const fx = {
    async ok<T = any>(method: string, input: unknown): Promise<T> {
      const r = await fx.api.dispatch(method, input);
      if (!r.ok) throw new Error(`${method}: ${JSON.stringify(r.error)}`);
      return r.value as T;
    },
  } as ApiFixture;
  beforeAll(() => {
    fx.dataDir = tmp.make();
    fx.store = openStore(join(fx.dataDir, 'api.db'), opts.loadVec === false ? { loadVec: false } : {});
    fx.api = createApi({ store: fx.store, dataDir: fx.dataDir, version: '0.0.0-test', transport: 'http', background: false });
  });
  afterAll(() => {
    fx.store.close();
    tmp.cleanup();
  });
  return fx;
}
