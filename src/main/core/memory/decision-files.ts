import type { Database } from 'better-sqlite3';
import { lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { DecisionImportResult, DecisionRecord } from '../../../shared/memory.ts';
import { gateDeep, type Redactor } from '../redact/index.ts';
import { makeDir } from '../store/make-dir.ts';
import { readRegularFile, realLocation, replaceFileInside } from '../store/containment.ts';
import { createDecision, supersedeDecision, validateDecision, type NormalizedDecision } from './decisions.ts';
import { DecisionFileError, isDecisionMarkdown, parseDecisionMarkdown, renderDecisionMarkdown, type ParsedDecisionFile } from './decision-markdown.ts';
import { findRow, MEMORY_COLUMNS, replaceFields, requireRow, rowToRecord, type MemoryDeps, type MemoryRow } from './records.ts';
import { ValidationError } from './validate.ts';

export interface ExportResult {
  dir: string;
  /** Files whose bytes changed (or were new). */
  written: string[];
  /** Files already holding exactly the rendered bytes; left untouched (mtime too). */
  unchanged: string[];
  /**
   * Decisions whose fields held something the redaction gate flags: masked in the file unless `includeSecrets`
   * (then written as typed, and still listed so the caller can warn).
   */
  secrets: { decision_id: string; file: string; fields: number; masked: boolean }[];
}

/**
 * Writes each decision (archived ones too: they are the history) as `<DEC id>.md` in the template's layout. The
 * folder is usually committed, so field values pass the redaction gate first unless `includeSecrets`.
 */
export function exportDecisions(db: Database, dir: string, options: { ids?: string[]; projectId?: string; includeSecrets?: boolean; redactor?: Redactor } = {}): ExportResult {
  const decisions = options.ids
    ? options.ids.map((id) => {
        const row = findRow(db, id);
        if (!row || row.type !== 'decision') throw new DecisionFileError(id, 0, `decision ${JSON.stringify(id)} not found`);
        return rowToRecord<'decision'>(row);
      })
    : (
        db
          .prepare(`SELECT ${MEMORY_COLUMNS} FROM memories m WHERE m.type = 'decision' ${options.projectId !== undefined ? 'AND m.project_id = ?' : ''} ORDER BY m.decision_id`)
          .all(...(options.projectId !== undefined ? [options.projectId] : [])) as MemoryRow[]
      ).map((r) => rowToRecord<'decision'>(r));
  makeDir(dir, 0o777);
  const result: ExportResult = { dir: resolve(dir), written: [], unchanged: [], secrets: [] };
  // The files land in the folder's real location, and a `DEC-….md` that is a link is replaced, never written through:
  // its target may lie anywhere (outside `serve --root`, another repository's file).
  const folder = realLocation(dir);
  for (const d of decisions) {
    const file = join(result.dir, decisionFileName(d));
    const gated = gateDecision(d, options.redactor);
    if (gated.redacted > 0) result.secrets.push({ decision_id: d.decision_id ?? d.memory_id, file, fields: gated.redacted, masked: !options.includeSecrets });
    const text = renderDecisionMarkdown(options.includeSecrets ? d : gated.record);
    if (readRegularFile(file)?.toString('utf8') === text) result.unchanged.push(file);
    else {
      replaceFileInside(join(folder, decisionFileName(d)), text, { roots: [folder] });
      result.written.push(file);
    }
  }
  return result;
}

export const decisionFileName = (d: DecisionRecord): string => `${d.decision_id}.md`;

/**
 * A decision with its title, fields and tags through the redaction gate, field by field, so rendered Markdown keeps its
 * layout (and imports back) with a marker where a secret was; `redacted` counts the fields masked.
 */
export function gateDecision(d: DecisionRecord, redactor?: Redactor): { record: DecisionRecord; redacted: number } {
  const gated = gateDeep({ title: d.title, content: d.content, tags: d.tags }, { source: `decision-export:${d.decision_id}`, ...(redactor ? { redactor } : {}) });
  return { record: gated.redacted > 0 ? { ...d, ...gated.value } : d, redacted: gated.redacted };
}

export interface ImportReport {
  results: DecisionImportResult[];
  /** Markdown files in a folder that are not decision files (their first line is not '## DECISION:'). */
  skipped: { file: string; reason: string }[];
}

interface Planned {
  file: string;
  text: string;
  parsed: ParsedDecisionFile;
  decision: NormalizedDecision;
}

/**
 * Reads decision files (a file, or a folder's *.md files) and applies them in one transaction: an unknown id
 * creates the decision under that id, a known id updates it when something differs and is a no-op otherwise, and
 * a file without an id gets one allocated and written into the file. Any malformed file aborts the whole import
 * with its file and line; nothing is written.
 */
export function importDecisions(db: Database, targets: string | string[], deps: MemoryDeps = {}): ImportReport {
  const report: ImportReport = { results: [], skipped: [] };
  // Text read while scanning a folder is kept, so each file is read once.
  const files: { file: string; text?: string }[] = [];
  for (const target of Array.isArray(targets) ? targets : [targets]) {
    let isDir: boolean;
    try {
      isDir = statSync(target).isDirectory();
    } catch (err) {
      throw new DecisionFileError(target, 0, `cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    if (!isDir) {
      files.push({ file: resolve(target) });
      continue;
    }
    for (const name of readdirSync(target).filter((n) => n.toLowerCase().endsWith('.md')).sort()) {
      const file = resolve(target, name);
      // A link in the folder is not followed: it could lead outside the folder the caller was allowed to name.
      const st = lstatSync(file);
      if (st.isSymbolicLink()) {
        report.skipped.push({ file, reason: 'a symbolic link (not followed)' });
        continue;
      }
      if (!st.isFile()) continue;
      const text = readFileSync(file, 'utf8');
      if (!isDecisionMarkdown(text)) report.skipped.push({ file, reason: "not a decision file (no '## DECISION:' heading)" });
      else files.push({ file, text });
    }
  }

  const planned: Planned[] = [];
  const seenIds = new Map<string, string>();
  for (const { file, text: scanned } of files) {
    const text = scanned ?? readFileSync(file, 'utf8');
    const parsed = parseDecisionMarkdown(text, file);
    const id = parsed.input.decision_id;
    if (id) {
      if (seenIds.has(id)) throw new DecisionFileError(file, parsed.idLine ?? parsed.headingLine, `${id} is also in ${seenIds.get(id)}`, 'decision_id');
      seenIds.set(id, file);
      // A file that leaves out agent, project or timestamp keeps the stored values rather than resetting them.
      const row = findRow(db, id);
      if (row) {
        parsed.input.agent_id ??= row.agent_id;
        parsed.input.project_id ??= row.project_id;
        parsed.input.timestamp ??= row.timestamp;
      }
    }
    planned.push({ file, text, parsed, decision: validateFile(parsed, file) });
  }

  const allocated: { plan: Planned; id: string }[] = [];
  db.transaction(() => {
    for (const plan of planned) {
      const { input } = plan.parsed;
      const row = input.decision_id ? findRow(db, input.decision_id) : undefined;
      if (row && row.type !== 'decision') throw new DecisionFileError(plan.file, plan.parsed.idLine ?? 0, `${input.decision_id} is not a decision`, 'decision_id');
      if (!row) {
        // Links are applied in a second pass, so a file may supersede a decision created later in the same import.
        const created = createDecision(db, { ...input, supersedes: undefined }, deps);
        if (!input.decision_id) allocated.push({ plan, id: created.decision_id! });
        report.results.push({ file: plan.file, decision_id: created.decision_id!, action: 'created', ...(input.decision_id ? {} : { id_written: true }) });
        continue;
      }
      const changed = differs(row, plan.decision);
      if (changed) replaceFields(db, row, plan.decision.memory, deps);
      report.results.push({ file: plan.file, decision_id: row.decision_id!, action: changed ? 'updated' : 'unchanged' });
    }
    planned.forEach((plan, k) => {
      const want = plan.decision.supersedes;
      const result = report.results[k]!;
      const row = requireRow(db, result.decision_id);
      if (want === null || want === row.supersedes) return;
      if (row.supersedes !== null) {
        throw new DecisionFileError(plan.file, plan.parsed.lines.supersedes ?? 0, `${row.decision_id} already supersedes ${row.supersedes}; supersede links cannot be changed`, 'supersedes');
      }
      try {
        supersedeDecision(db, want, row.id, deps);
      } catch (err) {
        if (err instanceof ValidationError) throw new DecisionFileError(plan.file, plan.parsed.lines.supersedes ?? 0, err.issues.map((i) => i.message).join('; '), 'supersedes');
        throw err;
      }
      if (result.action === 'unchanged') result.action = 'updated';
    });
  }).immediate();

  // The id goes into the file that was read: a file named through a link is written where the link led (the door
  // judged that location), by a new file renamed over it, so nothing else is followed on the way.
  for (const { plan, id } of allocated) replaceFileInside(realLocation(plan.file), withDecisionId(plan.text, plan.parsed, id));
  return report;
}

function validateFile(parsed: ParsedDecisionFile, file: string): NormalizedDecision {
  try {
    return validateDecision(parsed.input);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    const first = err.issues[0]!;
    const lineFor = (field: string) => parsed.lines[field] ?? parsed.lines[field.replace(/\.[a-z_]+$/, '')] ?? parsed.lines[field.replace(/\[\d+\].*$/, '')] ?? parsed.headingLine;
    const detail = err.issues.map((i) => `${i.field} (line ${lineFor(i.field)}): ${i.message}`).join('; ');
    throw new DecisionFileError(file, lineFor(first.field), `invalid decision: ${detail}`, first.field);
  }
}

function differs(row: MemoryRow, d: NormalizedDecision): boolean {
  const m = d.memory;
  return (
    row.title !== m.title ||
    row.content !== JSON.stringify(m.content) ||
    row.tags !== JSON.stringify(m.tags) ||
    row.importance !== m.importance ||
    row.agent_id !== m.agent_id ||
    row.project_id !== m.project_id ||
    (m.timestamp !== null && row.timestamp !== m.timestamp)
  );
}

/** Inserts (or fills in) the Decision ID line, touching nothing else in the user's file. */
export function withDecisionId(text: string, parsed: ParsedDecisionFile, id: string): string {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(/\r?\n/);
  const line = `**Decision ID**: ${id}`;
  if (parsed.idLine !== null) {
    lines[parsed.idLine - 1] = line;
    return lines.join(eol);
  }
  const metaLines = ['timestamp', 'agent_id', 'project_id', 'importance', 'supersedes', 'superseded_by']
    .map((f) => parsed.lines[f])
    .filter((n): n is number => n !== undefined);
  if (metaLines.length > 0) lines.splice(Math.min(...metaLines) - 1, 0, line);
  else lines.splice(parsed.headingLine, 0, '', line);
  return lines.join(eol);
}
