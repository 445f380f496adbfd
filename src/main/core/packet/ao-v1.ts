import type { DroppedItem, TruncationEvent } from '../../../shared/packet.ts';
import type { Gathered } from './gather.ts';
import { day, fmtScore, renderEvidence, renderItem, type Gate, type Item } from './items.ts';
import { regainExcerpts, type Compressor } from './compress.ts';
import type { AoEvictionStep, AoSectionName, AoSectionSpec, AoTemplate } from './templates.ts';

// 000's five-section packet: gather everything at full content, trim sections over their own target by their
// rule, then apply the overflow order to the whole packet, then the pathological fallback.

interface SectionState {
  spec: AoSectionSpec;
  target: number;
  items: Item[];
  /** Summary lines that replace evicted content within a group (e.g. "3 priorities (omitted for brevity)."). */
  notes: Map<string, string>;
  /** Pathological case: the whole section as one line. */
  collapsed: string | null;
  /** Items per group before any eviction: counted groups show `(n/total)` of these. */
  initial: Map<string, number>;
  evicted: number;
  truncated: boolean;
}

export interface AoLayout {
  sections: { name: AoSectionName; text: string; spec: AoSectionSpec; min: number; target: number; max: number; items: Item[]; truncated: boolean; note: string | null }[];
  body: string;
  dropped: DroppedItem[];
  events: TruncationEvent[];
  warnings: string[];
  budgetChars: number;
}

