import type { PacketInputs, RetrievalParams } from '../../../shared/packet.ts';
import type { SearchFilters } from '../../../shared/types.ts';
import { roundScore } from './canonical.ts';
import { RELEVANCE_FLOOR as RELATED_FLOOR, selectEvidence } from './evidence-select.ts';
import { relatedHits } from './related.ts';
import { wholeUnits } from './whole-units.ts';
import { focusHits } from './focus.ts';
import { importHits } from './imports.ts';
import { taskTerms } from '../search/task-terms.ts';
import type { Gate } from './items.ts';
import type { GoalsData, HierarchyEntry, MemoryEntry, PacketSources, SessionEntry } from './sources.ts';
import type { EvidenceEntry } from './evidence-entry.ts';


/** Everything the sources returned for one request, before redaction and budgets. */
export interface Gathered {
  goals: GoalsData | null;
  states: MemoryEntry[];
  sessions: SessionEntry[];
  timeline: MemoryEntry[];
  /** `also`: other definitions the span holds besides its anchor's; `role`: what its file is (source, test, doc…). */
  evidence: EvidenceEntry[];
  decisions: MemoryEntry[];
  learnings: MemoryEntry[];
  /** 000's Active Patterns (learnings tagged `pattern`). */
  patterns: MemoryEntry[];
  issues: MemoryEntry[];
  /** L2/L3 sections relevant to the query, as evidence. */
  hierarchy: HierarchyEntry[];
  /** 001's ContextPackV2 sources: memories tagged constraint / preference / fact. */
  tagged: { constraint: MemoryEntry[]; preference: MemoryEntry[]; fact: MemoryEntry[] };
  degradations: string[];
  retrieval: RetrievalParams;
}

/** 000's limits: cycles 10, sessions 5, chain 5, learnings 10. */
export const GATHER_LIMITS = { states: 10, sessions: 5, timeline: 5, decisions: 10, learnings: 10, patterns: 5, issues: 10, hierarchy: 4, tagged: 10 };

async function attempt<T>(what: string, degradations: string[], gate: Gate, fn: () => T | Promise<T>, empty: T): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    // A failing provider must not take the packet down; the gap is recorded and the section degrades. Its message
    // can quote what it was given (an FTS5 syntax error quotes the query), so it passes the gate first.
    const message = gate.pass(err instanceof Error ? err.message : String(err), `provider ${what}`, 'MANIFEST').text.replace(/\n/g, ' ');
    degradations.push(`${what}: provider failed (${message})`);
    return empty;
  }
}

/**
 * `raw`: the query and filters as the caller gave them, for searching; `inputs` holds their gated forms, which are
 * what the packet records (retrieval.filters included).
 */
