// `memory update` and `memory resolve` (#17 item 3): field-level edits of a stored memory, validated like a create,
// audited, and followed by the lifecycle's archive rules for that memory.
import type { Database } from 'better-sqlite3';
import type { LifecycleAction, MemoryInput, MemoryRecord } from '../../../shared/memory.ts';
import { applyLifecycleTo } from './lifecycle.ts';
import { nowOf, replaceFields, requireRow, rowToRecord, type MemoryDeps } from './records.ts';
import { ValidationError, validateMemoryInput } from './validate.ts';

export interface MemoryPatch {
  title?: string;
  importance?: number;
  /** Replaces the tags. */
  tags?: string[];
  /** Content fields: `field` replaces, `field[]` appends to a list field. */
  set?: Record<string, unknown>;
  expires_at?: string | null;
}

export interface PatchResult {
  memory: MemoryRecord;
  changed: boolean;
  /** The archive rule that fired after the change, if any. */
  lifecycle: LifecycleAction | null;
}

function merged(current: Record<string, unknown>, set: Record<string, unknown> | undefined): Record<string, unknown> {
  const out = { ...current };
  for (const [k, v] of Object.entries(set ?? {})) {
    if (k.endsWith('[]')) {
      const key = k.slice(0, -2);
      const prev = out[key];
      if (prev !== undefined && !Array.isArray(prev)) throw new ValidationError([{ field: `content.${key}`, message: 'is not a list: use field=value' }]);
      out[key] = [...((prev as unknown[] | undefined) ?? []), ...(Array.isArray(v) ? v : [v])];
    } else out[k] = v;
  }
  return out;
}

function run(db: Database, idOrDecisionId: string, patch: MemoryPatch, deps: MemoryDeps, audit?: { action: 'RESOLVED'; reason: string }): PatchResult {
  return db
    .transaction(() => {
      const row = requireRow(db, idOrDecisionId);
      const current = rowToRecord(row);
      const input: MemoryInput = {
        memory_type: current.memory_type,
        title: patch.title ?? current.title,
        content: merged(current.content as unknown as Record<string, unknown>, patch.set) as MemoryInput['content'],
        project_id: current.project_id,
        agent_id: current.agent_id,
        tags: patch.tags ?? current.tags,
        importance: patch.importance ?? current.importance,
        timestamp: current.timestamp,
        expires_at: patch.expires_at === undefined ? current.expires_at : patch.expires_at,
        parent_memory_id: current.parent_memory_id,
      };
      const m = validateMemoryInput(input);
      const before = row.updated_at;
      const memory = replaceFields(db, row, m, deps, audit);
      const changed = memory.updated_at !== before || JSON.stringify(memory) !== JSON.stringify(current);
      const lifecycle = changed ? applyLifecycleTo(db, row.id, { ...deps, actor: 'lifecycle' }) : null;
      return { memory: lifecycle ? rowToRecord(requireRow(db, row.id)) : memory, changed, lifecycle };
    })
    .immediate();
}

/** Edits title, importance, tags and content fields; unknown or invalid fields fail with one issue per field. */
export function patchMemory(db: Database, idOrDecisionId: string, patch: MemoryPatch, deps: MemoryDeps = {}): PatchResult {
  return run(db, idOrDecisionId, patch, deps);
}

/** Marks an issue resolved (status = resolved), with an optional note of how; audited as RESOLVED. */
export function resolveMemory(db: Database, idOrDecisionId: string, opts: MemoryDeps & { resolution?: string } = {}): PatchResult {
  const row = requireRow(db, idOrDecisionId);
  if (row.type !== 'issue') throw new ValidationError([{ field: 'memory_type', message: `only issues can be resolved; ${idOrDecisionId} is a ${row.type}` }]);
  const content = JSON.parse(row.content) as { status?: string; investigation_status?: string };
  if (content.status === 'resolved') return { memory: rowToRecord(row), changed: false, lifecycle: null };
  const note = opts.resolution?.trim();
  const status = note ? `${content.investigation_status ? `${content.investigation_status}\n` : ''}Resolved ${nowOf(opts).toISOString().slice(0, 10)}: ${note}` : content.investigation_status;
  return run(db, idOrDecisionId, { set: { status: 'resolved', ...(status !== undefined ? { investigation_status: status } : {}) } }, opts, { action: 'RESOLVED', reason: note ? `resolved: ${note}` : 'resolved' });
}
