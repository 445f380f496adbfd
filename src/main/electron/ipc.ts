import { API_METHODS, ipcChannel } from '../../shared/api/methods.ts';
import type { Dispatch } from '../api/dispatch.ts';

/** The slice of ipcMain used here, so the registration can be tested under plain Node. */
export interface IpcMainLike {
  handle(channel: string, listener: (event: { senderFrame: { url: string } | null }, input: unknown) => unknown): void;
}

/**
 * One ipcMain.handle per contract method, each going through the validating dispatcher. Calls from any frame
 * other than our renderer (a navigated-away page, an injected iframe) are refused.
 */
export function registerIpcApi(ipc: IpcMainLike, dispatch: Dispatch, isTrustedUrl: (url: string) => boolean): void {
  for (const method of API_METHODS) {
    ipc.handle(ipcChannel(method), async (event, input) => {
      const url = event.senderFrame?.url ?? '';
      if (!isTrustedUrl(url)) return { ok: false, error: { code: 'failed', message: `refused API call from ${url || 'an unknown frame'}` } };
      return dispatch(method, input);
    });
  }
}

/** Our renderer is one file (packaged) or the dev server's origin; nothing else may call the API. */
export function trustedUrlCheck(rendererFileUrl: string, devServerUrl: string | undefined): (url: string) => boolean {
  return (url) => {
    if (devServerUrl && url.startsWith(new URL(devServerUrl).origin + '/')) return true;
    return url.split('#')[0]!.split('?')[0] === rendererFileUrl;
  };
}

/**
 * electron-vite's dev server address, honoured only when the app runs unpackaged: in a packaged app the variable
 * could only come from whoever started the process, and would load any origin with the privileged preload.
 */
export function devServerUrlFor(isPackaged: boolean, env: NodeJS.ProcessEnv): string | undefined {
  if (isPackaged) return undefined;
  return env.ELECTRON_RENDERER_URL || undefined;
}
