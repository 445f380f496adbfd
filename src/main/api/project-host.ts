// One window (desktop or serve) over one project at a time: the API of the open project, swapped for another's on
// projects.switch. Transports hold the host's dispatch and events, which stay the same across switches.
import type { Store } from '../core/store/index.ts';
import type { Dispatch } from './dispatch.ts';
import { createEventHub, type EventHub } from './event-hub.ts';
import type { Api } from './api-type.ts';

export type ProjectsAccess = { home: string; current: string | null; switchTo?: (name: string) => Promise<void> };

export type ProjectHostOptions = {
  home: string;
  /** The project to open first; null when the window was started on one database file (no switching). */
  project: string | null;
  /** Opens a project's store and its API, given what the API should know about projects. */
  open(project: string | null, projects: ProjectsAccess): { store: Store; api: Api };
};

export interface ProjectHost {
  dispatch: Dispatch;
  events: EventHub;
  current(): { project: string | null; store: Store };
  close(): Promise<void>;
}

export function createProjectHost(options: ProjectHostOptions): ProjectHost {
  const events = createEventHub();
  let open: { project: string | null; store: Store; api: Api; unsubscribe: () => void };
  // Switches run one at a time; calls arriving meanwhile wait for the new project instead of reaching a closed store.
  let switching: Promise<void> | null = null;

  const start = (project: string | null) => {
    const access: ProjectsAccess = { home: options.home, current: project, ...(options.project === null ? {} : { switchTo }) };
    const { store, api } = options.open(project, access);
    open = { project, store, api, unsubscribe: api.events.subscribe(events.emit) };
  };

  async function switchTo(name: string): Promise<void> {
    if (switching) await switching;
    if (open.project === name) return;
    const previous = open;
    switching = (async () => {
      previous.unsubscribe();
      await previous.api.close();
      previous.store.close();
      try {
        start(name);
      } catch (err) {
        // A project this build refuses (a newer schema, not a database): stay on the one that was open.
        start(previous.project);
        throw err;
      }
    })();
    try {
      await switching;
    } finally {
      switching = null;
    }
  }

  start(options.project);
  return {
    dispatch: async (method, input) => {
      if (switching && method !== 'projects.switch') await switching;
      return open.api.dispatch(method, input);
    },
    events,
    current: () => ({ project: open.project, store: open.store }),
    close: async () => {
      if (switching) await switching;
      open.unsubscribe();
      await open.api.close();
      open.store.close();
    },
  };
}
