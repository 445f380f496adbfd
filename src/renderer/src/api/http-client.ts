import { API_EVENTS, type ApiEventName } from '../../../shared/api/methods.ts';
import type { ApiEvent, ApiResult } from '../../../shared/api/index.ts';
import { TOKEN_HEADER } from '../../../shared/api/security.ts';
import { unwrap, type ApiClient } from './client.ts';

const STORAGE_KEY = 'contextpack.token';

/**
 * The serve-mode token arrives in the URL fragment (never sent to the server, never in its logs). It is kept in
 * sessionStorage for reloads and removed from the address bar so it does not end up in screenshots or bookmarks.
 */
export function takeToken(loc: Location = location, storage: Storage = sessionStorage): string | null {
  const m = /(?:^#|&)token=([A-Za-z0-9_-]+)/.exec(loc.hash);
  if (m) {
    storage.setItem(STORAGE_KEY, m[1]!);
    history.replaceState(null, '', loc.pathname + loc.search);
    return m[1]!;
  }
  return storage.getItem(STORAGE_KEY);
}

export function createHttpClient(token: string): ApiClient {
  const listeners = new Set<(e: ApiEvent) => void>();
  let streaming = false;

  async function stream(): Promise<void> {
    // fetch, not EventSource: EventSource cannot send the token header.
    for (;;) {
      try {
        const res = await fetch('/api/events', { headers: { [TOKEN_HEADER]: token } });
        if (!res.ok || !res.body) throw new Error(`events: HTTP ${res.status}`);
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buf = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += value;
          let end: number;
          while ((end = buf.indexOf('\n\n')) >= 0) {
            dispatchFrame(buf.slice(0, end));
            buf = buf.slice(end + 2);
          }
        }
      } catch {
        // the server went away or restarted; try again shortly
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  }

  function dispatchFrame(frame: string): void {
    let name = '';
    let data = '';
    for (const line of frame.split('\n')) {
      if (line.startsWith('event: ')) name = line.slice(7);
      else if (line.startsWith('data: ')) data += line.slice(6);
    }
    if (!(API_EVENTS as readonly string[]).includes(name) || !data) return;
    const event = { name: name as ApiEventName, payload: JSON.parse(data) } as ApiEvent;
    for (const l of listeners) l(event);
  }

  return {
    transport: 'http',
    async call(method, input) {
      const res = await fetch(`/api/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [TOKEN_HEADER]: token },
        body: JSON.stringify(input),
      });
      let body: ApiResult<unknown>;
      try {
        body = (await res.json()) as ApiResult<unknown>;
      } catch {
        body = { ok: false, error: { code: 'failed', message: `HTTP ${res.status} from the server` } };
      }
      return unwrap(body);
    },
    onEvent(listener) {
      listeners.add(listener);
      if (!streaming) {
        streaming = true;
        void stream();
      }
      return () => listeners.delete(listener);
    },
  };
}
