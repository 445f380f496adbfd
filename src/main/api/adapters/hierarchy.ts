import type { Database } from 'better-sqlite3';
import { checkConsistency, hierarchyTree } from '../../core/hierarchy/index.ts';
import type { HierarchyEngine } from '../engines.ts';

export function createHierarchyAdapter(db: Database): HierarchyEngine {
  return {
    tree: () => ({ tree: hierarchyTree(db), findings: checkConsistency(db) }),
  };
}
