// The projects of the ContextPack home: list, create, switch (a window that may), rename and delete.
import { createProject, deleteProject, DEFAULT_PROJECT, listProjects, projectExists, renameProject } from '../../core/projects/projects.ts';
import type { ApiHandlers } from '../dispatch.ts';
import { ApiFailure, unavailable } from '../failure.ts';

export type ProjectsDeps = { home: string; current: string | null; switchTo?: (name: string) => Promise<void> } | undefined;

type ProjectsHandlers = Pick<ApiHandlers, 'projects.list' | 'projects.create' | 'projects.switch' | 'projects.rename' | 'projects.delete'>;

// projects.delete is on every door the user drives (the desktop app, serve's token-guarded HTTP, the CLI, which asks
// first or needs --yes), and deliberately not an MCP tool: an agent deleting a whole project (database, logs,
// imported files) is destructive and cannot be undone, and nothing an agent does needs it.
export function createProjectsHandlers(projects: ProjectsDeps): ProjectsHandlers {
  const home = () => {
    if (!projects) throw unavailable('no ContextPack home folder is known here');
    return projects.home;
  };
  // A missing record names no field, as every not_found does (switch kept its field for the switcher's form).
  const named = (name: string, issues?: { field: string; message: string }[]) => {
    if (!projectExists(home(), name)) throw new ApiFailure('not_found', `no project named ${name}`, issues);
  };
  // The window's own project stays where it is: its store is open on those files.
  const notOpenHere = (name: string, what: string) => {
    if (projects?.switchTo && projects.current === name) throw new ApiFailure('conflict', `project ${name} is open in this window; switch to another before it is ${what}`, [{ field: 'name', message: 'open in this window' }]);
  };
  const refused = (field: string, err: unknown) => new ApiFailure('invalid_input', (err as Error).message, [{ field, message: (err as Error).message }]);
  return {
    'projects.list': async () => ({
      current: projects?.current ?? null,
      switchable: projects?.switchTo !== undefined,
      projects: projects ? listProjects(projects.home) : [],
    }),
    'projects.create': async (input) => {
      try {
        return createProject(home(), input.name);
      } catch (err) {
        if (err instanceof ApiFailure) throw err;
        throw refused('name', err);
      }
    },
    'projects.switch': async (input) => {
      if (!projects?.switchTo) throw unavailable('this window was opened on one database file (--db); start it with --project to switch');
      named(input.name, [{ field: 'name', message: 'no such project' }]);
      await projects.switchTo(input.name);
      return { current: input.name };
    },
    'projects.rename': async (input) => {
      named(input.name);
      notOpenHere(input.name, 'renamed');
      if (input.newName !== DEFAULT_PROJECT && projectExists(home(), input.newName)) {
        throw new ApiFailure('conflict', `project ${input.newName} already exists`, [{ field: 'newName', message: 'already exists' }]);
      }
      try {
        return renameProject(home(), input.name, input.newName);
      } catch (err) {
        // The engine refuses renaming the default project, or renaming one to its name.
        throw refused(input.newName === DEFAULT_PROJECT ? 'newName' : 'name', err);
      }
    },
    'projects.delete': async (input) => {
      named(input.name);
      notOpenHere(input.name, 'deleted');
      try {
        deleteProject(home(), input.name);
      } catch (err) {
        throw refused('name', err);
      }
      return { deleted: input.name };
    },
  };
}
