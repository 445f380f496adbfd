// Sandboxed preload (bundled to CommonJS): exposes exactly the contract's methods and events, plus the real path
// of a dropped file. No Node, no ipcRenderer, no arbitrary channels reach the page.
import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron';
import type { ApiEvent, ContextPackBridge } from '../shared/api/index.ts';
import { API_EVENTS, IPC_EVENT_CHANNEL, ipcChannel, isApiMethod } from '../shared/api/methods.ts';

const bridge: ContextPackBridge = {
  invoke(method, input) {
    if (!isApiMethod(method)) return Promise.resolve({ ok: false, error: { code: 'unknown_method', message: `unknown API method ${JSON.stringify(method)}` } });
    return ipcRenderer.invoke(ipcChannel(method), input);
  },
  onEvent(listener) {
    const handler = (_e: IpcRendererEvent, event: ApiEvent) => {
      if ((API_EVENTS as readonly string[]).includes(event?.name)) listener(event);
    };
    ipcRenderer.on(IPC_EVENT_CHANNEL, handler);
    return () => void ipcRenderer.removeListener(IPC_EVENT_CHANNEL, handler);
  },
  pathForFile: (file) => webUtils.getPathForFile(file),
};

contextBridge.exposeInMainWorld('contextpack', bridge);
