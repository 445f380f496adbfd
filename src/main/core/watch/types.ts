// Shapes the watcher reports; the API carries them as events (library.changed, watch.status).
export type { LibraryChange, WatchStatus } from '../../../shared/types.ts';
