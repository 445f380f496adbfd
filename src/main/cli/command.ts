import { parseArgs, type ParseArgsConfig } from 'node:util';
import { resolveDbPath } from '../paths.ts';

export type Options = NonNullable<ParseArgsConfig['options']>;

export interface CliIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  env: NodeJS.ProcessEnv;
  readStdin: () => Promise<string>;
}

export interface CommandContext {
  args: string[];
  values: Record<string, string | boolean | string[] | boolean[] | undefined>;
  io: CliIo;
  dbPath: string;
  json: boolean;
}

export interface Command {
  name: string;
  summary: string;
  usage: string;
  options: Options;
  run(ctx: CommandContext): Promise<number>;
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
  return {
    args: parsed.positionals,
    values,
    io,
    dbPath: resolveDbPath(values.db as string | undefined, io.env),
    json: values.json === true,
  };
}

export function intOption(ctx: CommandContext, name: string, fallback: number, min = 1): number {
  const raw = ctx.values[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new CliError(`--${name} must be an integer ≥ ${min}, got ${JSON.stringify(raw)}`);
  return n;
}

export function numberOption(ctx: CommandContext, name: string, fallback: number, min: number, max: number): number {
  const raw = ctx.values[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || n > max) throw new CliError(`--${name} must be a number in [${min}, ${max}], got ${JSON.stringify(raw)}`);
  return n;
}

export function printJson(ctx: CommandContext, value: unknown): void {
  ctx.io.stdout(JSON.stringify(value, null, 2) + '\n');
}
