// A recording stand-in for the `electron` module, so the *built* main process (out/main/index.cjs) and preload
// (out/preload/index.cjs) can be loaded under plain Node exactly as Electron would load them. The Electron binary
// cannot be downloaded on our machines; this is how the desktop path is tested (smoke test and the IPC e2e).
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '../../../..');
export const BUILT_MAIN = join(REPO_ROOT, 'out/main/index.cjs');
export const BUILT_PRELOAD = join(REPO_ROOT, 'out/preload/index.cjs');
export const BUILT_RENDERER = join(REPO_ROOT, 'out/renderer/index.html');
const STANDIN_ELECTRON_VERSION = '45.0.0-standin';

type Listener = (...args: unknown[]) => unknown;
export type IpcEvent = { senderFrame: { url: string } | null };
export type IpcHandler = (event: IpcEvent, input: unknown) => unknown;

class Emitter {
  readonly listeners = new Map<string, Listener[]>();
  on(name: string, fn: Listener): this {
    this.listeners.set(name, [...(this.listeners.get(name) ?? []), fn]);
    return this;
  }
  once(name: string, fn: Listener): this {
    return this.on(name, fn);
  }
  emit(name: string, ...args: unknown[]): void {
    for (const fn of this.listeners.get(name) ?? []) fn(...args);
  }
}

export type StandinWindow = {
  options: Record<string, unknown> & { webPreferences?: Record<string, unknown> };
  loaded: { file?: string; url?: string };
  sent: Array<{ channel: string; args: unknown[] }>;
};

export type DesktopRecord = {
  errors: Array<{ title: string; content: string }>;
  windows: StandinWindow[];
  handlers: Map<string, IpcHandler>;
  clipboard: string[];
  menus: number;
  quit: boolean;
  // performance.now() when the main bundle began loading and when the first window was constructed.
  loadStartedAt: number;
  firstWindowAt?: number;
  // Everything the main process sends to the renderer (webContents.send), in order.
  onSend?: (channel: string, args: unknown[]) => void;
};

export type StandinOptions = {
  // Folder the stand-in app uses as its app path (the re2 redirect looks for .electron-native there).
  appPath: string;
  // What the native folder picker returns.
  pickPaths?: string[];
};

function makeElectron(record: DesktopRecord, options: StandinOptions): Record<string, unknown> {
  const paths = new Map<string, string>();
  let ready: () => void = () => {};
  const whenReady = new Promise<void>((r) => (ready = r));
  const app = Object.assign(new Emitter(), {
    isPackaged: false,
    name: 'Electron',
    setName(n: string) {
      app.name = n;
    },
    getName: () => app.name,
    getVersion: () => '0.0.0-standin',
    getAppPath: () => options.appPath,
    setPath: (k: string, v: string) => void paths.set(k, v),
    getPath: (k: string) => {
      const p = paths.get(k);
      if (!p) throw new Error(`stand-in app.getPath(${k}): not set`);
      return p;
    },
    requestSingleInstanceLock: () => true,
    whenReady: () => whenReady,
    quit: () => void (record.quit = true),
  });
  const windows: BrowserWindowStandin[] = [];
  class BrowserWindowStandin extends Emitter {
    readonly record: StandinWindow;
    readonly webContents: Emitter & { send: (channel: string, ...args: unknown[]) => void };
    constructor(opts: StandinWindow['options']) {
      super();
      record.firstWindowAt ??= performance.now();
      this.record = { options: opts, loaded: {}, sent: [] };
      record.windows.push(this.record);
      windows.push(this);
      const rec = this.record;
      this.webContents = Object.assign(new Emitter(), {
        send(channel: string, ...args: unknown[]) {
          rec.sent.push({ channel, args });
          record.onSend?.(channel, args);
        },
      });
    }
    static getAllWindows = () => windows;
    loadFile(file: string) {
      this.record.loaded.file = file;
      return Promise.resolve();
    }
    loadURL(url: string) {
      this.record.loaded.url = url;
      return Promise.resolve();
    }
    show() {}
    focus() {}
    restore() {}
    isMinimized = () => false;
  }
  const session = {
    defaultSession: {
      setPermissionRequestHandler() {},
      setPermissionCheckHandler() {},
      webRequest: { onHeadersReceived() {} },
    },
  };
  setImmediate(ready);
  return {
    app,
    BrowserWindow: BrowserWindowStandin,
    ipcMain: { handle: (channel: string, fn: IpcHandler) => void record.handlers.set(channel, fn) },
    dialog: {
      showErrorBox: (title: string, content: string) => void record.errors.push({ title, content }),
      showOpenDialog: async () => ({ canceled: false, filePaths: options.pickPaths ?? [] }),
    },
    session,
    Menu: { buildFromTemplate: (t: unknown) => t, setApplicationMenu: () => void record.menus++ },
    clipboard: { writeText: (t: string) => void record.clipboard.push(t) },
    shell: { openExternal: async () => {} },
  };
}

