import type { AllocatorSignals, ConversationTurn, DroppedItem, PacketTool, TaskProfile, TruncationEvent } from '../../../shared/packet.ts';
import type { TokenCounter } from '../tokens/index.ts';
import type { Gathered } from './gather.ts';
import { day, fmtScore, renderEvidence, renderItem, toolSignature, type Gate, type Item } from './items.ts';
import { regainExcerpts, type Compressor } from './compress.ts';
import type { DynamicLayer, LayerName, LayeredTemplate } from './templates.ts';

// 003's layered pack: System → Task → Tools → Evidence → Memory → Conversation → Slack. Fixed floors, the
// remainder split by profile weights, then the deterministic drop order Memory → older Evidence → older
// Conversation. System, Task and Tools are never truncated; Slack is reserved, never rendered.

export interface LayeredLayout {
  layers: { name: LayerName; text: string; floor: number | null; allocation: number | null; items: Item[]; truncated: boolean; note: string | null; reserved: boolean; tokens: number }[];
  body: string;
  dropped: DroppedItem[];
  events: TruncationEvent[];
  warnings: string[];
  window: number;
  remainder: number;
  weights: Record<DynamicLayer, number>;
}

export interface LayeredInputs {
  system: string;
  task: string | null;
  query: string;
  /** Already through the gate (gateTools), with the lines each lost to it. */
  tools: PacketTool[];
  toolRedactions: number[];
  conversation: ConversationTurn[];
  /** Turns kept verbatim; older ones are summarized. */
  keepTurns: number;
  /** The latest turns the caller sends beside the pack (prior messages): named, never repeated. */
  turnsElsewhere?: number;
}

/**
 * The first sentence of already-gated text's first non-empty line, at most `max` chars. Lines are never joined:
 * the gate judged them one by one, and two harmless lines run together could read as a secret.
 */
export function firstSentence(text: string, max: number): string {
  const flat = (text.split('\n').find((l) => l.trim() !== '') ?? '').replace(/\s+/g, ' ').trim();
  if (/^\[REDACTED: [^\]]+\]$/.test(flat)) return flat;
  const m = /^(.+?[.!?])(\s|$)/.exec(flat);
  const s = m ? m[1] : flat;
  return s.length <= max ? s : `${s.slice(0, max - 1).replace(/\s+\S*$/, '')}…`;
}

