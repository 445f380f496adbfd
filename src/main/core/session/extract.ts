// Deterministic, extractive reading of a transcript for seed 002's Preservation Rules and Session Summary:
// explicit markers ("DECISION:", "BUG-", "TODO:", "Lesson:", "Next actions:", checklists) and the tool error flags.
// No model is involved, so the same transcript always yields the same elements.
import type { HandoffTaskState } from '../../../shared/session.ts';
import type { Transcript, TranscriptTurn } from '../transcripts/index.ts';
import { joinLines } from './one-line.ts';

export interface Provenance {
  turn: number;
  line: number;
  ts: string | null;
}

export interface ExtractedDecision {
  id: string;
  title: string;
  decision: string;
  rationale: string;
  alternatives: { name: string; reason: string }[];
  impact: string;
  validation: string;
  agent: string;
  importance: number;
  /** The text as written (the preserved element). */
  text: string;
  at: Provenance;
}

export interface ExtractedError {
  id: string;
  tool: string | null;
  /** The error message lines, without the stack trace. */
  message: string;
  root_cause: string | null;
  /** How many times the same message occurred. */
  occurrences: number;
  at: Provenance;
}

export type IssueKind = 'bug' | 'issue' | 'todo';

export interface ExtractedIssue {
  id: string;
  kind: IssueKind;
  /** BUG-2847 / ISSUE-12, when the text names one. */
  key: string | null;
  severity: 'critical' | 'high' | 'medium' | 'low';
  title: string;
  text: string;
  resolved: boolean;
  at: Provenance;
}

export interface TaskState extends HandoffTaskState {
  /** The state block as written (the preserved element); '' when the state was only inferred. */
  text: string;
  at: Provenance | null;
  /** Older state blocks this one replaces. */
  superseded: number;
}

export interface FileModification {
  path: string;
  tool: string;
  at: Provenance;
}

export interface ExtractedNote {
  id: string;
  text: string;
  at: Provenance;
}

export interface Extraction {
  decisions: ExtractedDecision[];
  errors: ExtractedError[];
  issues: ExtractedIssue[];
  state: TaskState;
  acceptance: ExtractedNote[];
  files: FileModification[];
  learnings: ExtractedNote[];
  done: ExtractedNote[];
  /** The latest plan (the suggested approach) and the turns of the plans it superseded. */
  plan: ExtractedNote | null;
  /** Older plans, replaced by a later one (discarded by compaction). */
  superseded_plans: ExtractedNote[];
  /** Turns whose file reads were repeated later (only the last read of a path is kept). */
  repeated_read_turns: number[];
  /** Per text turn, the line offsets copied into a preserved element (compaction shows them once, in the preserved block). */
  consumed: Map<number, Set<number>>;
}

interface Line {
  text: string;
  turn: TranscriptTurn;
  line: number;
  /** Line offset within the turn's text. */
  offset: number;
}

