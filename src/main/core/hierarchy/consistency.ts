import type { Database } from 'better-sqlite3';
import { existsSync } from 'node:fs';
import type { ChangeType, ConsistencyFinding, PropagationHint } from '../../../shared/memory.ts';
import { existingDecisionIds } from '../memory/decisions.ts';
import { decisionRefs, l2For, l4Refs, resolveL4Ref } from './markers.ts';
import { getExecutiveSummary, listSections } from './sections.ts';
import { listL4 } from './tree.ts';

export interface ConsistencyOptions {
  /** How to tell whether an L4 file still exists on disk; injectable for tests. */
  fileExists?: (path: string) => boolean;
  /** Seed: "allow 5% tolerance". */
  statusTolerance?: number;
}

/** The seed's four consistency checks (Maintenance During Updates), as findings in a stable order. */
export function checkConsistency(db: Database, options: ConsistencyOptions = {}): ConsistencyFinding[] {
  const fileExists = options.fileExists ?? existsSync;
  const tolerance = options.statusTolerance ?? 5;
  const findings: ConsistencyFinding[] = [];
  const sections = listSections(db);
  const l3 = sections.filter((s) => s.level === 3);
  const l2 = sections.filter((s) => s.level === 2);
  const l1 = getExecutiveSummary(db);

  // 1. Every L3 reference to L4 names an indexed file that is still on disk.
  const nodes = listL4(db);
  for (const s of l3) {
    for (const ref of l4Refs(s.body)) {
      const found = resolveL4Ref(ref, nodes);
      if (found.length === 0) findings.push({ check: 'broken-l4-reference', marker: `§${s.marker}`, ref: `§4.${ref}`, message: `Broken L3→L4 reference: §4.${ref} matches no indexed file` });
      else if (!ref.endsWith('*')) {
        const gone = found.filter((n) => !fileExists(n.path));
        if (gone.length === found.length) findings.push({ check: 'broken-l4-reference', marker: `§${s.marker}`, ref: `§4.${ref}`, message: `Broken L3→L4 reference: §4.${ref} (${gone[0]!.path}) no longer exists on disk` });
      }
    }
  }

  // 2. Every L2 summary has L3 details (3.N or 3.N.M for 2.N).
  const detailed = new Set(l3.map((s) => l2For(s.marker)));
  for (const s of l2) {
    if (!detailed.has(s.marker)) findings.push({ check: 'l2-without-l3', marker: `§${s.marker}`, ref: null, message: `L2 summary without L3 details: §${s.marker} ${s.title}` });
  }

  // 3. L1 status % agrees with the mean of the L2 sections that state one.
  const stated = l2.filter((s) => s.status_pct !== null).map((s) => s.status_pct!);
  if (l1 && stated.length > 0) {
    const aggregate = stated.reduce((a, b) => a + b, 0) / stated.length;
    if (Math.abs(l1.status_pct - aggregate) > tolerance) {
      const agg = Math.round(aggregate * 10) / 10;
      findings.push({ check: 'status-mismatch', marker: '§1.0', ref: null, message: `Status mismatch: L1=${l1.status_pct}%, L2 aggregate=${agg}% (tolerance ${tolerance})` });
    }
  }

  // 4. Every decision id referenced in the hierarchy or in memory content exists.
  const refs: { marker: string; id: string }[] = [];
  if (l1) {
    for (const id of new Set([...l1.key_decisions.map((d) => d.decision_id), ...decisionRefs(l1.goal + '\n' + l1.status_text + '\n' + [...l1.priorities, ...l1.blockers].join('\n'))])) {
      refs.push({ marker: '§1.0', id });
    }
  }
  for (const s of sections) for (const id of decisionRefs(`${s.title}\n${s.body}`)) refs.push({ marker: `§${s.marker}`, id });
  const memRows = db.prepare("SELECT id, decision_id, body FROM memories WHERE body LIKE '%DEC-%' ORDER BY seq").all() as { id: string; decision_id: string | null; body: string }[];
  for (const m of memRows) for (const id of decisionRefs(m.body)) refs.push({ marker: m.decision_id ?? `memory:${m.id}`, id });
  const known = existingDecisionIds(db, refs.map((r) => r.id));
  for (const r of refs) {
    if (!known.has(r.id)) findings.push({ check: 'missing-decision', marker: r.marker, ref: r.id, message: `Referenced decision not found: ${r.id} (in ${r.marker})` });
  }
  return findings;
}

/** The seed's propagation matrix: per update type, what to do at L4, L3, L2, L1. */
export const PROPAGATION_MATRIX: Record<ChangeType, readonly [string, string, string, string]> = {
  'code-change': ['Always', 'If significant', 'If impacts status', 'If changes status %'],
  'bug-fix': ['Always', 'If notable', 'If critical bug', 'If was blocker'],
  'config-change': ['Always', 'If architecture', 'If impacts design', 'Rarely'],
  'new-feature': ['Always', 'Always', 'Always', 'If major feature'],
  'progress-update': ['-', 'Status only', 'Status + %', 'Status + %'],
  'decision-made': ['Reference', 'Full details', 'Summary', 'Link only'],
};

/**
 * Which levels a change should update, per the matrix, L4 first (the seed updates raw files first). Given the
 * changed file, the hint also names the L3 sections that reference it and the L2 sections above them.
 */
export function propagationHints(db: Database, change: { type: ChangeType; path?: string }): PropagationHint[] {
  const row = PROPAGATION_MATRIX[change.type];
  if (!row) throw new Error(`unknown change type ${JSON.stringify(change.type)} (expected ${Object.keys(PROPAGATION_MATRIX).join(', ')})`);
  const markers: Record<1 | 2 | 3 | 4, string[]> = { 1: [], 2: [], 3: [], 4: [] };
  if (change.path !== undefined) {
    const nodes = listL4(db);
    const changed = nodes.filter((n) => n.path === change.path || n.rel_path === change.path);
    markers[4] = changed.map((n) => `§${n.marker}`);
    const sections = listSections(db);
    const l3 = sections.filter((s) => s.level === 3 && l4Refs(s.body).some((ref) => resolveL4Ref(ref, changed).length > 0));
    markers[3] = l3.map((s) => `§${s.marker}`);
    const l2Markers = new Set(l3.map((s) => l2For(s.marker)));
    markers[2] = sections.filter((s) => s.level === 2 && l2Markers.has(s.marker)).map((s) => `§${s.marker}`);
    if (getExecutiveSummary(db)) markers[1] = ['§1.0'];
  }
  const update = (rule: string): PropagationHint['update'] => (rule === '-' ? 'never' : /^(If|Rarely)/.test(rule) ? 'conditional' : 'always');
  return ([4, 3, 2, 1] as const).map((level) => {
    const rule = row[4 - level]!;
    return { level, rule, update: update(rule), markers: update(rule) === 'never' ? [] : markers[level] };
  });
}
