// The CLI as a fourth client of the API handler map, in-process: a command parses its flags into a method's input,
// calls the same validating dispatcher IPC, HTTP and MCP call, and formats the answer. Flags derive from the method's
// zod schema (api-flags.ts), so an option added to the contract reaches the command line with its checks.
// The API loads when a command first calls it: `--help` and the commands that do not use it never pay for it.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ApiError, ApiInput, ApiOutput } from '../../shared/api/index.ts';
import { isApiMethod, type ApiMethod } from '../../shared/api/methods.ts';
import type { ApiEvent } from '../../shared/api/events.ts';
import { openStore, type Store } from '../core/store/index.ts';
import { currentProjectName, dataDirFor, defaultModelDirs, userDataDir } from '../paths.ts';
import { CliError, openCliStore, printJson, type CommandContext } from './command.ts';
import { flagName } from './api-flags.ts';
import { drainSpoolAfter } from './drain-spool.ts';

/**
 * What a command may use beside its calls: the API's events (progress), Ctrl-C for a running embedding run, and
 * whether the store has its vector extension (`embed` says so before looking for a model).
 */
export interface ApiSide {
  events: { subscribe(listener: (e: ApiEvent) => void): () => void };
  interrupt(): void;
  vec: Store['vec'];
  /** The store's database, for what a command says before a long call (embed: which mode "best" will use). */
  db: Store['db'];
}

export type ApiCall = <M extends ApiMethod>(method: M, input: ApiInput<M>) => Promise<ApiOutput<M>>;

const packageJson = fileURLToPath(new URL('../../../package.json', import.meta.url));

/** A refused call as the command line says it, with the API's error kept for commands that print it their own way. */
export class CliApiError extends CliError {
  readonly apiError: ApiError;
  constructor(message: string, exitCode: number, apiError: ApiError) {
    super(message, exitCode);
    this.apiError = apiError;
  }
}

/**
 * The engine's failure (unavailable, busy, failed): not a usage error, so the CLI says it as any command's failure
 * (`contextpack ingest: …`, exit 1), as it did before the command went through the API.
 */
export class CliApiFailure extends Error {
  readonly apiError: ApiError;
  constructor(apiError: ApiError) {
    super(apiError.message);
    this.apiError = apiError;
  }
}

/** The API's error as the command line says it: each field as the flag that sets it. */
export function cliApiError(command: string, e: ApiError, flags: Record<string, string> = {}): CliApiError | CliApiFailure {
  // The caller's mistakes exit 2, as the CLI's own errors do; the engine's failures 1.
  const callerError = e.code === 'invalid_input' || e.code === 'not_found' || e.code === 'forbidden' || e.code === 'conflict';
  // A stored snapshot that no longer hashes to its id exits 3, in the engine's words (as `replay` always did).
  if (e.code === 'tampered') return new CliApiError(e.message, 3, e);
  // A missing record or an owner's refusal is said in the engine's words, which name it (as the commands always did).
  if (e.code === 'not_found' || e.code === 'forbidden') return new CliApiError(e.message, 2, e);
  if (!callerError) return new CliApiFailure(e);
  const field = (f: string) => flags[f] ?? flags[f.replace(/\.\d+$/, '')] ?? flagName(f);
  const text = e.issues && e.issues.length > 0 ? e.issues.map((i) => `${field(i.field)}: ${i.message}`).join('; ') : e.message;
  return new CliApiError(`${command}: ${text}`, 2, e);
}

/** The project CONTEXTPACK_PROJECT names (or the default); null when it names none validly (--db was given instead). */
function projectNamed(env: NodeJS.ProcessEnv): string | null {
  try {
    return currentProjectName(undefined, env);
  } catch {
    return null;
  }
}

/**
 * Runs `work` with a call into the API over this command's store; the API and the store close however it ends.
 * `flags` names the flag of a field whose flag is not its kebab-case name. `storeless`: the methods called read no
 * store (capacity), so none is opened or created; an in-memory one stands in.
 */
export async function withApi<T>(
  ctx: CommandContext,
  command: string,
  work: (call: ApiCall, api: ApiSide) => Promise<T>,
  flags: Record<string, string> = {},
  storeless = false,
): Promise<T> {
  const { createApi } = await import('../api/index.ts');
  const store = storeless ? openStore(':memory:') : openCliStore(ctx);
  const api = createApi({
    store,
    dataDir: dataDirFor(ctx.values.db as string | undefined, ctx.dbPath, ctx.io.env),
    modelDirs: defaultModelDirs(ctx.io.env),
    version: (JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string }).version,
    transport: 'cli',
    // The projects of the ContextPack home (projects.list / create); one command cannot switch the project it runs in.
    projects: { home: userDataDir(ctx.io.env), current: projectNamed(ctx.io.env) },
    // One command, then exit: embedding and maintenance have their own commands, and nothing is watched.
    background: false,
    watch: false,
    embedInProcess: true,
  });
  const call: ApiCall = async (method, input) => {
    const r = await api.dispatch(method, input);
    if (!r.ok) throw cliApiError(command, r.error, flags);
    return r.value as ApiOutput<typeof method>;
  };
  try {
    return await work(call, { events: api.events, interrupt: api.interrupt, vec: store.vec, db: store.db });
  } finally {
    await api.close();
    if (!storeless) await drainSpoolAfter(ctx.io, store);
    store.close();
  }
}

/**
 * Through the API, for the commands that fill in forms (memory, decision, hierarchy): a refused form is said one way.
 * With --json it is `{ error, issues }` on stdout. Otherwise the contract's checks (`memory.create: …`) name the flag
 * that sets each field (`decision new: --title: is required`); the engine's name fields of the record that no flag
 * sets (a memory's content fields, a decision id), so they keep its heading and its fields, one a line.
 * `flags`: the flag of a field not named for it.
 */
export async function withApiIssues(ctx: CommandContext, command: string, work: (call: ApiCall) => Promise<number>, flags: Record<string, string> = {}): Promise<number> {
  try {
    return await withApi(ctx, command, work, flags);
  } catch (err) {
    if (!(err instanceof CliApiError)) throw err;
    const e = err.apiError;
    if (e.code !== 'invalid_input' || !e.issues?.length) throw err;
    if (ctx.json) {
      printJson(ctx, { error: e.message, issues: e.issues });
      return 2;
    }
    if (isApiMethod(e.message.replace(/:.*$/s, ''))) throw err;
    throw new CliError(`${e.message.replace(/:.*$/s, '')}:\n${e.issues.map((i) => `  ${i.field}: ${i.message}`).join('\n')}`);
  }
}
