// The task as it stands at the end of a transcript, from its latest state blocks and the user's requests.
import type { Transcript } from '../transcripts/index.ts';
import { isRedactedText, isSubAgentFile, oneLine, userRequests } from './requests.ts';
import type { Provenance, StateSource, TaskState, Line } from './extraction.ts';

export type Block = { at: Provenance; turn: number; from: Line['from']; task: string | null; pct: number | null; status: string | null; completed: string[]; wip: string[]; todo: string[]; next: string[]; blockers: string[]; text: string[]; lines: Line[] };

/**
 * The task as it stands now: the user's latest substantive request (or the agent's TASK: line when it restates a
 * later one), each state field from the latest block that has it (a todo list, a compaction summary's Pending
 * Tasks / Current Work / Next Step, plain "Remaining: …" / "Next I'll …"), and the first request as the goal.
 */
export function stateOf(t: Transcript, allBlocks: Block[], requests: ReturnType<typeof userRequests>, consume: (ls: Line[]) => void): TaskState {
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

export function lastUpdate(t: Transcript): TaskState['last_update'] {
  const sub = isSubAgentFile(t);
  for (let i = t.turns.length - 1; i >= 0; i--) {
    const x = t.turns[i]!;
    if (x.kind !== 'text' || x.role !== 'assistant' || (x.origin !== undefined && !(sub && x.origin === 'sidechain'))) continue;
    const first = x.text.split('\n').map((l) => l.replace(/^[#>*\s-]+|\*\*/g, '').trim()).find((l) => l.length > 0 && !/^-+$/.test(l));
    if (first && !isRedactedText(first)) return { text: oneLine(first, 200), turn: x.index, line: x.line };
  }
  return null;
}