/**
 * Points the stand-in app's `.electron-native/re2` at the Node build of re2, stamped with the stand-in Electron
 * version, so the main process's re2 check and redirect run for real.
 */
function linkNodeRe2(appPath: string): void {
  const re2Dir = join(appPath, '.electron-native', 're2');
  mkdirSync(re2Dir, { recursive: true });
  const nodeRe2 = dirname(createRequire(import.meta.url).resolve('re2/package.json'));
  symlinkSync(join(nodeRe2, 're2.js'), join(re2Dir, 're2.js'));
  symlinkSync(join(nodeRe2, 'build'), join(re2Dir, 'build'));
  writeFileSync(join(re2Dir, '.electron-version'), STANDIN_ELECTRON_VERSION);
}

/**
 * Loads the built main bundle with `require('electron')` answered by the stand-in, and waits until the first window
 * exists or an error dialog is shown. Call once per process: the bundle installs process-wide hooks, as in Electron.
 */
export async function loadBuiltMain(options: StandinOptions & { home: string; timeoutMs?: number }): Promise<DesktopRecord> {
  linkNodeRe2(options.appPath);
  process.env.CONTEXTPACK_HOME = options.home;
  if (!process.versions.electron) Object.defineProperty(process.versions, 'electron', { value: STANDIN_ELECTRON_VERSION, enumerable: true });
  const record: DesktopRecord = { errors: [], windows: [], handlers: new Map(), clipboard: [], menus: 0, quit: false, loadStartedAt: performance.now() };
  const electron = makeElectron(record, options);
  const internals = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
  const originalLoad = internals._load;
  internals._load = function (request, ...rest) {
    return request === 'electron' ? electron : originalLoad.call(this, request, ...rest);
  };
  createRequire(import.meta.url)(BUILT_MAIN);
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  while (record.windows.length === 0 && record.errors.length === 0 && !record.quit) {
    if (Date.now() > deadline) throw new Error('the built main process made no window within the time limit');
    await new Promise((r) => setTimeout(r, 10));
  }
  return record;
}

export type PreloadRecord = { exposed: Map<string, unknown>; invoked: Array<{ channel: string; input: unknown }> };

/**
 * Loads the built preload with a stand-in contextBridge / ipcRenderer. `invoke` answers ipcRenderer.invoke (route
 * it to the main process's handlers); events the main process sends can be delivered with `emit`.
 */
export function loadBuiltPreload(invoke: (channel: string, input: unknown) => Promise<unknown>): PreloadRecord & { emit: (channel: string, payload: unknown) => void } {
  const record: PreloadRecord = { exposed: new Map(), invoked: [] };
  const ipcListeners = new Emitter();
  const electron = {
    contextBridge: { exposeInMainWorld: (key: string, value: unknown) => void record.exposed.set(key, value) },
    ipcRenderer: {
      invoke: (channel: string, input: unknown) => {
        record.invoked.push({ channel, input });
        return invoke(channel, input);
      },
      on: (channel: string, fn: Listener) => void ipcListeners.on(channel, fn),
      removeListener: (channel: string, fn: Listener) => {
        ipcListeners.listeners.set(channel, (ipcListeners.listeners.get(channel) ?? []).filter((f) => f !== fn));
      },
    },
    webUtils: { getPathForFile: () => '' },
  };
  // The preload is CommonJS that requires only 'electron': evaluate it with its own require.
  const source = createRequire(import.meta.url)('node:fs').readFileSync(BUILT_PRELOAD, 'utf8') as string;
  const mod = { exports: {} };
  const fakeRequire = (id: string) => {
    if (id === 'electron') return electron;
    throw new Error(`the sandboxed preload may require only electron, it asked for ${id}`);
  };
  new Function('require', 'module', 'exports', '__filename', '__dirname', source)(fakeRequire, mod, mod.exports, BUILT_PRELOAD, dirname(BUILT_PRELOAD));
  return { ...record, emit: (channel, payload) => ipcListeners.emit(channel, {}, payload) };
}
