import type { ContextPackV2Field, ContextPackV2Fields, PacketInputs } from '../../../shared/packet.ts';
import type { Gathered } from './gather.ts';
import type { Gate } from './items.ts';
import type { MemoryEntry } from './sources.ts';

// 001's ContextPackV2 fields beyond the sections: constraints, preferences, durable facts, a suggested plan and
// routing hints. Each names where it came from (task file sections, memories tagged constraint / preference /
// fact, the hierarchy, the request) or says explicitly why it is empty. Every text passes the gate.

const MAX_ITEMS = 12;

/** List items (or plain lines) under a task heading or `Label:` whose name matches `names`, in order. */
export function taskSection(task: string | null, names: RegExp): string[] {
  if (!task) return [];
  const out: string[] = [];
  let under = false;
  for (const line of task.split('\n')) {
    const heading = /^\s*#{1,6}\s+(.*?)\s*#*\s*$/.exec(line) ?? /^\s*([A-Za-z][\w ]{0,40}):\s*$/.exec(line);
    if (heading) {
      under = names.test(heading[1].trim());
      continue;
    }
    if (!under || line.trim() === '') continue;
    // A checkbox line is an acceptance criterion wherever it stands (successCriteria reads those).
    if (/^\s*[-*]\s+\[[ xX]\]\s/.test(line)) continue;
    const item = /^\s*(?:[-*]|\d+[.)])\s+(.+?)\s*$/.exec(line);
    out.push(item ? item[1] : line.trim());
  }
  return out;
}

function field(gate: Gate, source: string, items: { text: string; source: string }[], empty: string): ContextPackV2Field {
  const gated = items.slice(0, MAX_ITEMS).map((i) => ({ text: gate.pass(i.text, i.source, 'CONTEXT_V2').text.replace(/\n/g, ' '), source: i.source }));
  return { source, items: gated, empty: gated.length === 0 ? empty : null };
}

const fromMemory = (list: MemoryEntry[]) => list.map((m) => ({ text: m.title + (m.text.trim() ? ` — ${m.text.trim().split('\n')[0]}` : ''), source: m.source }));

export function buildContextV2(g: Gathered, gate: Gate, inputs: PacketInputs, evidence: { id: string; source: string; score: number | null }[]): ContextPackV2Fields {
  const task = inputs.task;
  const sec = (label: string, names: RegExp) => taskSection(task, names).map((text) => ({ text, source: `task §${label}` }));

  const constraints = field(
    gate,
    'task file section "Constraints" + memories tagged constraint',
    [...sec('Constraints', /^constraints?\b/i), ...fromMemory(g.tagged.constraint)],
    'no "Constraints" section in the task and no memory tagged constraint',
  );
  const preferences = field(
    gate,
    'task file section "Preferences" + memories tagged preference',
    [...sec('Preferences', /^preferences?\b/i), ...fromMemory(g.tagged.preference)],
    'no "Preferences" section in the task and no memory tagged preference',
  );
  const durable_facts = field(gate, 'memories tagged fact', fromMemory(g.tagged.fact), 'no memory tagged fact');

  // The plan: the task's own "Plan" / "Steps" section when it has one, else the L1 priorities, else the failing
  // fitness gates (fix those first).
  const planned = sec('Plan', /^(suggested\s+)?(plan|steps|approach)\b/i);
  const goals = g.goals;
  const l1 = goals && goals.goal.trim() !== '' ? goals.priorities.map((p) => ({ text: p, source: goals.source })) : [];
  const failing = goals?.fitness ? goals.fitness.gates.filter((x) => x.status === 'fail').map((x) => ({ text: `make gate ${x.id} pass: ${x.description}`, source: goals.fitness!.file })) : [];
  const plan = planned.length > 0 ? planned : l1.length > 0 ? l1 : failing;
  const suggested_plan = field(
    gate,
    planned.length > 0 ? 'task file section "Plan"' : l1.length > 0 ? 'hierarchy §1.0 priorities' : failing.length > 0 ? 'failing fitness gates' : 'task file section "Plan", hierarchy §1.0 priorities or failing gates',
    plan,
    'no "Plan" section in the task, no L1 priorities and no failing gate',
  );

  // Where to look and how this pack was routed: the relevant hierarchy sections, the top evidence files, the
  // template / profile and retriever the request used.
  const hints: { text: string; source: string }[] = [];
  for (const h of g.hierarchy) hints.push({ text: `see ${h.marker} ${h.title}`, source: `hierarchy ${h.marker}` });
  const files = [...new Set(evidence.filter((e) => !e.source.startsWith('hierarchy ')).map((e) => e.source.replace(/#.*$|:\d+-\d+$/g, '')))].slice(0, 3);
  for (const f of files) hints.push({ text: `read ${f}`, source: 'retrieval' });
  hints.push({ text: `template ${inputs.template}${inputs.profile ? `, profile ${inputs.profile}` : ''}, retriever ${g.retrieval.mode}`, source: 'request' });
  const routing_hints = field(gate, 'the hierarchy (relevant L2/L3 sections), the retrieval and the request', hints, 'nothing to route on');
  return { constraints, preferences, durable_facts, suggested_plan, routing_hints };
}
