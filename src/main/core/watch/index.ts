// Watching (issue #12): roots followed through file-system events, reconciled on start, offline when they vanish.
export { createWatcher, type Watcher, type WatcherDeps, type Subscribe } from './watcher.ts';
export { compactPaths } from './paths.ts';
export { parcelSubscribe } from './parcel.ts';
export type { LibraryChange, WatchStatus } from './types.ts';
