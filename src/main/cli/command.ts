import { readFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { explainStoreError, openStore, type Store } from '../core/store/index.ts';
import { listProjects, projectExists } from '../core/projects/projects.ts';
import { resolveDbPath, userDataDir } from '../paths.ts';
import { drainSpoolAfter } from './drain-spool.ts';

export type Options = NonNullable<ParseArgsConfig['options']>;

export interface CliIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  env: NodeJS.ProcessEnv;
  /** All of stdin; with `maxBytes`, reading stops there (a caller that refuses more never buffers more). */
  readStdin: (maxBytes?: number) => Promise<string>;
  /** Asks a yes/no question on the terminal; absent when there is no terminal (scripts, pipes, tests). */
  confirm?: (question: string) => Promise<boolean>;
}

export interface CommandContext {
  args: string[];
  values: Record<string, string | boolean | string[] | boolean[] | undefined>;
  io: CliIo;
  dbPath: string;
  json: boolean;
  /** Set for a command that gates its output: writes a JSON value with every string in it gated. */
  jsonOut?: (value: unknown) => void;
}

export interface Command {
  name: string;
  summary: string;
  usage: string;
  options: Options;
  run(ctx: CommandContext): Promise<number>;
  /**
   * The command prints stored text (memory records, decisions, hierarchy entries, packet queries): everything it
   * writes to stdout leaves through the redaction gate, text line by line and --json value by value (so the JSON
   * stays valid). Agents call the CLI too.
   */
  gatesOutput?: boolean;
  /**
   * How the command takes a project named by --project or CONTEXTPACK_PROJECT that does not exist: refused (the
   * default: a typo must not open an empty project whose answer is "no results"), created (`ingest`, which fills it),
   * or left to the command (`hook` always exits 0; `projects` manages them).
   */
  newProject?: 'refuse' | 'create' | 'command';
}

/** A user-facing error: printed without a stack trace, exit code 2 unless given. */
export class CliError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 2) {
    super(message);
    this.exitCode = exitCode;
  }
}

export const COMMON_OPTIONS: Options = {
  db: { type: 'string' },
  project: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
};

export function parseCommand(cmd: Command, argv: string[], io: CliIo): CommandContext {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { ...COMMON_OPTIONS, ...cmd.options }, allowPositionals: true, strict: true });
  } catch (err) {
    throw new CliError(`${cmd.name}: ${(err as Error).message}\nusage: ${cmd.usage}`);
  }
  const values = parsed.values as CommandContext['values'];
  let dbPath: string;
  try {
    dbPath = resolveDbPath(values.db as string | undefined, io.env, values.project as string | undefined);
  } catch (err) {
    throw new CliError(`--project: ${(err as Error).message}`);
  }
  const named = values.db === undefined && !io.env.CONTEXTPACK_DB ? ((values.project as string | undefined) ?? io.env.CONTEXTPACK_PROJECT) : undefined;
  if (named !== undefined && (cmd.newProject ?? 'refuse') === 'refuse' && values.help !== true && !projectExists(userDataDir(io.env), named)) {
    throw new CliError(unknownProject(userDataDir(io.env), named, values.project === undefined ? 'CONTEXTPACK_PROJECT' : '--project'));
  }
  return {
    args: parsed.positionals,
    values,
    io,
    dbPath,
    json: values.json === true,
  };
}

/**
 * --name as a decimal integer ≥ min, or `fallback` when absent. Pass min -Infinity for flags whose range the engine
 * checks, so its message (naming the field) is the one the user sees.
 */
export function intOption(ctx: CommandContext, name: string, fallback: number, min?: number): number;
export function intOption(ctx: CommandContext, name: string, fallback: undefined, min?: number): number | undefined;
export function intOption(ctx: CommandContext, name: string, fallback: number | undefined, min = 1): number | undefined {
  const raw = ctx.values[name];
  if (raw === undefined) return fallback;
  const n = typeof raw === 'string' && /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < min) {
    throw new CliError(`--${name} must be an integer${Number.isFinite(min) ? ` ≥ ${min}` : ''}, got ${JSON.stringify(raw)}`);
  }
  return n;
}

export function numberOption(ctx: CommandContext, name: string, fallback: number, min: number, max: number): number {
  const raw = ctx.values[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || n > max) throw new CliError(`--${name} must be a number in [${min}, ${max}], got ${JSON.stringify(raw)}`);
  return n;
}

/** A flag limited to a fixed list of values; `fallback` when absent. */
export function oneOf<T extends string, F extends T | undefined = T>(value: unknown, allowed: readonly T[], flag: string, fallback: F): T | F {
  if (value === undefined) return fallback;
  if (!allowed.includes(value as T)) throw new CliError(`--${flag} must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`);
  return value as T;
}

/** Reads FILE, or stdin for `-`; the error names the file, after `what` (the flag or command) when given. */
export async function readInput(ctx: CommandContext, file: string, what?: string): Promise<string> {
  if (file === '-') return ctx.io.readStdin();
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(`${what ? `${what} ` : ''}${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** Opens the command's database; a damaged one opens read-only, and the user is told why before anything else. */
export function openCliStore(ctx: CommandContext): Store {
  const store = openStore(ctx.dbPath);
  if (store.readOnlyReason) ctx.io.stderr(`contextpack: warning: ${store.readOnlyReason}\n`);
  return store;
}

/** Opens the database for one command and closes it however the command ends. */
export async function withStore<T>(ctx: CommandContext, fn: (store: Store) => T | Promise<T>): Promise<T> {
  const store = openCliStore(ctx);
  try {
    return await fn(store);
  } catch (err) {
    throw explainStoreError(store, err);
  } finally {
    await drainSpoolAfter(ctx.io, store);
    store.close();
  }
}

export function printJson(ctx: CommandContext, value: unknown): void {
  if (ctx.jsonOut) ctx.jsonOut(value);
  else ctx.io.stdout(JSON.stringify(value, null, 2) + '\n');
}

/** The context a command with `gatesOutput` runs in: its stdout and its JSON through the redaction gate. */
export async function gatedContext(ctx: CommandContext): Promise<CommandContext> {
  const { gateDeep, gateString } = await import('../core/redact/index.ts');
  const raw = ctx.io.stdout;
  return {
    ...ctx,
    io: { ...ctx.io, stdout: (s) => raw(gateString(s, { source: 'cli' }).text) },
    // Value by value: the line-by-line text gate would replace whole lines of the JSON text and break it.
    jsonOut: (value) => raw(JSON.stringify(gateDeep(value, { source: 'cli' }).value, null, 2) + '\n'),
  };
}

/** An unknown project, said with the projects there are and the command that makes one. */
export function unknownProject(home: string, name: string, from: string): string {
  const names = listProjects(home).map((p) => p.name);
  return `${from}: no project named ${JSON.stringify(name)}; the projects are: ${names.join(', ')}\n(\`contextpack projects new ${name}\` creates it; \`contextpack ingest PATH --project ${name}\` creates and fills it)`;
}
