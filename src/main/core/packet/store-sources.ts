import type { Database } from 'better-sqlite3';
import { getSettings } from '../settings/index.ts';
import type { MemoryRecord, MemorySearchHit } from '../../../shared/memory.ts';
import { fitnessState, type GoalsDeps } from '../goals/index.ts';
import { compareMarkers, getExecutiveSummary, listSections } from '../hierarchy/index.ts';
import { roundScore } from './canonical.ts';
import { openIssues, searchMemories } from '../memory/index.ts';
import { createBm25Retriever, type Retriever } from '../search/index.ts';
import type { GoalsData, HierarchyEntry, MemoryEntry, MemoryProvider, PacketSources, SessionEntry } from './sources.ts';
import { chunkCallersOf, chunkDefinitionsNamed, chunkDocumentText, chunkFileMatches, chunkLineContext, readStaticText } from './sources.ts';

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

/** 000: confidence decay of 0.17 per week (Darr 1995), applied before ranking. */
export const FRESHNESS_DECAY_PER_WEEK = 0.17;
const WEEK_MS = 7 * 86_400_000;

/** exp(-0.17 × weeks since the memory's timestamp), measured from the store's clock; 1 for a memory dated later. */
export function freshnessOf(timestamp: string, now: Date): number {
  const weeks = Math.max(0, (now.getTime() - Date.parse(timestamp)) / WEEK_MS);
  return Math.exp(-FRESHNESS_DECAY_PER_WEEK * weeks);
}

/**
 * Utility: the seed's relevance without its recency part (freshness replaces it): text match, importance and
 * access, each by the seed's weight, over their sum (0.80) → 0..1.
 */
function utilityOf(h: MemorySearchHit): number {
  const b = h.breakdown;
  return (b.title + b.content + b.importance + b.access) / 0.8;
}

/** How many candidates the freshness × utility ranking sees before it keeps its top N. */
const LEARNING_CANDIDATES = 200;

