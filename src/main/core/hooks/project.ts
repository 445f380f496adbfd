// Which project a hook belongs to: the one whose remembered roots (the folders ingested into it) hold the agent's
// working directory. Read-only and without migrations, so a hook never changes a project it only looks at.
import BetterSqlite3 from 'better-sqlite3';
import { existsSync, readdirSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { DEFAULT_PROJECT, isProjectName, projectDbFile } from '../projects/layout.ts';

export interface ProjectMatch {
  project: string;
  root: string;
}

function projectNames(home: string): string[] {
  const names = [DEFAULT_PROJECT];
  try {
    for (const e of readdirSync(resolve(home, 'projects'), { withFileTypes: true })) if (e.isDirectory() && isProjectName(e.name) && e.name !== DEFAULT_PROJECT) names.push(e.name);
  } catch {
    // no projects folder: only the default project
  }
  return names.sort((a, b) => (a === DEFAULT_PROJECT ? -1 : b === DEFAULT_PROJECT ? 1 : a < b ? -1 : 1));
}

function rootsOf(dbFile: string): string[] {
  if (!existsSync(dbFile)) return [];
  let db: BetterSqlite3.Database | undefined;
  try {
    db = new BetterSqlite3(dbFile, { readonly: true, fileMustExist: true });
    if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'roots'").get()) return [];
    return (db.prepare("SELECT path FROM roots WHERE kind = 'folder'").all() as { path: string }[]).map((r) => r.path);
  } catch {
    // A store this build cannot read is not a match; the hook reports the store itself when it opens it.
    return [];
  } finally {
    db?.close();
  }
}

const inside = (dir: string, path: string): boolean => {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/**
 * The project with the deepest root that holds `cwd`; failing that, the one with a root inside `cwd` (the agent works
 * at the repository's top and only `docs/` was ingested). Null when no project remembers a folder there.
 */
export function projectForCwd(home: string, cwd: string): ProjectMatch | null {
  const at = resolve(cwd);
  let best: ProjectMatch | null = null;
  let below: ProjectMatch | null = null;
  for (const project of projectNames(home)) {
    for (const root of rootsOf(projectDbFile(home, project))) {
      if (inside(root, at)) {
        if (!best || root.length > best.root.length) best = { project, root };
      } else if (!below && inside(at, root)) below = { project, root };
    }
  }
  return best ?? below;
}
