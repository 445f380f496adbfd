// Deterministic, extractive reading of a transcript for seed 002's Preservation Rules and Session Summary:
// explicit markers ("DECISION:", "BUG-", "TODO:", "Lesson:", "Next actions:", checklists), the same things in plain
// words ("Status: … (about 60 %)", "Remaining: …", "Next I'll …", "Pending Tasks:", "we keep X instead of Y because
// …", "Alternative rejected: …"), the agents' own state (compaction summaries, TodoWrite / task_progress lists,
// approved plans) and the tool error flags. Only the agent's and the user's own prose is read: not tool output, not
// code blocks, not what the harness injected. No model is involved, so the same transcript always yields the same
// elements.
import type { HandoffTaskState } from '../../../shared/session.ts';
import type { Transcript, TranscriptTurn } from '../transcripts/index.ts';
import { isRedactedText, isSubAgentFile, oneLine, userRequests, type UserRequest } from './requests.ts';
import { extractErrors, type ExtractedError } from './errors.ts';

export type { ExtractedError } from './errors.ts';
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

export interface StateSource {
  /** Which field the element went to. */
  field: 'task' | 'status' | 'progress' | 'completed' | 'in_progress' | 'not_started' | 'next_actions' | 'blockers' | 'goal';
  text: string;
  /** What it was read from: a state line, a compaction summary, a todo list, an approved plan, the user's request. */
  from: 'text' | 'compact_summary' | 'todo_list' | 'plan' | 'request';
  at: Provenance;
}

export interface TaskState extends HandoffTaskState {
  /** The state block as written (the preserved element); '' when the state was only inferred. */
  text: string;
  at: Provenance | null;
  /** Older state blocks this one replaces. */
  superseded: number;
  /** The first request's goal (its first line), when it differs from the task. */
  goal: string;
  /** A status line as written ("Status: tests green, docs pending"). */
  status: string;
  /** The user's latest substantive request, with where it is. */
  latest_request: UserRequest | null;
  /** The agent's last words (first line of its last answer), where the work stood when the transcript ends. */
  last_update: { text: string; turn: number; line: number } | null;
  /** Whether the agent answered or called a tool after the latest request. */
  latest_request_answered: boolean;
  /** The user's very last message when it only approved something ("yes", "go ahead") or ran a bare command. */
  last_ack: UserRequest | null;
  /** Every element of the state with its provenance (turn, line). */
  sources: StateSource[];
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
  /** Where the turn's words come from, for the state: the agent's prose, its compaction summary, a todo list, a plan. */
  from: 'text' | 'compact_summary' | 'todo_list' | 'plan';
  /** The agent wrote it (answers, compaction summaries, todo lists, plans), as opposed to the user. */
  agent: boolean;
}

export interface ExtractOptions {
  /** Whether a text would leave the redaction gate as (mostly) markers: such a request is never the task. */
  redacted?: (text: string) => boolean;
}

