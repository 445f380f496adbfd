import type { Database } from 'better-sqlite3';
import type { ExecutiveSummary, ExecutiveSummaryInput, FieldIssue, HierarchySection } from '../../../shared/memory.ts';
import { existingDecisionIds } from '../memory/decisions.ts';
import { DECISION_ID_PATTERN, NotFoundError, ValidationError } from '../memory/validate.ts';
import { anchorFor, compareMarkers, markerLevel, parseSectionMarker } from './markers.ts';
import { assertCanWrite } from './ownership.ts';

export interface HierarchyDeps {
  now?: () => Date;
  /** Who edits, shown as "Agent" on the summary. */
  actor?: string;
}

interface SectionRow {
  id: number;
  marker: string;
  level: 1 | 2 | 3;
  title: string;
  body: string;
  data: string | null;
  status_pct: number | null;
  is_draft: 0 | 1;
  updated_at: string;
  updated_by: string;
  deleted_at: string | null;
}

const L1_MARKER = '1.0';
const L1_TITLE = 'Project Overview';
const stamp = (deps: HierarchyDeps) => ({ at: (deps.now ?? (() => new Date()))().toISOString(), by: deps.actor ?? 'user' });

function toSection(r: SectionRow): HierarchySection {
  return {
    marker: r.marker,
    level: r.level,
    title: r.title,
    body: r.body,
    status_pct: r.status_pct,
    is_draft: r.is_draft === 1,
    anchor: anchorFor(r.marker, r.title),
    updated_at: r.updated_at,
    updated_by: r.updated_by,
  };
}

// ── Level 1 ─────────────────────────────────────────────────────────────────────────────────────────────────────

/** Writes the executive summary (§1.0). The seed's rules: goal, status %, at most 3 priorities, blockers, key decisions. */
export function setExecutiveSummary(db: Database, input: ExecutiveSummaryInput, deps: HierarchyDeps = {}): ExecutiveSummary {
  const issues: FieldIssue[] = [];
  const goal = typeof input.goal === 'string' ? input.goal.trim() : '';
  if (goal === '') issues.push({ field: 'goal', message: 'is required (one sentence)' });
  if (!Number.isInteger(input.status_pct) || input.status_pct < 0 || input.status_pct > 100) issues.push({ field: 'status_pct', message: 'must be an integer from 0 to 100' });
  const list = (v: unknown, field: string): string[] => {
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) return (issues.push({ field, message: 'must be a list of strings' }), []);
    const out: string[] = [];
    v.forEach((s, i) => {
      if (typeof s !== 'string' || s.trim() === '') issues.push({ field: `${field}[${i}]`, message: 'must be a non-empty string' });
      else out.push(s.trim());
    });
    return out;
  };
  const priorities = list(input.priorities, 'priorities');
  if (priorities.length > 3) issues.push({ field: 'priorities', message: `at most the top 3 (got ${priorities.length})` });
  const blockers = list(input.blockers, 'blockers');
  const keyDecisions = list(input.key_decisions, 'key_decisions');
  keyDecisions.forEach((d, i) => {
    if (!DECISION_ID_PATTERN.test(d)) issues.push({ field: `key_decisions[${i}]`, message: `must look like DEC-YYYY-MM-DD-NNN, got ${JSON.stringify(d)}` });
  });
  if (issues.length > 0) throw new ValidationError(issues, 'executive summary');
  const data = { goal, status_text: (input.status_text ?? '').trim(), priorities, blockers, key_decisions: [...new Set(keyDecisions)] };
  // Seed 002's write rule: an exclusively owned section is written only by its owner.
  assertCanWrite(db, L1_MARKER, deps.actor ?? 'user', deps);
  const { at, by } = stamp(deps);
  db.prepare(
    `INSERT INTO hierarchy_sections (marker, level, title, body, data, status_pct, is_draft, updated_at, updated_by)
     VALUES (?, 1, ?, '', ?, ?, 0, ?, ?)
     ON CONFLICT(marker) DO UPDATE SET data = excluded.data, status_pct = excluded.status_pct, updated_at = excluded.updated_at,
       updated_by = excluded.updated_by, deleted_at = NULL`,
  ).run(L1_MARKER, L1_TITLE, JSON.stringify(data), input.status_pct, at, by);
  return getExecutiveSummary(db)!;
}