export async function gather(sources: PacketSources, inputs: PacketInputs, raw: { query: string; filters: SearchFilters | null }, gate: Gate): Promise<Gathered> {
  const rawQuery = raw.query;
  const degradations: string[] = (sources.unavailable ?? []).map((u) => gate.pass(u, 'sources.unavailable', 'MANIFEST').text);
  // Issue #32: what retrieval reads from the task, computed once; every stage below receives it.
  const task = taskTerms(rawQuery);
  const hits = inputs.k > 0 && rawQuery.trim() !== ''
    ? await sources.retriever.search({ text: rawQuery, k: inputs.k, filters: raw.filters ?? undefined, task })
    : [];
  // Issue #23: only hits above the relevance floor, and no changelog, lock file, generated file or image the query
  // does not name. Scores are relative to the best hit's (retriever scales differ: bm25 is unbounded, RRF tiny).
  const selection = selectEvidence(hits, task);
  const lineContext = sources.lineContext ?? null;
  // Whole definitions, merged per file, in line order (whole-units.ts); a unit's role comes from its file.
  const roleOf = new Map(selection.kept.map((k) => [k.hit.documentId, k.role]));
  // The best source files' other chunks that match about as well (focus.ts), then whole definitions.
  const docText = memoized(sources.documentText ?? null);
  const focus = await attempt('evidence.focus', degradations, gate, () => focusHits(selection.kept, rawQuery, sources.fileChunks ?? null, docText), []);
  // Definitions the best hits lead to: same-name definitions, the functions they call, their callers (related.ts).
  const related = await attempt('evidence.related', degradations, gate, () => relatedHits(selection.kept, sources.definitionsNamed ?? null, RELATED_FLOOR, undefined, sources.callersOf ?? null), []);
  // The best source files' import blocks: what the code shown can use, where a fix adds what it needs (imports.ts).
  const imports = await attempt('evidence.imports', degradations, gate, () => importHits(selection.kept, docText), []);
  const kept = [...selection.kept, ...focus, ...related, ...imports];
  const units = await attempt('evidence.units', degradations, gate, () => wholeUnits(kept, docText, task), kept.map((k) => ({ hit: k.hit, relative: k.relative, also: [] as string[] })));
  const evidence = units.map(({ hit: h, relative, also }) => ({
    ...h,
    norm: roundScore(relative),
    context: lineContext ? lineContext(h.documentId, h.lineStart, h.lineEnd) : null,
    also,
    role: roleOf.get(h.documentId) ?? 'other',
    // A test is shown as a one-line pointer unless the query is about tests.
    pointer: roleOf.get(h.documentId) === 'test' && !task.aboutTests,
  }));

  const m = sources.memory ?? null;
  if (!m && !(sources.unavailable ?? []).some((u) => u.startsWith('memory'))) degradations.push('memory: no provider');
  const q = rawQuery;
  const L = GATHER_LIMITS;
  let goals = sources.goals ? await attempt('goals', degradations, gate, () => sources.goals!(), null) : null;
  // The spec's path is provenance printed outside the gate (item sources, tails): judged once here, like a path#anchor.
  if (goals?.fitness) {
    const file = gate.pass(goals.fitness.file, 'goals.file', 'GOALS').text.replace(/\n/g, ' ');
    goals = { ...goals, source: goals.source === goals.fitness.file ? file : goals.source, fitness: { ...goals.fitness, file } };
  }
  if (!sources.goals && !(sources.unavailable ?? []).some((u) => u.startsWith('goals'))) degradations.push('goals: no provider');
  const sessions = sources.sessions ? await attempt('sessions', degradations, gate, () => sources.sessions!(L.sessions), []) : [];
  const states = m ? await attempt('memory.latestStates', degradations, gate, () => m.latestStates(L.states), []) : [];
  const timeline = m ? await attempt('memory.decisionTimeline', degradations, gate, () => m.decisionTimeline(L.timeline), []) : [];
  const decisions = m ? await attempt('memory.decisions', degradations, gate, () => m.decisions(q, L.decisions), []) : [];
  const learnings = m ? await attempt('memory.learnings', degradations, gate, () => m.learnings(q, L.learnings), []) : [];
  const issues = m ? await attempt('memory.openIssues', degradations, gate, () => m.openIssues(q, L.issues), []) : [];
  const patterns = m?.patterns ? await attempt('memory.patterns', degradations, gate, () => m.patterns!(q, L.patterns), []) : [];
  const tag = async (t: 'constraint' | 'preference' | 'fact') => (m?.tagged ? await attempt(`memory.tagged(${t})`, degradations, gate, () => m.tagged!(t, q, L.tagged), []) : []);
  const tagged = { constraint: (await tag('constraint')).slice(0, L.tagged), preference: (await tag('preference')).slice(0, L.tagged), fact: (await tag('fact')).slice(0, L.tagged) };
  const hierarchy = sources.hierarchy && rawQuery.trim() !== '' ? await attempt('hierarchy', degradations, gate, () => sources.hierarchy!(rawQuery, L.hierarchy), []) : [];
  const clampScore = (e: MemoryEntry): MemoryEntry => ({ ...e, score: roundScore(Math.min(1, Math.max(0, Number.isFinite(e.score) ? e.score : 0))) });

  return {
    goals,
    states: states.slice(0, L.states).map(clampScore),
    sessions: sessions.slice(0, L.sessions),
    timeline: timeline.slice(0, L.timeline).map(clampScore),
    evidence,
    decisions: decisions.slice(0, L.decisions).map(clampScore),
    learnings: learnings.slice(0, L.learnings).map(clampScore),
    patterns: patterns.slice(0, L.patterns).map(clampScore),
    issues: issues.slice(0, L.issues).map(clampScore),
    hierarchy: hierarchy.slice(0, L.hierarchy).map((h) => ({ ...h, score: roundScore(Math.min(1, Math.max(0, Number.isFinite(h.score) ? h.score : 0))) })),
    tagged: { constraint: tagged.constraint.map(clampScore), preference: tagged.preference.map(clampScore), fact: tagged.fact.map(clampScore) },
    degradations,
    retrieval: {
      mode: sources.retriever.mode,
      k: inputs.k,
      filters: inputs.filters,
      hits: hits.length,
      fusion: sources.retriever.params?.fusion ?? null,
      mmr: sources.retriever.params?.mmr ?? null,
      // The reason can name a model folder, so it passes the gate like every other manifest note.
      fallback_reason: sources.retrievalFallback ? gate.pass(sources.retrievalFallback, 'retrieval.fallback', 'MANIFEST').text : null,
      ...(selection.stop ? { evidence_stop: selection.stop } : {}),
    },
  };
}

/** One packet reads a document's text once (focus files and whole units both need it). */
function memoized(f: ((documentId: number) => string[] | null) | null): ((documentId: number) => string[] | null) | null {
  if (!f) return null;
  const seen = new Map<number, string[] | null>();
  return (id) => {
    if (!seen.has(id)) seen.set(id, f(id));
    return seen.get(id)!;
  };
}

