import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { clearInflight, inflight, inflightPath, markInflight, waitForInflight } from '../../core/hooks/inflight.ts';
import { appendHookLog, hookLogPath } from '../../core/hooks/log.ts';
import type { DrainOptions } from '../../core/hooks/drain.ts';
import { HOOK_EVENTS, HookInputError, MAX_PAYLOAD_BYTES, parseHookPayload, transcriptLabel, type HookPayload } from '../../core/hooks/payload.ts';
import { readTranscriptBytes, transcriptSize } from '../../core/hooks/transcript-file.ts';
import { clearFailedCaptures, spoolCapture, spoolHasEntries, spoolNotice } from '../../core/hooks/spool.ts';
import { hookDeadlineMs, retryBusy } from '../../core/hooks/write-retry.ts';
import { projectForCwd } from '../../core/hooks/project.ts';
import { sessionFolder } from '../../core/hooks/transcript-cwd.ts';
import { currentProjectName, projectDbPath, userDataDir } from '../../paths.ts';
import { CliError, intOption, oneOf, printJson, type Command, type CommandContext } from '../command.ts';
import { str } from './memory-shared.ts';

const since = (t0: number) => Math.round(performance.now() - t0);

/** `--db` (or CONTEXTPACK_DB) wins; then the project whose roots hold the agent's cwd; then --project / the default. */
function hookTarget(ctx: CommandContext, p: HookPayload | null): { dbPath: string; project: string; mismatch?: string } {
  const named = str(ctx, 'project') ?? ctx.io.env.CONTEXTPACK_PROJECT;
  if (str(ctx, 'db') !== undefined || ctx.io.env.CONTEXTPACK_DB) return { dbPath: ctx.dbPath, project: named ?? 'default' };
  // The payload's cwd only as far as the transcript bears it out (a spoofed one must not pick another project's store).
  const home = userDataDir(ctx.io.env);
  const folder = p ? sessionFolder(p.cwd, p.transcript_path, (a, b) => projectForCwd(home, a)?.project === projectForCwd(home, b)?.project) : null;
  const match = folder?.cwd ? projectForCwd(home, folder.cwd) : null;
  const mismatch = folder?.mismatch ? { mismatch: folder.mismatch } : {};
  if (match) return { dbPath: projectDbPath(match.project, ctx.io.env), project: match.project, ...mismatch };
  return { dbPath: ctx.dbPath, project: currentProjectName(named, ctx.io.env), ...mismatch };
}

