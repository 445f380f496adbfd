// 000's fitness spec: gates (id, description, threshold) and directives, read from GOALS.md (preferred) or
// GOALS.yaml. Both formats are documented in docs/packets.md ("Goals"); anything else in the file is prose and ignored.

export interface GoalGate {
  /** `[a-z0-9][a-z0-9._-]*`, unique in the file. */
  id: string;
  description: string;
  /** As written (`95%`, `200ms`, `0 warnings`); null when the gate is a plain pass/fail. */
  threshold: string | null;
}

export interface GoalsSpec {
  /** The file it was read from. */
  file: string;
  format: 'md' | 'yaml';
  /** `version: N` when the file states one. */
  version: number | null;
  gates: GoalGate[];
  directives: string[];
}

/** A malformed spec: names the file, the line and the field. */
export class GoalsSpecError extends Error {
  readonly file: string;
  readonly line: number;
  readonly field: string;
  constructor(file: string, line: number, field: string, message: string) {
    super(`${file}:${line}: ${field}: ${message}`);
    this.name = 'GoalsSpecError';
    this.file = file;
    this.line = line;
    this.field = field;
  }
}

const GATE_ID = /^[a-z0-9][a-z0-9._-]*$/;
/** `- id: description (threshold 95%)`; the id may be in backticks or bold. */
const MD_GATE = /^[-*]\s+(?:\*\*|`)?([A-Za-z0-9][A-Za-z0-9._-]*)(?:\*\*|`)?\s*:\s*(.*?)\s*$/;
const THRESHOLD_TAIL = /\s*\((?:threshold|target)\s*:?\s*([^()]+?)\s*\)\s*$/i;

function unquote(s: string): string {
  const t = s.trim();
  if (t.length >= 2 && ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith("'") && t.endsWith("'")))) return t.slice(1, -1);
  return t;
}

function checkGate(file: string, line: number, gate: GoalGate, seen: Set<string>): void {
  if (!GATE_ID.test(gate.id)) throw new GoalsSpecError(file, line, 'gate id', `must match ${GATE_ID.source} (lowercase letters, digits, . _ -), got ${JSON.stringify(gate.id)}`);
  if (seen.has(gate.id)) throw new GoalsSpecError(file, line, 'gate id', `duplicate gate ${JSON.stringify(gate.id)}`);
  if (gate.description.trim() === '') throw new GoalsSpecError(file, line, 'description', `gate ${gate.id} has no description`);
  seen.add(gate.id);
}

/**
 * GOALS.md: `## Gates` (list items `- <id>: <description> (threshold <value>)`) and `## Directives` (one list item
 * each). Headings are matched case-insensitively; other sections and prose are ignored.
 */
export function parseGoalsMarkdown(text: string, file = 'GOALS.md'): GoalsSpec {
  const gates: GoalGate[] = [];
  const directives: string[] = [];
  const seen = new Set<string>();
  let version: number | null = null;
  let section: 'gates' | 'directives' | null = null;
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  lines.forEach((raw, i) => {
    const line = raw.trim();
    const n = i + 1;
    const h = /^#{1,6}\s+(.*?)\s*#*$/.exec(line);
    if (h) {
      const title = h[1].toLowerCase();
      section = /^(fitness\s+)?gates\b/.test(title) ? 'gates' : /^directives\b/.test(title) ? 'directives' : null;
      return;
    }
    const v = /^version\s*:\s*(\S+)\s*$/i.exec(line);
    if (v && section === null) {
      const num = Number(v[1]);
      if (!Number.isInteger(num) || num < 1) throw new GoalsSpecError(file, n, 'version', `must be a positive integer, got ${JSON.stringify(v[1])}`);
      version = num;
      return;
    }
    if (!/^[-*]\s+/.test(line)) return;
    if (section === 'directives') {
      const d = unquote(line.replace(/^[-*]\s+/, ''));
      if (d !== '') directives.push(d);
      return;
    }
    if (section !== 'gates') return;
    const m = MD_GATE.exec(line);
    if (!m) throw new GoalsSpecError(file, n, 'gate', 'expected "- <id>: <description> (threshold <value>)"');
    let description = m[2];
    let threshold: string | null = null;
    const t = THRESHOLD_TAIL.exec(description);
    if (t) {
      threshold = t[1];
      description = description.slice(0, t.index).trim();
    }
    const gate = { id: m[1], description, threshold };
    checkGate(file, n, gate, seen);
    gates.push(gate);
  });
  return { file, format: 'md', version, gates, directives };
}

