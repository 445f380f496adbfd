import fs from 'node:fs';
import path from 'node:path';
import type { RedactionEvent } from './types.ts';

export interface JsonlLogDeps {
  appendFileSync?: (file: string, data: string) => void;
  mkdirSync?: (dir: string, opts: { recursive: true }) => unknown;
}

/**
 * Log sink for `createRedactor({ log })`: one JSON object per line, in the
 * field order of the spec's redaction log (ts, pattern, type, source, line, section).
 * Appends synchronously so an event is on disk before the packet is handed out.
 */
export function createJsonlRedactionLog(filePath: string, deps: JsonlLogDeps = {}): (event: RedactionEvent) => void {
  const append = deps.appendFileSync ?? ((f: string, d: string) => fs.appendFileSync(f, d, 'utf8'));
  const mkdir = deps.mkdirSync ?? ((d: string, o: { recursive: true }) => fs.mkdirSync(d, o));
  let dirReady = false;
  return (event) => {
    if (!dirReady) {
      mkdir(path.dirname(filePath), { recursive: true });
      dirReady = true;
    }
    const record = {
      ts: event.ts,
      pattern: event.pattern,
      type: event.type,
      source: event.source,
      line: event.line,
      section: event.section,
    };
    append(filePath, JSON.stringify(record) + '\n');
  };
}
