import type { Dispatch } from './dispatch.ts';
import type { EventHub } from './event-hub.ts';

// What createApi returns, in a leaf of its own: the project host holds Apis without importing the factory.
export interface Api {
  dispatch: Dispatch;
  events: EventHub;
  /** Asks a running library.embed to stop after its current batch (the CLI's Ctrl-C); it answers with what it did. */
  interrupt(): void;
  /** Stops a running ingest and background work, and releases the engines (the query embedder's worker); call before closing the store. */
  close(): Promise<void>;
}
