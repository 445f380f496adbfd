// What `setup` and `hooks install|uninstall` share: the command an agent will run to start this CLI (checked the way
// the agent runs it, before anything is written), and the settings files' edits shown as diffs, confirmed once and
// written atomically, at a symlink's target.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lineDiff, SettingsFileError } from '../core/hooks/index.ts';
import { CliError, type CommandContext } from './command.ts';

/** This CLI's entry script (the package's `bin`). */
export const BIN_SCRIPT = fileURLToPath(new URL('./bin.mjs', import.meta.url));

/**
 * The environment a hook or an MCP server may get: an MCP client passes only a few variables, and an app started from
 * a desktop launcher has the system's PATH, not the one a shell profile builds. A command that starts here starts
 * for the agent.
 */
export function agentEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { HOME: env.HOME ?? '', PATH: '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin', LANG: 'C.UTF-8' };
}

/** Quoted for `sh -c` only where it must be. */
export const shQuote = (s: string): string => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`);
export const shellLine = (argv: readonly string[]): string => argv.map(shQuote).join(' ');

export type Checked = { argv: string[]; line: string; version: string };

/** Runs `<argv> --version` through `sh -c` in the agent's environment; the version it printed, or why it failed. */
export function checkCommand(argv: readonly string[], env: NodeJS.ProcessEnv): { ok: true; version: string } | { ok: false; reason: string } {
  const line = `${shellLine(argv)} --version`;
  const r = spawnSync('/bin/sh', ['-c', line], { env: agentEnv(env), encoding: 'utf8', timeout: 30_000 });
  const out = `${r.stdout ?? ''}`.trim();
  if (r.status === 0 && /^contextpack \d/.test(out)) return { ok: true, version: out };
  const why = `${r.stderr ?? ''}`.trim().split('\n').slice(-1)[0] || out || (r.error?.message ?? `exit ${r.status}`);
  return { ok: false, reason: `\`sh -c '${line}'\` with PATH=${agentEnv(env).PATH}: exit ${r.status ?? r.signal}: ${why}` };
}