export const hookCommand: Command = {
  name: 'hook',
  summary: "Run one agent hook (PreCompact, SessionStart, SessionEnd, Stop) from the hook's JSON on stdin; always exits 0",
  usage:
    `contextpack hook ${HOOK_EVENTS.join('|')} [--project NAME] [--max-tokens N] [--agent NAME] [--format text|json] [--foreground [--bytes N]] < payload.json\n` +
    '       contextpack hook drain [--project NAME] [--retry-failed | --clear-failed]   (store the captures that wait in the spool)',
  options: {
    'max-tokens': { type: 'string' },
    agent: { type: 'string' },
    format: { type: 'string' },
    foreground: { type: 'boolean', default: false },
    bytes: { type: 'string' },
    'retry-failed': { type: 'boolean', default: false },
    'clear-failed': { type: 'boolean', default: false },
  },
  gatesOutput: true,
  // A hook never fails the agent: it finds its project itself (hookTarget) and logs what goes wrong.
  newProject: 'command',
  async run(ctx) {
    if (ctx.args[0] === 'drain') return drainCommand(ctx);
    const t0 = performance.now();
    const capturedAt = new Date().toISOString();
    let payload: HookPayload | null = null;
    let target = { dbPath: ctx.dbPath, project: str(ctx, 'project') ?? 'default' };
    let marker: string | null = null;
    // A capture that cannot be made at all (no transcript, a FIFO, not a transcript) is recorded as failed, once, so
    // stats, the Sessions view and the next SessionStart say so.
    let failedRecorded = false;
    const recordFailed = (err: unknown) => {
      if (failedRecorded || !payload || payload.event === 'SessionStart') return;
      failedRecorded = true;
      try {
        spoolCapture(target.dbPath, { payload, project: target.project, agent: str(ctx, 'agent'), captured_at: capturedAt, transcript: null, error: (err as Error).message, failed: true });
      } catch {
        // the log line below still says it
      }
    };
    const log = (ok: boolean, message: string) =>
      appendHookLog(hookLogPath(target.dbPath), { ts: new Date().toISOString(), event: payload?.event ?? ctx.args[0] ?? null, session_id: payload?.session_id ?? null, project: target.project, ok, message, ms: since(t0) });
    try {
      // Capped while read: a payload is a few hundred bytes, and 300 MB on stdin must not be buffered to be refused.
      payload = parseHookPayload(await ctx.io.readStdin(MAX_PAYLOAD_BYTES + 1), ctx.args[0]);
      const aimed = hookTarget(ctx, payload);
      target = aimed;
      if (aimed.mismatch) log(true, aimed.mismatch);
      const maxTokens = intOption(ctx, 'max-tokens', undefined, 200);
      const format = oneOf(ctx.values.format, ['text', 'json'] as const, 'format', 'text' as const);
      const writes = payload.event !== 'SessionStart';
      if (writes && ctx.values.foreground !== true) {
        const busy = detach(ctx, payload, target, capturedAt);
        if (busy) log(true, busy);
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
      const deadlineMs = hookDeadlineMs(ctx.io.env);
      const p = payload;
      let out;
      try {
        // Opening migrates and switches the journal: both write, so a busy store is waited for here too.
        const store = retryBusy(() => openStore(target.dbPath), { deadlineMs });
        try {
          // A damaged store is open read-only: a write would fail half-way, so an event that writes stops here.
          if (store.readOnlyReason && writes) throw new Error(`${store.readOnlyReason}; ${p.event} wrote nothing`);
          out = runHook(store.db, p, {
            project: target.project,
            agent: str(ctx, 'agent'),
            maxTokens,
            transcriptBytes: intOption(ctx, 'bytes', undefined, 0),
            writable: store.readOnlyReason === null,
            redactionLog: packetLogs(target.dbPath).redactionLog,
            deadlineMs: writes ? deadlineMs : undefined,
            dbPath: target.dbPath,
            now: () => new Date(capturedAt),
          });
          if (writes) await drainAfter(store.db, target.dbPath, log, packetLogs(target.dbPath).redactionLog);
        } finally {
          store.close();
        }
      } catch (err) {
        // Whatever kept a capture from the store (busy past the deadline, a damaged store, a bug), it is kept on disk
        // and stored later; only a capture whose input is bad (no transcript, not a transcript) has nothing to keep.
        if (!writes || err instanceof HookInputError || (err as Error).name === 'TranscriptError') {
          if (writes) recordFailed(err);
          throw err;
        }
        const bytes = readTranscriptBytes(p.transcript_path ?? '', transcriptLabel(p.transcript_path ?? ''), intOption(ctx, 'bytes', undefined, 0));
        spoolCapture(target.dbPath, { payload: p, project: target.project, agent: str(ctx, 'agent'), captured_at: capturedAt, transcript: bytes, error: (err as Error).message });
        log(false, `spooled (kept on disk, stored by the next hook or command): ${(err as Error).message}`);
        ctx.io.stderr(`contextpack hook: ${p.event} spooled: ${(err as Error).message}\n`);
        return 0;
      }
      // SessionStart stores nothing, but a capture that waits is stored soon: by a detached drain.
      if (!writes && spoolHasEntries(target.dbPath)) spawnWorker(ctx, ['hook', 'drain', '--db', target.dbPath, '--project', target.project], '');
      // Both agents add SessionStart's stdout to the context; as JSON, in the documented hookSpecificOutput shape.
      if (out.stdout && format === 'json') printJson(ctx, { hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: out.stdout } });
      else if (out.stdout) ctx.io.stdout(out.stdout);
      log(true, out.action);
    } catch (err) {
      // Never block the agent: the reason goes to the project's hooks log (and stderr, which the agent shows only in
      // its debug output), the exit code stays 0.
      const message = (err as Error).message;
      if (err instanceof HookInputError || (err as Error).name === 'TranscriptError') recordFailed(err);
      const logged = log(false, message);
      ctx.io.stderr(`contextpack hook: ${message}${logged ? ` (logged to ${hookLogPath(target.dbPath)})` : ''}\n`);
    } finally {
      if (marker) {
        clearInflight(marker);
        // A capture spooled behind this worker while it finished is stored now, not at some later hook.
        if (spoolHasEntries(target.dbPath)) spawnWorker(ctx, ['hook', 'drain', '--db', target.dbPath, '--project', target.project], '');
      }
    }
    return 0;
  },
};

/** After a worker's own capture: what waits in the spool, in the same process (the store is open already). */
async function drainAfter(db: import('better-sqlite3').Database, dbPath: string, log: (ok: boolean, message: string) => boolean, redactionLog: DrainOptions['redactionLog']): Promise<void> {
  if (!spoolHasEntries(dbPath)) return;
  const { drainCaptures } = await import('../../core/hooks/drain.ts');
  try {
    const r = drainCaptures(db, dbPath, { redactionLog, onStored: (s) => log(true, `${s.event} ${s.session_id ?? ''}: ${s.action}`) });
    if (r.failed) log(false, `${r.failed} spooled capture(s) failed for good: ${spoolNotice(dbPath) ?? ''}`);
  } catch (err) {
    log(false, `draining the spool: ${(err as Error).message}`);
  }
}

