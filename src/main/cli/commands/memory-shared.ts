// Flag readers shared by the commands; nothing heavy is imported here (the `hook` command loads this at start-up).
import { CliError, type CommandContext } from '../command.ts';

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
