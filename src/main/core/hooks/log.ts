// Every hook run leaves one line in the project's data folder (FILE-data/logs/hooks.jsonl): what it did, or why it
// could not. A hook must never block the agent, so this log is where a broken store or a bad payload is seen.
import { renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createJsonlAppender, gateDeep } from '../redact/index.ts';
import { dataFolderOf } from '../store/data-folder.ts';

export interface HookLogRecord {
  ts: string;
  event: string | null;
  session_id: string | null;
  project: string | null;
  ok: boolean;
  /** What the run did (ok) or the error (not ok). */
  message: string;
  ms: number;
}

export function hookLogPath(dbPath: string): string {
  return join(dataFolderOf(dbPath), 'logs', 'hooks.jsonl');
}

/** Past this size the log moves to hooks.1.jsonl (the one before is dropped): Codex's Stop writes a line a turn. */
export const HOOK_LOG_MAX_BYTES = 1 << 20;

/** Appends the record through the redaction gate (an error message may quote a transcript); never throws. */
export function appendHookLog(file: string, record: HookLogRecord, maxBytes = HOOK_LOG_MAX_BYTES): boolean {
  try {
    try {
      if (statSync(file).size > maxBytes) renameSync(file, file.replace(/\.jsonl$/, '.1.jsonl'));
    } catch {
      // no log yet
    }
    createJsonlAppender(file)(gateDeep(record, { source: 'hooks.jsonl', section: 'LOG' }).value);
    return true;
  } catch {
    return false;
  }
}