/** `contextpack hook drain`: stores what waits (and, asked to, tries the failed ones again or forgets them). */
async function drainCommand(ctx: CommandContext): Promise<number> {
  const target = hookTarget(ctx, null);
  if (ctx.values['clear-failed'] === true) {
    ctx.io.stdout(`removed ${clearFailedCaptures(target.dbPath)} failed capture(s)\n`);
    return 0;
  }
  const { openStore } = await import('../../core/store/index.ts');
  const { packetLogs } = await import('../../core/packet/index.ts');
  const { drainCaptures } = await import('../../core/hooks/drain.ts');
  const t0 = performance.now();
  const store = retryBusy(() => openStore(target.dbPath), { deadlineMs: hookDeadlineMs(ctx.io.env) });
  let r;
  try {
    if (store.readOnlyReason) throw new CliError(`${store.readOnlyReason}; nothing stored`);
    r = drainCaptures(store.db, target.dbPath, {
      deadlineMs: hookDeadlineMs(ctx.io.env),
      retryFailed: ctx.values['retry-failed'] === true,
      redactionLog: packetLogs(target.dbPath).redactionLog,
      onStored: (s) => appendHookLog(hookLogPath(target.dbPath), { ts: new Date().toISOString(), event: s.event, session_id: s.session_id, project: s.project, ok: true, message: s.action, ms: since(t0) }),
    });
  } finally {
    store.close();
  }
  const notice = spoolNotice(target.dbPath);
  ctx.io.stdout(`stored ${r.stored} spooled capture(s)${r.failed ? `, ${r.failed} failed` : ''}${notice ? `\n${notice}` : ''}\n`);
  return 0;
}

/** A detached `contextpack …` (the CLI entry of this build) fed `input` on stdin. */
function spawnWorker(ctx: CommandContext, args: string[], input: string): number {
  const child = spawn(process.execPath, [fileURLToPath(new URL('../bin.mjs', import.meta.url)), ...args], { detached: true, stdio: ['pipe', 'ignore', 'ignore'], env: ctx.io.env, windowsHide: true });
  if (child.pid === undefined) throw new Error(`could not start \`contextpack ${args.slice(0, 2).join(' ')}\``);
  child.stdin!.on('error', () => {});
  child.stdin!.end(input);
  child.unref();
  return child.pid;
}

/**
 * Hands a writing event to a detached `contextpack hook <event> --foreground` and returns: the agent waits for its
 * hooks, and a 150k-token handoff takes longer than a hook should. The transcript's size now is passed on, so the
 * worker reads the session as it stood when the hook fired, whatever the agent appends meanwhile.
 */
function detach(ctx: CommandContext, p: HookPayload, target: { dbPath: string; project: string }, capturedAt: string): string | null {
  if (!p.transcript_path) throw new HookInputError(`hook payload: "transcript_path" is missing (${p.event} needs the session's transcript)`);
  // Only a regular file, refused at once otherwise (a FIFO would hold the worker for ever); its size now bounds the read.
  const size = transcriptSize(p.transcript_path, transcriptLabel(p.transcript_path));
  const marker = inflightPath(target.dbPath, p.event, p.session_id);
  const agent = str(ctx, 'agent');
  if (inflight(marker)) {
    // A worker for this session and event still runs (Codex's Stop ends every turn): this capture waits in the spool
    // behind it, and that worker stores it before it exits. Nothing piles up, nothing is skipped.
    spoolCapture(target.dbPath, { payload: p, project: target.project, agent, captured_at: capturedAt, transcript: readTranscriptBytes(p.transcript_path, transcriptLabel(p.transcript_path), size), error: `queued behind the running ${p.event} worker` });
    // That worker may have finished meanwhile: a drain of its own stores the capture then (once: it is idempotent).
    if (!inflight(marker)) spawnWorker(ctx, ['hook', 'drain', '--db', target.dbPath, '--project', target.project], '');
    return `queued: a ${p.event} worker for this session is still running; it stores this capture next`;
  }
  const args = ['hook', p.event, '--foreground', '--bytes', String(size), '--db', target.dbPath, '--project', target.project];
  if (agent) args.push('--agent', agent);
  const pid = spawnWorker(ctx, args, JSON.stringify({ session_id: p.session_id, transcript_path: p.transcript_path, cwd: p.cwd, hook_event_name: p.event, trigger: p.trigger, source: p.source, reason: p.reason }));
  markInflight(marker, pid);
  return null;
}
