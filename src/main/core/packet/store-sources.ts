import type { Database } from 'better-sqlite3';
import { getSettings } from '../settings/index.ts';
import type { MemoryRecord, MemorySearchHit } from '../../../shared/memory.ts';
import { getExecutiveSummary } from '../hierarchy/index.ts';
import { openIssues, searchMemories } from '../memory/index.ts';
import { createBm25Retriever, type Retriever } from '../search/index.ts';
import type { GoalsData, MemoryEntry, MemoryProvider, PacketSources } from './sources.ts';
import { chunkLineContext, ingestSessions, readStaticText } from './sources.ts';

// Adapters from the store's own modules (memory and hierarchy, issue #4) to the packet providers. Read-only:
// searchMemories does not count as access, so packing never changes the store it reads.

const SEVERITY_SCORE: Record<string, number> = { critical: 1, high: 0.8, medium: 0.6, low: 0.4 };

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

function bodyOf(m: MemoryRecord): string {
  const c = m.content as unknown as Record<string, unknown>;
  const str = (k: string) => (typeof c[k] === 'string' && (c[k] as string).trim() !== '' ? (c[k] as string).trim() : null);
  const list = (k: string) => (Array.isArray(c[k]) ? (c[k] as unknown[]).map(String).filter((x) => x.trim() !== '') : []);
  const lines: string[] = [];
  const add = (label: string, v: string | null) => v && lines.push(`${label}: ${v}`);
  switch (m.memory_type) {
    case 'decision':
      add('Decision', str('decision'));
      add('Rationale', str('rationale'));
      add('Expected impact', str('expected_impact'));
      break;
    case 'learning':
      add('Lesson', str('lesson'));
      add('Applies to', str('applicability'));
      add('Evidence', str('evidence'));
      break;
    case 'issue':
      add('Severity', str('severity'));
      add('Description', str('description'));
      add('Status', str('investigation_status'));
      add('Next', str('next_actions'));
      break;
    case 'state': {
      const pct = typeof c.completion_percentage === 'number' ? `${c.completion_percentage}%` : null;
      add('Task', str('task_description'));
      add('Progress', pct);
      if (list('substeps_remaining').length) add('Remaining', list('substeps_remaining').join('; '));
      if (list('blockers').length) add('Blockers', list('blockers').join('; '));
      if (list('next_actions').length) add('Next', list('next_actions').join('; '));
      break;
    }
  }
  return lines.join('\n');
}

function entry(m: MemoryRecord, score: number): MemoryEntry {
  const id = m.decision_id ?? m.memory_id;
  return {
    id,
    kind: m.memory_type,
    source: m.decision_id ? `${m.decision_id} (memory ${m.memory_id})` : `memory ${m.memory_id}`,
    ts: m.timestamp,
    title: oneLine(m.title),
    text: bodyOf(m),
    score,
  };
}

/**
 * Recency is measured from the store's newest memory write, not the wall clock, so an unchanged store ranks
 * the same tomorrow (same inputs + same store → same packet hash).
 */
export function memoryClock(db: Database): Date {
  const row = db.prepare('SELECT max(max(timestamp), max(updated_at)) AS t FROM memories').get() as { t: string | null } | undefined;
  return row?.t ? new Date(row.t) : new Date(0);
}

export function createMemoryProvider(db: Database): MemoryProvider {
  const deps = () => {
    const at = memoryClock(db);
    return { now: () => at };
  };
  const search = (types: MemoryRecord['memory_type'][], query: string, limit: number, sort: 'relevance' | 'timestamp' | 'importance'): MemorySearchHit[] =>
    searchMemories(db, { types, query: query.trim() === '' ? undefined : query, sort, limit }, deps());
  return {
    version: 'memory-search/seed-weights',
    latestStates: (limit) => search(['state'], '', limit, 'timestamp').map((h) => entry(h.memory, h.score)),
    decisionTimeline: (limit) => search(['decision'], '', limit, 'timestamp').map((h) => entry(h.memory, h.score)),
    decisions: (query, limit) => search(['decision'], query, limit, query.trim() === '' ? 'importance' : 'relevance').map((h) => entry(h.memory, h.score)),
    learnings: (query, limit) => search(['learning'], query, limit, query.trim() === '' ? 'importance' : 'relevance').map((h) => entry(h.memory, h.score)),
    openIssues: (_query, limit) =>
      openIssues(db, { limit }).map((m) => entry(m, SEVERITY_SCORE[(m.content as { severity?: string }).severity ?? ''] ?? 0.5)),
  };
}

/** L1 executive summary as GOALS: blockers are the failing gates, priorities the passing ones, key decisions the directives. */
export function createGoalsProvider(db: Database): () => GoalsData | null {
  return () => {
    const s = getExecutiveSummary(db);
    if (!s || s.goal.trim() === '') return null;
    return {
      source: `hierarchy ${s.marker}`,
      goal: oneLine(s.goal),
      status: `${s.status_pct}%${s.status_text ? ` — ${oneLine(s.status_text)}` : ''}`,
      blockers: s.blockers.map(oneLine),
      priorities: s.priorities.map(oneLine),
      directives: s.key_decisions.map((d) => ({ id: d.decision_id, text: d.title ?? '(decision not found in memory)' })),
    };
  };
}

function hasTable(db: Database, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

/** Every provider the store can back; a missing table leaves its provider out with a recorded reason. */
export function createStoreSources(db: Database, opts: { retriever?: Retriever; embedderId?: string | null; retrievalFallback?: string | null; staticDir?: string } = {}): PacketSources {
  const unavailable: string[] = [];
  const memoryOk = hasTable(db, 'memories');
  const hierarchyOk = hasTable(db, 'hierarchy_sections');
  if (!memoryOk) unavailable.push('memory: store has no memories table');
  if (!hierarchyOk) unavailable.push('goals: store has no hierarchy table');
  return {
    retriever: opts.retriever ?? createBm25Retriever(db),
    memory: memoryOk ? createMemoryProvider(db) : null,
    goals: hierarchyOk ? createGoalsProvider(db) : null,
    sessions: ingestSessions(db),
    lineContext: chunkLineContext(db),
    staticText: opts.staticDir ? (name) => readStaticText(name, opts.staticDir) : undefined,
    embedderId: opts.embedderId ?? null,
    defaultExcludes: hasTable(db, 'settings') ? () => getSettings(db).evidenceExclude : null,
    retrievalFallback: opts.retrievalFallback ?? null,
    unavailable,
  };
}
