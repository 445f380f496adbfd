import type { Database } from 'better-sqlite3';
import { DecisionFileError, decisionChain, exportDecisions, getDecision, importDecisions, NotFoundError, renderDecisionMarkdown, supersedeDecision } from '../../core/memory/index.ts';
import type { ApiHandlers } from '../dispatch.ts';
import { ApiFailure } from '../failure.ts';
import { asApiFailure } from './memory-errors.ts';

type DecisionFileMethods = 'decisions.get' | 'decisions.supersedeBy' | 'decisions.exportFiles' | 'decisions.import';

/** A malformed decision file names its file and line (`docs/decisions/x.md:2: …`), as the field `paths`. */
function fileErrors<T>(fn: () => T): T {
  try {
    return asApiFailure(fn);
  } catch (err) {
    if (err instanceof DecisionFileError) throw new ApiFailure('invalid_input', err.message, [{ field: 'paths', message: err.message }]);
    throw err;
  }
}

/**
 * Decisions read one at a time, linked after the fact, and kept as files beside the code (export / import): what
 * `contextpack decision show|supersede|export|import` do, for every door.
 */
export function createDecisionFileHandlers(db: Database, deps: { now?: () => Date; allowed?: (path: string) => boolean } = {}): Pick<ApiHandlers, DecisionFileMethods> {
  const now = deps.now;
  // Serve mode with `--root`: files are read and written only under the folders named, as library.ingest reads.
  const under = (method: string, field: string, paths: string[]) => {
    const outside = deps.allowed ? paths.filter((p) => !deps.allowed!(p)) : [];
    if (outside.length > 0) throw new ApiFailure('forbidden', `${method}: ${outside.join(', ')} ${outside.length === 1 ? 'is' : 'are'} outside the allowed roots`, [{ field, message: 'outside the allowed roots' }]);
  };
  return {
    'decisions.get': async (input) =>
      asApiFailure(() => {
        const d = getDecision(db, input.id, { actor: input.agent, now });
        if (!d) throw new NotFoundError(`decision ${JSON.stringify(input.id)} not found`);
        return { decision: d, markdown: renderDecisionMarkdown(d), ...(input.chain ? { chain: decisionChain(db, d.memory_id) } : {}) };
      }),
    'decisions.supersedeBy': async (input) => asApiFailure(() => supersedeDecision(db, input.decisionId, input.by, { actor: input.agent, now })),
    'decisions.exportFiles': async (input) =>
      asApiFailure(() => {
        under('decisions.exportFiles', 'dir', [input.dir]);
        return exportDecisions(db, input.dir, { ids: input.decisionIds, projectId: input.project, includeSecrets: input.includeSecrets });
      }),
    'decisions.import': async (input) =>
      fileErrors(() => {
        under('decisions.import', 'paths', input.paths);
        return importDecisions(db, input.paths, { actor: input.agent, now });
      }),
  };
}
