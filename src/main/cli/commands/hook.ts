import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { clearInflight, inflight, inflightPath, markInflight, waitForInflight } from '../../core/hooks/inflight.ts';
import { appendHookLog, hookLogPath } from '../../core/hooks/log.ts';
import { HOOK_EVENTS, parseHookPayload, transcriptLabel, type HookPayload } from '../../core/hooks/payload.ts';
import { projectForCwd } from '../../core/hooks/project.ts';
import { AGENT_HOOKS, HOOK_AGENTS, installHooks, lineDiff, SettingsFileError, uninstallHooks, type HookAgent } from '../../core/hooks/settings.ts';
import { currentProjectName, projectDbPath, userDataDir } from '../../paths.ts';
import { CliError, intOption, oneOf, printJson, type Command, type CommandContext } from '../command.ts';
import { str, subcommand } from './memory-shared.ts';

const since = (t0: number) => Math.round(performance.now() - t0);

/** `--db` (or CONTEXTPACK_DB) wins; then the project whose roots hold the agent's cwd; then --project / the default. */
function hookTarget(ctx: CommandContext, p: HookPayload | null): { dbPath: string; project: string } {
  const named = str(ctx, 'project') ?? ctx.io.env.CONTEXTPACK_PROJECT;
  if (str(ctx, 'db') !== undefined || ctx.io.env.CONTEXTPACK_DB) return { dbPath: ctx.dbPath, project: named ?? 'default' };
  const match = p?.cwd ? projectForCwd(userDataDir(ctx.io.env), p.cwd) : null;
  if (match) return { dbPath: projectDbPath(match.project, ctx.io.env), project: match.project };
  return { dbPath: ctx.dbPath, project: currentProjectName(named, ctx.io.env) };
}

export const hookCommand: Command = {
  name: 'hook',
  summary: "Run one agent hook (PreCompact, SessionStart, SessionEnd, Stop) from the hook's JSON on stdin; always exits 0",
  usage: `contextpack hook ${HOOK_EVENTS.join('|')} [--project NAME] [--max-tokens N] [--agent NAME] [--format text|json] [--foreground [--bytes N]] < payload.json`,
  options: { 'max-tokens': { type: 'string' }, agent: { type: 'string' }, format: { type: 'string' }, foreground: { type: 'boolean', default: false }, bytes: { type: 'string' } },
  gatesOutput: true,
  async run(ctx) {
    const t0 = performance.now();
    let payload: HookPayload | null = null;
    let target = { dbPath: ctx.dbPath, project: str(ctx, 'project') ?? 'default' };
    let marker: string | null = null;
    try {
      payload = parseHookPayload(await ctx.io.readStdin(), ctx.args[0]);
      target = hookTarget(ctx, payload);
      const maxTokens = intOption(ctx, 'max-tokens', undefined, 200);
      const format = oneOf(ctx.values.format, ['text', 'json'] as const, 'format', 'text' as const);
      const writes = payload.event !== 'SessionStart';
      if (writes && ctx.values.foreground !== true) {
        const busy = detach(ctx, payload, target);
        if (busy) appendHookLog(hookLogPath(target.dbPath), { ts: new Date().toISOString(), event: payload.event, session_id: payload.session_id, project: target.project, ok: true, message: busy, ms: since(t0) });
        return 0;
      }
      if (writes && ctx.values.bytes !== undefined) marker = inflightPath(target.dbPath, payload.event, payload.session_id);
      // After a compaction the handoff the PreCompact hook is still storing is the one to print.
      if (payload.event === 'SessionStart' && (payload.source === 'compact' || payload.source === 'resume')) await waitForInflight(inflightPath(target.dbPath, 'PreCompact', payload.session_id));
      // A hook runs in a fresh process every time: Node's on-disk compile cache saves it recompiling the engine and
      // the tokenizer tables on each run.
      (await import('node:module')).enableCompileCache?.();
      const { runHook } = await import('../../core/hooks/run.ts');
      const { openStore } = await import('../../core/store/index.ts');
      const { packetLogs } = await import('../../core/packet/index.ts');
      const store = openStore(target.dbPath);
      try {
        // A damaged store is open read-only: a write would fail half-way, so an event that writes stops here.
        if (store.readOnlyReason && writes) throw new Error(`${store.readOnlyReason}; ${payload.event} wrote nothing`);
        const out = runHook(store.db, payload, {
          project: target.project,
          agent: str(ctx, 'agent'),
          maxTokens,
          transcriptBytes: intOption(ctx, 'bytes', undefined, 0),
          writable: store.readOnlyReason === null,
          redactionLog: packetLogs(target.dbPath).redactionLog,
        });
        // Both agents add SessionStart's stdout to the context; as JSON, in the documented hookSpecificOutput shape.
        if (out.stdout && format === 'json') printJson(ctx, { hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: out.stdout } });
        else if (out.stdout) ctx.io.stdout(out.stdout);
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
    } finally {
      if (marker) clearInflight(marker);
    }
    return 0;
  },
};

/**
 * Hands a writing event to a detached `contextpack hook <event> --foreground` and returns: the agent waits for its
 * hooks, and a 150k-token handoff takes longer than a hook should. The transcript's size now is passed on, so the
 * worker reads the session as it stood when the hook fired, whatever the agent appends meanwhile.
 */
function detach(ctx: CommandContext, p: HookPayload, target: { dbPath: string; project: string }): string | null {
  // Codex's Stop ends every turn: while one worker still records this session, another would only pile up behind it
  // (the next turn's Stop records what this one skips).
  const marker = inflightPath(target.dbPath, p.event, p.session_id);
  if (inflight(marker)) return `skipped: a ${p.event} worker for this session is still running`;
  let size: number;
  try {
    size = statSync(p.transcript_path ?? '').size;
  } catch (err) {
    if (!p.transcript_path) throw new Error(`hook payload: "transcript_path" is missing (${p.event} needs the session's transcript)`);
    throw new Error(`transcript ${transcriptLabel(p.transcript_path)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const args = [fileURLToPath(new URL('../bin.mjs', import.meta.url)), 'hook', p.event, '--foreground', '--bytes', String(size), '--db', target.dbPath, '--project', target.project];
  const agent = str(ctx, 'agent');
  if (agent) args.push('--agent', agent);
  const child = spawn(process.execPath, args, { detached: true, stdio: ['pipe', 'ignore', 'ignore'], env: ctx.io.env, windowsHide: true });
  if (child.pid === undefined) throw new Error(`could not start the ${p.event} worker`);
  markInflight(marker, child.pid);
  child.stdin!.end(JSON.stringify({ session_id: p.session_id, transcript_path: p.transcript_path, cwd: p.cwd, hook_event_name: p.event, trigger: p.trigger, source: p.source, reason: p.reason }));
  child.unref();
  return null;
}

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
