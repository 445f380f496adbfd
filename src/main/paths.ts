import { homedir } from 'node:os';
import { join } from 'node:path';
import { modelSearchDirs, REPO_RESOURCES_MODELS_DIR } from './core/embed/model-dirs.ts';

export const APP_NAME = 'ContextPack';

/** The folder Electron's app.getPath('userData') gives for this app, computed without Electron for the CLI. */
export function userDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.CONTEXTPACK_HOME) return env.CONTEXTPACK_HOME;
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', APP_NAME);
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), APP_NAME);
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), APP_NAME);
}

/** `--db` beats `CONTEXTPACK_DB`, which beats the user-data default. */
export function resolveDbPath(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return flag ?? env.CONTEXTPACK_DB ?? join(userDataDir(env), 'contextpack.db');
}

/** Where the CLI, serve mode and desktop app look for embedding models (a packaged app passes its resources folder): $CONTEXTPACK_MODELS_DIR, the checkout's resources/models, then the user-data models folder (the desktop app's). */
export function defaultModelDirs(env: NodeJS.ProcessEnv = process.env, resourcesModelsDir: string = REPO_RESOURCES_MODELS_DIR): string[] {
  return modelSearchDirs({ resourcesModelsDir, userDataModelsDir: join(userDataDir(env), 'models'), env });
}