export function buildAoItems(g: Gathered, gate: Gate, task: string | null, protocol: string, query = ''): Item[] {
  const items: Item[] = [];
  const push = (section: AoSectionName, group: string, partial: Omit<Item, 'section' | 'group' | 'text' | 'redactedLines'>, r: { text: string; redacted: number }) =>
    items.push({ ...partial, section, group, text: r.text, redactedLines: r.redacted });

  const goals = g.goals;
  if (goals?.fitness) {
    // 000's fitness spec: one item per gate in its status group, the first failing one marked as the target.
    const S = 'GOALS';
    let firstFail = true;
    for (const gs of goals.fitness.gates) {
      const group = gs.status === 'pass' ? 'passing' : gs.status === 'fail' ? 'failing' : 'unmeasured';
      const measured = [gs.value, gs.threshold !== null ? `threshold ${gs.threshold}` : null].filter(Boolean).join(', ');
      const status = gs.status === null ? 'NOT MEASURED' : gs.status.toUpperCase();
      const target = gs.status === 'fail' && firstFail ? ' ← priority target' : '';
      if (gs.status === 'fail') firstFail = false;
      // The id (checked against the spec's pattern) and the status are the packet's own; value, threshold and
      // description are the user's text and pass the gate.
      push(S, group, { id: `gate:${gs.id}`, kind: 'gate', source: goals.fitness.file, score: null, ts: null },
        renderItem(gate, { lead: `${gs.id}: ${status} `, head: `${measured ? `(${measured}) — ` : '— '}${gs.description}`, tail: target, source: goals.fitness.file, section: S }));
    }
  }
  if (goals && (goals.goal.trim() !== '' || goals.fitness)) {
    const S = 'GOALS';
    if (goals.goal.trim() !== '')
      push(S, 'goal', { id: 'goal:L1', kind: 'goal', source: goals.source, score: null, ts: null },
        renderItem(gate, { head: `${goals.goal}${goals.status ? ` (status: ${goals.status})` : ''}`, source: goals.source, section: S }));
    goals.blockers.forEach((b, i) =>
      push(S, 'blockers', { id: `blocker:${i + 1}`, kind: 'blocker', source: goals.source, score: null, ts: null }, renderItem(gate, { head: `${b} ← blocking`, source: goals.source, section: S })));
    goals.priorities.forEach((p, i) =>
      push(S, 'priorities', { id: `priority:${i + 1}`, kind: 'priority', source: goals.source, score: null, ts: null }, renderItem(gate, { head: p, source: goals.source, section: S })));
    for (const d of goals.directives)
      push(S, 'directives', { id: `directive:${d.id}`, kind: 'directive', source: /^DEC-/.test(d.id) ? d.id : goals.source, score: null, ts: null }, renderItem(gate, { head: `"${d.text}"`, tail: /^DEC-/.test(d.id) ? ` (${d.id})` : '', source: d.id, section: S }));
  }

  const H = 'HISTORY';
  for (const s of g.states)
    push(H, 'states', { id: `state:${s.id}`, kind: 'state', source: s.source, score: s.score, ts: s.ts },
      // Provenance (memory ids) goes in the tail, outside the gate: an id beside a word like "auth" is not a secret.
      renderItem(gate, { lead: `[${day(s.ts)}] `, head: `${s.title}${s.text.trim() ? ` — ${s.text.trim().split('\n')[0]}` : ''}`, tail: ` (${s.source})`, source: s.source, section: H }));
  for (const s of g.sessions)
    push(H, 'sessions', { id: `session:${s.id}`, kind: 'session', source: s.source, score: null, ts: s.ts }, renderItem(gate, { head: `[${day(s.ts)}] ${s.text}`, source: s.source, section: H }));
  for (const d of g.timeline)
    push(H, 'decisions', { id: `timeline:${d.id}`, kind: 'decision_timeline', source: d.source, score: d.score, ts: d.ts }, renderItem(gate, { lead: `[${day(d.ts)}] ${d.id}: `, head: d.title, source: d.source, section: H }));

  const I = 'INTEL';
  g.evidence.forEach((h, i) => {
    const r = renderEvidence(gate, h, i + 1, I);
    push(I, 'evidence', { id: r.id, kind: 'evidence', source: r.id, score: h.norm, ts: null }, r);
  });
  g.hierarchy.forEach((h, i) =>
    push(I, 'hierarchy', { id: `hierarchy ${h.marker}`, kind: 'evidence', source: `hierarchy ${h.marker}`, score: h.score, ts: null },
      renderItem(gate, { lead: `[H${i + 1}] ${h.marker} `, head: h.title, tail: ` (L${h.level}${fmtScore(h.score)})`, body: h.body, source: `hierarchy ${h.marker}`, section: I })));
  const mem = (group: string, kind: 'decision' | 'learning' | 'issue', list: Gathered['decisions']) => {
    for (const e of list)
      push(I, group, { id: e.id, kind, source: e.source, score: e.score, ts: e.ts },
        renderItem(gate, { lead: `**${e.id}** `, head: e.title, tail: ` (${e.source}, ${day(e.ts)}${freshnessNote(e)}${fmtScore(e.score)})`, body: e.text, source: e.source, section: I }));
  };
  mem('decisions', 'decision', g.decisions);
  mem('learnings', 'learning', g.learnings);
  // 000's Active Patterns: `**name**: the rule`, one line each.
  for (const e of g.patterns)
    push(I, 'patterns', { id: e.id, kind: 'learning', source: e.source, score: e.score, ts: e.ts },
      renderItem(gate, { head: `**${e.title}**: ${e.text.split('\n')[0]?.replace(/^Lesson: /, '') ?? ''}`, tail: ` (${e.source}${freshnessNote(e)})`, source: e.source, section: I }));
  mem('issues', 'issue', g.issues);

  if (task !== null && task.trim() !== '') items.push({ id: 'task', kind: 'task', section: 'TASK', group: 'task', source: 'request.task', score: null, ts: null, text: task.trim(), redactedLines: 0 });
  // Issue #23: a query given without a task is the task (already gated, as the packet's inputs hold it).
  else if (query.trim() !== '') items.push({ id: 'task', kind: 'task', section: 'TASK', group: 'task', source: 'request.query', score: null, ts: null, text: query.trim(), redactedLines: 0 });
  items.push({ id: 'protocol', kind: 'protocol', section: 'PROTOCOL', group: 'protocol', source: 'resources/protocol/ao-v1.md', score: null, ts: null, text: protocol.trim(), redactedLines: 0 });
  return items;
}

function renderSection(s: SectionState): string {
  const out = [`## ${s.spec.name}`];
  if (s.collapsed !== null) return `${out[0]}\n${s.collapsed}`;
  const blocks: string[] = [];
  const countedTotal = s.spec.groups.filter((g) => g.counted).reduce((n, g) => n + (s.initial.get(g.key) ?? 0), 0);
  for (const grp of s.spec.groups) {
    const items = s.items.filter((i) => i.group === grp.key);
    const note = s.notes.get(grp.key);
    if (items.length === 0 && !note) continue;
    // 000: an evicted gate group is only its count line ("14/16 gates passing (omitted for brevity).").
    if (grp.counted && items.length === 0 && note) {
      blocks.push(note);
      continue;
    }
    const lines = items.map((i) => i.text);
    if (note) lines.push(note);
    const title = grp.counted ? `${grp.title} (${s.initial.get(grp.key) ?? 0}/${countedTotal})` : grp.title;
    blocks.push(title ? `### ${title}\n${lines.join('\n')}` : lines.join('\n'));
  }
  if (blocks.length === 0) {
    const note = s.evicted > 0
      ? `All ${s.evicted} items were evicted to fit the budget; their ids are in the manifest.`
      : s.spec.emptyNote;
    return `${out[0]}\n${note}`;
  }
  // A section built from a fitness spec (it had gate items) gets 000's fitness intro, also once gates are trimmed.
  const intro = s.spec.introWhen && s.spec.groups.some((g) => g.counted && (s.initial.get(g.key) ?? 0) > 0) ? s.spec.introWhen.text : s.spec.intro;
  if (intro) out.push(intro, '');
  return `${out.join('\n')}\n${blocks.join('\n\n')}`;
}