/**
 * GOALS.yaml, the subset 000's versions 1–3 use: top-level `version`, `gates` (a list of maps with id,
 * description, threshold) and `directives` (a list of strings). Comments and blank lines are ignored.
 */
export function parseGoalsYaml(text: string, file = 'GOALS.yaml'): GoalsSpec {
  const gates: GoalGate[] = [];
  const gateLines: number[] = [];
  const directives: string[] = [];
  let version: number | null = null;
  let key: 'gates' | 'directives' | 'other' | null = null;
  let current: Record<string, string> | null = null;
  let itemIndent = -1;
  const flush = () => {
    if (current) {
      gates.push({ id: current.id ?? '', description: current.description ?? '', threshold: current.threshold === undefined || current.threshold === '' ? null : current.threshold });
      current = null;
    }
  };
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  lines.forEach((raw, i) => {
    const n = i + 1;
    const noComment = raw.replace(/\s+#.*$/, '').replace(/^\s*#.*$/, '');
    if (noComment.trim() === '') return;
    if (/\t/.test(noComment.match(/^\s*/)![0])) throw new GoalsSpecError(file, n, 'indentation', 'tabs are not allowed in YAML');
    const indent = noComment.length - noComment.trimStart().length;
    const line = noComment.trim();
    if (indent === 0) {
      flush();
      const m = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(line);
      if (!m) throw new GoalsSpecError(file, n, 'key', `expected "key: value", got ${JSON.stringify(line.slice(0, 40))}`);
      const k = m[1].toLowerCase();
      if (k === 'version') {
        const num = Number(unquote(m[2]));
        if (!Number.isInteger(num) || num < 1) throw new GoalsSpecError(file, n, 'version', `must be a positive integer, got ${JSON.stringify(m[2])}`);
        version = num;
        key = 'other';
      } else if (k === 'gates' || k === 'directives') {
        if (m[2].trim() !== '' && m[2].trim() !== '[]') throw new GoalsSpecError(file, n, k, 'must be a list (items on the following lines, "- …")');
        key = k;
      } else key = 'other';
      itemIndent = -1;
      return;
    }
    if (key === 'other' || key === null) return;
    const item = /^-\s*(.*)$/.exec(line);
    if (key === 'directives') {
      if (!item) throw new GoalsSpecError(file, n, 'directives', 'each directive is a list item "- text"');
      const d = unquote(item[1]);
      if (d !== '') directives.push(d);
      return;
    }
    // gates
    let rest: string;
    if (item && (itemIndent === -1 || indent <= itemIndent)) {
      flush();
      itemIndent = indent;
      current = {};
      gateLines.push(n);
      rest = item[1];
      if (rest.trim() === '') return;
    } else {
      if (!current) throw new GoalsSpecError(file, n, 'gates', 'each gate is a list item "- id: …"');
      rest = line;
    }
    const kv = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(rest);
    if (!kv) throw new GoalsSpecError(file, n, 'gate', `expected "key: value", got ${JSON.stringify(rest.slice(0, 40))}`);
    const field = kv[1].toLowerCase();
    if (!['id', 'description', 'threshold'].includes(field)) return; // e.g. `check:` in 000's files: not ours to run
    (current as unknown as Record<string, string>)[field] = unquote(kv[2]);
  });
  flush();
  const seen = new Set<string>();
  gates.forEach((g, i) => {
    if (g.id === '') throw new GoalsSpecError(file, gateLines[i] ?? 0, 'id', 'every gate needs an id');
    checkGate(file, gateLines[i] ?? 0, g, seen);
  });
  return { file, format: 'yaml', version, gates, directives };
}
