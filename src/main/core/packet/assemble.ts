import type { Database } from 'better-sqlite3';
import type {
  AssembledPacket,
  CanonicalPacket,
  InjectionRecord,
  PacketFormat,
  PacketInputs,
  PacketRequest,
  PacketSection,
} from '../../../shared/packet.ts';
import type { SearchFilters } from '../../../shared/types.ts';
import { getDefaultRedactor, type RedactionEvent, type Redactor } from '../redact/index.ts';
import { createTokenCounter, estimateTokens, type TokenCounter } from '../tokens/index.ts';
import { layoutAo, buildAoItems, queryLine } from './ao-v1.ts';
import { canonicalJson, normalizeText, sha256Hex } from './canonical.ts';
import { createCompressor } from './compress.ts';
import { buildContextV2 } from './v2.ts';
import { gather } from './gather.ts';
import { Gate, gateTools, itemRef } from './items.ts';
import { buildLayeredItems, layoutLayered } from './layered-v1.ts';
import { briefTask, taskRoomChars } from './task-brief.ts';
import { renderPacket, manifestOf, successCriteria } from './render.ts';
import { resolveRequest, type ResolvedRequest } from './request.ts';
import { appendInjection, packId, saveSnapshot } from './snapshots.ts';
import { saveCitedSources } from './staleness.ts';
import { citePath } from '../../../shared/provenance.ts';
import type { SearchHit } from '../../../shared/types.ts';
import { readStaticText, type PacketSources } from './sources.ts';
import { AO_V1, LAYERED_V1 } from './templates.ts';

/** Bumped when the same inputs would assemble differently; part of every hash. */
export const PACKET_ENGINE_VERSION = 'contextpack-packet/1.1.0';

export interface AssembleDeps {
  /** Where snapshots and the injection log live; omitted → nothing is stored (a dry run). */
  db?: Database | null;
  sources: PacketSources;
  redactor?: Redactor;
  /** Every redaction event, with the line in its source (JSONL sink: createJsonlRedactionLog). */
  redactionLog?: ((e: RedactionEvent) => void) | null;
  /** 000's injection-log.jsonl sink, in addition to the packet_injections table. */
  injectionLog?: ((r: InjectionRecord) => void) | null;
  now?: () => Date;
  counter?: TokenCounter;
}

const counters = new Map<string, TokenCounter>();
function counterFor(encoding: ResolvedRequest['encoding']): TokenCounter {
  let c = counters.get(encoding);
  if (!c) counters.set(encoding, (c = createTokenCounter(encoding)));
  return c;
}

/** Globs are free text: each passes the gate before it is recorded in the manifest. */
function gateFilters(gate: Gate, f: SearchFilters): SearchFilters {
  const globs = (key: 'include' | 'exclude' | 'excludeDefault') =>
    f[key] === undefined ? {} : { [key]: f[key]!.map((g, i) => gate.pass(g, `request.filters.${key}[${i}]`, 'FILTERS').text) };
  return {
    ...f,
    ...(f.pathGlob !== undefined ? { pathGlob: gate.pass(f.pathGlob, 'request.filters.pathGlob', 'FILTERS').text } : {}),
    ...globs('include'),
    ...globs('exclude'),
    ...globs('excludeDefault'),
  };
}

function withoutDefaults(f: SearchFilters | null): SearchFilters | undefined {
  if (f === null) return undefined;
  const { excludeDefault: _d, ...rest } = f;
  return rest;
}

/**
 * ao-v1 within max_tokens by the real token count (issue #23): the layout budgets chars (4 per token), and code has
 * fewer chars per token, so while the body counts over, the char budget shrinks by the overshoot and the layout runs
 * again (sections keep their targets; only the trimming point moves). A few rounds converge; what TASK and PROTOCOL
 * alone exceed stays a budget warning.
 */
function exactAo(items: Parameters<typeof layoutAo>[1], query: string, maxTokens: number, compress: ReturnType<typeof createCompressor>, counter: TokenCounter): ReturnType<typeof layoutAo> {
  let chars = maxTokens * AO_V1.charsPerToken;
  let l = layoutAo(AO_V1, items, query, maxTokens, compress, chars);
  // Over its char budget after all trimming: TASK and PROTOCOL alone overflow, and a smaller budget cannot help.
  if (l.body.length > chars) return l;
  for (let round = 0; round < 6; round++) {
    const tokens = counter.count(l.body);
    if (tokens <= maxTokens) return l;
    chars = Math.floor(Math.min(chars - 1, l.body.length) * (maxTokens / tokens) * 0.99);
    const next = layoutAo(AO_V1, items, query, maxTokens, compress, chars);
    if (next.body.length >= l.body.length) {
      l = next;
      break;
    }
    l = next;
  }
  const over = counter.count(l.body) - maxTokens;
  if (over > 0) l.warnings.push(`packet is ${over} tokens over max_tokens ${maxTokens} after all trimming: TASK and PROTOCOL are never trimmed`);
  return l;
}