/** 000 shows each learning's freshness: `, 0.92 freshness`. */
function freshnessNote(e: { freshness?: number }): string {
  return e.freshness === undefined ? '' : `, ${e.freshness.toFixed(2)} freshness`;
}

function countGroups(items: Item[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const i of items) m.set(i.group, (m.get(i.group) ?? 0) + 1);
  return m;
}

export function packetBody(query: string, sectionTexts: string[]): string {
  return `# CONTEXT PACKET\nQuery: ${queryLine(query)}\n\n${sectionTexts.join('\n\n')}\n`;
}

/** Longest query line the header shows: an issue handed over whole is in TASK, once, not again in the header. */
export const QUERY_LINE_MAX = 200;

/** The header's query: its first non-empty line, cut at QUERY_LINE_MAX, saying how much more TASK holds. */
export function queryLine(query: string): string {
  const lines = query.trim().split('\n');
  if (lines.length === 1 && query.length <= QUERY_LINE_MAX) return query;
  const first = lines.find((l) => l.trim() !== '')?.trim() ?? '';
  const cut = first.length > QUERY_LINE_MAX ? `${first.slice(0, QUERY_LINE_MAX - 1)}…` : first;
  return lines.length > 1 ? `${cut} (+${lines.length - 1} more lines, in TASK)` : cut;
}

/**
 * `charBudget`: the packet's size in chars when the caller knows better than maxTokens × charsPerToken (the exact
 * budget: code has fewer chars per token, so assemble lowers it until the real token count fits).
 */
