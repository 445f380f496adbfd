import { app, BrowserWindow, clipboard, dialog, ipcMain, session } from 'electron';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { IPC_EVENT_CHANNEL } from '../../shared/api/methods.ts';
import { createApi } from '../api/index.ts';
import { openStore } from '../core/store/index.ts';
import { defaultModelDirs } from '../paths.ts';
import { devServerUrlFor, registerIpcApi, trustedUrlCheck } from './ipc.ts';
import { installMenu } from './menu.ts';
import { createMainWindow, hardenSessions } from './window.ts';

/** Loaded only after re2 has been redirected to its Electron build (see index.ts), since this pulls in the engine. */
export async function startDesktop(): Promise<void> {
  const dataDir = app.getPath('userData');
  const store = openStore(join(dataDir, 'contextpack.db'));
  let win: BrowserWindow | null = null;

  const api = createApi({
    store,
    dataDir,
    version: app.getVersion(),
    transport: 'ipc',
    // The same folders as the CLI and serve mode: index.ts points userData at userDataDir(), whose models/ is searched.
    // Packaged, bundled models are an extra resource (package.json "build.extraResources"), not in the source tree.
    modelDirs: app.isPackaged ? defaultModelDirs(process.env, join(process.resourcesPath, 'models')) : defaultModelDirs(),
    // Built beside index.cjs as its own entry (electron.vite.config.ts), so embedding never runs on the main thread.
    embedWorkerUrl: pathToFileURL(join(__dirname, 'embed-worker.cjs')),
    desktop: {
      async pickPaths(kind) {
        const opts: Electron.OpenDialogOptions = { properties: kind === 'folders' ? ['openDirectory', 'multiSelections'] : ['openFile', 'multiSelections'] };
        const r = win ? await dialog.showOpenDialog(win, opts) : await dialog.showOpenDialog(opts);
        return r.canceled ? [] : r.filePaths;
      },
      copyText: (text) => clipboard.writeText(text),
    },
    onError: (method, err) => console.error(`api ${method}:`, err),
  });

  const rendererFile = join(__dirname, '../renderer/index.html');
  const devServerUrl = devServerUrlFor(app.isPackaged, process.env);
  registerIpcApi(ipcMain, api.dispatch, trustedUrlCheck(pathToFileURL(rendererFile).href, devServerUrl));
  api.events.subscribe((e) => win?.webContents.send(IPC_EVENT_CHANNEL, e));
  hardenSessions(app, session.defaultSession);
  installMenu(app.getName());

  const open = () => {
    win = createMainWindow({ preload: join(__dirname, '../preload/index.cjs'), rendererFile, devServerUrl });
    win.on('closed', () => (win = null));
  };
  open();
  app.on('second-instance', () => {
    if (!win) return open();
    if (win.isMinimized()) win.restore();
    win.focus();
  });
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) open();
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  let closing = false;
  app.on('will-quit', (event) => {
    if (closing) return;
    // Let a running embedding batch commit (it resumes next start) before the database closes.
    closing = true;
    event.preventDefault();
    void api.close().finally(() => {
      store.close();
      app.quit();
    });
  });
}