const DECISION = /^\s*(?:[-*>]\s*)?(?:\[([^\]]+)\]\s*)?(?:#{1,4}\s*)?(?:\*\*)?DECISION(?:\*\*)?\s*[:—–-]\s*(?:\*\*)?\s*(.+)$/i;
const IMPLICIT_DECISION = /^\s*(?:[-*]\s*)?((?:we )?decided to .+|chose .+ (?:because|over) .+)$/i;
/** "we keep X instead of Y because Z", "I'll use X rather than Y since Z", "going with X over Y: Z". */
const PLAIN_DECISION =
  /\b(?:we(?:'ll| will)?|I(?:'ll| will)?|let's|going to|decided to|chose to|opted to)\s+(keep|use|go with|stick with|stay with|choose|pick|prefer|switch to|adopt)\s+(.+?)\s+(?:instead of|rather than|over)\s+(.+?)(?:\s*(?:,\s*)?(?:because|since|as|:|—|–|-)\s+(.+?))?[.!]?$/i;
/** "I'll use Python since it's the fastest to prototype": a choice with its reason, no alternative named. */
const REASONED_CHOICE = /\b(?:we(?:'ll| will)|I(?:'ll| will)|let's)\s+(use|go with|keep|stick with|choose|pick)\s+(.+?)\s*,?\s+(?:because|since)\s+(.+?)[.!]?$/i;
const REJECTED = /^\s*(?:[-*]\s*)?(?:\*\*)?(?:Alternatives? rejected|Rejected alternatives?|Rejected|Not chosen|Considered and rejected)(?:\*\*)?\s*:\s*(.+)$/i;
const LABELS = ['Rationale', 'Alternatives considered', 'Alternatives', 'Expected impact', 'Impact', 'Validation criteria', 'Validated', 'Validation', 'Agent', 'Importance', 'Context'];
const LABEL_RE = new RegExp(`\\b(${LABELS.map((l) => l.replace(/ /g, '\\s+')).join('|')})\\s*:`, 'gi');
const ISSUE_KEY = /\b((?:BUG|ISSUE)-\d+)\b/;
const TODO = /\bTODO:\s*(.+)$/;
const SEVERITY = /\[(CRITICAL|HIGH|MEDIUM|LOW)\]|\bseverity\s*:\s*(critical|high|medium|low)\b/i;
const RESOLVED = /\b(resolved|fixed|closed|done)\b/i;
const LEAD = String.raw`^\s*(?:[-*]\s*|\d+[.)]\s*)?(?:#{1,4}\s*)?(?:\*\*)?`;
const TASK = new RegExp(`${LEAD}(?:TASK|Current task)(?:\\*\\*)?\\s*:\\s*(.+)$`, 'i');
const PROGRESS = new RegExp(`${LEAD}Progress(?:\\*\\*)?\\s*:\\s*(?:about |~|approx\\.? )?(\\d{1,3})\\s*%`, 'i');
const PCT_COMPLETE = /\b(\d{1,3})\s*%\s*(?:complete|completed|done|finished)\b|\b(?:about|around|roughly|~)\s*(\d{1,3})\s*%/i;
/** A status written mid-line: "Status: …", "Current status: …". */
const STATUS = /(?:^\s*(?:[-*]\s*|#{1,4}\s*)?|[.;!]\s+)(?:Current )?Status\s*:\s*(.+)$/;
const NEXT = new RegExp(`${LEAD}(Next actions|Next steps?|Next up|Next|Optional Next Step|Immediate next steps?)(?:\\*\\*)?\\s*:\\s*(?:\\*\\*)?\\s*(.*)$`, 'i');
/** "Next I'll wire the step.", "Next, I will add tests", "Next we need to …". */
const NEXT_SENTENCE = /\bNext,?\s+(?:I(?:'ll| will| need to| should)|we(?:'ll| will| need to| should)|let's)\s+(.+?)(?:[.!?](?=\s|$)|$)/i;
/** A Markdown heading that opens a list of next steps: "## Next Steps - Your Choice", "### Recommended Next Action". */
const NEXT_HEADING = /^\s*#{1,4}\s*(?:\W+\s*)?(?:Recommended |Suggested |Immediate |Possible )?Next (?:Steps?|Actions?)\b(?!\s*:\s*\S)/i;
/** The same for remaining work: "## Pending Tasks", "### Remaining work". */
const REMAINING_HEADING = /^\s*#{1,4}\s*(?:\W+\s*)?(?:Remaining|Pending|Open|Outstanding) (?:Tasks?|Work|Items?|Steps?)\b(?!\s*:\s*\S)/i;
const REMAINING = /\b(Remaining(?: work| tasks?| steps?)?|Pending(?: work| tasks?| steps?)?|Still to do|Left to do|Outstanding(?: work| tasks?)?|Not yet done|To do|TODOs?)\s*(?:\*\*)?\s*:\s*(?:\*\*)?\s*(.*)$/i;
const CURRENT_WORK = new RegExp(`${LEAD}(Current Work|Currently working on|In progress|Working on)(?:\\*\\*)?\\s*:\\s*(?:\\*\\*)?\\s*(.*)$`, 'i');
const BLOCKERS = /(?:^\s*(?:[-*]\s*)?(?:\*\*)?Blockers?(?:\*\*)?\s*:|\bBlocked (?:by|on)\s*:?)\s*(.+)$/i;
const NONE = /^(none|n\/a|no(?:ne| explicit| pending| next| further| active| open)?\b.*\b(?:tasks?|steps?|blockers?|required|pending)\b|nothing\b)/i;
const DONE_MARK = /^\s*(?:[-*]\s*)?(?:✓|✔|☑|✅|\[x\])\s*(.+)$/i;
const WIP_MARK = /^\s*(?:[-*]\s*)?(?:⧖|⏳|🔄|\[~\]|\[-\])\s*(.+)$/;
const TODO_MARK = /^\s*(?:[-*]\s*)?(?:☐|⬜|\[ \])\s*(.+)$/;
const LIST_ITEM = /^\s*(?:[-*+•]|\d+[.)])\s+(.+)$/;
const ACCEPTANCE = /^\s*(?:#{1,4}\s*)?(?:\*\*)?(Acceptance criteria|Success criteria|Acceptance|Done when)(?:\*\*)?\s*:?\s*(.*)$/i;
/** Mid-line: "…, and the work is done. Acceptance: a; b". */
const ACCEPTANCE_INLINE = /\b(?:Acceptance criteria|Success criteria|Acceptance|Done when)\s*:\s*(.+)$/i;
const LEARNING = /^\s*(?:[-*]\s*)?(?:\*\*)?(Lesson(?: learned)?|Learning|Learned|Takeaway)(?:\*\*)?\s*:\s*(.+)$/i;
const DONE_LINE = /^\s*(?:[-*]\s*)?(?:\*\*)?(Done|Completed|Fixed|Implemented|Added)(?:\*\*)?\s*:\s*(.+)$/i;
const PLAN = /^\s*(?:#{1,4}\s*)?(?:\*\*)?((?:updated |new |revised )?plan)(?:\*\*)?\s*:?\s*(.*)$/i;
const FENCE = /^\s*(```|~~~)/;
const WRITE_TOOLS = /^(edit|write|multiedit|notebookedit|str_replace(?:_editor|_based_edit_tool)?|create_file|write_file|write_to_file|edit_file|replace_in_file|apply_patch|replace)$/i;
const READ_TOOLS = /^(read|read_file|view|cat|open_file)$/i;

/** The prose a transcript's own authors wrote, line by line, without code blocks. */
function linesOf(t: Transcript): Line[] {
  const out: Line[] = [];
  const md = t.format === 'markdown-chat' || t.format === 'aider';
  const sub = isSubAgentFile(t);
  for (const turn of t.turns) {
    if (turn.origin === 'injected' || (turn.origin === 'sidechain' && !sub)) continue;
    let from: Line['from'] = turn.origin === 'compact_summary' ? 'compact_summary' : 'text';
    if (turn.kind === 'tool_use') {
      if (turn.text.startsWith('Todo list:\n')) from = 'todo_list';
      else if (turn.text.startsWith('Plan:\n') && planApproved(t, turn)) from = 'plan';
      else continue;
    } else if (turn.kind !== 'text') continue;
    const agent = turn.role !== 'user' || from !== 'text';
    let inFence = false;
    turn.text.split('\n').forEach((text, i) => {
      if (FENCE.test(text)) {
        inFence = !inFence;
        return;
      }
      if (!inFence) out.push({ text, turn, line: md ? turn.line + 1 + i : turn.line, offset: i, from, agent });
    });
  }
  return out;
}

/** An ExitPlanMode plan counts once the user approved it (the tool's result says so). */
function planApproved(t: Transcript, call: TranscriptTurn): boolean {
  const r = t.turns.find((x) => x.kind === 'tool_result' && (call.tool_use_id ? x.tool_use_id === call.tool_use_id : x.index === call.index + 1));
  return !!r && !r.is_error && /\bapproved\b/i.test(r.text);
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

/** "a, b; c and d" as items: split on ; always, on commas when every piece reads as an item of its own. */
function splitItems(s: string): string[] {
  const text = s.replace(/\*\*/g, '').trim().replace(/[.;]$/, '');
  if (text === '') return [];
  const semi = text.split(/\s*;\s*/);
  const parts = semi.length > 1 ? semi : text.split(/,\s+(?![^()]*\))/);
  const items = parts.length > 1 && parts.every((p) => p.split(' ').length >= 2) ? parts : [text];
  return items.map((x) => oneLine(x.replace(/^(and|then)\s+/i, ''))).filter((x) => x !== '' && !NONE.test(x));
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

function pathOf(text: string): string | null {
  const p = /\*\*\* (?:Update|Add|Delete) File:\s*([^\s\\"]+)/.exec(text);
  if (p) return p[1]!;
  const m = /\b(?:file_path|path|filename|file):\s*([^\s\\"]+)/.exec(text);
  return m ? m[1]! : null;
}

type Block = { at: Provenance; turn: number; from: Line['from']; task: string | null; pct: number | null; status: string | null; completed: string[]; wip: string[]; todo: string[]; next: string[]; blockers: string[]; text: string[]; lines: Line[] };

export function extract(t: Transcript, opts: ExtractOptions = {}): Extraction {
  const lines = linesOf(t);
  const decisions: ExtractedDecision[] = [];
  const issues: ExtractedIssue[] = [];
  const acceptance: ExtractedNote[] = [];
  const learnings: ExtractedNote[] = [];
  const done: ExtractedNote[] = [];
  const plans: { note: ExtractedNote; turn: number }[] = [];
  const stateBlocks: Block[] = [];
  const seenAcceptance = new Set<string>();
  const consumed = new Map<number, Set<number>>();
  const consume = (ls: Line[]) => {
    for (const x of ls) {
      const set = consumed.get(x.turn.index) ?? new Set<number>();
      set.add(x.offset);
      consumed.set(x.turn.index, set);
    }
  };
  const addAcceptance = (items: string[], l: Line) => {
    for (const item of items) {
      if (seenAcceptance.has(item)) continue;
      seenAcceptance.add(item);
      acceptance.push({ id: `acceptance:${acceptance.length + 1}`, text: item, at: prov(l) });
    }
  };
  const blockFor = (l: Line): Block => {
    let block = stateBlocks.at(-1);
    if (!block || block.turn !== l.turn.index) {
      block = { at: prov(l), turn: l.turn.index, from: l.from, task: null, pct: null, status: null, completed: [], wip: [], todo: [], next: [], blockers: [], text: [], lines: [] };
      stateBlocks.push(block);
    }
    return block;
  };
  /** The list items under a header line at i (same turn), as state lines of the block. */
  const listUnder = (i: number, block: Block, into: string[]): number => {
    const l = lines[i]!;
    let j = i + 1;
    for (; j < lines.length && lines[j]!.turn === l.turn; j++) {
      const raw = lines[j]!.text;
      if (raw.trim() === '' && into.length === 0 && j === i + 1) continue;
      const it = LIST_ITEM.exec(raw);
      if (!it) break;
      const item = oneLine(it[1]!.replace(/^\[[ x~-]\]\s*/i, '').replace(/\*\*/g, ''));
      if (!NONE.test(item)) into.push(item);
      block.text.push(raw.trim());
      block.lines.push(lines[j]!);
    }
    return j - 1;
  };

  /** Top-level list items under a Markdown heading (up to the next heading), as state lines of the block. */
  const listUnderHeading = (i: number, block: Block, into: string[]): number => {
    const l = lines[i]!;
    const level = /^\s*(#+)/.exec(l.text)![1]!.length;
    let indent: number | null = null;
    let j = i + 1;
    for (; j < lines.length && lines[j]!.turn === l.turn; j++) {
      const raw = lines[j]!.text;
      const h = /^\s*(#+)\s/.exec(raw);
      if (h && h[1]!.length <= level) break;
      const it = LIST_ITEM.exec(raw);
      if (!it) continue;
      const ind = raw.length - raw.trimStart().length;
      indent ??= ind;
      if (ind > indent || into.length >= 8) continue;
      const item = oneLine(it[1]!.replace(/^\[[ x~-]\]\s*/i, '').replace(/\*\*/g, ''));
      if (!NONE.test(item)) into.push(item);
      block.text.push(raw.trim());
      block.lines.push(lines[j]!);
    }
    return j - 1;
  };

  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    // Markers are matched without Markdown emphasis: agents write **Decision:** as often as DECISION:.
    const s = l.text.replace(/\*\*|__/g, '');
    // Blank, or a pasted page on one line (minified JSON, HTML): not where people write their state.
    if (s.trim() === '' || s.length > 4000) continue;

    const d = DECISION.exec(s);
    if (d) {
      const block = blockAt(lines, i);
      const text = block.map((b) => b.text.trim()).join('\n');
      decisions.push({ id: `decision:${decisions.length + 1}`, ...decisionFields(text), text, at: { ...prov(l), ts: d[1] && !Number.isNaN(Date.parse(d[1])) ? new Date(d[1]).toISOString() : l.turn.ts } });
      consume(block);
      i += block.length - 1;
      continue;
    }
    const rej = REJECTED.exec(s);
    if (rej && decisions.length > 0 && decisions.at(-1)!.at.turn >= l.turn.index - 6) {
      // "Alternative rejected: Redis SETNX (no fencing token)": an alternative of the decision just made.
      decisions.at(-1)!.alternatives.push(...parseAlternatives(rej[1]!).map((a) => ({ ...a, reason: a.reason === 'not chosen (no reason given)' ? 'rejected' : a.reason })));
      consume([l]);
      continue;
    }
    const imp = l.agent ? IMPLICIT_DECISION.exec(s) : null;
    if (imp) {
      const text = oneLine(imp[1]!, 400);
      const because = /\b(?:because|since|as)\b\s+(.+)$/i.exec(text);
      decisions.push({ id: `decision:${decisions.length + 1}`, title: oneLine(text.replace(/\s+(because|since|as)\s.+$/i, ''), 100), decision: text, rationale: because?.[1] ?? '', alternatives: [], impact: '', validation: '', agent: '', importance: 6, text: s.trim(), at: prov(l) });
      continue;
    }
    const plain = l.from === 'text' && !/\?\s*$/.test(s) ? PLAIN_DECISION.exec(s) : null;
    if (plain) {
      const chosen = oneLine(`${plain[1]} ${plain[2]}`, 200);
      decisions.push({
        id: `decision:${decisions.length + 1}`,
        title: oneLine(chosen.charAt(0).toUpperCase() + chosen.slice(1), 100),
        decision: oneLine(s.replace(/^\s*[-*]\s*/, ''), 400),
        rationale: plain[4] ? oneLine(plain[4], 300) : '',
        alternatives: [{ name: oneLine(plain[3]!.replace(/[,.]$/, ''), 120), reason: plain[4] ? `not chosen: ${oneLine(plain[4], 200)}` : 'not chosen' }],
        impact: '',
        validation: '',
        agent: '',
        importance: 7,
        text: s.trim(),
        at: prov(l),
      });
      consume([l]);
      continue;
    }

    const reasoned = l.from === 'text' && l.agent && !/\?\s*$/.test(s) ? REASONED_CHOICE.exec(s) : null;
    if (reasoned) {
      const chosen = oneLine(`${reasoned[1]} ${reasoned[2]}`, 200);
      decisions.push({ id: `decision:${decisions.length + 1}`, title: oneLine(chosen.charAt(0).toUpperCase() + chosen.slice(1), 100), decision: oneLine(s.replace(/^\s*[-*]\s*/, ''), 400), rationale: oneLine(reasoned[3]!, 300), alternatives: [], impact: '', validation: '', agent: '', importance: 6, text: s.trim(), at: prov(l) });
      consume([l]);
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
    // A TODO in a code comment belongs to the code shown, not to the work (`# TODO:`, `// TODO:` in a snippet).
    const todo = l.from === 'text' && !/^\s*(?:#|\/\/|\/\*|\*|--|;)\s*TODO\b/.test(s) ? TODO.exec(s) : null;
    if (todo) {
      const title = oneLine(todo[1]!, 90);
      consume([l]);
      if (!issues.some((x) => x.kind === 'todo' && x.title === title)) issues.push({ id: `todo:${issues.length + 1}`, kind: 'todo', key: null, severity: 'medium', title, text: s.trim(), resolved: false, at: prov(l) });
      continue;
    }

    const acc = ACCEPTANCE.exec(s);
    if (acc) {
      const items: string[] = acc[2]!.trim() ? splitItems(acc[2]!) : [];
      let j = i + 1;
      for (; j < lines.length && lines[j]!.turn === l.turn; j++) {
        const it = LIST_ITEM.exec(lines[j]!.text) ?? TODO_MARK.exec(lines[j]!.text) ?? DONE_MARK.exec(lines[j]!.text);
        if (!it) break;
        items.push(it[1]!.replace(/^\[[ x]\]\s*/i, '').trim());
      }
      consume(lines.slice(i, j));
      addAcceptance(items, l);
      i = j - 1;
      continue;
    }

    const plan = l.agent && l.from !== 'todo_list' ? PLAN.exec(s) : null;
    if (plan && (plan[2]!.trim() !== '' || LIST_ITEM.test(lines[i + 1]?.text ?? ''))) {
      const block = [s.trim()];
      let j = i + 1;
      for (; j < lines.length && lines[j]!.turn === l.turn && LIST_ITEM.test(lines[j]!.text); j++) block.push(lines[j]!.text.trim());
      plans.push({ note: { id: `plan:${plans.length + 1}`, text: block.join('\n'), at: prov(l) }, turn: l.turn.index });
      // An approved plan's steps are the work not started yet.
      if (l.from === 'plan') {
        const b = blockFor(l);
        for (const step of block.slice(1)) b.todo.push(oneLine(LIST_ITEM.exec(step)![1]!.replace(/\*\*/g, '')));
        b.text.push(...block);
      }
      i = j - 1;
      continue;
    }

    const learn = l.agent ? LEARNING.exec(s) : null;
    if (learn) {
      learnings.push({ id: `learning:${learnings.length + 1}`, text: oneLine(learn[2]!, 400), at: prov(l) });
      consume([l]);
      continue;
    }
    const dn = l.agent ? DONE_LINE.exec(s) : null;
    if (dn) done.push({ id: `done:${done.length + 1}`, text: oneLine(`${dn[1]}: ${dn[2]}`, 300), at: prov(l) });

    // Acceptance criteria written mid-line, in the user's request or the agent's restatement.
    const accInline = ACCEPTANCE_INLINE.exec(s);
    if (accInline) addAcceptance(splitItems(accInline[1]!), l);

    // Task state: a run of state lines in one turn is one state block; the latest block of each kind is current.
    if (!l.agent) continue; // the user's request is the task; its lines are not the agent's report of the state
    let m: RegExpExecArray | null = null;
    if (NEXT_HEADING.test(s) || REMAINING_HEADING.test(s)) {
      const b = blockFor(l);
      b.text.push(s.trim()), b.lines.push(l);
      i = listUnderHeading(i, b, NEXT_HEADING.test(s) ? b.next : b.todo);
    } else if ((m = TASK.exec(s))) {
      const b = blockFor(l);
      b.task = oneLine(m[1]!, 400);
      const pct = PCT_COMPLETE.exec(s);
      if (pct) b.pct = Math.min(100, Number(pct[1] ?? pct[2]));
      b.text.push(s.trim()), b.lines.push(l);
    } else if ((m = PROGRESS.exec(s))) {
      const b = blockFor(l);
      b.pct = Math.min(100, Number(m[1]));
      b.text.push(s.trim()), b.lines.push(l);
    } else if ((m = NEXT.exec(s))) {
      const b = blockFor(l);
      b.text.push(s.trim()), b.lines.push(l);
      const had = b.next.length;
      if (m[2]!.trim()) b.next.push(...m[2]!.split(/\s+(?=\d+[.)]\s)/).map((x) => oneLine(x.replace(/^\d+[.)]\s*/, '').replace(/\*\*/g, ''))).filter((x) => x && !NONE.test(x)));
      i = listUnder(i, b, b.next);
      // "9. Optional Next Step:" with a paragraph below (compaction summaries): its first sentence.
      if (b.next.length === had && !m[2]!.trim()) {
        const para = lines[i + 1]?.turn === l.turn ? lines[i + 1]!.text.trim() : '';
        const first = /^(.+?[.!])(\s|$)/.exec(para)?.[1] ?? para;
        if (first && !NONE.test(first) && !/^#/.test(first)) b.next.push(oneLine(first.replace(/\*\*/g, '')));
      }
    } else if ((m = CURRENT_WORK.exec(s))) {
      const b = blockFor(l);
      b.text.push(s.trim()), b.lines.push(l);
      // Compaction summaries write the current work as a paragraph below the heading: its first sentence.
      let body = m[2]!.trim();
      let j = i + 1;
      if (!body) for (; j < lines.length && lines[j]!.turn === l.turn && !body; j++) body = lines[j]!.text.trim();
      let first = /^(.+?[.!])(\s|$)/.exec(body)?.[1] ?? body;
      // "…, and I:" introduces a list: the sentence with its items.
      if (first.endsWith(':')) for (; j < lines.length && lines[j]!.turn === l.turn && lines[j]!.text.trim() !== '' && first.length < 300; j++) first += ` ${lines[j]!.text.trim().replace(/^[-*]\s*/, '')};`;
      if (first && !NONE.test(first)) b.wip.push(oneLine(first));
    } else if ((m = REMAINING.exec(s)) && !(l.from === 'text' && m[1]!.toLowerCase().startsWith('todo'))) {
      const b = blockFor(l);
      b.text.push(s.trim()), b.lines.push(l);
      b.todo.push(...splitItems(m[2]!));
      i = listUnder(i, b, b.todo);
    } else if ((m = BLOCKERS.exec(s))) {
      const b = blockFor(l);
      b.blockers.push(...splitItems(m[1]!));
      b.text.push(s.trim()), b.lines.push(l);
    } else if ((m = DONE_MARK.exec(s)) || (m = WIP_MARK.exec(s)) || (m = TODO_MARK.exec(s))) {
      const b = blockFor(l);
      const item = oneLine(m[1]!.replace(/\s*\((done|complete|not started)\)\s*$/i, '').replace(/\*\*/g, ''));
      (DONE_MARK.test(s) ? b.completed : WIP_MARK.test(s) ? b.wip : b.todo).push(item);
      b.text.push(s.trim()), b.lines.push(l);
    }
    // Written mid-line, beside other labels: "Status: … (about 60 %). Remaining: …", "… Next I'll …".
    const st = STATUS.exec(s);
    const ns = NEXT.test(s) ? null : NEXT_SENTENCE.exec(s);
    const pct = PROGRESS.test(s) || TASK.test(s) ? null : PCT_COMPLETE.exec(s);
    // A bare "(0% complete)" on an item of a list is about that item; a share of the whole work comes with a status.
    if (st || ns || (pct && /\b(progress|overall|so far|in total)\b/i.test(s))) {
      const b = blockFor(l);
      if (b.lines.at(-1) !== l) b.text.push(s.trim()), b.lines.push(l);
      if (st) b.status = oneLine(st[1]!.split(/(?<=\.)\s+(?=[A-Z][\w ]{0,30}:)/)[0]!.replace(/\s*\((?:about |around |roughly |~)?\d{1,3}\s*%\)/, ''), 300);
      if (pct && (st || /\b(progress|overall|so far|in total)\b/i.test(s))) b.pct = Math.min(100, Number(pct[1] ?? pct[2]));
      if (ns) b.next.push(oneLine(ns[1]!));
    }
  }

  const subFile = isSubAgentFile(t); // once: it walks every turn of a sub-agent's file
  const errors = extractErrors(t, (turn) => turn.origin !== 'injected' && (turn.origin !== 'sidechain' || subFile));

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

  const requests = userRequests(t, opts.redacted);
  // The first request's acceptance criteria ("Acceptance: …" anywhere in it) were read above, like any line.
  const state = stateOf(t, stateBlocks, requests, consume);

  return {
    decisions,
    errors,
    issues,
    state,
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

/**
 * The task as it stands now: the user's latest substantive request (or the agent's TASK: line when it restates a
 * later one), each state field from the latest block that has it (a todo list, a compaction summary's Pending
 * Tasks / Current Work / Next Step, plain "Remaining: …" / "Next I'll …"), and the first request as the goal.
 */
function stateOf(t: Transcript, allBlocks: Block[], requests: ReturnType<typeof userRequests>, consume: (ls: Line[]) => void): TaskState {
  const subFile = isSubAgentFile(t);
  const substantive = requests.filter((r) => !r.ack);
  // State written before the user's previous request belongs to work the user has since moved on from.
  const since = substantive.length >= 2 ? substantive.at(-2)!.turn : -1;
  const blocks = allBlocks.filter((b) => b.turn > since);
  const last = blocks.at(-1);
  if (last) consume(last.lines);
  const latest = substantive.at(-1) ?? null;
  const lastMsg = requests.at(-1) ?? null;
  const first = substantive[0] ?? null;
  const sources: StateSource[] = [];
  const latestWith = <K extends keyof Block>(k: K, ok: (v: Block[K]) => boolean) => [...blocks].reverse().find((b) => ok(b[k]));
  const taskBlock = latestWith('task', (v) => v !== null);
  // An agent's TASK: line counts when it comes after the user's latest request (it restates the work as it stands).
  const task = taskBlock && (!latest || taskBlock.turn > latest.turn) ? taskBlock.task! : (latest?.line ?? taskBlock?.task ?? '');
  if (task) sources.push(taskBlock && task === taskBlock.task ? { field: 'task', text: task, from: taskBlock.from, at: taskBlock.at } : { field: 'task', text: task, from: 'request', at: { turn: latest!.turn, line: latest!.at_line, ts: latest!.ts } });
  const goal = first && first.line !== task ? first.line : '';
  if (goal) sources.push({ field: 'goal', text: goal, from: 'request', at: { turn: first!.turn, line: first!.at_line, ts: first!.ts } });

  const listBlock = [...blocks].reverse().find((b) => b.completed.length + b.wip.length + b.todo.length > 0) ?? null;
  const nextBlock = latestWith('next', (v) => v.length > 0);
  const pctBlock = latestWith('pct', (v) => v !== null);
  const statusBlock = latestWith('status', (v) => v !== null);
  const blockerBlock = latestWith('blockers', (v) => v.length > 0);
  const from = (b: Block | undefined | null, field: StateSource['field'], items: string[]) => {
    if (b) for (const x of items) sources.push({ field, text: x, from: b.from, at: b.at });
  };
  const completed = listBlock?.completed ?? [];
  const inProgress = listBlock?.wip ?? [];
  const notStarted = listBlock?.todo ?? [];
  from(listBlock, 'completed', completed);
  from(listBlock, 'in_progress', inProgress);
  from(listBlock, 'not_started', notStarted);
  let next = nextBlock?.next ?? [];
  from(nextBlock, 'next_actions', next);
  // Without stated next steps, the work still open is what comes next.
  if (next.length === 0 && listBlock) next = [...(listBlock.from === 'todo_list' ? listBlock.wip : []), ...listBlock.todo].slice(0, 5);
  let pct = pctBlock?.pct ?? null;
  if (pct === null && listBlock && listBlock.from === 'todo_list') {
    const total = listBlock.completed.length + listBlock.wip.length + listBlock.todo.length;
    if (total > 0) pct = Math.round((100 * listBlock.completed.length) / total);
  }
  if (pctBlock) sources.push({ field: 'progress', text: `${pct}%`, from: pctBlock.from, at: pctBlock.at });
  const status = statusBlock?.status ?? '';
  if (statusBlock && status) sources.push({ field: 'status', text: status, from: statusBlock.from, at: statusBlock.at });
  const blockers = blockerBlock?.blockers ?? [];
  from(blockerBlock, 'blockers', blockers);
  return {
    task,
    completion_percentage: pct,
    completed,
    in_progress: inProgress,
    not_started: notStarted,
    next_actions: next,
    blockers,
    text: last ? last.text.join('\n') : '',
    at: last?.at ?? null,
    superseded: Math.max(0, allBlocks.length - 1),
    goal,
    status,
    latest_request: latest,
    last_update: lastUpdate(t),
    latest_request_answered: !!latest && t.turns.some((x) => x.index > latest.turn && x.role === 'assistant' && (x.origin !== 'sidechain' || subFile)),
    last_ack: lastMsg && lastMsg.ack && lastMsg !== latest ? lastMsg : null,
    sources,
  };
}

function lastUpdate(t: Transcript): TaskState['last_update'] {
  const sub = isSubAgentFile(t);
  for (let i = t.turns.length - 1; i >= 0; i--) {
    const x = t.turns[i]!;
    if (x.kind !== 'text' || x.role !== 'assistant' || (x.origin !== undefined && !(sub && x.origin === 'sidechain'))) continue;
    const first = x.text.split('\n').map((l) => l.replace(/^[#>*\s-]+|\*\*/g, '').trim()).find((l) => l.length > 0 && !/^-+$/.test(l));
    if (first && !isRedactedText(first)) return { text: oneLine(first, 200), turn: x.index, line: x.line };
  }
  return null;
}

/** The first thing the user asked (never an injected or redacted message), as the goal. */
export function firstRequest(t: Transcript): string {
  return userRequests(t).find((r) => !r.ack)?.line ?? '';
}

/** Open issues: not resolved later in the transcript. */
export const openIssuesOf = (x: Extraction): ExtractedIssue[] => x.issues.filter((i) => !i.resolved);

/** Errors no later run fixed: the pitfalls a successor must know. */
export const openErrorsOf = (x: Extraction): ExtractedError[] => x.errors.filter((e) => !e.resolved);
