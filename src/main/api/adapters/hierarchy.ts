import type { Database } from 'better-sqlite3';
import { checkConsistency, hierarchyTree, setExecutiveSummary } from '../../core/hierarchy/index.ts';
import type { HierarchyEngine } from '../engines.ts';
import { asApiFailure } from './memory-errors.ts';

export function createHierarchyAdapter(db: Database, deps: { now?: () => Date } = {}): HierarchyEngine {
  return {
    tree: () => ({ tree: hierarchyTree(db), findings: checkConsistency(db) }),
    // Written in place from the Hierarchy view (first run), as `contextpack hierarchy summary` does.
    setSummary: (input) => asApiFailure(() => setExecutiveSummary(db, input, { now: deps.now, actor: 'workbench' })),
  };
}
