// The audit logs every packet assembly writes, wherever it is built (CLI or app): logs/redaction.jsonl and
// logs/injection-log.jsonl in the database's own data folder (FILE-data/), so two databases never share a log.
import { join } from 'node:path';
import { dataFolderOf } from '../store/data-folder.ts';
import type { InjectionRecord } from '../../../shared/packet.ts';
import { createJsonlAppender, createJsonlRedactionLog, type JsonlLogDeps } from '../redact/index.ts';
import type { AssembleDeps } from './assemble.ts';

export type PacketLogName = 'redaction' | 'injection-log';

/** FILE-data/logs/<name>.jsonl for the database FILE(.db). */
export function logPath(dbPath: string, name: PacketLogName): string {
  return join(dataFolderOf(dbPath), 'logs', `${name}.jsonl`);
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
