import type { Database } from 'better-sqlite3';
import { createDecision, gateDecision, listDecisions, memoriesByIds, renderDecisionMarkdown } from '../../core/memory/index.ts';
import type { DecisionInput, DecisionRecord } from '../../../shared/memory.ts';
import type { ApiParsedInput } from '../../../shared/api/index.ts';
import type { DecisionsEngine } from '../engines.ts';
import { ApiFailure } from '../failure.ts';
import { asApiFailure } from './memory-errors.ts';

function allDecisionIds(db: Database): string[] {
  return db.prepare("SELECT decision_id FROM memories WHERE type = 'decision' AND decision_id IS NOT NULL ORDER BY decision_id").pluck().all() as string[];
}

/** The contract's decision form in the engine's field names (agent_id, project_id). */
function decisionOf({ agent, project, ...rest }: ApiParsedInput<'decisions.create'>): DecisionInput {
  return { ...rest, ...(agent !== undefined ? { agent_id: agent } : {}), ...(project !== undefined ? { project_id: project } : {}) };
}

export function createDecisionsAdapter(db: Database, deps: { now?: () => Date } = {}): DecisionsEngine {
  return {
    list: (input) =>
      asApiFailure(() => ({
        decisions: listDecisions(db, {
          query: input.query?.trim() || undefined,
          tags: input.tag?.trim() || input.tags ? [...(input.tag?.trim() ? [input.tag.trim()] : []), ...(input.tags ?? [])] : undefined,
          importanceGte: input.importanceGte,
          archived: input.archived ?? (input.includeSuperseded ? 'any' : false),
          projectId: input.project,
          sort: input.sort ?? (input.query?.trim() ? 'relevance' : 'timestamp'),
          limit: input.limit,
          now: deps.now,
        }),
      })),
    create: (input) => asApiFailure(() => createDecision(db, decisionOf(input), { now: deps.now, actor: input.agent })),
    // A superseding decision is a new record; the engine archives the old one and links both ways in one transaction.
    supersede: (input) => asApiFailure(() => createDecision(db, { ...decisionOf(input.replacement), supersedes: input.decisionId }, { now: deps.now, actor: input.replacement.agent })),
    exportMarkdown: (input) =>
      asApiFailure(() => {
        // Every decision when no ids are given, superseded ones included: an export is never cut short.
        const ids = input.decisionIds ?? allDecisionIds(db);
        const found = (memoriesByIds(db, ids) as DecisionRecord[]).filter((d) => d.memory_type === 'decision');
        if (input.decisionIds) {
          const known = new Set(found.flatMap((d) => [d.decision_id, d.memory_id]));
          const missing = input.decisionIds.filter((id) => !known.has(id));
          if (missing.length > 0) throw new ApiFailure('not_found', `some decisions were not found: ${missing.join(', ')}`);
        }
        const ordered = [...found].sort((a, b) => (a.decision_id! < b.decision_id! ? -1 : 1));
        // An export is a file meant to be shared or committed: secrets typed into a decision are masked unless asked for.
        const gated = ordered.map((d) => (input.includeSecrets ? { record: d, redacted: 0 } : gateDecision(d)));
        const masked = gated.filter((g) => g.redacted > 0).map((g) => g.record.decision_id ?? g.record.memory_id);
        return { markdown: gated.map((g) => renderDecisionMarkdown(g.record)).join('\n---\n\n'), count: ordered.length, ...(masked.length > 0 ? { masked } : {}) };
      }),
  };
}
