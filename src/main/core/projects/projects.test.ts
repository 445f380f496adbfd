import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../store/index.ts';
import { tempDirs } from '../testing/tmp.ts';
import { checkProjectName, createProject, deleteProject, listProjects, projectDbFile, readLastProject, renameProject, writeLastProject } from './projects.ts';

const tmp = tempDirs('cp-projects-');
afterAll(() => tmp.cleanup());

describe('projects', () => {
  it('adopts the single database of earlier builds as the default project, without touching it', () => {
    const home = tmp.make();
    const legacy = join(home, 'contextpack.db');
    const store = openStore(legacy);
    store.db.prepare("INSERT INTO sources (path, root, type, status, indexed_at) VALUES ('/x/a.md', '/x', 'md', 'indexed', '2026-01-01T00:00:00Z')").run();
    store.close();
    const before = { bytes: readFileSync(legacy), mtime: statSync(legacy).mtimeMs };
    expect(projectDbFile(home, 'default')).toBe(legacy);
    const [only] = listProjects(home);
    expect(only).toMatchObject({ name: 'default', path: legacy, sources: 1 });
    expect(only!.size).toBeGreaterThan(0);
    expect(readFileSync(legacy).equals(before.bytes)).toBe(true);
    expect(statSync(legacy).mtimeMs).toBe(before.mtime);
  });

  it('creates, lists, renames and deletes projects, each in its own folder', () => {
    const home = tmp.make();
    expect(listProjects(home).map((p) => p.name)).toEqual(['default']);
    const made = createProject(home, 'web-app');
    expect(made).toMatchObject({ name: 'web-app', path: join(home, 'projects', 'web-app', 'contextpack.db'), sources: 0, lastUsed: null });
    expect(statSync(join(home, 'projects', 'web-app')).mode & 0o777).toBe(0o700);
    createProject(home, 'api');
    expect(listProjects(home).map((p) => p.name)).toEqual(['default', 'api', 'web-app']);
    expect(() => createProject(home, 'api')).toThrow(/already exists/);
    renameProject(home, 'api', 'backend');
    expect(listProjects(home).map((p) => p.name)).toEqual(['default', 'backend', 'web-app']);
    expect(() => renameProject(home, 'web-app', 'backend')).toThrow(/already exists/);
    deleteProject(home, 'backend');
    expect(listProjects(home).map((p) => p.name)).toEqual(['default', 'web-app']);
    expect(() => deleteProject(home, 'backend')).toThrow(/no project named backend/);
  });

  it('refuses to rename or delete the default project and refuses bad names', () => {
    const home = tmp.make();
    expect(() => deleteProject(home, 'default')).toThrow(/default project cannot be deleted/);
    expect(() => renameProject(home, 'default', 'x')).toThrow(/cannot be renamed/);
    for (const bad of ['', '.hidden', '../up', 'a/b', 'x'.repeat(65), 'sp ace']) expect(() => checkProjectName(bad), bad).toThrow(/not valid/);
    expect(checkProjectName('My_project-2.0')).toBe('My_project-2.0');
  });

  it('reports an unreadable database instead of failing the list', () => {
    const home = tmp.make();
    createProject(home, 'broken');
    writeFileSync(projectDbFile(home, 'broken'), 'this is not a database, just text long enough to have a header........');
    const broken = listProjects(home).find((p) => p.name === 'broken')!;
    expect(broken.sources).toBeNull();
    expect(broken.error).toMatch(/not a database/);
  });

  it('remembers the last project the app had open, while it exists', () => {
    const home = tmp.make();
    expect(readLastProject(home)).toBeNull();
    createProject(home, 'notes');
    writeLastProject(home, 'notes');
    expect(readLastProject(home)).toBe('notes');
    deleteProject(home, 'notes');
    expect(readLastProject(home)).toBeNull();
  });
});
