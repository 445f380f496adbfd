// Projects: a name with its own database and data folder under the ContextPack home, so one project's files,
// decisions and goals never reach another's packets. The default project is the single database earlier builds kept
// in the home folder itself, adopted as it is; every other project is a folder under `projects/`.
import BetterSqlite3 from 'better-sqlite3';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProjectInfo } from '../../../shared/types.ts';
import { makeDir } from '../store/make-dir.ts';
import { checkProjectName, DEFAULT_PROJECT, isProjectName, projectDbFile, projectDir } from './layout.ts';

export type { ProjectInfo };

export { checkProjectName, DEFAULT_PROJECT, projectDbFile, projectDir } from './layout.ts';

function onDisk(db: string): { size: number; lastUsed: string | null } {
  let size = 0;
  let newest = 0;
  for (const f of [db, `${db}-wal`, `${db}-shm`]) {
    if (!existsSync(f)) continue;
    const st = statSync(f);
    size += st.size;
    if (f !== `${db}-shm`) newest = Math.max(newest, st.mtimeMs);
  }
  return { size, lastUsed: newest ? new Date(newest).toISOString() : null };
}

function countSources(db: string): { sources: number | null; error?: string } {
  if (!existsSync(db)) return { sources: 0 };
  let conn: BetterSqlite3.Database | undefined;
  try {
    // Read-only, no migrations, no extension: listing must never change a project's files.
    conn = new BetterSqlite3(db, { readonly: true, fileMustExist: true });
    const hasTable = conn.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sources'").get();
    return { sources: hasTable ? (conn.prepare("SELECT count(*) AS n FROM sources WHERE status = 'indexed'").get() as { n: number }).n : 0 };
  } catch (err) {
    return { sources: null, error: (err as Error).message };
  } finally {
    conn?.close();
  }
}

export function projectInfo(home: string, name: string): ProjectInfo {
  const path = projectDbFile(home, name);
  return { name, path, ...onDisk(path), ...countSources(path) };
}

/** Every project: the default one always, then the folders under projects/ in name order. */
export function listProjects(home: string): ProjectInfo[] {
  const names = [DEFAULT_PROJECT];
  const dir = join(home, 'projects');
  if (existsSync(dir)) {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.isDirectory() && isProjectName(e.name) && e.name !== DEFAULT_PROJECT) names.push(e.name);
    }
  }
  return names.map((n) => projectInfo(home, n));
}

export function projectExists(home: string, name: string): boolean {
  return name === DEFAULT_PROJECT || existsSync(projectDir(home, name));
}

/** Makes the project's folder (0700: it will hold the database and logs); its database is created on first open. */
export function createProject(home: string, name: string): ProjectInfo {
  checkProjectName(name);
  if (projectExists(home, name)) throw new Error(`project ${name} already exists`);
  makeDir(projectDir(home, name));
  return projectInfo(home, name);
}

function refuseDefault(name: string, what: string): void {
  if (name === DEFAULT_PROJECT) throw new Error(`the default project cannot be ${what}: it is the database in the ContextPack home folder itself`);
}

export function renameProject(home: string, from: string, to: string): ProjectInfo {
  checkProjectName(from);
  checkProjectName(to);
  refuseDefault(from, 'renamed');
  refuseDefault(to, 'replaced');
  if (!projectExists(home, from)) throw new Error(`no project named ${from}`);
  if (projectExists(home, to)) throw new Error(`project ${to} already exists`);
  renameSync(projectDir(home, from), projectDir(home, to));
  return projectInfo(home, to);
}

/** Removes the project's folder: its database, logs and imported files. */
export function deleteProject(home: string, name: string): void {
  checkProjectName(name);
  refuseDefault(name, 'deleted');
  if (!projectExists(home, name)) throw new Error(`no project named ${name}`);
  rmSync(projectDir(home, name), { recursive: true, force: true });
}

const LAST_PROJECT_FILE = 'last-project';

/** The project the desktop app had open when it last switched, if it still exists. */
export function readLastProject(home: string): string | null {
  try {
    const name = readFileSync(join(home, LAST_PROJECT_FILE), 'utf8').trim();
    return isProjectName(name) && projectExists(home, name) ? name : null;
  } catch {
    return null;
  }
}

export function writeLastProject(home: string, name: string): void {
  makeDir(home);
  writeFileSync(join(home, LAST_PROJECT_FILE), `${checkProjectName(name)}\n`, { mode: 0o600 });
}
