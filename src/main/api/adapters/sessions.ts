import type { Database } from 'better-sqlite3';
import {
  acquireOwnership,
  addSection,
  draftSection,
  listOwnership,
  OwnershipError,
  ownershipAudit,
  propagationHints,
  releaseOwnership,
  transferOwnership,
  updateSection,
} from '../../core/hierarchy/index.ts';
import {
  archiveMemory,
  deleteMemory,
  getMemory,
  listAudit,
  NotFoundError,
  patchMemory,
  resolveMemory,
  restoreMemory,
  runMaintenance,
  searchMemories,
  ValidationError,
} from '../../core/memory/index.ts';
import { getSnapshot, packetLogs, SnapshotNotFoundError, SnapshotTamperedError } from '../../core/packet/index.ts';
import { listCaptures } from '../../core/hooks/captures.ts';
import { gateDeep, getDefaultRedactor } from '../../core/redact/index.ts';
import { buildHandoff, capacityStatus, compactTranscript, createHandoff, previewHandoff, decodeHandoff, DEFAULT_WINDOW, endSession, listSessions, notesTranscript, renderHandoffMarkdown, storeHandoff } from '../../core/session/index.ts';
import { buildHandoffOffThread, OFFLOAD_MIN_CHARS, OffloadUnavailable } from '../../core/session/handoff-offload.ts';
import { countTokens } from '../../core/tokens/index.ts';
import { parseTranscript, renderTurn, TranscriptError, type Transcript } from '../../core/transcripts/index.ts';
import { gateCompaction } from '../../core/session/gate.ts';
import type { HandoffType } from '../../../shared/session.ts';
import type { MemoryType } from '../../../shared/memory.ts';
import type { TranscriptRead } from '../../../shared/api/index.ts';
import type { ApiHandlers } from '../dispatch.ts';
import { ApiFailure } from '../failure.ts';

type Part<K extends keyof ApiHandlers> = Pick<ApiHandlers, K>;
type SessionMethods = Extract<keyof ApiHandlers, `sessions.${string}` | 'memory.search' | 'memory.get' | 'memory.update' | 'memory.resolve' | 'memory.archive' | 'memory.delete' | 'memory.maintain' | 'memory.audit' | 'hierarchy.addSection' | 'hierarchy.editSection' | 'hierarchy.own' | 'hierarchy.owners' | 'hierarchy.draft' | 'hierarchy.hints'>;

/** The engines' user errors as contract errors: per-field issues for forms, the owner's name for refusals. */
async function mapped<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ValidationError) throw new ApiFailure('invalid_input', err.message, err.issues);
    if (err instanceof NotFoundError) throw new ApiFailure('not_found', err.message);
    if (err instanceof OwnershipError) throw new ApiFailure('forbidden', err.message, [{ field: 'agent', message: err.message }]);
    if (err instanceof TranscriptError) throw new ApiFailure('invalid_input', err.message, [{ field: 'transcript', message: err.message }]);
    if (err instanceof SnapshotNotFoundError) throw new ApiFailure('not_found', err.message);
    if (err instanceof SnapshotTamperedError) throw new ApiFailure('tampered', err.message);
    throw err;
  }
}

const transcriptOf = (t: { name: string; text: string }): Transcript => parseTranscript(t.text, t.name);
const readOf = (t: Transcript): TranscriptRead => ({ name: t.source, format: t.format, turns: t.turns.length, problems: t.problems });

/**
 * Sessions (capacity, compaction, handoffs, session summaries), memory editing and hierarchy editing / ownership:
 * the same handlers serve IPC, HTTP and MCP. Agent names default to `user`, as on the CLI.
 */
