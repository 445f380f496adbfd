// A hook that writes hands its work to a detached process and returns at once (the agent waits for its hooks; a
// 150k-token handoff takes longer than a hook should). The marker file says such work is under way, so the next
// SessionStart(compact) waits for the handoff it is about to print instead of printing an older one.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataFolderOf } from '../store/data-folder.ts';
import type { HookEvent } from './payload.ts';

export function inflightPath(dbPath: string, event: HookEvent, sessionId: string | null): string {
  const key = createHash('sha256').update(sessionId ?? '').digest('hex').slice(0, 16);
  return join(dataFolderOf(dbPath), 'hooks', `${event}-${key}.inflight`);
}

export function markInflight(file: string, pid: number, now = Date.now()): void {
  mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
  writeFileSync(file, JSON.stringify({ pid, started: now }), { mode: 0o600 });
}

export function clearInflight(file: string): void {
  rmSync(file, { force: true });
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Work is under way while the marker exists, its process lives and it is younger than `staleMs`. */
export function inflight(file: string, staleMs = 60_000, now = Date.now()): boolean {
  try {
    const m = JSON.parse(readFileSync(file, 'utf8')) as { pid: number; started: number };
    return alive(m.pid) && now - m.started < staleMs;
  } catch {
    return false;
  }
}

/** Waits (polling) until the work is done or `timeoutMs` passes; true when nothing is under way any more. */
export async function waitForInflight(file: string, timeoutMs = 20_000, pollMs = 50): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (inflight(file)) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, pollMs));
  }
  return true;
}
