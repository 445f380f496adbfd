import type { ApiEvent } from '../../shared/api/events.ts';

/** Fan-out of pushed events to whoever listens (Electron windows, SSE streams). */
export function createEventHub() {
  const listeners = new Set<(e: ApiEvent) => void>();
  return {
    emit(e: ApiEvent): void {
      for (const l of listeners) l(e);
    },
    subscribe(listener: (e: ApiEvent) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export type EventHub = ReturnType<typeof createEventHub>;
