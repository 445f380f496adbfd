import type { Database } from 'better-sqlite3';
import type { ExecutiveSummary, MemoryRecord, RehydrationBundle } from '../../../shared/memory.ts';
import { gateDeep, type Redactor } from '../redact/index.ts';
import { countTokens } from '../tokens/index.ts';
import { DAY_MS, MEMORY_COLUMNS, nowOf, rowToRecord, touchMemories, type MemoryDeps, type MemoryRow } from './records.ts';
import { getLatestState, openIssues, recentDecisions } from './search.ts';
import { sessionContinuity } from './session-continuity.ts';

export interface RehydrateOptions extends MemoryDeps {
  /**
   * The hierarchy's executive summary (hierarchy/sections.ts getExecutiveSummary), or null: passed in because the
   * hierarchy is built over memory, so memory cannot import it. Required so that no caller forgets it.
   */
  summary: ExecutiveSummary | null;
  projectId?: string;
  /** Token budget for `text` (the seed targets 20,000–30,000). Default 25,000. */
  maxTokens?: number;
  /** The seed's step 5 counts loaded memories as accessed; pass false for a preview. Default true. */
  touch?: boolean;
  /** The redaction gate every record and the summary pass before they enter the bundle (default: built-in rules). */
  redactor?: Redactor;
}

/**
 * A record as the bundle may carry it: every string through the redaction gate (the bundle is what an agent starts
 * with), ids kept as stored so access counting and references still work.
 */
function gated<T extends MemoryRecord>(m: T, redactor: Redactor | undefined): T {
  const g = gateDeep(m, { redactor, source: `memory:${m.memory_id}`, section: 'REHYDRATE' }).value;
  return { ...g, memory_id: m.memory_id, decision_id: m.decision_id, parent_memory_id: m.parent_memory_id, supersedes: m.supersedes, superseded_by: m.superseded_by, timestamp: m.timestamp };
}

/**
 * The seed's Memory Rehydration Process: latest state; decisions with importance ≥ 7 from the last 30 days (top 10);
 * unresolved critical and high issues, most severe then oldest first (top 15); learnings from the last 60 days by
 * access count (top 5). Items are kept whole, in that priority order, until the token budget is spent.
 */
export function rehydrate(db: Database, options: RehydrateOptions): RehydrationBundle {
  const now = nowOf(options);
  const maxTokens = options.maxTokens ?? 25_000;
  const scope = { now: () => now, projectId: options.projectId };
  const g = <T extends MemoryRecord>(m: T) => gated(m, options.redactor);
  const rawState = getLatestState(db, scope);
  const state = rawState ? g(rawState) : null;
  const decisions = recentDecisions(db, { ...scope, days: 30, importanceGte: 7, limit: 10 }).map(g);
  const issues = openIssues(db, { ...scope, severities: ['critical', 'high'], limit: 15 }).map(g);
  const learnings = recentLearningsByAccess(db, now, options.projectId).map(g);
  const rawSummary = options.summary;
  const summary = rawSummary ? gateDeep(rawSummary, { redactor: options.redactor, source: 'executive summary', section: 'REHYDRATE' }).value : null;

  const omitted: RehydrationBundle['omitted'] = [];
  const parts: string[] = ['# PROJECT MEMORY'];
  let used = countTokens(parts[0]! + '\n');
  const fit = (block: string): boolean => {
    const t = countTokens(block + '\n');
    if (used + t > maxTokens) return false;
    parts.push(block);
    used += t;
    return true;
  };
  if (summary) fit(`## Project Summary\n\n${summary.text}`);
  const continuity = sessionContinuity(db, now, options.projectId);
  if (continuity.last_session_end) {
    fit(`## Session Continuity\n\n- Last session ended: ${continuity.last_session_end} (${continuity.time_since_last_session} ago)\n- Sessions in project: ${continuity.sessions_in_project}`);
  }
  const section = <T extends MemoryRecord>(heading: string, items: T[]): T[] => {
    if (items.length === 0) return [];
    if (!fit(`## ${heading}`)) {
      for (const m of items) omitted.push({ memory_id: m.memory_id, memory_type: m.memory_type, reason: 'token budget' });
      return [];
    }
    const kept: T[] = [];
    for (const m of items) {
      if (fit(formatMemory(m))) kept.push(m);
      else omitted.push({ memory_id: m.memory_id, memory_type: m.memory_type, reason: 'token budget' });
    }
    return kept;
  };
  const keptState = section('Current State', state ? [state] : []);
  const keptDecisions = section('Key Decisions', decisions);
  const keptIssues = section('Open Issues', issues);
  const keptLearnings = section('Applicable Learnings', learnings);

  const loaded = [...keptState, ...keptDecisions, ...keptIssues, ...keptLearnings];
  if (options.touch !== false && loaded.length > 0) touchMemories(db, loaded.map((m) => m.memory_id), now);
  const text = parts.join('\n\n') + '\n';
  return {
    generated_at: now.toISOString(),
    project_id: options.projectId ?? state?.project_id ?? 'default',
    project_summary: summary,
    current_state: keptState[0] ?? null,
    key_decisions: keptDecisions,
    open_issues: keptIssues,
    applicable_learnings: keptLearnings,
    text,
    tokens: countTokens(text),
    max_tokens: maxTokens,
    omitted,
    session_continuity: continuity,
  };
}