export function buildLayeredItems(g: Gathered, gate: Gate, input: LayeredInputs): Item[] {
  const items: Item[] = [];
  const add = (section: LayerName, partial: Omit<Item, 'section' | 'group' | 'text' | 'redactedLines'>, r: { text: string; redacted: number }) =>
    items.push({ ...partial, section, group: section, text: r.text, redactedLines: r.redacted });

  items.push({ id: 'system', kind: 'system', section: 'SYSTEM', group: 'SYSTEM', source: 'resources/protocol/layered-v1-system.md', score: null, ts: null, text: input.system.trim(), redactedLines: 0 });
  if (input.task !== null && input.task.trim() !== '') items.push({ id: 'task', kind: 'task', section: 'TASK', group: 'TASK', source: 'request.task', score: null, ts: null, text: input.task.trim(), redactedLines: 0 });
  // Issue #23: a query given without a task is the task.
  else if (input.query.trim() !== '') items.push({ id: 'task', kind: 'task', section: 'TASK', group: 'TASK', source: 'request.query', score: null, ts: null, text: input.query.trim(), redactedLines: 0 });
  // Tools arrive already gated (they are also recorded in the packet's inputs), so they are not passed twice.
  input.tools.forEach((t, i) => {
    const meta = [t.capability_class, t.risk_level, t.approval_mode].filter(Boolean).join(', ');
    items.push({ id: `tool:${t.name}`, kind: 'tool', section: 'TOOLS', group: 'TOOLS', source: 'request.tools', score: null, ts: null, text: `- ${toolSignature(t.name, t.input_schema)}: ${t.purpose}${meta ? ` (${meta})` : ''}`, redactedLines: input.toolRedactions[i] ?? 0 });
  });
  g.evidence.forEach((h, i) => {
    const r = renderEvidence(gate, h, i + 1, 'EVIDENCE');
    add('EVIDENCE', { id: r.id, kind: 'evidence', source: r.id, score: h.norm, ts: null }, r);
  });
  // L2/L3 hierarchy sections relevant to the query: evidence with their § markers.
  g.hierarchy.forEach((h, i) =>
    add('EVIDENCE', { id: `hierarchy ${h.marker}`, kind: 'evidence', source: `hierarchy ${h.marker}`, score: h.score, ts: null },
      renderItem(gate, { lead: `[H${i + 1}] ${h.marker} `, head: h.title, tail: ` (L${h.level}${fmtScore(h.score)})`, body: h.body, source: `hierarchy ${h.marker}`, section: 'EVIDENCE' })));
  const goals = g.goals;
  if (goals && goals.goal.trim() !== '') {
    const body = [
      goals.blockers.length ? `Blockers: ${goals.blockers.join('; ')}` : '',
      goals.priorities.length ? `Priorities: ${goals.priorities.join('; ')}` : '',
      ...goals.directives.map((d) => `Directive (${d.id}): ${d.text}`),
    ].filter(Boolean).join('\n');
    // The executive summary outranks every retrieved memory: it is the project's own statement of intent.
    add('MEMORY', { id: 'goal:L1', kind: 'goal', source: goals.source, score: 1, ts: null }, renderItem(gate, { head: `Goal: ${goals.goal}${goals.status ? ` (status: ${goals.status})` : ''}`, tail: ` (${goals.source})`, body, source: goals.source, section: 'MEMORY' }));
  }
  if (goals?.fitness) {
    // 000's fitness spec as one memory block: the count, the failing and unmeasured gates, the directives.
    const gates = goals.fitness.gates;
    const passing = gates.filter((x) => x.status === 'pass').length;
    const line = (x: (typeof gates)[number]) => `${x.status === null ? 'Not measured' : 'FAIL'}: ${x.id}${x.value || x.threshold ? ` (${[x.value, x.threshold !== null ? `threshold ${x.threshold}` : null].filter(Boolean).join(', ')})` : ''} — ${x.description}`;
    const body = [...gates.filter((x) => x.status === 'fail').map(line), ...gates.filter((x) => x.status === null).map(line), ...goals.directives.map((d) => `Directive: ${d.text}`)].join('\n');
    add('MEMORY', { id: 'goal:fitness', kind: 'goal', source: goals.fitness.file, score: 1, ts: null },
      renderItem(gate, { lead: 'Fitness: ', head: `${passing}/${gates.length} gates passing`, tail: ` (${goals.fitness.file})`, body, source: goals.fitness.file, section: 'MEMORY' }));
  }
  const seen = new Set<string>();
  for (const e of [...g.decisions, ...g.learnings, ...g.patterns, ...g.issues, ...g.states]) {
    if (seen.has(e.id)) continue;
    seen.add(e.id);
    add('MEMORY', { id: e.id, kind: e.kind === 'state' ? 'state' : e.kind, source: e.source, score: e.score, ts: e.ts },
      renderItem(gate, { lead: `**${e.id}** `, head: e.title, tail: ` (${e.kind}, ${e.source}, ${day(e.ts)}${e.freshness === undefined ? '' : `, ${e.freshness.toFixed(2)} freshness`}${fmtScore(e.score)})`, body: e.text, source: e.source, section: 'MEMORY' }));
  }
  // Turns arrive already gated (they are also recorded in the packet's inputs), so they are not passed twice.
  // 003's aging policy: the last N turns verbatim, older ones demoted to one extractive summary block.
  const older = Math.max(0, input.conversation.length - input.keepTurns);
  if (older > 0) {
    const lines = input.conversation.slice(0, older).map((t) => `  - ${t.role}${t.ts ? ` (${t.ts})` : ''}: ${firstSentence(t.text, 160)}`);
    items.push({ id: 'conversation:summary', kind: 'summary', section: 'CONVERSATION', group: 'CONVERSATION', source: `request.conversation[0..${older - 1}]`, score: null, ts: input.conversation[0].ts ?? null, text: `- Earlier conversation (${older} ${older === 1 ? 'turn' : 'turns'}, summarized):\n${lines.join('\n')}`, redactedLines: 0 });
  }
  input.conversation.forEach((t, i) => {
    if (i < older) return;
    const body = t.text.trimEnd().split('\n').map((l) => (l.trim() === '' ? '' : `  ${l}`)).join('\n');
    items.push({ id: `turn:${i + 1}`, kind: 'turn', section: 'CONVERSATION', group: 'CONVERSATION', source: `request.conversation[${i}]`, score: null, ts: t.ts ?? null, text: `- ${t.role}${t.ts ? ` (${t.ts})` : ''}:\n${body}`, redactedLines: 0 });
  });
  // Last in the layer, so the drop order (oldest first) takes it last: without it the layer would say "first turn".
  const elsewhere = input.turnsElsewhere ?? 0;
  if (elsewhere > 0) {
    items.push({ id: 'conversation:elsewhere', kind: 'summary', section: 'CONVERSATION', group: 'CONVERSATION', source: 'request.turnsElsewhere', score: null, ts: null, text: `- The latest ${elsewhere === 1 ? 'turn is the message' : `${elsewhere} turns are the messages`} before this pack, verbatim; not repeated here.`, redactedLines: 0 });
  }
  // Memory is ordered best first so a reader (and the drop order) sees rank directly.
  const mem = items.filter((i) => i.section === 'MEMORY').sort((a, b) => (b.score ?? 0) - (a.score ?? 0) || byCodeUnit(a.id, b.id));
  return [...items.filter((i) => i.section !== 'MEMORY'), ...mem];
}

