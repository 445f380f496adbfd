import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { HOOK_EVENTS, type HookPayload } from '../../core/hooks/payload.ts';
import { AGENT_HOOKS, HOOK_AGENTS, installHooks, lineDiff, SettingsFileError, uninstallHooks, type HookAgent } from '../../core/hooks/settings.ts';
import { currentProjectName, projectDbPath, userDataDir } from '../../paths.ts';
import { CliError, intOption, oneOf, type Command, type CommandContext } from '../command.ts';
import { str, subcommand } from './memory-shared.ts';

const since = (t0: number) => Math.round(performance.now() - t0);

/** `--db` (or CONTEXTPACK_DB) wins; then the project whose roots hold the agent's cwd; then --project / the default. */
function hookTarget(ctx: CommandContext, p: HookPayload | null, projectForCwd: typeof import('../../core/hooks/index.ts').projectForCwd): { dbPath: string; project: string } {
  const named = str(ctx, 'project') ?? ctx.io.env.CONTEXTPACK_PROJECT;
  if (str(ctx, 'db') !== undefined || ctx.io.env.CONTEXTPACK_DB) return { dbPath: ctx.dbPath, project: named ?? 'default' };
  const match = p?.cwd ? projectForCwd(userDataDir(ctx.io.env), p.cwd) : null;
  if (match) return { dbPath: projectDbPath(match.project, ctx.io.env), project: match.project };
  return { dbPath: ctx.dbPath, project: currentProjectName(named, ctx.io.env) };
}

export const hookCommand: Command = {
  name: 'hook',
  summary: "Run one agent hook (PreCompact, SessionStart, SessionEnd, Stop) from the hook's JSON on stdin; always exits 0",
  usage: `contextpack hook ${HOOK_EVENTS.join('|')} [--project NAME] [--max-tokens N] [--agent NAME] < payload.json`,
  options: { 'max-tokens': { type: 'string' }, agent: { type: 'string' } },
  gatesOutput: true,
  async run(ctx) {
    const t0 = performance.now();
    // A hook runs in a fresh process every time: Node's on-disk compile cache saves it recompiling the engine and the
    // tokenizer tables on each run (measured: ~150 ms of the tokenizer's ~500 ms load).
    (await import('node:module')).enableCompileCache?.();
    const { appendHookLog, hookLogPath, parseHookPayload, projectForCwd, runHook, writesStore } = await import('../../core/hooks/index.ts');
    const { openStore } = await import('../../core/store/index.ts');
    const { packetLogs } = await import('../../core/packet/index.ts');
    let payload: HookPayload | null = null;
    let target = { dbPath: ctx.dbPath, project: str(ctx, 'project') ?? 'default' };
    try {
      payload = parseHookPayload(await ctx.io.readStdin(), ctx.args[0]);
      target = hookTarget(ctx, payload, projectForCwd);
      const maxTokens = intOption(ctx, 'max-tokens', undefined, 200);
      const store = openStore(target.dbPath);
      try {
        // A damaged store is open read-only: a write would fail half-way, so an event that writes stops here.
        if (store.readOnlyReason && writesStore(payload)) throw new Error(`${store.readOnlyReason}; ${payload.event} wrote nothing`);
        const out = runHook(store.db, payload, {
          project: target.project,
          agent: str(ctx, 'agent'),
          maxTokens,
          writable: store.readOnlyReason === null,
          redactionLog: packetLogs(target.dbPath).redactionLog,
        });
        if (out.stdout) ctx.io.stdout(out.stdout);
        appendHookLog(hookLogPath(target.dbPath), { ts: new Date().toISOString(), event: payload.event, session_id: payload.session_id, project: target.project, ok: true, message: out.action, ms: since(t0) });
      } finally {
        store.close();
      }
    } catch (err) {
      // Never block the agent: the reason goes to the project's hooks log (and stderr, which the agent shows only in
      // its debug output), the exit code stays 0.
      const message = (err as Error).message;
      const file = hookLogPath(target.dbPath);
      const logged = appendHookLog(file, { ts: new Date().toISOString(), event: payload?.event ?? ctx.args[0] ?? null, session_id: payload?.session_id ?? null, project: target.project, ok: false, message, ms: since(t0) });
      ctx.io.stderr(`contextpack hook: ${message}${logged ? ` (logged to ${file})` : ''}\n`);
    }
    return 0;
  },
};

function settingsFile(ctx: CommandContext, agent: HookAgent): string {
  const user = ctx.values['user-scope'] === true;
  if (user && ctx.values['project-scope'] === true) throw new CliError('hooks: give --project-scope or --user-scope, not both');
  const base = user ? (ctx.io.env.HOME ?? homedir()) : resolve(str(ctx, 'dir') ?? process.cwd());
  return join(base, AGENT_HOOKS[agent].file);
}

/** Same folder, then rename: a reader never sees half a settings file. */
function writeAtomically(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.contextpack-${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: existsSync(file) ? statSync(file).mode & 0o777 : 0o644 });
  renameSync(tmp, file);
}

export const hooksCommand: Command = {
  name: 'hooks',
  summary: "Install or uninstall ContextPack's hooks in an agent's settings (claude-code, codex): shows the diff, keeps every other hook",
  usage:
    `contextpack hooks install|uninstall ${HOOK_AGENTS.join('|')} [--project-scope | --user-scope] [--dir FOLDER] [--yes | --dry-run]\n` +
    '                      [--command "contextpack"] [--project NAME]',
  options: {
    'project-scope': { type: 'boolean', default: false },
    'user-scope': { type: 'boolean', default: false },
    dir: { type: 'string' },
    yes: { type: 'boolean', short: 'y', default: false },
    'dry-run': { type: 'boolean', default: false },
    command: { type: 'string' },
  },
  gatesOutput: true,
  async run(ctx) {
    const sub = subcommand(ctx, ['install', 'uninstall'], this.usage);
    const agent = oneOf(ctx.args[1], HOOK_AGENTS, 'agent', undefined);
    if (!agent) throw new CliError(`hooks ${sub}: name the agent (${HOOK_AGENTS.join(', ')})\nusage: ${this.usage}`);
    const file = settingsFile(ctx, agent);
    const command = str(ctx, 'command') ?? 'contextpack';
    let before = '';
    try {
      before = readFileSync(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new CliError(`${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    let after: string;
    try {
      after = sub === 'install' ? installHooks(before, file, agent, command, str(ctx, 'project')) : uninstallHooks(before, file, str(ctx, 'command'));
    } catch (err) {
      if (err instanceof SettingsFileError) throw new CliError(err.message);
      throw err;
    }
    if (after === before) {
      ctx.io.stdout(`${file}: ${sub === 'install' ? 'the hooks are already installed' : 'no ContextPack hooks to remove'}; nothing changed\n`);
      return 0;
    }
    ctx.io.stdout(lineDiff(before, after, file));
    if (ctx.values['dry-run'] === true) return 0;
    if (ctx.values.yes !== true) {
      if (!ctx.io.confirm) throw new CliError(`hooks ${sub}: ${file} not written: confirm with --yes (no terminal to ask on)`, 1);
      if (!(await ctx.io.confirm(`Write ${file}?`))) {
        ctx.io.stdout('not written\n');
        return 1;
      }
    }
    writeAtomically(file, after);
    ctx.io.stdout(`${sub === 'install' ? 'installed' : 'removed'}: ${file}\n`);
    return 0;
  },
};