export function layoutAo(template: AoTemplate, items: Item[], query: string, maxTokens: number, compress: Compressor | null = null, charBudget?: number): AoLayout {
  const budgetChars = charBudget ?? maxTokens * template.charsPerToken;
  const factor = (maxTokens * template.charsPerToken) / template.totalTarget;
  const scale = (x: number) => Math.round(x * factor);
  const states = new Map<AoSectionName, SectionState>();
  for (const spec of template.sections) {
    states.set(spec.name, {
      spec,
      target: scale(spec.target),
      items: items.filter((i) => i.section === spec.name),
      notes: new Map(),
      collapsed: null,
      initial: countGroups(items.filter((i) => i.section === spec.name)),
      evicted: 0,
      truncated: false,
    });
  }
  const dropped: DroppedItem[] = [];
  const events: TruncationEvent[] = [];
  const warnings: string[] = [];
  const sectionChars = (s: SectionState) => renderSection(s).length;
  const total = () => packetBody(query, [...states.values()].map(renderSection)).length;

  const drop = (s: SectionState, victims: Item[], reason: string) => {
    for (const v of victims) {
      s.items.splice(s.items.indexOf(v), 1);
      s.evicted++;
      dropped.push({ id: v.id, section: v.section, kind: v.kind, source: v.source, score: v.score, reason });
    }
  };

  /** One eviction move; `fits` says when a repeated move (lowest score) may stop. */
  const apply = (step: AoEvictionStep, why: TruncationEvent['reason'], fits: () => boolean) => {
    const s = states.get(step.section)!;
    let before = sectionChars(s);
    const ids: string[] = [];
    const reason = `${step.label} (${why === 'section_over_target' ? 'section over its target' : 'packet over budget'})`;
    if (step.action === 'limit_group') {
      const victims = s.items.filter((i) => i.group === step.group).slice(step.keep);
      drop(s, victims, reason);
      ids.push(...victims.map((v) => v.id));
    } else if (step.action === 'drop_lowest_score') {
      // 003: compress before dropping. Lowest score first, each item to its provenance line + key sentences (code:
      // its pointer, and then an excerpt while the budget allows).
      if (compress) {
        const squeezed: string[] = [];
        const cBefore = sectionChars(s);
        const order = [...s.items].sort((a, b) => (a.score ?? 0) - (b.score ?? 0) || s.items.indexOf(b) - s.items.indexOf(a));
        const was = new Map<Item, Item>();
        for (const it of order) {
          if (fits()) break;
          const c = compress(it);
          if (!c) continue;
          s.items[s.items.indexOf(it)] = c;
          was.set(c, it);
          squeezed.push(it.id);
        }
        regainExcerpts(s.items, was, compress, fits);
        if (squeezed.length > 0) {
          s.truncated = true;
          events.push({ section: s.spec.name, step: step.label.replace('lowest score first', 'compress lowest score first'), reason: why, action: 'compress', compressed_ids: squeezed, dropped_ids: [], chars_before: cBefore, chars_after: sectionChars(s) });
          before = sectionChars(s);
        }
      }
      while (!fits() && s.items.length > 0) {
        // Lowest score goes first; among equals, the later-ranked one.
        let victim = s.items[0];
        for (const i of s.items) if ((i.score ?? 0) <= (victim.score ?? 0)) victim = i;
        drop(s, [victim], reason);
        ids.push(victim.id);
      }
    } else {
      const victims = s.items.filter((i) => i.kind === 'priority');
      if (victims.length > 0) {
        drop(s, victims, reason);
        ids.push(...victims.map((v) => v.id));
        s.notes.set('priorities', `${victims.length} ${victims.length === 1 ? 'priority' : 'priorities'} (omitted for brevity).`);
      }
      // 000: only failing gates and directives stay; the others become their count line.
      const total = s.spec.groups.filter((g) => g.counted).reduce((n, g) => n + (s.initial.get(g.key) ?? 0), 0);
      for (const grp of s.spec.groups) {
        if (!grp.counted || grp.key === 'failing') continue;
        const gv = s.items.filter((i) => i.group === grp.key);
        if (gv.length === 0) continue;
        drop(s, gv, reason);
        ids.push(...gv.map((v) => v.id));
        s.notes.set(grp.key, `${s.initial.get(grp.key)}/${total} gates ${grp.counted.noun} (omitted for brevity).`);
      }
    }
    if (ids.length === 0) return;
    s.truncated = true;
    events.push({ section: s.spec.name, step: step.label, reason: why, action: 'drop', dropped_ids: ids, chars_before: before, chars_after: sectionChars(s) });
  };

  // 1. Sections over their own target, by their own rule (000's per-section truncation behaviour).
  for (const s of states.values()) {
    // Sections before it are already trimmed and TASK / PROTOCOL are fixed, so what the others leave of the
    // packet budget is known here.
    // The reported target stays the template's; only the trimming point moves.
    const limit = s.spec.absorbsSlack ? Math.max(s.target, budgetChars - (total() - sectionChars(s))) : s.target;
    const rules = template.sectionRules[s.spec.name] ?? [];
    for (const step of rules) {
      if (sectionChars(s) <= limit) break;
      apply(step, 'section_over_target', () => sectionChars(s) <= limit);
    }
  }
  // 2. The packet over budget: HISTORY → INTEL → GOALS; TASK and PROTOCOL never.
  for (const step of template.overflow) {
    if (total() <= budgetChars) break;
    apply(step, 'packet_over_budget', () => total() <= budgetChars);
  }
  // 3. Pathological: HISTORY to a single summary line.
  if (total() > budgetChars) {
    const h = states.get(template.pathological.section)!;
    const before = sectionChars(h);
    const victims = [...h.items];
    const counts = new Map<string, number>();
    for (const v of victims) counts.set(v.kind, (counts.get(v.kind) ?? 0) + 1);
    const prior = h.evicted;
    drop(h, victims, `${template.pathological.label} (packet over budget)`);
    const summary = [...counts].map(([k, n]) => `${n} ${k.replace('_', ' ')}`).join(', ');
    h.collapsed = `History omitted to fit the budget (${summary || 'no entries'}${prior ? `, ${prior} trimmed earlier` : ''}); ids are in the manifest.`;
    h.truncated = true;
    events.push({ section: h.spec.name, step: template.pathological.label, reason: 'pathological', dropped_ids: victims.map((v) => v.id), chars_before: before, chars_after: sectionChars(h) });
  }
  const finalTotal = total();
  if (finalTotal > budgetChars) {
    warnings.push(`packet is ${finalTotal - budgetChars} chars over its ${budgetChars}-char budget after all trimming: TASK and PROTOCOL are never trimmed`);
  }
  const out: AoLayout['sections'] = [];
  for (const s of states.values()) {
    const text = renderSection(s);
    const max = scale(s.spec.max);
    if (!s.spec.trimmable && text.length > max) warnings.push(`${s.spec.name} is ${text.length} chars, over its ${max}-char max; it is never trimmed, compress it before assembly`);
    const empty = s.items.length === 0 && s.notes.size === 0;
    out.push({
      name: s.spec.name,
      text,
      spec: s.spec,
      min: scale(s.spec.min),
      target: s.target,
      max,
      items: s.items,
      truncated: s.truncated,
      note: s.collapsed ?? (empty ? text.slice(text.indexOf('\n') + 1) : null),
    });
  }
  return { sections: out, body: packetBody(query, out.map((s) => s.text)), dropped, events, warnings, budgetChars };
}
