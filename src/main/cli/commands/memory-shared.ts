import type { Database } from 'better-sqlite3';
import { OwnershipError } from '../../core/hierarchy/ownership.ts';
import { DecisionFileError, NotFoundError, ValidationError } from '../../core/memory/index.ts';
import { CliError, printJson, withStore, type CommandContext } from '../command.ts';
import { CliApiError, withApi, type ApiCall } from '../api-client.ts';

/**
 * Opens the store, runs `fn`, and turns the engine's user errors into CLI errors: validation issues one per line
 * (or, with --json, as `{ error, issues }` on stdout so scripts can show them per field).
 */
export function withMemoryStore(ctx: CommandContext, fn: (db: Database) => number | Promise<number>): Promise<number> {
  return withStore(ctx, async (store) => {
    try {
      return await fn(store.db);
    } catch (err) {
      if (err instanceof ValidationError) {
        if (ctx.json) {
          printJson(ctx, { error: err.message, issues: err.issues });
          return 2;
        }
        throw new CliError(`${err.message.replace(/:.*$/s, '')}:\n${err.issues.map((i) => `  ${i.field}: ${i.message}`).join('\n')}`);
      }
      if (err instanceof DecisionFileError) {
        if (ctx.json) {
          printJson(ctx, { error: err.message, file: err.file, line: err.line, field: err.field });
          return 2;
        }
        throw new CliError(err.message);
      }
      if (err instanceof NotFoundError) throw new CliError(err.message);
      if (err instanceof OwnershipError) throw new CliError(err.message);
      throw err;
    }
  });
}

export const str = (ctx: CommandContext, name: string): string | undefined => {
  const v = ctx.values[name];
  return typeof v === 'string' ? v : undefined;
};

export const strs = (ctx: CommandContext, name: string): string[] => {
  const v = ctx.values[name];
  return Array.isArray(v) ? (v as string[]) : typeof v === 'string' ? [v] : [];
};

/** Comma-separated and repeated values both work: --tags a,b --tags c. */
export const csv = (ctx: CommandContext, name: string): string[] | undefined => {
  const all = strs(ctx, name).flatMap((v) => v.split(',')).map((t) => t.trim()).filter((t) => t !== '');
  return all.length > 0 ? all : undefined;
};

/** A number flag as a number; anything else as given, for the method's schema to refuse by name. */
export function num(ctx: CommandContext, name: string): number | string | undefined {
  const v = str(ctx, name);
  return v !== undefined && /^\s*-?\d+(\.\d+)?\s*$/.test(v) ? Number(v) : v;
}

export function subcommand(ctx: CommandContext, known: readonly string[], usage: string): string {
  const sub = ctx.args[0];
  if (!sub || !known.includes(sub)) throw new CliError(`${sub ? `unknown subcommand ${JSON.stringify(sub)}` : 'give a subcommand'}\nusage: ${usage}`);
  return sub;
}

export const agentOf = (ctx: CommandContext): string | undefined => str(ctx, 'agent') ?? ctx.io.env.CONTEXTPACK_AGENT;

/**
 * Through the API (api-client.ts); with --json a refused form is `{ error, issues }` on stdout, as the memory,
 * decision and hierarchy commands always printed it. `flags`: the flag of a field not named for it.
 */
export async function withApiIssues(ctx: CommandContext, command: string, work: (call: ApiCall) => Promise<number>, flags: Record<string, string> = {}): Promise<number> {
  try {
    return await withApi(ctx, command, work, flags);
  } catch (err) {
    if (!(err instanceof CliApiError) || !ctx.json || err.apiError.code !== 'invalid_input' || !err.apiError.issues?.length) throw err;
    printJson(ctx, { error: err.apiError.message, issues: err.apiError.issues });
    return 2;
  }
}