/** Builds the canonical packet for a request without storing it. Same request + same store → same packet. */
/**
 * What retrieval searches for: the query, and the task when one is given (the task's words weigh by where they are
 * said, task-terms.ts). A task that already holds the query (its title) is searched alone.
 */
export function retrievalText(query: string, task: string | null): string {
  if (task === null || task.trim() === '') return query;
  const q = query.trim();
  if (q === '' || task.includes(q)) return task;
  return `${q}\n\n${task}`;
}

export async function buildPacket(request: PacketRequest, deps: AssembleDeps): Promise<CanonicalPacket> {
  return (await buildCitedPacket(request, deps)).packet;
}

/** The packet and the hits its included evidence cites (with their sources' content hashes, kept beside the snapshot). */
async function buildCitedPacket(request: PacketRequest, deps: AssembleDeps): Promise<{ packet: CanonicalPacket; cites: SearchHit[] }> {
  const r = resolveRequest(request);
  const redactor = deps.redactor ?? getDefaultRedactor();
  const counter = deps.counter && deps.counter.encoding === r.encoding ? deps.counter : counterFor(r.encoding);
  const gate = new Gate(redactor, deps.redactionLog ?? null, Array.isArray(request.recordedRedactions) ? request.recordedRedactions : []);
  const staticText = deps.sources.staticText ?? ((name: string) => readStaticText(name));

  // Every free-text member of the request passes the gate here, before it enters `inputs`: from there it reaches
  // the stored bytes, the manifest and all three formats, none of which judges it again.
  const query = gate.pass(r.query, 'request.query', 'QUERY').text;
  const task = r.task === null ? null : gate.pass(r.task, 'request.task', 'TASK').text;
  const tools = gateTools(gate, r.tools);
  // The project's default evidence excludes (settings) join the request's filters; the manifest records them apart.
  const defaults = r.useDefaultExcludes ? (deps.sources.defaultExcludes?.() ?? []) : [];
  const rawFilters = defaults.length === 0 ? r.filters : { ...(r.filters ?? {}), excludeDefault: defaults };
  const filters = rawFilters === null ? null : gateFilters(gate, rawFilters);
  const inputs: PacketInputs = {
    query,
    task,
    // Of the gated text: a digest of the raw task would let anyone holding the packet confirm a guessed redacted line.
    task_sha256: task === null ? null : sha256Hex(normalizeText(task)),
    template: r.template,
    max_tokens: r.maxTokens,
    encoding: r.encoding,
    k: r.k,
    filters,
    profile: r.template === 'layered-v1' ? r.profile : null,
    signals: r.template === 'layered-v1' ? r.signals : null,
    tools: tools.tools,
    conversation: [],
  };
  // Searches with the caller's own query and filters; the packet records only their gated forms.
  // Issue #32: the task feeds retrieval too (an issue handed over with --task-file needs no separate query).
  const retrieval = retrievalText(r.query, r.task);
  const g = await gather(deps.sources, inputs, { query: retrieval, filters: rawFilters }, gate);
  const degradations = [...g.degradations];
  // Seed 000: a task over its room is compressed before the layout (which never trims TASK); the whole task has
  // already fed retrieval and stays in the inputs (task-brief.ts).
  // A query given without a task is the task (issue #23), so an issue handed over as the query is shortened alike.
  const hasTask = task !== null && task.trim() !== '';
  const shown = hasTask ? task : query;
  const brief = !r.briefTask || shown.trim() === '' ? null : briefTask(shown, taskRoomChars(r.template, r.maxTokens));
  if (r.briefTask) inputs.task_brief = true;
  const shownTask = hasTask && brief !== null ? brief.text : task;
  const shownQuery = !hasTask && brief !== null ? brief.text : query;
  if (brief?.shortened) degradations.push(`TASK: ${brief.text.slice(brief.text.lastIndexOf('\n') + 1).replace(/^\[|\]$/g, '')}`);

  let sections: PacketSection[];
  let body: string;
  let budgets: CanonicalPacket['budgets'];
  let layout: { dropped: CanonicalPacket['dropped']; events: CanonicalPacket['truncation_events']; warnings: string[] };
  let included: ReturnType<typeof itemRef>[];

  if (r.template === 'ao-v1') {
    let protocolText = staticText('ao-v1');
    if (protocolText === null) {
      degradations.push('protocol: resources/protocol/ao-v1.md missing; minimal template used');
      protocolText = AO_V1.minimalProtocol;
    }
    const protocol = gate.pass(protocolText, 'resources/protocol/ao-v1.md', 'PROTOCOL').text;
    const items = buildAoItems(g, gate, shownTask, protocol, shownQuery);
    const l = exactAo(items, query, r.maxTokens, createCompressor(gate, retrieval), counter);
    sections = l.sections.map((s) => {
      const m = counter.measure(s.text);
      return { name: s.name, text: s.text, budget: { name: s.name, min: s.min, target: s.target, max: s.max, unit: 'chars', chars: m.chars, tokens: m.tokens, estimate_tokens: m.estimate, items: s.items.length, truncated: s.truncated, note: s.note } };
    });
    for (const s of l.sections) if (s.note !== null && s.spec.trimmable && !s.truncated) degradations.push(`${s.name}: ${s.note.split('\n')[0]}`);
    if (task === null || task.trim() === '') degradations.push(query.trim() === '' ? 'TASK: no task given' : 'TASK: no task given; the query is the task');
    body = l.body;
    included = l.sections.flatMap((s) => s.items.map(itemRef));
    layout = l;
    budgets = { unit: 'chars', total_budget: l.budgetChars, max_tokens: r.maxTokens, total_chars: body.length, total_tokens: counter.count(body), total_estimate_tokens: estimateTokens(body) };
  } else {
    let systemText = staticText('layered-v1-system');
    if (systemText === null) {
      degradations.push('system: resources/protocol/layered-v1-system.md missing; minimal text used');
      systemText = LAYERED_V1.minimalSystem;
    }
    const system = gate.pass(systemText, 'resources/protocol/layered-v1-system.md', 'SYSTEM').text;
    inputs.conversation = r.conversation.map((t, i) => ({ ...t, text: gate.pass(t.text, `request.conversation[${i}]`, 'CONVERSATION').text }));
    if (r.conversation.length > 0) inputs.keep_turns = r.keepTurns;
    if (r.turnsElsewhere > 0) inputs.turns_elsewhere = r.turnsElsewhere;
    const items = buildLayeredItems(g, gate, { system, task: shownTask, query: shownQuery, tools: inputs.tools, toolRedactions: tools.redacted, conversation: inputs.conversation, keepTurns: r.keepTurns, turnsElsewhere: r.turnsElsewhere });
    // A shortened query is in TASK; the closing request names it by its first line instead of repeating it.
    const l = layoutLayered(LAYERED_V1, items, { query: shownQuery === query ? query : queryLine(query), window: r.maxTokens, profile: r.profile, signals: r.signals, counter, compress: createCompressor(gate, retrieval), acceptance: successCriteria(task) });
    sections = l.layers.map((x) => ({
      name: x.name,
      text: x.text,
      budget: {
        name: x.name,
        min: x.reserved || x.allocation === null ? x.floor : 0,
        target: x.allocation ?? x.floor,
        max: x.allocation,
        unit: 'tokens',
        chars: x.text.length,
        tokens: x.tokens,
        estimate_tokens: estimateTokens(x.text),
        items: x.items.length,
        truncated: x.truncated,
        note: x.note,
        ...(x.reserved ? { reserved: true } : {}),
      },
    }));
    for (const x of l.layers) if (x.note !== null && !x.truncated && !x.reserved) degradations.push(`${x.name}: ${x.note.split('\n')[0]}`);
    body = l.body;
    included = l.layers.flatMap((x) => x.items.map(itemRef));
    layout = l;
    const slack = sections.find((s) => s.budget.reserved)!.budget.target ?? 0;
    budgets = {
      unit: 'tokens',
      total_budget: r.maxTokens - slack,
      max_tokens: r.maxTokens,
      window: r.maxTokens,
      profile: r.profile,
      weights: { evidence: l.weights.EVIDENCE, memory: l.weights.MEMORY, conversation: l.weights.CONVERSATION },
      signals: r.signals,
      total_chars: body.length,
      total_tokens: counter.count(body),
      total_estimate_tokens: estimateTokens(body),
    };
  }

  const citedItems = included.filter((i) => i.kind === 'evidence' && gate.cited.has(i.id)).map((i) => ({ id: i.id, hit: gate.cited.get(i.id)! }));
  const cites = citedItems.map((c) => c.hit);
  // A cited path the gate redacted stays out of the packet: its item id already shows the marker instead.
  const citedSources = [...new Map(citedItems
    .filter((c) => c.id.startsWith(citePath(c.hit)))
    .map((c) => [citePath(c.hit), { path: citePath(c.hit), root_id: c.hit.rootId ?? null }] as const)).values()]
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const packet: CanonicalPacket = {
    schema_version: 1,
    engine_version: PACKET_ENGINE_VERSION,
    template: r.template,
    inputs,
    sections,
    included,
    dropped: layout.dropped,
    truncation_events: layout.events,
    redactions: gate.summary(),
    retrieval: g.retrieval,
    models: { tokenizer: r.encoding, embedder: deps.sources.embedderId ?? null, retriever: deps.sources.retriever.mode },
    budgets,
    policy_rules: redactor.rules.map((x) => x.id),
    budget_warnings: layout.warnings,
    degradations,
    context_v2: buildContextV2(g, gate, inputs, included.filter((i) => i.kind === 'evidence')),
    cited_sources: citedSources,
  };
  return { packet, cites };
}

