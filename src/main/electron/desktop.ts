import { app, BrowserWindow, clipboard, dialog, ipcMain, session } from 'electron';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { IPC_EVENT_CHANNEL } from '../../shared/api/methods.ts';
import { createApi, createProjectHost } from '../api/index.ts';
import { DEFAULT_PROJECT, projectDbFile, projectDir, readLastProject, writeLastProject } from '../core/projects/projects.ts';
import { openStore } from '../core/store/index.ts';
import { modelBaseUrl } from '../core/embed/download.ts';
import { currentProjectName, defaultModelDirs } from '../paths.ts';
import { devServerUrlFor, registerIpcApi, trustedUrlCheck } from './ipc.ts';
import { installMenu } from './menu.ts';
import { createMainWindow, hardenSessions } from './window.ts';

/** Loaded only after re2 has been redirected to its Electron build (see index.ts), since this pulls in the engine. */
export async function startDesktop(): Promise<void> {
  const home = app.getPath('userData');
  let win: BrowserWindow | null = null;

  // The project last open in the app (CONTEXTPACK_PROJECT wins), each with its own database and data folder.
  let host: ReturnType<typeof createProjectHost>;
  try {
    host = createProjectHost({
      home,
      project: process.env.CONTEXTPACK_PROJECT ? currentProjectName(undefined) : (readLastProject(home) ?? DEFAULT_PROJECT),
      open: (project, projects) => {
        const name = project ?? DEFAULT_PROJECT;
        const store = openStore(projectDbFile(home, name));
        // Remembered only once it opened: a project this build refuses must not be the one every start tries.
        writeLastProject(home, name);
        if (store.readOnlyReason) void dialog.showMessageBox({ type: 'warning', title: 'ContextPack', message: 'The database is damaged', detail: store.readOnlyReason });
        const api = createApi({
          store,
          dataDir: projectDir(home, name),
          version: app.getVersion(),
          transport: 'ipc',
          projects,
          // The same folders as the CLI and serve mode: index.ts points userData at userDataDir(), whose models/ is searched.
          // Packaged, bundled models are an extra resource (package.json "build.extraResources"), not in the source tree.
          modelDirs: app.isPackaged ? defaultModelDirs(process.env, join(process.resourcesPath, 'models')) : defaultModelDirs(),
          // The Models panel downloads into the user-data models folder, which modelDirs searches.
          modelDownloads: { dir: join(home, 'models'), baseUrl: modelBaseUrl(process.env) },
          // Built beside index.cjs as its own entry (electron.vite.config.ts), so embedding never runs on the main thread.
          embedWorkerUrl: pathToFileURL(join(__dirname, 'embed-worker.cjs')),
          // Likewise the handoff worker: a large transcript's handoff is built off the main process's event loop.
          handoffWorkerUrl: pathToFileURL(join(__dirname, 'handoff-worker.cjs')),
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
        return { store, api };
      },
    });
  } catch (err) {
    // A newer build's or an unreadable database: say so and leave the file as it is, rather than crash or write to it.
    dialog.showErrorBox('ContextPack cannot open its database', (err as Error).message);
    app.exit(1);
    return;
  }

  const rendererFile = join(__dirname, '../renderer/index.html');
  const devServerUrl = devServerUrlFor(app.isPackaged, process.env);
  registerIpcApi(ipcMain, host.dispatch, trustedUrlCheck(pathToFileURL(rendererFile).href, devServerUrl));
  host.events.subscribe((e) => win?.webContents.send(IPC_EVENT_CHANNEL, e));
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
    void host.close().finally(() => app.quit());
  });
}