export function getExecutiveSummary(db: Database): ExecutiveSummary | null {
  const row = db.prepare('SELECT * FROM hierarchy_sections WHERE marker = ? AND deleted_at IS NULL').get(L1_MARKER) as SectionRow | undefined;
  if (!row || row.data === null) return null;
  const data = JSON.parse(row.data) as { goal: string; status_text: string; priorities: string[]; blockers: string[]; key_decisions: string[] };
  const known = existingDecisionIds(db, data.key_decisions);
  const summary: Omit<ExecutiveSummary, 'text'> = {
    marker: '§1.0',
    anchor: anchorFor(L1_MARKER, L1_TITLE),
    goal: data.goal,
    status_pct: row.status_pct ?? 0,
    status_text: data.status_text,
    priorities: data.priorities,
    blockers: data.blockers,
    key_decisions: data.key_decisions.map((id) => ({ decision_id: id, title: known.get(id) ?? null, exists: known.has(id) })),
    updated_at: row.updated_at,
    updated_by: row.updated_by,
  };
  return { ...summary, text: renderExecutiveSummary(summary) };
}

/** The seed's executive-summary layout. */
export function renderExecutiveSummary(s: Omit<ExecutiveSummary, 'text'>): string {
  const out = ['# PROJECT EXECUTIVE SUMMARY', `§1.0`, '', `**Goal**: ${s.goal}`, `**Status**: ${s.status_pct}% complete${s.status_text ? ` - ${s.status_text}` : ''}`];
  out.push('**Priorities**:', ...(s.priorities.length > 0 ? s.priorities.map((p, i) => `${i + 1}. ${p}`) : ['(none set)']));
  out.push(s.blockers.length > 0 ? '**Blockers**:' : '**Blockers**: none', ...s.blockers.map((b) => `- ${b}`));
  if (s.key_decisions.length > 0) {
    out.push('**Key Decisions**:', ...s.key_decisions.map((d) => `- [${d.decision_id}] ${d.title ?? '(not found in memory)'}`));
  }
  out.push(`**Last Updated**: ${s.updated_at} | **Agent**: ${s.updated_by}`);
  return out.join('\n') + '\n';
}

// ── Levels 2 and 3 ──────────────────────────────────────────────────────────────────────────────────────────────

export interface SectionInput {
  level: 2 | 3;
  title: string;
  body?: string;
  status_pct?: number | null;
  /** For L3: the L2 section it details ('2.1' → becomes 3.1) or an L3 section it is a subsection of ('3.1' → 3.1.N). */
  parent?: string;
  /** Create under exactly this marker (e.g. when importing an existing document); it must never have been used. */
  marker?: string;
  is_draft?: boolean;
}

function validateSection(title: unknown, body: unknown, status: unknown, issues: FieldIssue[]): void {
  if (typeof title !== 'string' || title.trim() === '') issues.push({ field: 'title', message: 'is required' });
  else if (/[\r\n]/.test(title)) issues.push({ field: 'title', message: 'must be a single line' });
  // eslint-disable-next-line no-control-regex
  else if (/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/.test(title)) issues.push({ field: 'title', message: 'must not contain control characters (escape sequences, bidi overrides)' });
  else if (title.trim().length > 200) issues.push({ field: 'title', message: 'must be at most 200 characters' });
  if (body !== undefined && typeof body !== 'string') issues.push({ field: 'body', message: 'must be text' });
  if (status !== undefined && status !== null && (!Number.isInteger(status) || (status as number) < 0 || (status as number) > 100)) {
    issues.push({ field: 'status_pct', message: 'must be an integer from 0 to 100' });
  }
}