function recentLearningsByAccess(db: Database, now: Date, projectId: string | undefined) {
  const params: unknown[] = [new Date(now.getTime() - 60 * DAY_MS).toISOString()];
  let where = "m.type = 'learning' AND m.is_archived = 0 AND m.timestamp >= ?";
  if (projectId !== undefined) (where += ' AND m.project_id = ?'), params.push(projectId);
  const rows = db
    .prepare(`SELECT ${MEMORY_COLUMNS} FROM memories m WHERE ${where} ORDER BY m.access_count DESC, m.timestamp DESC, m.seq DESC LIMIT 5`)
    .all(...params) as MemoryRow[];
  return rows.map((r) => rowToRecord<'learning'>(r));
}

/** The seed's format_for_context block for one memory. */
export function formatMemory(m: MemoryRecord): string {
  const id = m.decision_id ?? m.memory_id;
  const head = `### ${m.title}\n**ID**: ${id} | **Importance**: ${m.importance}/10 | **Date**: ${m.timestamp}`;
  return `${head}\n${formatContent(m)}\n---`;
}

function formatContent(m: MemoryRecord): string {
  const lines: string[] = [];
  const text = (label: string, v: string) => v && lines.push(`**${label}**: ${v}`);
  const list = (label: string, v: string[]) => v.length > 0 && lines.push(`**${label}**:`, ...v.map((x) => `- ${x}`));
  const c = m.content as unknown as Record<string, unknown>;
  switch (m.memory_type) {
    case 'decision': {
      text('Decision', c.decision as string);
      text('Rationale', c.rationale as string);
      const alts = c.alternatives_considered as { name: string; reason: string }[];
      if (alts.length > 0) lines.push('**Alternatives Considered**:', ...alts.map((a) => `- ${a.name}: ${a.reason}`));
      text('Expected Impact', c.expected_impact as string);
      text('Validation Criteria', c.validation_criteria as string);
      text('Context', c.context as string);
      if (m.supersedes) lines.push(`**Supersedes**: ${m.supersedes}`);
      break;
    }
    case 'issue':
      lines.push(`**Severity**: ${c.severity} | **Status**: ${c.status}`);
      text('Description', c.description as string);
      text('Reproduction', c.reproduction_steps as string);
      text('Investigation', c.investigation_status as string);
      list('Attempted Fixes', c.attempted_fixes as string[]);
      text('Next Actions', c.next_actions as string);
      break;
    case 'state':
      lines.push(`**Task**: ${c.task_description}${c.completion_percentage === null || c.completion_percentage === undefined ? '' : ` (${c.completion_percentage}% complete)`}`);
      list('Completed', c.substeps_completed as string[]);
      list('Remaining', c.substeps_remaining as string[]);
      list('Blockers', c.blockers as string[]);
      list('Next Actions', c.next_actions as string[]);
      break;
    case 'learning':
      text('Lesson', c.lesson as string);
      text('Context', c.context as string);
      text('Applicability', c.applicability as string);
      text('Evidence', c.evidence as string);
      break;
  }
  if (m.tags.length > 0) lines.push(`**Tags**: ${m.tags.join(', ')}`);
  return lines.join('\n');
}
