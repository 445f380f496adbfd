// The audit logs every packet assembly writes, wherever it is built (CLI or app): logs/redaction.jsonl and
// logs/injection-log.jsonl in a folder beside the database.
import { dirname, join } from 'node:path';
import type { InjectionRecord } from '../../../shared/packet.ts';
import { createJsonlAppender, createJsonlRedactionLog, type JsonlLogDeps } from '../redact/index.ts';
import type { AssembleDeps } from './assemble.ts';

export type PacketLogName = 'redaction' | 'injection-log';

/** logs/<name>.jsonl next to the database file. */
export function logPath(dbPath: string, name: PacketLogName): string {
  return join(dirname(dbPath), 'logs', `${name}.jsonl`);
}

/** 000's injection-log.jsonl sink for assemble(): one provenance record per line, on disk before the packet is handed out. */
export function createJsonlInjectionLog(filePath: string, deps: JsonlLogDeps = {}): (record: InjectionRecord) => void {
  return createJsonlAppender(filePath, deps);
}

/** Both audit log sinks for a store whose database file is `dbPath`, as assemble() takes them. */
export function packetLogs(dbPath: string, deps: JsonlLogDeps = {}): Pick<AssembleDeps, 'redactionLog' | 'injectionLog'> {
  return {
    redactionLog: createJsonlRedactionLog(logPath(dbPath, 'redaction'), deps),
    injectionLog: createJsonlInjectionLog(logPath(dbPath, 'injection-log'), deps),
  };
}