export function encodePacket(packet: CanonicalPacket): { bytes: Uint8Array; hash: string } {
  const bytes = new TextEncoder().encode(canonicalJson(packet));
  return { bytes, hash: sha256Hex(bytes) };
}

export function injectionRecord(packet: CanonicalPacket, hash: string, ts: string, sessionId: string | null): InjectionRecord {
  const sections: InjectionRecord['sections'] = {};
  for (const s of packet.sections) if (!s.budget.reserved) sections[s.name.toLowerCase()] = { chars: s.budget.chars, tokens: s.budget.tokens, items: s.budget.items };
  const b = packet.budgets;
  return {
    schema_version: 1,
    ts,
    session_id: sessionId,
    pack_id: packId(hash),
    context_snapshot_hash: hash,
    template: packet.template,
    query: packet.inputs.query,
    sections,
    total_chars: b.total_chars,
    total_tokens: b.total_tokens,
    total_tokens_est: b.total_estimate_tokens,
    budget_chars: b.unit === 'chars' ? b.total_budget : b.total_budget * 4,
    redactions: packet.redactions.count,
    truncated_sections: packet.sections.filter((s) => s.budget.truncated).map((s) => s.name.toLowerCase()),
  };
}

/**
 * Assembles, stores the snapshot under its hash and appends the injection record, in one transaction, then
 * renders the requested format.
 */
