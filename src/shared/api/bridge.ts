import type { ApiResult } from './contract.ts';
import type { ApiEvent } from './events.ts';

/** What the preload puts on `window.contextpack`: the contract's methods and events, and nothing else. */
export interface ContextPackBridge {
  invoke(method: string, input: unknown): Promise<ApiResult<unknown>>;
  onEvent(listener: (event: ApiEvent) => void): () => void;
  /** The real path of a dropped file (Electron's webUtils); the renderer never sees the filesystem otherwise. */
  pathForFile(file: File): string;
}
