// A ContextPack project opened inside an agent process (the ADK door): the project's store and the same validating
// API dispatcher the CLI, MCP and HTTP doors call, so a pack built here is built, gated and stored as any other.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ApiInput, ApiOutput } from '../../shared/api/index.ts';
import type { ApiMethod } from '../../shared/api/methods.ts';
import { openStore, type Store } from '../core/store/index.ts';
import { packetLogs } from '../core/packet/index.ts';
import { currentProjectName, dataDirFor, defaultModelDirs, resolveDbPath, userDataDir } from '../paths.ts';

export interface ProjectOptions {
  /** A ContextPack project by name (as `contextpack --project`); default $CONTEXTPACK_PROJECT, then `default`. */
  project?: string;
  /** A database file instead of a named project (as `contextpack --db`). */
  db?: string;
  /** Create the project's store when it does not exist yet; default false (a typo should not make an empty project). */
  create?: boolean;
  /** Environment the project and model folders are resolved from; default process.env. */
  env?: NodeJS.ProcessEnv;
}

export class ContextPackAdkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ContextPackAdkError';
  }
}

export type ProjectCall = <M extends ApiMethod>(method: M, input: ApiInput<M>) => Promise<ApiOutput<M>>;

export interface Project {
  readonly dbPath: string;
  readonly store: Store;
  call: ProjectCall;
  /** The redaction events of work done outside the API (the memory service's session reading), beside the store. */
  redactionLog: ReturnType<typeof packetLogs>['redactionLog'];
  close(): Promise<void>;
}

const packageJson = fileURLToPath(new URL('../../../package.json', import.meta.url));

/** Opens the project's store and an API over it: no background work and no watcher (the agent process only asks). */
export async function openProject(options: ProjectOptions = {}): Promise<Project> {
  const env = options.env ?? process.env;
  let dbPath: string;
  try {
    dbPath = resolveDbPath(options.db, env, options.project);
  } catch (err) {
    throw new ContextPackAdkError(`contextpack/adk: ${(err as Error).message}`);
  }
  if (!options.create && !existsSync(dbPath)) {
    const which = options.db !== undefined ? `database ${dbPath}` : `project "${currentProjectName(options.project, env)}" (${dbPath})`;
    throw new ContextPackAdkError(`contextpack/adk: no ContextPack ${which}: index the project first (contextpack ingest <folder>), or pass create: true`);
  }
  const { createApi } = await import('../api/index.ts');
  const store = openStore(dbPath);
  const api = createApi({
    store,
    dataDir: dataDirFor(options.db, dbPath, env),
    modelDirs: defaultModelDirs(env),
    version: (JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string }).version,
    // In-process, like the CLI: the agent's process is the only client of this API instance.
    transport: 'cli',
    projects: { home: userDataDir(env), current: options.db !== undefined ? null : currentProjectName(options.project, env) },
    background: false,
    watch: false,
    embedInProcess: true,
  });
  const call: ProjectCall = async (method, input) => {
    const r = await api.dispatch(method, input);
    if (!r.ok) {
      const fields = r.error.issues?.map((i) => `${i.field}: ${i.message}`).join('; ');
      throw new ContextPackAdkError(`contextpack/adk: ${method}: ${fields || r.error.message}`);
    }
    return r.value as ApiOutput<typeof method>;
  };
  let closed = false;
  return {
    dbPath,
    store,
    call,
    redactionLog: store.path === ':memory:' ? undefined : packetLogs(dbPath).redactionLog,
    close: async () => {
      if (closed) return;
      closed = true;
      await api.close();
      store.close();
    },
  };
}
