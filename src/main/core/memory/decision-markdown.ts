import type { DecisionAlternative, DecisionInput, DecisionRecord } from '../../../shared/memory.ts';

/**
 * The seed's Decision Logging Template as a file format. Rendering is canonical (one layout, blank lines
 * between blocks) so export → import → export is byte-stable; parsing accepts the same layout with any
 * number of blank lines and CRLF endings, and reports the line of anything it cannot place.
 */

export const SECTIONS = [
  ['Decision', 'decision'],
  ['Rationale', 'rationale'],
  ['Alternatives Considered', 'alternatives_considered'],
  ['Expected Impact', 'expected_impact'],
  ['Validation Criteria', 'validation_criteria'],
  ['Context', 'context'],
  ['Tags', 'tags'],
] as const;

type SectionField = (typeof SECTIONS)[number][1];

const META = [
  ['Decision ID', 'decision_id'],
  ['Timestamp', 'timestamp'],
  ['Agent', 'agent_id'],
  ['Project', 'project_id'],
  ['Importance', 'importance'],
  ['Supersedes', 'supersedes'],
  ['Superseded By', 'superseded_by'],
] as const;

type MetaField = (typeof META)[number][1];

export function renderDecisionMarkdown(d: DecisionRecord): string {
  const c = d.content;
  const out: string[] = [`## DECISION: ${d.title}`, ''];
  out.push(`**Decision ID**: ${d.decision_id}`, `**Timestamp**: ${d.timestamp}`, `**Agent**: ${d.agent_id}`, `**Project**: ${d.project_id}`, `**Importance**: ${d.importance}`);
  if (d.supersedes) out.push(`**Supersedes**: ${d.supersedes}`);
  if (d.superseded_by) out.push(`**Superseded By**: ${d.superseded_by}`);
  const block = (heading: string, text: string) => {
    out.push('', `### ${heading}`);
    if (text !== '') out.push('', text);
  };
  block('Decision', c.decision);
  block('Rationale', c.rationale);
  block('Alternatives Considered', c.alternatives_considered.map((a, i) => renderAlternative(a, i)).join('\n'));
  block('Expected Impact', c.expected_impact);
  block('Validation Criteria', c.validation_criteria);
  block('Context', c.context);
  block('Tags', d.tags.join(', '));
  return out.join('\n') + '\n';
}

function renderAlternative(a: DecisionAlternative, i: number): string {
  const [first, ...rest] = a.reason.split('\n');
  return [`${i + 1}. **${a.name}**: ${first}`, ...rest.map((l) => (l === '' ? '' : `   ${l}`))].join('\n');
}

export class DecisionFileError extends Error {
  readonly file: string;
  readonly line: number;
  readonly field: string | null;
  constructor(file: string, line: number, message: string, field: string | null = null) {
    super(`${file}:${line}: ${message}`);
    this.name = 'DecisionFileError';
    this.file = file;
    this.line = line;
    this.field = field;
  }
}

export interface ParsedDecisionFile {
  input: DecisionInput;
  /** Superseded By is derived from the newer decision; it is read only to keep the layout round-trippable. */
  superseded_by: string | null;
  /** 1-based line of each field, to attach validation messages to a line. */
  lines: Record<string, number>;
  headingLine: number;
  idLine: number | null;
}

/** True when the text looks like a decision file (its first non-blank line is the template's heading). */
export function isDecisionMarkdown(text: string): boolean {
  const first = text.replace(/^\uFEFF/, '').split(/\r?\n/).find((l) => l.trim() !== '');
  return first !== undefined && /^## DECISION:/.test(first);
}

