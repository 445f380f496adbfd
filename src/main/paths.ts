import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { modelSearchDirs, REPO_RESOURCES_MODELS_DIR } from './core/embed/model-dirs.ts';
import { checkProjectName, DEFAULT_PROJECT, projectDbFile } from './core/projects/layout.ts';
import { dataFolderOf } from './core/store/data-folder.ts';

export const APP_NAME = 'ContextPack';

/** The folder Electron's app.getPath('userData') gives for this app, computed without Electron for the CLI. */
export function userDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.CONTEXTPACK_HOME) return env.CONTEXTPACK_HOME;
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', APP_NAME);
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), APP_NAME);
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), APP_NAME);
}

/** A project's database: the default project's is the home folder's own contextpack.db (core/projects). */
export function projectDbPath(name: string, env: NodeJS.ProcessEnv = process.env): string {
  return projectDbFile(userDataDir(env), name);
}

/** The project the CLI, serve, MCP and the app open when none is named. */
export function currentProjectName(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return checkProjectName(flag ?? env.CONTEXTPACK_PROJECT ?? DEFAULT_PROJECT);
}

/** `--db` beats `CONTEXTPACK_DB`, which beats the project (`--project`, then `CONTEXTPACK_PROJECT`, then `default`). */
export function resolveDbPath(flag: string | undefined, env: NodeJS.ProcessEnv = process.env, project?: string): string {
  return flag ?? env.CONTEXTPACK_DB ?? projectDbPath(currentProjectName(project, env), env);
}

/** Where the CLI, MCP, serve mode and desktop app look for embedding models, in this order (a packaged app passes its resources folder): $CONTEXTPACK_MODELS_DIR, the user-data models folder (`contextpack models fetch` fills it), then resources/models. */
export function defaultModelDirs(env: NodeJS.ProcessEnv = process.env, resourcesModelsDir: string = REPO_RESOURCES_MODELS_DIR): string[] {
  return modelSearchDirs({ resourcesModelsDir, userDataModelsDir: join(userDataDir(env), 'models'), env });
}

/**
 * With --db the managed folders sit next to that database, so a throwaway database never touches the user's data;
 * a project's are its own folder (the user-data folder for the default project).
 */
export function dataDirFor(dbFlag: string | undefined, dbPath: string, env: NodeJS.ProcessEnv): string {
  if (dbFlag !== undefined) return dataFolderOf(dbPath);
  return env.CONTEXTPACK_DB ? userDataDir(env) : dirname(dbPath);
}
