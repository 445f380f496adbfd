import type { ContextPackBridge } from '../../../shared/api/index.ts';
import { unwrap, type ApiClient } from './client.ts';

declare global {
  interface Window {
    contextpack?: ContextPackBridge;
  }
}

export function createIpcClient(bridge: ContextPackBridge): ApiClient {
  return {
    transport: 'ipc',
    call: async (method, input) => unwrap(await bridge.invoke(method, input)),
    onEvent: (listener) => bridge.onEvent(listener),
  };
}
