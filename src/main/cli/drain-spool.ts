// "Stored by the next hook or command": a command that opened the project's store writable stores the hook captures
// that wait in the spool (core/hooks/spool.ts) before it closes the store. One readdir when nothing waits; the
// engine that stores them loads only when something does.
import type { Store } from '../core/store/index.ts';
import { appendHookLog, hookLogPath } from '../core/hooks/log.ts';
import { spoolHasEntries } from '../core/hooks/spool.ts';

// Only stderr, typed here: command.ts calls this, so importing CliIo from it would make a circle.
export async function drainSpoolAfter(io: { stderr(text: string): void }, store: Store): Promise<void> {
  if (store.readOnlyReason || store.path === ':memory:' || store.path === '' || !store.db.open || store.db.readonly) return;
  if (!spoolHasEntries(store.path)) return;
  try {
    const { drainCaptures } = await import('../core/hooks/drain.ts');
    const t0 = performance.now();
    const r = drainCaptures(store.db, store.path, {
      deadlineMs: 2_000,
      onStored: (s) => appendHookLog(hookLogPath(store.path), { ts: new Date().toISOString(), event: s.event, session_id: s.session_id, project: s.project, ok: true, message: s.action, ms: Math.round(performance.now() - t0) }),
    });
    if (r.stored || r.failed) io.stderr(`contextpack: stored ${r.stored} hook capture(s) that waited in the spool${r.failed ? `; ${r.failed} failed (contextpack stats says why)` : ''}\n`);
  } catch {
    // The capture stays in the spool for the next hook or command; this command's own work is done.
  }
}
