// Deterministic, extractive reading of a transcript for seed 002's Preservation Rules and Session Summary:
// explicit markers ("DECISION:", "BUG-", "TODO:", "Lesson:", "Next actions:", checklists), the same things in plain
// words ("Status: … (about 60 %)", "Remaining: …", "Next I'll …", "Pending Tasks:", "we keep X instead of Y because
// …", "Alternative rejected: …"), the agents' own state (compaction summaries, TodoWrite / task_progress lists,
// approved plans) and the tool error flags. Only the agent's and the user's own prose is read: not tool output, not
// code blocks, not what the harness injected. No model is involved, so the same transcript always yields the same
// elements.
import type { Transcript } from '../transcripts/index.ts';
import { isSubAgentFile, oneLine, userRequestEnds, userRequests } from './requests.ts';
import { extractErrors, type ExtractedError } from './errors.ts';
import { classifyErrors } from './blocking.ts';
import type { ExtractedDecision, ExtractedIssue, FileModification, ExtractedNote, Extraction, Line, ExtractOptions } from './extraction.ts';
import { DECISION, IMPLICIT_DECISION, PLAIN_DECISION, REASONED_CHOICE, REJECTED, ISSUE_KEY, TODO, SEVERITY, RESOLVED, TASK, PROGRESS, PCT_COMPLETE, STATUS, NEXT, NEXT_SENTENCE, NEXT_HEADING, REMAINING_HEADING, REMAINING, CURRENT_WORK, BLOCKERS, NONE, DONE_MARK, WIP_MARK, TODO_MARK, LIST_ITEM, ACCEPTANCE, ACCEPTANCE_INLINE, LEARNING, DONE_LINE, PLAN, WRITE_TOOLS, READ_TOOLS } from './extract-patterns.ts';
import { linesOf, prov, blockAt, splitItems, pathOf } from './extract-lines.ts';
import { type Block, stateOf } from './task-state.ts';
import { decisionFields, parseAlternatives } from './decision-fields.ts';

export type { ExtractedError } from './errors.ts';
export type { Provenance, ExtractedDecision, IssueKind, ExtractedIssue, StateSource, TaskState, FileModification, ExtractedNote, Extraction, ExtractOptions } from './extraction.ts';
export { parseAlternatives };

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
  // Which of the unresolved ones blocked the work (a probe, a check meant to fail, a later green run do not).
  classifyErrors(t, errors);

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

  const requests = userRequestEnds(t, opts.redacted);
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

/** The first thing the user asked (never an injected or redacted message), as the goal. */
export function firstRequest(t: Transcript): string {
  return userRequests(t).find((r) => !r.ack)?.line ?? '';
}

/** Open issues: not resolved later in the transcript. */
export const openIssuesOf = (x: Extraction): ExtractedIssue[] => x.issues.filter((i) => !i.resolved);

/** Errors no later run fixed: the pitfalls a successor must know. */
export const openErrorsOf = (x: Extraction): ExtractedError[] => x.errors.filter((e) => !e.resolved && !e.expected);