/** `contextpack` as the user's PATH finds it, when it is this very installation. */
function onPath(env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, 'contextpack');
    try {
      accessSync(p, constants.X_OK);
      if (realpathSync(p) === realpathSync(BIN_SCRIPT)) return p;
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * The ways to start this CLI that an agent could be given, most readable first: the installed `contextpack` by its
 * absolute path (its `#!/usr/bin/env node` needs a suitable `node` on the agent's PATH), then this Node by absolute
 * path running the entry script (works whatever the agent's PATH holds).
 */
export function commandCandidates(env: NodeJS.ProcessEnv): string[][] {
  const installed = onPath(env);
  return [...(installed ? [[installed]] : []), [process.execPath, realpathSync(BIN_SCRIPT)]];
}

/** The command to write: `--command` when given (and it works), else the first candidate that starts in the agent's environment. */
export function agentCommand(ctx: CommandContext, given: string | undefined): Checked {
  const env = ctx.io.env;
  if (given !== undefined) {
    const argv = splitGiven(given);
    const c = checkCommand(argv, env);
    if (!c.ok) throw new CliError(`--command ${JSON.stringify(given)} does not start ContextPack the way an agent runs it: ${c.reason}\nnothing was changed`);
    return { argv, line: given, version: c.version };
  }
  const reasons: string[] = [];
  for (const argv of commandCandidates(env)) {
    const c = checkCommand(argv, env);
    if (c.ok) return { argv, line: shellLine(argv), version: c.version };
    reasons.push(c.reason);
  }
  throw new CliError(`no command starts ContextPack the way an agent runs it:\n  ${reasons.join('\n  ')}\nnothing was changed`);
}

/** A --command as words (a plain split on spaces, quotes respected), for the MCP entry's command and args. */
function splitGiven(s: string): string[] {
  const words: string[] = [];
  for (const m of s.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)) words.push(m[1] ?? m[2] ?? m[3]!);
  if (words.length === 0) throw new CliError('--command is empty');
  return words;
}

/** Every command a past install of ours may have written: the candidates, plain `contextpack`, and `--command`. */
export function ourCommands(env: NodeJS.ProcessEnv, given?: string): string[][] {
  const all = [...commandCandidates(env), ['contextpack'], ...(given ? [splitGiven(given)] : [])];
  const seen = new Set<string>();
  return all.filter((a) => !seen.has(a.join('\0')) && seen.add(a.join('\0')));
}

/** The file to read and write: a settings file that is a symlink (dotfiles) is edited at its target, never replaced. */
export function settingsTarget(file: string): { target: string; exists: boolean; note: string | null } {
  let st;
  try {
    st = lstatSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { target: file, exists: false, note: null };
    throw new CliError(`${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}; nothing was changed`);
  }
  if (st.isSymbolicLink()) {
    let target: string;
    try {
      target = realpathSync(file);
    } catch {
      throw new CliError(`${file} is a symbolic link to a file that does not exist; create the target or remove the link first, nothing was changed`);
    }
    if (!statSync(target).isFile()) throw new CliError(`${file} links to ${target}, which is not a regular file; nothing was changed`);
    return { target, exists: true, note: `${file} is a link: editing its target ${target}` };
  }
  if (!st.isFile()) throw new CliError(`${file} is not a regular file; nothing was changed`);
  return { target: file, exists: true, note: null };
}

/** Same folder, then rename: a reader never sees half a settings file; the file's mode is kept. */
function writeAtomically(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.contextpack-${process.pid}.tmp`;
  rmSync(tmp, { force: true });
  writeFileSync(tmp, text, { mode: existsSync(file) ? statSync(file).mode & 0o777 : 0o644, flag: 'wx' });
  renameSync(tmp, file);
}

export type FileEdit = { file: string; what: string; edit: (before: string, file: string) => string };
type Planned = { file: string; target: string; what: string; before: string; after: string; note: string | null; existed: boolean };

/** Each edit computed against its file as it is now; refused edits stop everything before anything is written. */
export function planEdits(edits: FileEdit[]): Planned[] {
  return edits.map(({ file, what, edit }) => {
    const { target, exists, note } = settingsTarget(file);
    let before = '';
    if (exists) before = readFileSync(target, 'utf8');
    let after: string;
    try {
      after = edit(before, file);
    } catch (err) {
      if (err instanceof SettingsFileError) throw new CliError(err.message);
      throw err;
    }
    return { file, target, what, before, after, note, existed: exists };
  });
}

/** Shows each change as a diff, asks once (unless --yes; --dry-run stops after the diffs), then writes them. */
export async function applyEdits(ctx: CommandContext, plan: Planned[], verb: string): Promise<number> {
  const changes = plan.filter((p) => p.after !== p.before);
  for (const p of plan) if (p.after === p.before) ctx.io.stdout(`${p.file}: ${p.what}: nothing to change\n`);
  if (changes.length === 0) return 0;
  for (const p of changes) {
    if (p.note) ctx.io.stdout(`${p.note}\n`);
    ctx.io.stdout(p.after === '' ? `${p.file}: ${p.what}: the file would be left empty; it is removed\n` : lineDiff(p.before, p.after, p.file));
  }
  if (ctx.values['dry-run'] === true) {
    ctx.io.stdout('dry run: nothing was written\n');
    return 0;
  }
  if (ctx.values.yes !== true) {
    if (!ctx.io.confirm) throw new CliError(`${verb}: not written: confirm with --yes (no terminal to ask on)`, 1);
    if (!(await ctx.io.confirm(changes.length === 1 ? `Write ${changes[0]!.file}?` : `Write these ${changes.length} files?`))) {
      ctx.io.stdout('not written\n');
      return 1;
    }
  }
  for (const p of changes) {
    if (p.after === '' && p.existed) rmSync(p.target);
    else writeAtomically(p.target, p.after);
    ctx.io.stdout(`${p.after === '' ? 'removed' : 'written'}: ${p.target} (${p.what})\n`);
  }
  return 0;
}