/** Code-unit order, as canonical JSON sorts keys: the same on every machine and runtime, unlike ICU collation. */
function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const clamp01 = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? 0 : Math.min(1, Math.max(0, x)));

/** 003's weights: profile base plus the task signals (each scaled to 0..1, worth up to 0.1). */
export function allocatorWeights(template: LayeredTemplate, profile: TaskProfile, s: AllocatorSignals): Record<DynamicLayer, number> {
  const base = template.profiles[profile];
  const round = (x: number) => Math.round(x * 1e6) / 1e6;
  const wE = base.EVIDENCE + 0.1 * (clamp01(s.checklist_evidence_ratio) + clamp01((s.expected_tool_calls ?? 0) / 10) + clamp01(s.risk_weight));
  const wM = base.MEMORY + 0.1 * (clamp01(s.retrieval_hit_rate) + clamp01(s.similarity) + clamp01(s.freshness));
  const wC = base.CONVERSATION + 0.1 * (clamp01((s.unresolved_questions ?? 0) / 10) + clamp01((s.dialogue_depth ?? 0) / 20));
  const sum = wE + wM + wC;
  return { EVIDENCE: round(wE / sum), MEMORY: round(wM / sum), CONVERSATION: round(wC / sum) };
}

/** How many evidence items the closing REQUEST layer points at. */
export const TOP_EVIDENCE = 3;

function renderLayer(template: LayeredTemplate, name: LayerName, items: Item[], ctx: { query: string; acceptance: string[]; evidence: Item[] }, evicted: number): string {
  const spec = template.layers.find((l) => l.name === name)!;
  const header = `## ${name}`;
  if (name === 'TASK') {
    const step = items.length > 0 ? items.map((i) => i.text).join('\n') : spec.emptyNote;
    return `${header}\n### Step\n${step}`;
  }
  if (name === 'REQUEST') {
    // 003 (Lost in the Middle): acceptance, the top evidence and the user request close the payload. The
    // evidence lines are the items' provenance lines (already in EVIDENCE), so nothing is repeated in full.
    const acc = ctx.acceptance.length > 0 ? ctx.acceptance.map((a) => `- [ ] ${a}`).join('\n') : '- (none given: this pack is invalid, see manifest.validity)';
    const top = [...ctx.evidence].sort((a, b) => (b.score ?? 0) - (a.score ?? 0)).slice(0, TOP_EVIDENCE).map((e) => e.text.split('\n')[0]);
    const ev = top.length > 0 ? top.join('\n') : '- (no evidence in this pack: if the step needs proof, say "unknown" and ask for it)';
    return `${header}\n### Acceptance\n${acc}\n\n### Top Evidence\n${ev}\n\n### User Request (verbatim)\n${ctx.query}`;
  }
  if (items.length === 0) {
    const note = evicted > 0 ? `All ${evicted} items were evicted to fit the budget; their ids are in the manifest.` : spec.emptyNote;
    return `${header}\n${note}`;
  }
  return `${header}\n${items.map((i) => i.text).join('\n')}`;
}

