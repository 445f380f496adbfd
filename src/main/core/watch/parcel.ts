import type { Subscribe } from './watcher.ts';

/** @parcel/watcher's subscribe, loaded on first use (a native addon: commands that never watch never load it). */
export const parcelSubscribe: Subscribe = async (dir, fn, opts) => {
  const mod = (await import('@parcel/watcher')) as unknown as { subscribe?: Subscribe; default?: { subscribe: Subscribe } };
  const subscribe = mod.subscribe ?? mod.default!.subscribe;
  return subscribe(dir, fn, opts);
};
