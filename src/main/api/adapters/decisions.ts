import type { Database } from 'better-sqlite3';
import { createDecision, listDecisions, memoriesByIds, renderDecisionMarkdown } from '../../core/memory/index.ts';
import type { DecisionRecord } from '../../../shared/memory.ts';
import type { DecisionsEngine } from '../engines.ts';
import { ApiFailure } from '../failure.ts';
import { asApiFailure } from './memory-errors.ts';

export function createDecisionsAdapter(db: Database, deps: { now?: () => Date } = {}): DecisionsEngine {
  return {
    list: (input) =>
      asApiFailure(() => ({
        decisions: listDecisions(db, {
          query: input.query?.trim() || undefined,
          tags: input.tag?.trim() ? [input.tag.trim()] : undefined,
          archived: input.includeSuperseded ? 'any' : false,
          sort: input.query?.trim() ? 'relevance' : 'timestamp',
          now: deps.now,
        }),
      })),
    create: (input) => asApiFailure(() => createDecision(db, input, { now: deps.now })),
    // A superseding decision is a new record; the engine archives the old one and links both ways in one transaction.
    supersede: (input) => asApiFailure(() => createDecision(db, { ...input.replacement, supersedes: input.decisionId }, { now: deps.now })),
    exportMarkdown: (input) =>
      asApiFailure(() => {
        const decisions = input.decisionIds
          ? (memoriesByIds(db, input.decisionIds) as DecisionRecord[])
          : listDecisions(db, { archived: 'any', sort: 'timestamp', limit: 10_000 });
        const found = decisions.filter((d) => d.memory_type === 'decision');
        if (input.decisionIds && found.length !== input.decisionIds.length) throw new ApiFailure('not_found', 'some decisions were not found');
        const ordered = [...found].sort((a, b) => (a.decision_id! < b.decision_id! ? -1 : 1));
        return { markdown: ordered.map(renderDecisionMarkdown).join('\n---\n\n') };
      }),
  };
}
