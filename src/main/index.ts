// Electron main entry. Kept tiny on purpose: it must point `require('re2')` at the Electron build before the engine
// (which needs re2 for the redaction gate) is loaded, so the engine comes in through a dynamic import.
import { app, dialog } from 'electron';
import Module from 'node:module';
import { APP_NAME, userDataDir } from './paths.ts';
import { checkElectronRe2, redirectRe2 } from './electron/native-re2.ts';

app.setName(APP_NAME);
// Same folder the CLI uses by default (and CONTEXTPACK_HOME overrides both).
app.setPath('userData', userDataDir());

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  // Packaged, the Electron build of re2 ships as an extra resource beside app.asar; from a checkout it is in the repo.
  const nativeRoot = app.isPackaged ? process.resourcesPath : app.getAppPath();
  const native = checkElectronRe2(nativeRoot, process.versions.electron);
  void app.whenReady().then(async () => {
    if (!native.ok) {
      dialog.showErrorBox('ContextPack cannot start', native.reason);
      app.quit();
      return;
    }
    redirectRe2(Module as unknown as Parameters<typeof redirectRe2>[0], native.re2Dir);
    try {
      const { startDesktop } = await import('./electron/desktop.ts');
      await startDesktop();
    } catch (err) {
      // Without this a failed start is an unhandled rejection: no window, no message, a process left running.
      dialog.showErrorBox('ContextPack cannot start', err instanceof Error ? (err.stack ?? err.message) : String(err));
      app.quit();
    }
  });
}
