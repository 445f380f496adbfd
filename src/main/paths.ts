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

export const DEFAULT_PROJECT = 'default';
const PROJECT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** A project name is a plain folder name: letters, digits, `.`, `_`, `-`, at most 64, not starting with a dot. */
export function checkProjectName(name: string): string {
  if (!PROJECT_NAME.test(name)) throw new Error(`project name ${JSON.stringify(name)} is not valid: use letters, digits, ".", "_" or "-" (at most 64, starting with a letter or digit)`);
  return name;
}

/**
 * A project's database. The default project is the single database earlier builds kept in the user-data folder, so
 * an existing library is adopted as it is; every other project has its own folder under `projects/`.
 */
export function projectDbPath(name: string, env: NodeJS.ProcessEnv = process.env): string {
  checkProjectName(name);
  const home = userDataDir(env);
  return name === DEFAULT_PROJECT ? join(home, 'contextpack.db') : join(home, 'projects', name, 'contextpack.db');
}

/** `--db` beats `CONTEXTPACK_DB`, which beats the project (`--project`, then `CONTEXTPACK_PROJECT`, then `default`). */
export function resolveDbPath(flag: string | undefined, env: NodeJS.ProcessEnv = process.env, project?: string): string {
  return flag ?? env.CONTEXTPACK_DB ?? projectDbPath(project ?? env.CONTEXTPACK_PROJECT ?? DEFAULT_PROJECT, env);
}

/** Where the CLI, serve mode and desktop app look for embedding models (a packaged app passes its resources folder): $CONTEXTPACK_MODELS_DIR, the checkout's resources/models, then the user-data models folder (the desktop app's). */
export function defaultModelDirs(env: NodeJS.ProcessEnv = process.env, resourcesModelsDir: string = REPO_RESOURCES_MODELS_DIR): string[] {
  return modelSearchDirs({ resourcesModelsDir, userDataModelsDir: join(userDataDir(env), 'models'), env });
}