/** Adds an L2 or L3 section under a newly allocated marker (never one used before, even if since deleted). */
export function addSection(db: Database, input: SectionInput, deps: HierarchyDeps = {}): HierarchySection {
  const issues: FieldIssue[] = [];
  if (input.level !== 2 && input.level !== 3) issues.push({ field: 'level', message: 'must be 2 or 3 (level 1 is the executive summary)' });
  validateSection(input.title, input.body, input.status_pct, issues);
  if (issues.length > 0) throw new ValidationError(issues, 'section');
  return db
    .transaction(() => {
      const used = (db.prepare('SELECT marker FROM hierarchy_sections').all() as { marker: string }[]).map((r) => r.marker);
      const marker = input.marker !== undefined ? explicitMarker(input, used) : nextMarker(input, used);
      const { at, by } = stamp(deps);
      db.prepare(
        `INSERT INTO hierarchy_sections (marker, level, title, body, status_pct, is_draft, updated_at, updated_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(marker, input.level, input.title.trim(), input.body ?? '', input.status_pct ?? null, input.is_draft ? 1 : 0, at, by);
      return getSection(db, marker)!;
    })
    .immediate();
}

function explicitMarker(input: SectionInput, used: string[]): string {
  const marker = parseSectionMarker(input.marker!);
  if (marker === null || markerLevel(marker) !== input.level) {
    throw new ValidationError([{ field: 'marker', message: `must be a level-${input.level} marker like ${input.level === 2 ? '2.1' : '3.1 or 3.1.2'}` }], 'section');
  }
  if (used.includes(marker)) throw new ValidationError([{ field: 'marker', message: `§${marker} is taken (markers are never reused)` }], 'section');
  return marker;
}

function nextMarker(input: SectionInput, used: string[]): string {
  const nextChild = (prefix: string) => {
    const depth = prefix.split('.').length + 1;
    const nums = used.filter((m) => m.startsWith(prefix + '.') && m.split('.').length === depth).map((m) => Number(m.split('.').pop()));
    return `${prefix}.${Math.max(0, ...nums) + 1}`;
  };
  if (input.level === 2) return nextChild('2');
  const parent = input.parent === undefined ? null : parseSectionMarker(input.parent);
  if (parent === null || parent === '1.0' || (markerLevel(parent) === 3 && parent.split('.').length !== 2)) {
    throw new ValidationError([{ field: 'parent', message: 'an L3 section needs a parent: an L2 marker (2.N) or a top L3 marker (3.N)' }], 'section');
  }
  if (markerLevel(parent) === 2) {
    const top = `3.${parent.split('.')[1]}`;
    // The first detail section of 2.N is 3.N; further ones become its subsections 3.N.M.
    return used.includes(top) ? nextChild(top) : top;
  }
  return nextChild(parent);
}

export interface SectionPatch {
  title?: string;
  body?: string;
  status_pct?: number | null;
  is_draft?: boolean;
}

/** Edits a section's text; its marker never changes. */
export function updateSection(db: Database, markerInput: string, patch: SectionPatch, deps: HierarchyDeps = {}): HierarchySection {
  const marker = requireMarker(markerInput);
  if (marker === L1_MARKER) throw new ValidationError([{ field: 'marker', message: '§1.0 is edited with setExecutiveSummary' }], 'section');
  const current = getSection(db, marker);
  if (!current) throw new NotFoundError(`section §${marker} not found`);
  const issues: FieldIssue[] = [];
  validateSection(patch.title ?? current.title, patch.body, patch.status_pct, issues);
  if (issues.length > 0) throw new ValidationError(issues, 'section');
  assertCanWrite(db, marker, deps.actor ?? 'user', deps);
  const { at, by } = stamp(deps);
  db.prepare('UPDATE hierarchy_sections SET title = ?, body = ?, status_pct = ?, is_draft = ?, updated_at = ?, updated_by = ? WHERE marker = ?').run(
    (patch.title ?? current.title).trim(),
    patch.body ?? current.body,
    patch.status_pct === undefined ? current.status_pct : patch.status_pct,
    (patch.is_draft ?? current.is_draft) ? 1 : 0,
    at,
    by,
    marker,
  );
  return getSection(db, marker)!;
}

/** Removes a section from every view; its marker stays reserved. */
export function deleteSection(db: Database, markerInput: string, deps: HierarchyDeps = {}): void {
  const marker = requireMarker(markerInput);
  assertCanWrite(db, marker, deps.actor ?? 'user', deps);
  const info = db.prepare('UPDATE hierarchy_sections SET deleted_at = ? WHERE marker = ? AND deleted_at IS NULL').run(stamp(deps).at, marker);
  if (info.changes === 0) throw new NotFoundError(`section §${marker} not found`);
}

export function getSection(db: Database, markerInput: string): HierarchySection | null {
  const marker = parseSectionMarker(markerInput);
  if (marker === null) return null;
  const row = db.prepare('SELECT * FROM hierarchy_sections WHERE marker = ? AND deleted_at IS NULL').get(marker) as SectionRow | undefined;
  if (!row) return null;
  if (row.level === 1) {
    const s = getExecutiveSummary(db);
    return { ...toSection(row), body: s?.text ?? '' };
  }
  return toSection(row);
}

/** Live L2 and L3 sections in marker order. */
export function listSections(db: Database): HierarchySection[] {
  const rows = db.prepare('SELECT * FROM hierarchy_sections WHERE deleted_at IS NULL AND level IN (2, 3)').all() as SectionRow[];
  return rows.map(toSection).sort((a, b) => compareMarkers(a.marker, b.marker));
}

function requireMarker(input: string): string {
  const m = parseSectionMarker(input);
  if (m === null) throw new ValidationError([{ field: 'marker', message: `${JSON.stringify(input)} is not a section marker (1.0, 2.N, 3.N, 3.N.M)` }], 'section');
  return m;
}
