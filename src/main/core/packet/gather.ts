import type { PacketInputs, RetrievalParams } from '../../../shared/packet.ts';
import type { SearchHit } from '../../../shared/types.ts';
import { roundScore } from './canonical.ts';
import type { GoalsData, LineContext, MemoryEntry, PacketSources, SessionEntry } from './sources.ts';

/** Everything the sources returned for one request, before redaction and budgets. */
export interface Gathered {
  goals: GoalsData | null;
  states: MemoryEntry[];
  sessions: SessionEntry[];
  timeline: MemoryEntry[];
  evidence: (SearchHit & { norm: number; context: LineContext | null })[];
  decisions: MemoryEntry[];
  learnings: MemoryEntry[];
  issues: MemoryEntry[];
  degradations: string[];
  retrieval: RetrievalParams;
}

/** 000's limits: cycles 10, sessions 5, chain 5, learnings 10. */
export const GATHER_LIMITS = { states: 10, sessions: 5, timeline: 5, decisions: 10, learnings: 10, issues: 10 };

async function attempt<T>(what: string, degradations: string[], fn: () => T | Promise<T>, empty: T): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    // A failing provider must not take the packet down; the gap is recorded and the section degrades.
    degradations.push(`${what}: provider failed (${err instanceof Error ? err.message : String(err)})`);
    return empty;
  }
}

export async function gather(sources: PacketSources, inputs: PacketInputs, rawQuery: string): Promise<Gathered> {
  const degradations: string[] = [...(sources.unavailable ?? [])];
  const hits = inputs.k > 0 && rawQuery.trim() !== ''
    ? await sources.retriever.search({ text: rawQuery, k: inputs.k, filters: inputs.filters ?? undefined })
    : [];
  const top = hits.reduce((m, h) => Math.max(m, h.score), 0);
  // Retriever scores are not on one scale (bm25 is unbounded, RRF is tiny); relative to the best hit they are.
  const lineContext = sources.lineContext ?? null;
  const evidence = hits.map((h) => ({
    ...h,
    norm: roundScore(top > 0 ? Math.max(0, h.score) / top : 0),
    context: lineContext ? lineContext(h.documentId, h.lineStart, h.lineEnd) : null,
  }));

  const m = sources.memory ?? null;
  if (!m && !(sources.unavailable ?? []).some((u) => u.startsWith('memory'))) degradations.push('memory: no provider');
  const q = rawQuery;
  const L = GATHER_LIMITS;
  const goals = sources.goals ? await attempt('goals', degradations, () => sources.goals!(), null) : null;
  if (!sources.goals && !(sources.unavailable ?? []).some((u) => u.startsWith('goals'))) degradations.push('goals: no provider');
  const sessions = sources.sessions ? await attempt('sessions', degradations, () => sources.sessions!(L.sessions), []) : [];
  const states = m ? await attempt('memory.latestStates', degradations, () => m.latestStates(L.states), []) : [];
  const timeline = m ? await attempt('memory.decisionTimeline', degradations, () => m.decisionTimeline(L.timeline), []) : [];
  const decisions = m ? await attempt('memory.decisions', degradations, () => m.decisions(q, L.decisions), []) : [];
  const learnings = m ? await attempt('memory.learnings', degradations, () => m.learnings(q, L.learnings), []) : [];
  const issues = m ? await attempt('memory.openIssues', degradations, () => m.openIssues(q, L.issues), []) : [];
  const clampScore = (e: MemoryEntry): MemoryEntry => ({ ...e, score: roundScore(Math.min(1, Math.max(0, Number.isFinite(e.score) ? e.score : 0))) });

  return {
    goals,
    states: states.slice(0, L.states).map(clampScore),
    sessions: sessions.slice(0, L.sessions),
    timeline: timeline.slice(0, L.timeline).map(clampScore),
    evidence,
    decisions: decisions.slice(0, L.decisions).map(clampScore),
    learnings: learnings.slice(0, L.learnings).map(clampScore),
    issues: issues.slice(0, L.issues).map(clampScore),
    degradations,
    retrieval: { mode: sources.retriever.mode, k: inputs.k, filters: inputs.filters, hits: hits.length },
  };
}

/** path#anchor (the part of an evidence source that comes from the indexed content). */
export function evidenceLabel(h: SearchHit): string {
  const anchor = h.anchor || h.externalId || '';
  return `${h.path}${anchor ? `#${anchor}` : ''}`;
}

/** path#anchor:lines, the evidence item id and provenance. */
export function evidenceSource(h: SearchHit): string {
  return `${evidenceLabel(h)}:${h.lineStart}-${h.lineEnd}`;
}
