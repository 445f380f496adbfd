import type { Database } from 'better-sqlite3';
import { checkConsistency, getSection, hierarchyTree, navigationIndex, setExecutiveSummary } from '../../core/hierarchy/index.ts';
import type { HierarchyEngine } from '../engines.ts';
import { ApiFailure } from '../failure.ts';
import { asApiFailure } from './memory-errors.ts';

export function createHierarchyAdapter(db: Database, deps: { now?: () => Date } = {}): HierarchyEngine {
  return {
    tree: () => ({ tree: hierarchyTree(db), findings: checkConsistency(db) }),
    // Written in place from the Hierarchy view (first run), as `contextpack hierarchy summary` does.
    setSummary: (input) => asApiFailure(() => setExecutiveSummary(db, input, { now: deps.now, actor: 'workbench' })),
    // As `contextpack hierarchy show [§MARKER]`: one section, or the navigation index and the executive summary.
    show: (marker) => {
      if (marker !== undefined) {
        const s = getSection(db, marker);
        if (!s) throw new ApiFailure('not_found', `section ${marker} not found (markers look like §1.0, §2.1, §3.1.2, §4.docs/x.md)`);
        return { marker: s.marker, text: s.level === 1 ? s.body : `## §${s.marker} ${s.title}${s.is_draft ? ' [DRAFT]' : ''}\n\n${s.body}\n`, section: s };
      }
      const tree = hierarchyTree(db);
      const index = navigationIndex(tree);
      return { marker: null, text: `${index.markdown}\n${tree.l1?.text ?? '(no executive summary yet)\n'}`, index };
    },
  };
}
