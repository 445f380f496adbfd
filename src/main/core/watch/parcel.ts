import { createRequire } from 'node:module';
import type { Subscribe } from './watcher.ts';

/** @parcel/watcher's subscribe, loaded on first use (a native addon: commands that never watch never load it). */
export const parcelSubscribe: Subscribe = async (dir, fn, opts) => {
  const watcher = createRequire(import.meta.url)('@parcel/watcher') as { subscribe: Subscribe };
  return watcher.subscribe(dir, fn, opts);
};