export async function assemble(request: PacketRequest, deps: AssembleDeps, format: PacketFormat = 'md'): Promise<AssembledPacket> {
  const { packet, cites } = await buildCitedPacket(request, deps);
  const { bytes, hash } = encodePacket(packet);
  const text = renderPacket(packet, hash, format);
  const ts = (deps.now ?? (() => new Date()))().toISOString();
  const sessionId = gatedSessionId(request.sessionId ?? null, deps);
  const record = injectionRecord(packet, hash, ts, sessionId);
  if (deps.db) {
    const db = deps.db;
    db.transaction(() => {
      saveSnapshot(db, { hash, bytes, packet, request: recordedRequest(request, packet, sessionId), createdAt: ts });
      appendInjection(db, record);
      saveCitedSources(db, hash, cites);
    }).immediate();
  }
  deps.injectionLog?.(record);
  return { hash, bytes, packet, manifest: manifestOf(packet, hash), text, format };
}

/**
 * The session id is stored with the injection record, not in the packet (two sessions asking alike get the same
 * hash), so it passes the redactor on its own rather than through the packet's gate.
 */
function gatedSessionId(sessionId: string | null, deps: AssembleDeps): string | null {
  if (sessionId === null) return null;
  const r = (deps.redactor ?? getDefaultRedactor()).redactText(normalizeText(sessionId), { source: 'request.sessionId', section: 'SESSION' });
  for (const e of r.redactions) deps.redactionLog?.(e);
  return r.text;
}

/**
 * The request stored beside the snapshot (for `replay --reassemble`): the members the request type names, with
 * every free-text one in its gated form from the packet's inputs, never the caller's raw text. A request that lost
 * a line to the gate reassembles from what is left of it.
 */
function recordedRequest(request: PacketRequest, p: CanonicalPacket, sessionId: string | null): PacketRequest {
  const i = p.inputs;
  const out: PacketRequest = {
    query: i.query,
    task: i.task ?? undefined,
    template: request.template,
    maxTokens: request.maxTokens,
    encoding: request.encoding,
    k: request.k,
    filters: request.filters === undefined ? undefined : withoutDefaults(i.filters),
    useDefaultExcludes: request.useDefaultExcludes,
    profile: request.profile,
    signals: request.signals === undefined ? undefined : (i.signals ?? undefined),
    tools: request.tools === undefined ? undefined : i.tools,
    // ao-v1 neither reads nor gates the conversation, so it is not kept.
    conversation: request.conversation === undefined || p.template !== 'layered-v1' ? undefined : i.conversation,
    keepTurns: request.keepTurns === undefined || p.template !== 'layered-v1' ? undefined : request.keepTurns,
    turnsElsewhere: p.inputs.turns_elsewhere,
    briefTask: p.inputs.task_brief,
    sessionId: sessionId ?? undefined,
    // The gated text above no longer trips the gate where it was redacted; these events stand in for those hits.
    recordedRedactions: (() => {
      const ev = p.redactions.events.filter((e) => e.source.startsWith('request.'));
      return ev.length > 0 ? ev : undefined;
    })(),
  };
  return JSON.parse(JSON.stringify(out)) as PacketRequest;
}