export function parseDecisionMarkdown(text: string, file = '<decision>'): ParsedDecisionFile {
  const lines = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n').split('\n');
  const fail = (line: number, message: string, field: string | null = null): never => {
    throw new DecisionFileError(file, line, message, field);
  };
  const lineOf: Record<string, number> = {};
  let i = 0;
  while (i < lines.length && lines[i]!.trim() === '') i++;
  if (i === lines.length) fail(1, "empty file: expected '## DECISION: <title>'");
  const heading = /^## DECISION:[ \t]*(.*)$/.exec(lines[i]!);
  if (!heading) fail(i + 1, `expected '## DECISION: <title>', got ${JSON.stringify(lines[i]!.slice(0, 60))}`);
  const headingLine = i + 1;
  lineOf.title = headingLine;
  const title = heading![1]!.trim();
  i++;

  const meta: Partial<Record<MetaField, string>> = {};
  for (; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.trim() === '') continue;
    if (l.startsWith('### ') || l.startsWith('## ')) break;
    const m = /^\*\*([^*]+)\*\*:[ \t]*(.*)$/.exec(l);
    if (!m) fail(i + 1, `expected a '**Field**: value' line or a '### ' section, got ${JSON.stringify(l.slice(0, 60))}`);
    const entry = META.find(([label]) => label.toLowerCase() === m![1]!.trim().toLowerCase());
    if (!entry) fail(i + 1, `unknown field '**${m![1]}**' (expected one of ${META.map(([l]) => l).join(', ')})`);
    const field = entry![1];
    if (meta[field] !== undefined) fail(i + 1, `'**${entry![0]}**' appears twice`, field);
    meta[field] = m![2]!.trim();
    lineOf[field] = i + 1;
  }

  const bodies: Partial<Record<SectionField, { start: number; lines: string[] }>> = {};
  let current: { start: number; lines: string[] } | null = null;
  for (; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.startsWith('## ')) fail(i + 1, 'one decision per file: a second level-2 heading starts here');
    if (l.startsWith('### ')) {
      const name = l.slice(4).trim();
      const entry = SECTIONS.find(([label]) => label.toLowerCase() === name.toLowerCase());
      if (!entry) fail(i + 1, `unknown section '### ${name}' (expected ${SECTIONS.map(([l]) => l).join(', ')})`);
      const field = entry![1];
      if (bodies[field]) fail(i + 1, `section '### ${entry![0]}' appears twice`, field);
      current = { start: i + 1, lines: [] };
      bodies[field] = current;
      lineOf[field] = i + 1;
      continue;
    }
    if (current === null) fail(i + 1, `expected a '### ' section, got ${JSON.stringify(l.slice(0, 60))}`);
    current!.lines.push(l.trimEnd());
  }
  const lastLine = lines.length;
  for (const required of ['decision', 'rationale'] as const) {
    if (!bodies[required]) fail(lastLine, `missing section '### ${SECTIONS.find(([, f]) => f === required)![0]}'`, required);
  }
  const textOf = (f: SectionField) => trimBlank(bodies[f]?.lines ?? []).join('\n');

  let importance: number | undefined;
  if (meta.importance === undefined) fail(headingLine, "missing '**Importance**: <1-10>' line", 'importance');
  else if (!/^\d+$/.test(meta.importance)) fail(lineOf.importance!, `Importance must be an integer 1–10, got ${JSON.stringify(meta.importance)}`, 'importance');
  else importance = Number(meta.importance);

  const alternatives = parseAlternatives(bodies.alternatives_considered, fail, lineOf);
  const tagsText = textOf('tags');
  const tags = tagsText === '' ? [] : tagsText.split(/[,\n]/).map((t) => t.trim()).filter((t) => t !== '');

  const input: DecisionInput = {
    title,
    decision: textOf('decision'),
    rationale: textOf('rationale'),
    alternatives_considered: alternatives,
    expected_impact: textOf('expected_impact'),
    validation_criteria: textOf('validation_criteria'),
    context: textOf('context'),
    tags,
    importance: importance!,
  };
  const optional = (v: string | undefined) => (v === undefined || v === '' ? undefined : v);
  if (optional(meta.decision_id)) input.decision_id = meta.decision_id;
  if (optional(meta.timestamp)) input.timestamp = meta.timestamp;
  if (optional(meta.agent_id)) input.agent_id = meta.agent_id;
  if (optional(meta.project_id)) input.project_id = meta.project_id;
  if (optional(meta.supersedes)) input.supersedes = meta.supersedes;
  return {
    input,
    superseded_by: optional(meta.superseded_by) ?? null,
    lines: lineOf,
    headingLine,
    idLine: lineOf.decision_id ?? null,
  };
}

function parseAlternatives(
  body: { start: number; lines: string[] } | undefined,
  fail: (line: number, message: string, field?: string | null) => never,
  lineOf: Record<string, number>,
): DecisionAlternative[] {
  if (!body) return [];
  const out: DecisionAlternative[] = [];
  const reasons: string[][] = [];
  body.lines.forEach((l, k) => {
    const lineNo = body.start + 1 + k;
    if (l.trim() === '') {
      if (reasons.length > 0) reasons[reasons.length - 1]!.push('');
      return;
    }
    const m = /^\d+\.[ \t]+\*\*(.+?)\*\*:[ \t]*(.*)$/.exec(l);
    if (m) {
      lineOf[`alternatives_considered[${out.length}]`] = lineNo;
      out.push({ name: m[1]!.trim(), reason: '' });
      reasons.push([m[2]!]);
      return;
    }
    if (/^[ \t]/.test(l) && reasons.length > 0) {
      reasons[reasons.length - 1]!.push(l.replace(/^ {1,3}|^\t/, ''));
      return;
    }
    fail(lineNo, `expected '1. **Alternative**: why it was rejected', got ${JSON.stringify(l.slice(0, 60))}`, 'alternatives_considered');
  });
  out.forEach((a, k) => (a.reason = trimBlank(reasons[k]!).join('\n')));
  return out;
}

function trimBlank(lines: string[]): string[] {
  let a = 0;
  let b = lines.length;
  while (a < b && lines[a]!.trim() === '') a++;
  while (b > a && lines[b - 1]!.trim() === '') b--;
  return lines.slice(a, b);
}
