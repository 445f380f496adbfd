import fs from 'node:fs';
import path from 'node:path';
import type { RedactionEvent } from './types.ts';

export interface JsonlLogDeps {
  appendFileSync?: (file: string, data: string) => void;
  mkdirSync?: (dir: string, opts: { recursive: true }) => unknown;
}

/**
 * An append-only JSONL file: one JSON object per line, the folder made on the first write. Appends synchronously
 * so a record is on disk before whatever it describes is handed out.
 */
export function createJsonlAppender(filePath: string, deps: JsonlLogDeps = {}): (record: object) => void {
  // Owner-only: the logs name the user's files and what was redacted from them.
  const append = deps.appendFileSync ?? ((f: string, d: string) => fs.appendFileSync(f, d, { encoding: 'utf8', mode: 0o600 }));
  const mkdir = deps.mkdirSync ?? ((d: string, o: { recursive: true }) => fs.mkdirSync(d, { ...o, mode: 0o700 }));
  let dirReady = false;
  return (record) => {
    if (!dirReady) {
      mkdir(path.dirname(filePath), { recursive: true });
      dirReady = true;
    }
    append(filePath, JSON.stringify(record) + '\n');
  };
}

/**
 * Log sink for `createRedactor({ log })`: one JSON object per line, in the
 * field order of the spec's redaction log (ts, pattern, type, source, line, section).
 */
export function createJsonlRedactionLog(filePath: string, deps: JsonlLogDeps = {}): (event: RedactionEvent) => void {
  const write = createJsonlAppender(filePath, deps);
  return (event) =>
    write({
      ts: event.ts,
      pattern: event.pattern,
      type: event.type,
      source: event.source,
      line: event.line,
      section: event.section,
    });
}
