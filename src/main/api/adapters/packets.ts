import type { Database } from 'better-sqlite3';
import {
  assemble,
  createStoreSources,
  getPacket,
  listPackets,
  PacketRequestError,
  packetLogs,
  renderPacket,
  replay,
  SnapshotNotFoundError,
  SnapshotTamperedError,
  type AssembleDeps,
} from '../../core/packet/index.ts';
import { chooseRetriever, type RetrievalChoice } from '../../core/search/index.ts';
import type { PacketView } from '../../../shared/api/index.ts';
import { getSnapshot } from '../../core/packet/index.ts';
import { decodeHandoff } from '../../core/session/index.ts';
import type { PacketsEngine } from '../engines.ts';
import { ApiFailure } from '../failure.ts';

export interface PacketsAdapterDeps {
  /** Defaults to the engine's own (RE2 rules). In the desktop app `require('re2')` already resolves to the Electron build (electron/native-re2.ts), so the default serves there too. */
  redactor?: AssembleDeps['redactor'];
  now?: () => Date;
  /** The store's database file: every build appends to FILE-data/logs/redaction.jsonl and injection-log.jsonl (logPath), as the CLI does. None → no log files. */
  dbPath?: string;
  /** The retriever for each build (core/search/best-retriever.ts); default: the store's own choice, without a model. */
  retrieval?: () => Promise<RetrievalChoice>;
}

async function mapErrors<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof PacketRequestError) throw new ApiFailure('invalid_input', err.message, [{ field: err.field, message: err.message }]);
    if (err instanceof SnapshotNotFoundError) throw new ApiFailure('not_found', err.message);
    if (err instanceof SnapshotTamperedError) throw new ApiFailure('tampered', err.message);
    throw err;
  }
}

/** Handoff packages share the snapshot store (template handoff-<type>) but are not packets. */
function refuseHandoff(db: Database, hash: string): void {
  let bytes: Uint8Array;
  try {
    bytes = getSnapshot(db, hash).bytes;
  } catch {
    return; // not found / tampered: the packet path reports it
  }
  if (decodeHandoff(bytes)) throw new ApiFailure('invalid_input', `${hash.slice(0, 16)} is a handoff package, not a packet: use sessions.handoffGet`, [{ field: 'hash', message: 'a handoff package' }]);
}

export function createPacketsAdapter(db: Database, deps: PacketsAdapterDeps = {}): PacketsEngine {
  // Built once: openStore has applied every migration before the API starts, so the tables they read are there.
  const base: Omit<AssembleDeps, 'db'> = { sources: createStoreSources(db), redactor: deps.redactor, now: deps.now };
  const logs = deps.dbPath ? packetLogs(deps.dbPath) : {};
  const retrieval =
    deps.retrieval ?? (() => chooseRetriever({ db, vec: { loaded: true }, openSemantic: async () => ({ ok: false, reason: 'semantic search off: no query model wired in' }) }, { purpose: 'packet' }));
  // Each build (and reassembly) asks for the best retriever now: vectors and a model can appear while the app runs.
  const sourcesNow = async (): Promise<Omit<AssembleDeps, 'db'>> => {
    const choice = await retrieval();
    return { ...base, sources: { ...base.sources, retriever: choice.retriever, embedderId: choice.embedderId, retrievalFallback: choice.fallbackReason } };
  };
  return {
    build: (input) =>
      mapErrors(async (): Promise<PacketView> => {
        const { format, ...request } = input;
        // The API is the orchestrator seed 000 asks to compress a task over TASK's room (task-brief.ts).
        const { bytes: _bytes, ...rest } = await assemble({ ...request, briefTask: true }, { ...(await sourcesNow()), ...logs, db }, format ?? 'md');
        return rest;
      }),
    list: (input) => listPackets(db, { limit: input.limit ?? 200 }),
    get: (hash, view = {}) => {
      refuseHandoff(db, hash);
      try {
        const p = getPacket(db, hash);
        const format = view.format ?? 'md';
        const stored = view.raw ? { stored: Buffer.from(getSnapshot(db, p.hash).bytes).toString('utf8') } : {};
        return { hash: p.hash, packet: p.packet, manifest: p.manifest, text: renderPacket(p.packet, p.hash, format), format, ...stored };
      } catch (err) {
        if (err instanceof SnapshotNotFoundError) throw new ApiFailure('not_found', err.message);
        if (err instanceof SnapshotTamperedError) throw new ApiFailure('tampered', err.message);
        throw err;
      }
    },
    replay: (hash) =>
      mapErrors(async () => {
        refuseHandoff(db, hash);
        // A reassembly is a comparison, not a packet handed out: like `contextpack replay --reassemble`, it logs nothing.
        const r = await replay(db, hash, { reassemble: true }, await sourcesNow());
        return r.diff!;
      }),
  };
}