export function createMemoryProvider(db: Database): MemoryProvider {
  const deps = () => {
    const at = memoryClock(db);
    return { now: () => at };
  };
  const search = (types: MemoryRecord['memory_type'][], query: string, limit: number, sort: 'relevance' | 'timestamp' | 'importance'): MemorySearchHit[] =>
    searchMemories(db, { types, query: query.trim() === '' ? undefined : query, sort, limit }, deps());
  // 000's INTEL learnings: task-filtered by the query (all of them without one), then ranked by freshness × utility.
  const freshLearnings = (query: string, limit: number, keep: (m: MemoryRecord) => boolean, tags?: string[]): MemoryEntry[] => {
    const d = deps();
    const now = d.now();
    const hits = searchMemories(db, { types: ['learning'], tags, query: query.trim() === '' ? undefined : query, sort: 'relevance', limit: LEARNING_CANDIDATES }, d);
    return hits
      .filter((h) => keep(h.memory))
      .map((h) => {
        const freshness = freshnessOf(h.memory.timestamp, now);
        const utility = utilityOf(h);
        return { ...entry(h.memory, freshness * utility), freshness, utility };
      })
      .sort((a, b) => b.score - a.score || (a.ts < b.ts ? 1 : a.ts > b.ts ? -1 : 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, limit);
  };
  return {
    version: 'memory-search/seed-weights',
    latestStates: (limit) => search(['state'], '', limit, 'timestamp').map((h) => entry(h.memory, h.score)),
    decisionTimeline: (limit) => search(['decision'], '', limit, 'timestamp').map((h) => entry(h.memory, h.score)),
    decisions: (query, limit) => search(['decision'], query, limit, query.trim() === '' ? 'importance' : 'relevance').map((h) => entry(h.memory, h.score)),
    learnings: (query, limit) => freshLearnings(query, limit, (m) => !m.tags.includes('pattern')),
    patterns: (query, limit) => freshLearnings(query, limit, (m) => m.tags.includes('pattern'), ['pattern']),
    tagged: (tag, query, limit) => {
      const hits = searchMemories(db, { tags: [tag], query: query.trim() === '' ? undefined : query, sort: query.trim() === '' ? 'importance' : 'relevance', limit }, deps());
      // A tagged memory is a standing fact of the project: with no text match it still counts, by importance.
      const all = hits.length > 0 || query.trim() === '' ? hits : searchMemories(db, { tags: [tag], sort: 'importance', limit }, deps());
      return all.map((h) => entry(h.memory, h.score));
    },
    openIssues: (_query, limit) =>
      openIssues(db, { limit }).map((m) => entry(m, SEVERITY_SCORE[(m.content as { severity?: string }).severity ?? ''] ?? 0.5)),
  };
}

/**
 * GOALS: 000's fitness spec when a GOALS.md / GOALS.yaml exists at an indexed root (gates with their newest
 * snapshot, directives); otherwise the L1 executive summary (blockers as the failing gates, priorities as the
 * passing ones, key decisions as the directives). A malformed spec throws (file:line: field), which the packet
 * records as a degradation.
 */
export function createGoalsProvider(db: Database, deps: GoalsDeps = {}): () => GoalsData | null {
  return () => {
    const f = hasTable(db, 'sources') ? fitnessState(db, deps) : null;
    if (f && (f.gates.length > 0 || f.directives.length > 0)) {
      return {
        source: f.file,
        goal: '',
        status: null,
        blockers: [],
        priorities: [],
        directives: f.directives.map((text, i) => ({ id: `goals:directive:${i + 1}`, text: oneLine(text) })),
        fitness: {
          file: f.file,
          gates: f.gates.map((g) => ({ id: g.id, description: oneLine(g.description), threshold: g.threshold, status: g.status, value: g.value })),
        },
      };
    }
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

function terms(s: string): Set<string> {
  return new Set((s.toLowerCase().match(/[\p{L}\p{N}_]{3,}/gu) ?? []).map((t) => t.replace(/(?:ing|ed|es|s)$/, '')));
}

/**
 * L2/L3 sections by relevance: the share of the query's terms (light suffix folding) that the title and body
 * contain, title matches breaking ties. Sections matching no term are not evidence for this query.
 */
export function createHierarchyProvider(db: Database): (query: string, limit: number) => HierarchyEntry[] {
  return (query, limit) => {
    const q = terms(query);
    if (q.size === 0) return [];
    const scored = listSections(db)
      .filter((s) => !s.is_draft && (s.level === 2 || s.level === 3))
      .map((s) => {
        const body = terms(`${s.title}\n${s.body}`);
        const title = terms(s.title);
        let hit = 0;
        let inTitle = 0;
        for (const t of q) {
          if (body.has(t)) hit++;
          if (title.has(t)) inTitle++;
        }
        return { s, score: roundScore(hit / q.size), inTitle };
      })
      .filter((x) => x.score > 0)
      .sort((a, b) => b.score - a.score || b.inTitle - a.inTitle || compareMarkers(a.s.marker, b.s.marker));
    return scored.slice(0, limit).map(({ s, score }) => ({ marker: `§${s.marker}`, level: s.level as 2 | 3, title: oneLine(s.title), body: s.body, score }));
  };
}

/**
 * HISTORY's Recent Sessions (#17 item 2): what previous agent sessions did (`contextpack session end`), newest first.
 * The ingest log stays out (issue #35): it records how the index was filled (one run, or a rescan after each edit),
 * not what the project holds, and a packet must be the same however its store was filled.
 */
export function recentSessions(db: Database): (limit: number) => SessionEntry[] {
  const agentStmt = hasTable(db, 'agent_sessions')
    ? db.prepare('SELECT seq, id, ended_at, headline FROM agent_sessions ORDER BY ended_at DESC, seq DESC LIMIT ?')
    : null;
  return (limit) =>
    agentStmt
      ? (agentStmt.all(limit) as { seq: number; id: string; ended_at: string; headline: string }[]).map((r) => ({ id: `agent:${r.id}`, source: `agent_sessions#${r.seq}`, ts: r.ended_at, text: r.headline }))
      : [];
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
    hierarchy: hierarchyOk ? createHierarchyProvider(db) : null,
    sessions: recentSessions(db),
    lineContext: chunkLineContext(db),
    documentText: chunkDocumentText(db),
    definitionsNamed: chunkDefinitionsNamed(db),
    callersOf: chunkCallersOf(db),
    fileChunks: chunkFileMatches(db),
    staticText: opts.staticDir ? (name) => readStaticText(name, opts.staticDir) : undefined,
    embedderId: opts.embedderId ?? null,
    defaultExcludes: hasTable(db, 'settings') ? () => getSettings(db).evidenceExclude : null,
    retrievalFallback: opts.retrievalFallback ?? null,
    unavailable,
  };
}
