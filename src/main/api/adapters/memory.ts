import type { Database } from 'better-sqlite3';
import { addMemory, createDecision, rehydrate, ValidationError } from '../../core/memory/index.ts';
import { getExecutiveSummary } from '../../core/hierarchy/index.ts';
import type { DecisionInput, MemoryRecord } from '../../../shared/memory.ts';
import type { ApiOutput, ApiParsedInput } from '../../../shared/api/index.ts';
import { ApiFailure } from '../failure.ts';
import { asApiFailure } from './memory-errors.ts';

// The decision template's own fields: its validation names them bare ('rationale'); the API's input nests them
// under `content`, so issues are renamed to the field the caller actually sent.
const DECISION_CONTENT = new Set(['decision', 'rationale', 'alternatives_considered', 'expected_impact', 'validation_criteria', 'context']);

function contentField(field: string): string {
  const head = field.split(/[.[]/, 1)[0]!;
  return DECISION_CONTENT.has(head) ? `content.${field}` : field;
}

export function createMemoryAdapter(db: Database, deps: { now?: () => Date } = {}) {
  return {
    /** A memory of any type; a decision is created through the decision template (DEC id, validation, supersede). */
    create(input: ApiParsedInput<'memory.create'>): ApiOutput<'memory.create'> {
      if (input.type !== 'decision') {
        return asApiFailure(() =>
          addMemory(
            db,
            {
              memory_type: input.type,
              title: input.title,
              content: input.content,
              tags: input.tags,
              importance: input.importance,
              agent_id: input.agent,
              parent_memory_id: input.parent,
              expires_at: input.expires,
              timestamp: input.timestamp,
              project_id: input.project,
            },
            { now: deps.now, actor: input.agent },
          ),
        ) as MemoryRecord;
      }
      const c = input.content as Record<string, unknown>;
      const unknown = Object.keys(c).filter((k) => !DECISION_CONTENT.has(k) && k !== 'supersedes');
      if (unknown.length > 0) {
        throw new ApiFailure('invalid_input', `content: ${unknown.join(', ')} not a field of a decision`, unknown.map((k) => ({ field: `content.${k}`, message: 'is not a field of a decision memory' })));
      }
      const decision = { ...c, title: input.title, tags: input.tags, importance: input.importance, agent_id: input.agent } as unknown as DecisionInput;
      try {
        return createDecision(db, decision, { now: deps.now, actor: input.agent });
      } catch (err) {
        if (err instanceof ValidationError) {
          const issues = err.issues.map((i) => ({ field: contentField(i.field), message: i.message }));
          throw new ApiFailure('invalid_input', `invalid decision: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`, issues);
        }
        throw err;
      }
    },
    /** The session-start bundle; reading it counts as an access of what it loads (the seed's step 5). */
    rehydrate(input: ApiParsedInput<'memory.rehydrate'>): ApiOutput<'memory.rehydrate'> {
      return rehydrate(db, { summary: getExecutiveSummary(db), maxTokens: input.maxTokens, touch: input.touch, projectId: input.project, now: deps.now });
    },
  };
}