export function layoutLayered(
  template: LayeredTemplate,
  items: Item[],
  opts: { query: string; window: number; profile: TaskProfile; signals: AllocatorSignals; counter: TokenCounter; compress?: Compressor | null; acceptance?: string[] },
): LayeredLayout {
  const { window, counter, query } = opts;
  const byLayer = new Map<LayerName, Item[]>(template.layers.map((l) => [l.name, items.filter((i) => i.section === l.name)]));
  const evicted = new Map<LayerName, number>();
  const ctx = () => ({ query, acceptance: opts.acceptance ?? [], evidence: byLayer.get('EVIDENCE')! });
  const render = (name: LayerName) => renderLayer(template, name, byLayer.get(name)!, ctx(), evicted.get(name) ?? 0);
  const floorOf = (name: LayerName) => {
    const f = template.layers.find((l) => l.name === name)!.floor;
    return f === null ? null : Math.floor(f * window);
  };
  const warnings: string[] = [];
  const fixed: LayerName[] = ['SYSTEM', 'TASK', 'TOOLS', 'REQUEST'];
  let fixedUse = 0;
  for (const name of fixed) {
    const used = counter.count(render(name));
    const floor = floorOf(name) ?? 0;
    if (used > floor && floorOf(name) !== null) warnings.push(`${name} uses ${used} tokens, over its ${floor}-token floor; it is never truncated, so the remainder shrinks`);
    fixedUse += Math.max(used, floor);
  }
  const slack = floorOf('SLACK')!;
  const remainder = window - fixedUse - slack;
  const weights = allocatorWeights(template, opts.profile, opts.signals);
  const dyn: DynamicLayer[] = ['EVIDENCE', 'MEMORY', 'CONVERSATION'];
  const alloc = Object.fromEntries(dyn.map((d) => [d, Math.max(0, Math.floor(Math.max(0, remainder) * weights[d]))])) as Record<DynamicLayer, number>;
  if (remainder < 0) warnings.push(`fixed layers and slack exceed the ${window}-token window by ${-remainder}: split the step`);

  // Per-item token costs, counted once; the loop works on sums and the exact layer counts are checked after.
  const cost = new Map<Item, number>(items.map((i) => [i, counter.count(i.text) + 1]));
  const headerCost = (name: LayerName) => counter.count(`## ${name}\n`);
  const used = (name: DynamicLayer) => headerCost(name) + byLayer.get(name)!.reduce((s, i) => s + cost.get(i)!, 0);
  const dynUse = () => dyn.reduce((s, d) => s + used(d), 0);
  const budget = Math.max(0, remainder);
  const dropped: DroppedItem[] = [];
  const events: TruncationEvent[] = [];
  const truncated = new Set<LayerName>();

  const victimOf = (name: DynamicLayer): Item | undefined => {
    const list = byLayer.get(name)!;
    if (list.length === 0) return undefined;
    if (name === 'CONVERSATION') return list[0]; // oldest turn first
    let v = list[0];
    for (const i of list) {
      const worse = (i.score ?? 0) < (v.score ?? 0) || ((i.score ?? 0) === (v.score ?? 0) && (i.ts ?? '') <= (v.ts ?? ''));
      if (worse) v = i;
    }
    return v;
  };
  const dropFrom = (name: DynamicLayer, stop: () => boolean, why: string) => {
    const ids: string[] = [];
    const before = render(name).length;
    while (!stop()) {
      const v = victimOf(name);
      if (!v) break;
      byLayer.get(name)!.splice(byLayer.get(name)!.indexOf(v), 1);
      evicted.set(name, (evicted.get(name) ?? 0) + 1);
      dropped.push({ id: v.id, section: name, kind: v.kind, source: v.source, score: v.score, reason: why });
      ids.push(v.id);
    }
    if (ids.length === 0) return;
    truncated.add(name);
    const step = name === 'MEMORY' ? 'memory: lowest score first' : name === 'EVIDENCE' ? 'evidence: lowest score, older first' : 'conversation: oldest turns first';
    events.push({ section: name, step, reason: 'layer_over_allocation', action: 'drop', dropped_ids: ids, chars_before: before, chars_after: render(name).length });
  };

  // 003's overflow: compress first (Memory → summary, then older Evidence → summary), lowest score first, each
  // item to its provenance line and key sentences; only then drop.
  if (opts.compress) {
    for (const name of ['MEMORY', 'EVIDENCE'] as const) {
      if (dynUse() <= budget) break;
      const list = byLayer.get(name)!;
      const order = [...list].sort((a, b) => (a.score ?? 0) - (b.score ?? 0) || byCodeUnit(a.ts ?? '', b.ts ?? '') || list.indexOf(b) - list.indexOf(a));
      const ids: string[] = [];
      const before = render(name).length;
      const was = new Map<Item, Item>();
      for (const it of order) {
        if (dynUse() <= budget || used(name) <= alloc[name]) break;
        const c = opts.compress(it);
        if (!c) continue;
        list[list.indexOf(it)] = c;
        cost.set(c, counter.count(c.text) + 1);
        was.set(c, it);
        ids.push(it.id);
      }
      regainExcerpts(list, was, opts.compress, () => dynUse() <= budget && used(name) <= alloc[name], (c) => cost.set(c, counter.count(c.text) + 1));
      if (ids.length === 0) continue;
      truncated.add(name);
      events.push({ section: name, step: `${name.toLowerCase()}: compress lowest score first`, reason: 'layer_over_allocation', action: 'compress', compressed_ids: ids, dropped_ids: [], chars_before: before, chars_after: render(name).length });
    }
  }
  for (const name of template.dropOrder) {
    if (dynUse() <= budget) break;
    dropFrom(name, () => dynUse() <= budget || used(name) <= alloc[name], `${name.toLowerCase()} over its ${alloc[name]}-token allocation (packet over budget)`);
  }
  // Exact counts can exceed the summed estimate by a few merges; keep dropping in the same order until they fit.
  const exact = () => dyn.reduce((s, d) => s + counter.count(render(d)), 0);
  for (const name of template.dropOrder) {
    if (exact() <= budget) break;
    dropFrom(name, () => exact() <= budget, `${name.toLowerCase()}: exact token count over the remainder (packet over budget)`);
  }

  const layers: LayeredLayout['layers'] = template.layers.map((spec) => {
    if (spec.reserved) return { name: spec.name, text: '', floor: slack, allocation: slack, items: [], truncated: false, note: null, reserved: true, tokens: 0 };
    const text = render(spec.name);
    const list = byLayer.get(spec.name)!;
    const isDyn = (dyn as LayerName[]).includes(spec.name);
    return {
      name: spec.name,
      text,
      floor: floorOf(spec.name),
      allocation: isDyn ? alloc[spec.name as DynamicLayer] : null,
      items: list,
      truncated: truncated.has(spec.name),
      note: list.length === 0 && spec.name !== 'TASK' && spec.name !== 'REQUEST' ? text.slice(text.indexOf('\n') + 1) : null,
      reserved: false,
      tokens: counter.count(text),
    };
  });
  const body = `# CONTEXT PACK\n\n${layers.filter((l) => !l.reserved).map((l) => l.text).join('\n\n')}\n`;
  return { layers, body, dropped, events, warnings, window, remainder, weights };
}
