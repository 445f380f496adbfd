import type { Database } from 'better-sqlite3';
import type { HierarchySection, HierarchyTree, L4Node, NavigationEntry, NavigationIndex } from '../../../shared/memory.ts';
import { escapeControls } from '../../../shared/text-escape.ts';
import { anchorFor, l2For, relPathOf } from './markers.ts';
import { getExecutiveSummary, listSections } from './sections.ts';

/** Level 4: every indexed source, addressed by its path relative to the ingest root. */
export function listL4(db: Database): L4Node[] {
  const rows = db
    .prepare(
      `SELECT s.path, s.root, s.type, s.size, s.mtime_ms, count(c.id) AS chunks, coalesce(sum(c.token_count), 0) AS tokens
       FROM sources s LEFT JOIN documents d ON d.source_id = s.id LEFT JOIN chunks c ON c.document_id = d.id
       WHERE s.status = 'indexed' GROUP BY s.id ORDER BY s.path`,
    )
    .all() as { path: string; root: string; type: string; size: number; mtime_ms: number; chunks: number; tokens: number }[];
  return rows.map((r) => {
    const rel = relPathOf(r.path, r.root);
    return { marker: `4.${rel}`, path: r.path, rel_path: rel, type: r.type, size: r.size, modified_at: new Date(r.mtime_ms).toISOString(), chunks: r.chunks, tokens: r.tokens };
  });
}

export function hierarchyTree(db: Database): HierarchyTree {
  const sections = listSections(db);
  const l2 = sections.filter((s) => s.level === 2).map((s) => ({ ...s, children: [] as HierarchySection[] }));
  const byMarker = new Map(l2.map((s) => [s.marker, s]));
  const orphan_details: HierarchySection[] = [];
  for (const s of sections.filter((x) => x.level === 3)) {
    const parent = byMarker.get(l2For(s.marker));
    if (parent) parent.children.push(s);
    else orphan_details.push(s);
  }
  return { l1: getExecutiveSummary(db), sections: l2, orphan_details, l4: listL4(db) };
}

const firstSentence = (body: string): string => {
  const text = body.replace(/[#*`>[\]]/g, '').replace(/\s+/g, ' ').trim();
  const end = text.search(/[.!?](\s|$)/);
  const s = end >= 0 ? text.slice(0, end + 1) : text;
  return s.length > 90 ? `${s.slice(0, 87)}…` : s;
};

/** The seed's NAVIGATION INDEX: one line per section, L4 grouped by top-level folder. Takes the tree so a caller that shows both builds it once. */
export function navigationIndex(tree: HierarchyTree): NavigationIndex {
  const entries: NavigationEntry[] = [];
  if (tree.l1) entries.push({ marker: '1.0', level: 1, title: 'Project Overview', anchor: tree.l1.anchor, note: 'Goal, status, priorities, blockers' });
  const sectionNote = (s: HierarchySection) => {
    const status = s.status_pct === null ? '' : s.status_pct >= 100 ? ' [DONE]' : ` [IN PROGRESS ${s.status_pct}%]`;
    return `${firstSentence(s.body)}${status}${s.is_draft ? ' [DRAFT]' : ''}`.trim();
  };
  for (const s of tree.sections) entries.push({ marker: s.marker, level: 2, title: s.title, anchor: s.anchor, note: sectionNote(s) });
  const details = [...tree.sections.flatMap((s) => s.children), ...tree.orphan_details];
  for (const s of details) entries.push({ marker: s.marker, level: 3, title: s.title, anchor: s.anchor, note: sectionNote(s) });
  const groups = new Map<string, number>();
  for (const n of tree.l4) {
    const slash = n.rel_path.indexOf('/');
    const key = slash >= 0 ? `${n.rel_path.slice(0, slash)}/*` : n.rel_path;
    groups.set(key, (groups.get(key) ?? 0) + 1);
  }
  for (const [key, count] of [...groups].sort(([a], [b]) => (a < b ? -1 : 1))) {
    entries.push({ marker: `4.${key}`, level: 4, title: key, anchor: anchorFor('4', key), note: key.endsWith('/*') ? `${count} file${count === 1 ? '' : 's'}` : 'file' });
  }
  const heading: Record<number, string> = { 1: '## Executive Summary', 2: '## Section Summaries', 3: '## Detailed Documentation', 4: '## Source Files (Level 4)' };
  const lines = ['# NAVIGATION INDEX'];
  for (const level of [1, 2, 3, 4] as const) {
    const at = entries.filter((e) => e.level === level);
    if (at.length === 0) continue;
    lines.push(heading[level]!);
    // Titles and markers come from headings and file names: one line each, whatever they hold.
    for (const e of at) lines.push(escapeControls(`[§${e.marker} - ${e.title}](#${e.anchor})${e.note ? ` - ${e.note}` : ''}`));
  }
  return { entries, markdown: lines.join('\n') + '\n---\n' };
}