const DECISION = /^\s*(?:[-*>]\s*)?(?:\[([^\]]+)\]\s*)?(?:#{1,4}\s*)?(?:\*\*)?DECISION(?:\*\*)?\s*[:—–-]\s*(?:\*\*)?\s*(.+)$/i;
const IMPLICIT_DECISION = /^\s*(?:[-*]\s*)?((?:we )?decided to .+|chose .+ (?:because|over) .+)$/i;
const LABELS = ['Rationale', 'Alternatives considered', 'Alternatives', 'Expected impact', 'Impact', 'Validation criteria', 'Validated', 'Validation', 'Agent', 'Importance', 'Context'];
const LABEL_RE = new RegExp(`\\b(${LABELS.map((l) => l.replace(/ /g, '\\s+')).join('|')})\\s*:`, 'gi');
const ISSUE_KEY = /\b((?:BUG|ISSUE)-\d+)\b/;
const TODO = /\bTODO:\s*(.+)$/;
const SEVERITY = /\[(CRITICAL|HIGH|MEDIUM|LOW)\]|\bseverity\s*:\s*(critical|high|medium|low)\b/i;
const RESOLVED = /\b(resolved|fixed|closed|done)\b/i;
const TASK = /^\s*(?:[-*]\s*)?(?:#{1,4}\s*)?(?:\*\*)?(?:TASK|Current task)(?:\*\*)?\s*:\s*(.+)$/i;
const PROGRESS = /^\s*(?:[-*]\s*)?Progress\s*:\s*(\d{1,3})\s*%/i;
const PCT_COMPLETE = /\b(\d{1,3})\s*%\s*(?:complete|completed|done)\b/i;
const NEXT = /^\s*(?:#{1,4}\s*)?(?:\*\*)?(Next actions|Next steps|Next)(?:\*\*)?\s*:\s*(.*)$/i;
const BLOCKERS = /^\s*(?:[-*]\s*)?(?:\*\*)?Blockers?(?:\*\*)?\s*:\s*(.+)$/i;
const DONE_MARK = /^\s*(?:[-*]\s*)?(?:✓|✔|☑|\[x\])\s*(.+)$/i;
const WIP_MARK = /^\s*(?:[-*]\s*)?(?:⧖|⏳|\[~\]|\[-\])\s*(.+)$/;
const TODO_MARK = /^\s*(?:[-*]\s*)?(?:☐|\[ \])\s*(.+)$/;
const LIST_ITEM = /^\s*(?:[-*+]|\d+[.)])\s+(.+)$/;
const ACCEPTANCE = /^\s*(?:#{1,4}\s*)?(?:\*\*)?(Acceptance criteria|Success criteria|Acceptance|Done when)(?:\*\*)?\s*:?\s*(.*)$/i;
const LEARNING = /^\s*(?:[-*]\s*)?(?:\*\*)?(Lesson|Learning|Learned|Note)(?:\*\*)?\s*:\s*(.+)$/i;
const DONE_LINE = /^\s*(?:[-*]\s*)?(?:\*\*)?(Done|Completed|Fixed|Implemented|Added)(?:\*\*)?\s*:\s*(.+)$/i;
const PLAN = /^\s*(?:#{1,4}\s*)?(?:\*\*)?((?:updated |new |revised )?plan)(?:\*\*)?\s*:?\s*(.*)$/i;
const ROOT_CAUSE = /\b(root cause|caused by|the cause (?:is|was)|was due to|is due to|turned out|because of)\b/i;
const ERRORISH = /\b(error|exception|failed|failure|fatal|panic|assert(?:ion)?|denied|not found|timed? ?out|refused|cannot|can't|unable)\b/i;
const STACK_FRAME = /^\s+at\s|^\s*File ".*", line \d+|^\s*Traceback \(most recent|^\s+\^+\s*$|^\s*\d+\s*\|\s|^\s*at .+:\d+:\d+\)?$/;
const WRITE_TOOLS = /^(edit|write|multiedit|notebookedit|str_replace(?:_editor|_based_edit_tool)?|create_file|write_file|edit_file|apply_patch|replace)$/i;
const READ_TOOLS = /^(read|read_file|view|cat|open_file)$/i;

const oneLine = (s: string, max = 300) => {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
};

function linesOf(t: Transcript): Line[] {
  const out: Line[] = [];
  const md = t.format === 'markdown-chat';
  for (const turn of t.turns) {
    if (turn.kind !== 'text') continue;
    turn.text.split('\n').forEach((text, i) => out.push({ text, turn, line: md ? turn.line + 1 + i : turn.line, offset: i }));
  }
  return out;
}

const prov = (l: Line): Provenance => ({ turn: l.turn.index, line: l.line, ts: l.turn.ts });

/** The block that starts at lines[i]: the line and what follows it in the same turn until a blank line (at most max lines). */
function blockAt(lines: Line[], i: number, max = 12): Line[] {
  const out = [lines[i]!];
  for (let j = i + 1; j < lines.length && out.length < max; j++) {
    const l = lines[j]!;
    if (l.turn !== lines[i]!.turn || l.text.trim() === '') break;
    // Another marker starts its own element.
    if (DECISION.test(l.text) || TODO.test(l.text) || TASK.test(l.text) || ACCEPTANCE.test(l.text) || LEARNING.test(l.text)) break;
    if (ISSUE_KEY.test(l.text) && !l.text.includes(lines[i]!.text.match(ISSUE_KEY)?.[1] ?? '\0')) break;
    out.push(l);
  }
  return out;
}

/** "A (rejected: x), B (rejected: y)" or "A: x; B: y" → [{name, reason}]. */
export function parseAlternatives(s: string): { name: string; reason: string }[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth = Math.max(0, depth - 1);
    if ((ch === ',' || ch === ';') && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  return parts
    .map((p) => p.trim().replace(/^[-*]\s*/, ''))
    .filter((p) => p !== '')
    .map((p) => {
      const paren = /^(.+?)\s*\((?:rejected|not chosen|not selected)?\s*:?\s*(.+)\)$/i.exec(p);
      if (paren) return { name: paren[1]!.trim(), reason: paren[2]!.trim() };
      const colon = /^([^:]{1,80}):\s*(.+)$/.exec(p);
      if (colon) return { name: colon[1]!.trim(), reason: colon[2]!.trim() };
      const dash = /^(.+?)\s+[—–-]\s+(.+)$/.exec(p);
      if (dash) return { name: dash[1]!.trim(), reason: dash[2]!.trim() };
      return { name: p, reason: 'not chosen (no reason given)' };
    });
}

function decisionFields(block: string): Pick<ExtractedDecision, 'title' | 'decision' | 'rationale' | 'alternatives' | 'impact' | 'validation' | 'agent' | 'importance'> {
  const flat = joinLines(block);
  const m = DECISION.exec(block.split('\n')[0]!);
  const start = m ? flat.indexOf(m[2]!.slice(0, 20)) : 0;
  const body = flat.slice(Math.max(0, start));
  const marks = [...body.matchAll(LABEL_RE)];
  const head = (marks.length > 0 ? body.slice(0, marks[0]!.index) : body).replace(/\*\*/g, '').trim();
  const field: Record<string, string> = {};
  marks.forEach((mk, i) => {
    const key = mk[1]!.toLowerCase().replace(/\s+/g, ' ');
    const end = i + 1 < marks.length ? marks[i + 1]!.index : body.length;
    field[key] = body.slice(mk.index! + mk[0].length, end).replace(/\*\*/g, '').trim();
  });
  const alts = field['alternatives considered'] ?? field.alternatives ?? '';
  const imp = Number.parseInt(field.importance ?? '', 10);
  return {
    title: oneLine(head.replace(/[.。]$/, ''), 100),
    decision: head,
    rationale: field.rationale ?? '',
    alternatives: alts ? parseAlternatives(alts) : [],
    impact: field['expected impact'] ?? field.impact ?? '',
    validation: field['validation criteria'] ?? field.validated ?? field.validation ?? '',
    agent: field.agent ?? '',
    importance: Number.isInteger(imp) && imp >= 1 && imp <= 10 ? imp : 8,
  };
}

function errorMessage(text: string): string {
  const lines = text.split('\n').map((l) => l.trimEnd()).filter((l) => l.trim() !== '');
  const picked = lines.filter((l) => !STACK_FRAME.test(l) && ERRORISH.test(l)).slice(0, 2);
  const use = picked.length > 0 ? picked : lines.filter((l) => !STACK_FRAME.test(l)).slice(0, 1);
  return use.map((l) => oneLine(l, 300)).join(' | ') || '(empty error output)';
}

const normalizeMessage = (s: string) => s.replace(/\d{4}-\d{2}-\d{2}T[\d:.]+Z?/g, '').replace(/\b\d+(\.\d+)?\s*m?s\b/g, '').replace(/0x[0-9a-f]+/gi, '').trim().toLowerCase();

function pathOf(text: string): string | null {
  const p = /\*\*\* (?:Update|Add|Delete) File:\s*([^\s\\"]+)/.exec(text);
  if (p) return p[1]!;
  const m = /\b(?:file_path|path|filename|file):\s*([^\s\\"]+)/.exec(text);
  return m ? m[1]! : null;
}

export function extract(t: Transcript): Extraction {
  const lines = linesOf(t);
  const decisions: ExtractedDecision[] = [];
  const issues: ExtractedIssue[] = [];
  const acceptance: ExtractedNote[] = [];
  const learnings: ExtractedNote[] = [];
  const done: ExtractedNote[] = [];
  const plans: { note: ExtractedNote; turn: number }[] = [];
  const stateBlocks: { at: Provenance; turn: number; task: string | null; pct: number | null; completed: string[]; wip: string[]; todo: string[]; next: string[]; blockers: string[]; text: string[]; lines: Line[] }[] = [];
  const seenAcceptance = new Set<string>();
  const consumed = new Map<number, Set<number>>();
  const consume = (ls: Line[]) => {
    for (const x of ls) {
      const set = consumed.get(x.turn.index) ?? new Set<number>();
      set.add(x.offset);
      consumed.set(x.turn.index, set);
    }
  };

  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    // Markers are matched without Markdown emphasis: agents write **Decision:** as often as DECISION:.
    const s = l.text.replace(/\*\*|__/g, '');
    if (s.trim() === '') continue;

    const d = DECISION.exec(s);
    if (d) {
      const block = blockAt(lines, i);
      const text = block.map((b) => b.text.trim()).join('\n');
      decisions.push({ id: `decision:${decisions.length + 1}`, ...decisionFields(text), text, at: { ...prov(l), ts: d[1] && !Number.isNaN(Date.parse(d[1])) ? new Date(d[1]).toISOString() : l.turn.ts } });
      consume(block);
      i += block.length - 1;
      continue;
    }
    const imp = l.turn.role === 'assistant' ? IMPLICIT_DECISION.exec(s) : null;
    if (imp) {
      const text = oneLine(imp[1]!, 400);
      const because = /\b(?:because|since|as)\b\s+(.+)$/i.exec(text);
      decisions.push({ id: `decision:${decisions.length + 1}`, title: oneLine(text.replace(/\s+(because|since|as)\s.+$/i, ''), 100), decision: text, rationale: because?.[1] ?? '', alternatives: [], impact: '', validation: '', agent: '', importance: 6, text: s.trim(), at: prov(l) });
      continue;
    }

    const key = ISSUE_KEY.exec(s);
    if (key) {
      const block = blockAt(lines, i, 8);
      const text = block.map((b) => b.text.trim()).join('\n');
      consume(block);
      const sev = SEVERITY.exec(text);
      const existing = issues.find((x) => x.key === key[1]);
      if (existing) {
        // A later mention of a known key: a resolution closes it, anything else updates it.
        if (RESOLVED.test(s)) existing.resolved = true;
        else {
          existing.text = text;
          existing.at = prov(l);
          if (sev) existing.severity = (sev[1] ?? sev[2])!.toLowerCase() as ExtractedIssue['severity'];
        }
      } else {
        const title = oneLine(s.replace(/^\s*[-*]\s*/, '').replace(SEVERITY, '').replace(key[1]!, '').replace(/^[\s:—–-]+/, ''), 90) || key[1]!;
        issues.push({ id: `issue:${key[1]}`, kind: key[1]!.startsWith('BUG') ? 'bug' : 'issue', key: key[1]!, severity: sev ? ((sev[1] ?? sev[2])!.toLowerCase() as ExtractedIssue['severity']) : 'high', title, text, resolved: /\bRESOLVED\b/.test(s), at: prov(l) });
      }
      i += block.length - 1;
      continue;
    }
    const todo = TODO.exec(s);
    if (todo) {
      const title = oneLine(todo[1]!, 90);
      consume([l]);
      if (!issues.some((x) => x.kind === 'todo' && x.title === title)) issues.push({ id: `todo:${issues.length + 1}`, kind: 'todo', key: null, severity: 'medium', title, text: s.trim(), resolved: false, at: prov(l) });
      continue;
    }

    const acc = ACCEPTANCE.exec(s);
    if (acc) {
      const items: string[] = acc[2]!.trim() ? [acc[2]!.trim()] : [];
      let j = i + 1;
      for (; j < lines.length && lines[j]!.turn === l.turn; j++) {
        const it = LIST_ITEM.exec(lines[j]!.text) ?? TODO_MARK.exec(lines[j]!.text) ?? DONE_MARK.exec(lines[j]!.text);
        if (!it) break;
        items.push(it[1]!.replace(/^\[[ x]\]\s*/i, '').trim());
      }
      consume(lines.slice(i, j));
      for (const item of items) {
        if (seenAcceptance.has(item)) continue;
        seenAcceptance.add(item);
        acceptance.push({ id: `acceptance:${acceptance.length + 1}`, text: item, at: prov(l) });
      }
      i = j - 1;
      continue;
    }

    const plan = l.turn.role !== 'tool' ? PLAN.exec(s) : null;
    if (plan && (plan[2]!.trim() !== '' || LIST_ITEM.test(lines[i + 1]?.text ?? ''))) {
      const block = [s.trim()];
      let j = i + 1;
      for (; j < lines.length && lines[j]!.turn === l.turn && LIST_ITEM.test(lines[j]!.text); j++) block.push(lines[j]!.text.trim());
      plans.push({ note: { id: `plan:${plans.length + 1}`, text: block.join('\n'), at: prov(l) }, turn: l.turn.index });
      i = j - 1;
      continue;
    }

    const learn = LEARNING.exec(s);
    if (learn) {
      learnings.push({ id: `learning:${learnings.length + 1}`, text: oneLine(learn[2]!, 400), at: prov(l) });
      consume([l]);
      continue;
    }
    const dn = DONE_LINE.exec(s);
    if (dn) done.push({ id: `done:${done.length + 1}`, text: oneLine(`${dn[1]}: ${dn[2]}`, 300), at: prov(l) });

    // Task state: a run of state lines in one turn is one state block; the latest block is the current state.
    const isState = TASK.test(s) || PROGRESS.test(s) || NEXT.test(s) || BLOCKERS.test(s) || DONE_MARK.test(s) || WIP_MARK.test(s) || TODO_MARK.test(s);
    if (isState) {
      let block = stateBlocks.at(-1);
      if (!block || block.turn !== l.turn.index) {
        block = { at: prov(l), turn: l.turn.index, task: null, pct: null, completed: [], wip: [], todo: [], next: [], blockers: [], text: [], lines: [] };
        stateBlocks.push(block);
      }
      block.text.push(s.trim());
      block.lines.push(l);
      let m: RegExpExecArray | null;
      if ((m = TASK.exec(s))) {
        block.task = oneLine(m[1]!, 400);
        const pct = PCT_COMPLETE.exec(s);
        if (pct) block.pct = Math.min(100, Number(pct[1]));
      } else if ((m = PROGRESS.exec(s))) block.pct = Math.min(100, Number(m[1]));
      else if ((m = BLOCKERS.exec(s))) block.blockers.push(...m[1]!.split(/;\s*/).map((x) => oneLine(x)).filter(Boolean));
      else if ((m = DONE_MARK.exec(s))) block.completed.push(oneLine(m[1]!.replace(/\s*\((done|complete)\)\s*$/i, '')));
      else if ((m = WIP_MARK.exec(s))) block.wip.push(oneLine(m[1]!));
      else if ((m = TODO_MARK.exec(s))) block.todo.push(oneLine(m[1]!.replace(/\s*\(not started\)\s*$/i, '')));
      else if ((m = NEXT.exec(s))) {
        if (m[2]!.trim()) block.next.push(...m[2]!.split(/\s+(?=\d+[.)]\s)/).map((x) => oneLine(x.replace(/^\d+[.)]\s*/, ''))).filter(Boolean));
        let j = i + 1;
        for (; j < lines.length && lines[j]!.turn === l.turn; j++) {
          const it = LIST_ITEM.exec(lines[j]!.text);
          if (!it) break;
          block.next.push(oneLine(it[1]!));
          block.text.push(lines[j]!.text.trim());
          block.lines.push(lines[j]!);
        }
        i = j - 1;
      }
    }
  }

  // Errors: tool results the tool flagged as failed; the root cause is the first explanation that follows.
  const errors: ExtractedError[] = [];
  const textTurns = t.turns.filter((x) => x.kind === 'text' && x.role !== 'user');
  for (const turn of t.turns) {
    if (turn.kind !== 'tool_result' || !turn.is_error) continue;
    const message = errorMessage(turn.text);
    let root: string | null = null;
    for (const later of textTurns) {
      if (later.index <= turn.index || later.index > turn.index + 40) continue;
      const hit = later.text.split('\n').find((x) => ROOT_CAUSE.test(x));
      if (hit) {
        root = oneLine(hit.replace(/\*\*|__/g, '').replace(/^\s*[-*]\s*/, '').replace(/^root cause\s*:\s*/i, ''), 400);
        break;
      }
    }
    const norm = normalizeMessage(message);
    const prev = errors.find((e) => normalizeMessage(e.message) === norm && e.tool === turn.tool_name);
    if (prev) {
      prev.occurrences++;
      prev.at = { turn: turn.index, line: turn.line, ts: turn.ts };
      if (root) prev.root_cause = root;
      continue;
    }
    errors.push({ id: `error:${errors.length + 1}`, tool: turn.tool_name, message, root_cause: root, occurrences: 1, at: { turn: turn.index, line: turn.line, ts: turn.ts } });
  }

  // Files: writes by tool (the last five are preserved), and reads of the same path (only the last is kept).
  const files: FileModification[] = [];
  const readsByPath = new Map<string, number[]>();
  const resultOf = new Map<string, number>();
  for (const turn of t.turns) if (turn.kind === 'tool_result' && turn.tool_use_id) resultOf.set(turn.tool_use_id, turn.index);
  for (const turn of t.turns) {
    // Exports without tool calls (Markdown) only have the tool's output; its name and a path line say what was written.
    const bareResult = turn.kind === 'tool_result' && turn.tool_use_id === null && t.turns[turn.index - 1]?.kind !== 'tool_use';
    if ((turn.kind !== 'tool_use' && !bareResult) || !turn.tool_name) continue;
    const path = pathOf(turn.text);
    if (!path) continue;
    // Codex often patches through its shell tool (`apply_patch` in the command): the patch header names the file.
    if (WRITE_TOOLS.test(turn.tool_name) || turn.text.includes('*** Begin Patch')) files.push({ path, tool: turn.tool_name, at: { turn: turn.index, line: turn.line, ts: turn.ts } });
    else if (READ_TOOLS.test(turn.tool_name)) {
      const list = readsByPath.get(path) ?? [];
      list.push(turn.index);
      const r = turn.tool_use_id ? resultOf.get(turn.tool_use_id) : t.turns[turn.index + 1]?.kind === 'tool_result' ? turn.index + 1 : undefined;
      if (r !== undefined) list.push(r);
      readsByPath.set(path, list);
    }
  }
  const repeated: number[] = [];
  for (const list of readsByPath.values()) if (list.length > 2) repeated.push(...list.slice(0, list.length - 2));

  const stateOf = (): TaskState => {
    const last = stateBlocks.at(-1);
    if (last) consume(last.lines);
    const task = [...stateBlocks].reverse().find((b) => b.task)?.task ?? firstRequest(t);
    if (!last) return { task, completion_percentage: null, completed: [], in_progress: [], not_started: [], next_actions: [], blockers: [], text: '', at: null, superseded: 0 };
    return {
      task,
      completion_percentage: last.pct ?? [...stateBlocks].reverse().find((b) => b.pct !== null)?.pct ?? null,
      completed: last.completed,
      in_progress: last.wip,
      not_started: last.todo,
      next_actions: last.next,
      blockers: last.blockers,
      text: last.text.join('\n'),
      at: last.at,
      superseded: stateBlocks.length - 1,
    };
  };

  return {
    decisions,
    errors,
    issues,
    state: stateOf(),
    acceptance,
    files,
    learnings,
    done,
    plan: plans.at(-1)?.note ?? null,
    superseded_plans: plans.slice(0, -1).map((p) => p.note),
    repeated_read_turns: [...new Set(repeated)].sort((a, b) => a - b),
    consumed,
  };
}

/** The first thing the user asked, as the task when no TASK: line says otherwise. */
export function firstRequest(t: Transcript): string {
  const u = t.turns.find((x) => x.role === 'user' && x.kind === 'text' && x.text.trim() !== '');
  return u ? oneLine(u.text.split('\n').find((l) => l.trim() !== '') ?? '', 300) : '';
}

/** Open issues: not resolved later in the transcript. */
export const openIssuesOf = (x: Extraction): ExtractedIssue[] => x.issues.filter((i) => !i.resolved);
