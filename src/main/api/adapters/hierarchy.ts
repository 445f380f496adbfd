import type { Database } from 'better-sqlite3';
import { checkConsistency, checkLevelLimits, getSection, hierarchyTree, listL4, navigationIndex, resolveL4Ref, setExecutiveSummary } from '../../core/hierarchy/index.ts';
import type { HierarchyEngine } from '../engines.ts';
import { ApiFailure } from '../failure.ts';
import { asApiFailure } from './memory-errors.ts';
import { escapeControls } from '../../../shared/text-escape.ts';

export function createHierarchyAdapter(db: Database, deps: { now?: () => Date } = {}): HierarchyEngine {
  return {
    tree: () => ({ tree: hierarchyTree(db), findings: checkConsistency(db), limits: checkLevelLimits(db) }),
    // Written in place from the Hierarchy view (first run), as `contextpack hierarchy summary` does.
    setSummary: ({ agent, ...input }) => asApiFailure(() => setExecutiveSummary(db, input, { now: deps.now, actor: agent ?? 'workbench' })),
    // As `contextpack hierarchy show [§MARKER]`: one section, or the navigation index and the executive summary.
    show: (marker) => {
      const l4 = marker === undefined ? null : /^§?4\.(.+)$/.exec(marker.trim());
      if (l4) {
        // L4 is the ingested files: a path, a dotted form or a prefix with `*` (§4.src/*); each file with its chunks.
        const files = resolveL4Ref(l4[1]!, listL4(db));
        if (files.length === 0) throw new ApiFailure('not_found', `section §4.${l4[1]} not found (no indexed file matches ${JSON.stringify(l4[1])}; see hierarchy show --tree)`);
        const anchors = db.prepare(
          `SELECT c.anchor, c.line_start AS lineStart, c.line_end AS lineEnd, c.text FROM chunks c JOIN documents d ON d.id = c.document_id
           JOIN sources s ON s.id = d.source_id WHERE s.path = ? ORDER BY d.ordinal, c.ordinal`,
        );
        // One file (no `*`): its chunks with their text, as `contextpack hierarchy show §4.…` prints them.
        const chunks = files.length === 1 && !l4[1]!.endsWith('*') ? (anchors.all(files[0]!.path) as { anchor: string; lineStart: number; lineEnd: number; text: string }[]) : undefined;
        const text = files
          .map((f) => {
            // File names and anchors are one escaped line each (shared/text-escape.ts).
            const head = escapeControls(`§${f.marker} (${f.type}, ${f.chunks} chunks, ${f.tokens} tokens)`);
            if (files.length > 1) return head;
            const rows = chunks ?? (anchors.all(f.path) as { anchor: string; lineStart: number; lineEnd: number }[]);
            return [head, ...rows.map((r) => `  ${escapeControls(`${f.rel_path}${r.anchor ? `#${r.anchor}` : ''}`)}:${r.lineStart}-${r.lineEnd}`)].join('\n');
          })
          .join('\n');
        return { marker: `4.${l4[1]}`, text: text + '\n', files, ...(chunks ? { chunks } : {}) };
      }
      if (marker !== undefined) {
        const s = getSection(db, marker);
        if (!s) throw new ApiFailure('not_found', `section ${marker} not found (markers look like §1.0, §2.1, §3.1.2, §4.docs/x.md)`);
        return { marker: s.marker, text: s.level === 1 ? s.body : `## §${s.marker} ${s.title}${s.is_draft ? ' [DRAFT]' : ''}\n\n${s.body}\n`, section: s };
      }
      const tree = hierarchyTree(db);
      const index = navigationIndex(tree);
      return { marker: null, text: `${index.markdown}\n${tree.l1?.text ?? '(no executive summary yet)\n'}`, index, tree };
    },
  };
}