export function createSessionHandlers(db: Database, deps: { now?: () => Date; dbPath?: string; handoffWorkerUrl?: URL } = {}): Part<SessionMethods> {
  const now = deps.now;
  // Handoffs and session summaries log their redactions where packets do (logs/redaction.jsonl beside the database).
  const redactionLog = deps.dbPath ? packetLogs(deps.dbPath).redactionLog : undefined;
  return {
    'sessions.capacity': (input) =>
      mapped(() => {
        const window = input.window ?? DEFAULT_WINDOW;
        if (input.transcript) {
          // Counted as written: redaction applies to what leaves, never to what is measured.
          const transcript = transcriptOf(input.transcript);
          return { ...capacityStatus(transcript.turns.reduce((a, t) => a + countTokens(renderTurn(t), input.encoding) + 1, 0), window), transcript: readOf(transcript) };
        }
        return capacityStatus(input.tokens ?? 0, window);
      }),
    'sessions.analyze': (input) =>
      mapped(() => {
        const t = transcriptOf(input.transcript);
        const reduction = input.targetReduction;
        const counter = { n: 0, log: redactionLog };
        const r = gateCompaction(compactTranscript(t, reduction !== undefined ? { targetFor: (b) => Math.floor(b * (1 - reduction)) } : { targetTokens: input.targetTokens }), getDefaultRedactor(), counter, 'COMPACTION', t.source);
        const redactions = counter.n;
        return {
          name: t.source,
          format: t.format,
          session_id: t.session_id,
          turns: t.turns.length,
          problems: t.problems,
          redactions,
          capacity: capacityStatus(r.summary.tokens_before, input.window ?? DEFAULT_WINDOW),
          compaction: r.summary,
          reduction: r.reduction,
          target_tokens: r.target_tokens,
          preserved: r.preserved,
          elements: r.elements,
          text: r.text,
        };
      }),
    'sessions.handoff': (input) =>
      mapped(async () => {
        const request = { type: input.type as HandoffType, from: input.from, to: input.to, reason: input.reason, maxTokens: input.maxTokens, sections: input.sections, encoding: input.encoding };
        const opts = { format: input.format, save: input.save, now, redactionLog };
        if (input.preview === true && input.save === true) throw new ApiFailure('invalid_input', 'save stores what the handoff found: it needs preview off', [{ field: 'save', message: 'not with preview' }]);
        // A large transcript is built off the event loop (a server keeps answering), then stored here.
        const file = db.name && db.name !== ':memory:' ? db.name : null;
        if (input.transcript && input.transcript.text.length >= OFFLOAD_MIN_CHARS && file) {
          try {
            const off = await buildHandoffOffThread({ dbPath: file, transcript: input.transcript, request, now: (now ?? (() => new Date()))().toISOString() }, { redactionLog, workerUrl: deps.handoffWorkerUrl });
            const r = input.preview === true ? previewHandoff(off.built, input.format) : storeHandoff(db, off.built, request, opts);
            return off.transcript ? { ...r, transcript: off.transcript } : r;
          } catch (err) {
            if (!(err instanceof OffloadUnavailable)) throw err;
          }
        }
        const transcript = input.transcript ? transcriptOf(input.transcript) : null;
        const r = input.preview === true ? previewHandoff(buildHandoff({ ...request, transcript }, { ...opts, db }), input.format) : createHandoff(db, { ...request, transcript }, opts);
        return transcript ? { ...r, transcript: readOf(transcript) } : r;
      }),
    'sessions.handoffGet': (input) =>
      mapped(() => {
        const snap = getSnapshot(db, input.hash);
        const p = decodeHandoff(snap.bytes);
        if (!p) throw new ApiFailure('invalid_input', `${input.hash.slice(0, 16)} is a packet, not a handoff package: use packets.get`, [{ field: 'hash', message: 'not a handoff package' }]);
        return { hash: snap.hash, package: p, text: renderHandoffMarkdown(p, snap.hash), ...(input.raw ? { stored: Buffer.from(snap.bytes).toString('utf8') } : {}) };
      }),
    'sessions.end': (input) =>
      mapped(() => {
        const transcript = input.transcript ? transcriptOf(input.transcript) : null;
        const r = endSession(db, transcript ?? notesTranscript(input.notes!, input.notesName ?? 'notes'), { agent: input.agent, now, redactionLog });
        return transcript ? { ...r, transcript: readOf(transcript) } : r;
      }),
    'sessions.list': async (input) => listSessions(db, input.limit ?? 50),
    // Stored text (handoff titles, findings) leaves through the gate like every other answer.
    'sessions.captures': async (input) => gateDeep(listCaptures(db, { limit: input.limit, window: input.window }), { source: 'sessions.captures' }).value,
    'memory.search': (input) =>
      mapped(() => ({
        hits: searchMemories(db, {
          query: input.query?.trim() || undefined,
          types: input.types as MemoryType[] | undefined,
          archived: input.archived ?? false,
          tags: input.tags,
          importanceGte: input.importanceGte,
          after: input.after,
          before: input.before,
          projectId: input.project,
          sort: input.sort ?? (input.query?.trim() ? 'relevance' : 'timestamp'),
          limit: input.limit ?? 100,
        }),
      })),
    'memory.get': (input) =>
      mapped(() => {
        const m = getMemory(db, input.id, { touch: input.touch ?? false, now, actor: input.agent });
        if (!m) throw new NotFoundError(`memory ${JSON.stringify(input.id)} not found`);
        return m;
      }),
    'memory.update': (input) => mapped(() => patchMemory(db, input.id, { title: input.title, importance: input.importance, tags: input.tags, set: input.set, expires_at: input.expires }, { now, actor: input.agent ?? 'user' })),
    'memory.resolve': (input) => mapped(() => resolveMemory(db, input.id, { resolution: input.resolution, now, actor: input.agent ?? 'user' })),
    'memory.archive': (input) => mapped(() => (input.restore ? restoreMemory(db, input.id, { now, actor: input.agent }) : archiveMemory(db, input.id, { now, actor: input.agent }))),
    'memory.delete': (input) => mapped(() => deleteMemory(db, input.id, { now, actor: input.agent })),
    'memory.maintain': (input) => mapped(() => runMaintenance(db, { dryRun: input.dryRun === true, projectId: input.project, now })),
    'memory.audit': async (input) => ({ entries: listAudit(db, { memoryId: input.id, limit: input.limit ?? 50 }) }),
    'hierarchy.addSection': (input) => {
      const { agent, ...section } = input;
      return mapped(() => addSection(db, section, { now, actor: agent }));
    },
    'hierarchy.editSection': (input) => {
      const { agent, marker, ...patch } = input;
      return mapped(() => updateSection(db, marker, patch, { now, actor: agent }));
    },
    'hierarchy.own': (input) =>
      mapped(() => {
        if (input.action === 'release') {
          releaseOwnership(db, input.section, input.agent, { now, reason: input.reason });
          return { ownership: null };
        }
        if (input.action === 'transfer') return { ownership: transferOwnership(db, input.section, input.agent, input.to!, { now, reason: input.reason, type: input.type }) };
        return { ownership: acquireOwnership(db, input.section, input.agent, { now, reason: input.reason, type: input.type, expiresAt: input.expires }) };
      }),
    'hierarchy.owners': async (input) => ({ owners: listOwnership(db, { now }), audit: ownershipAudit(db, input.section, 100) }),
    'hierarchy.draft': (input) => mapped(() => draftSection(db, { level: input.level, title: input.title ?? 'Draft', pathPrefix: input.path, query: input.query, size: input.size })),
    'hierarchy.hints': async (input) => ({ change: input.change, hints: propagationHints(db, { type: input.change, path: input.path }) }),
  };
}
