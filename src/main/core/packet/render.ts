import type { CanonicalPacket, ContextPackV2Fields, PacketFormat, PacketManifest } from '../../../shared/packet.ts';
import { DEFAULT_TIME_BUDGET_MS } from '../redact/index.ts';
import { packetBody } from './ao-v1.ts';
import { packId } from './snapshots.ts';

const MEMORY_KINDS = new Set(['goal', 'gate', 'blocker', 'priority', 'directive', 'state', 'decision_timeline', 'decision', 'learning', 'issue']);

/** The manifest is a view of the stored packet plus its hash, so a replayed packet yields the same manifest. */
export function manifestOf(p: CanonicalPacket, hash: string): PacketManifest {
  return {
    schema_version: 1,
    pack_id: packId(hash),
    template: p.template,
    query: p.inputs.query,
    task: p.inputs.task,
    budgets: { ...p.budgets, sections: p.sections.map((s) => s.budget) },
    included: p.included,
    dropped: p.dropped,
    truncation_events: p.truncation_events,
    redactions: p.redactions,
    retrieval: p.retrieval,
    models: p.models,
    engine_version: p.engine_version,
    evidence_ids: p.included.filter((i) => i.kind === 'evidence').map((i) => i.id),
    memory_block_ids: p.included.filter((i) => MEMORY_KINDS.has(i.kind)).map((i) => i.id),
    dropped_ids: p.dropped.map((d) => d.id),
    policy_rules: p.policy_rules,
    tool_capabilities: p.inputs.tools,
    budget_warnings: p.budget_warnings,
    degradations: p.degradations,
    ...validityOf(p),
    ...(p.cited_sources ? { cited_sources: p.cited_sources } : {}),
    context_snapshot_hash: hash,
  };
}

/** The packet's ContextPackV2 fields; a snapshot from before engine 1.1.0 has none, and says so in each. */
export function contextV2Of(p: CanonicalPacket): ContextPackV2Fields {
  if (p.context_v2) return p.context_v2;
  const none = { source: `not recorded (built by ${p.engine_version})`, items: [], empty: 'this packet predates the ContextPackV2 fields' };
  return { constraints: none, preferences: none, durable_facts: none, suggested_plan: none, routing_hints: none };
}

/** Acceptance items that ask for proof: the checklist "requires evidence" (003's Required vs Optional Items). */
const NEEDS_PROOF = /\b(evidence|sources?|cite[sd]?|citations?|proofs?|links?|references?|benchmarks?|measured|figures?)\b/i;

/**
 * 003's Required vs Optional Items, derived from what the packet recorded (so a stored packet's manifest is
 * stable): the step and its acceptance checklist are required; evidence is required when the checklist asks for
 * proof or tools are in scope, and `evidence_needed` says it is missing.
 */
export function validityOf(p: CanonicalPacket): { validity: { valid: boolean; reasons: string[] }; evidence_needed: boolean } {
  const reasons: string[] = [];
  const task = p.inputs.task;
  const criteria = successCriteria(task);
  const query = p.inputs.query.trim();
  if ((task === null || task.trim() === '') && query === '') reasons.push('step: no task given — mark the pack invalid and ask the planner to restate the step (--task-file)');
  else if (task === null || task.trim() === '') reasons.push('acceptance: no task was given, only a query (it stands as the task), so there are no acceptance criteria to check the work against (--task-file with a "- [ ]" list)');
  else if (criteria.length === 0) reasons.push('acceptance: the task has no acceptance criteria (a "- [ ]" checklist or an "Acceptance" list) — split or clarify the step');
  const signals = p.inputs.signals ?? {};
  const required = criteria.some((c) => NEEDS_PROOF.test(c)) || p.inputs.tools.length > 0 || (signals.checklist_evidence_ratio ?? 0) > 0 || (signals.expected_tool_calls ?? 0) > 0;
  const present = p.included.some((i) => i.kind === 'evidence');
  return { validity: { valid: reasons.length === 0, reasons }, evidence_needed: required && !present };
}

/** The text the agent reads, exactly as budgeted (the hash comment is the only addition). */
export function packetText(p: CanonicalPacket): string {
  const texts = p.sections.filter((s) => !s.budget.reserved).map((s) => s.text);
  return p.template === 'ao-v1' ? packetBody(p.inputs.query, texts) : `# CONTEXT PACK\n\n${texts.join('\n\n')}\n`;
}

export function renderMarkdown(p: CanonicalPacket, hash: string): string {
  return `<!-- contextpack schema_version=1 template=${p.template} pack_id=${packId(hash)} context_snapshot_hash=${hash} -->\n${packetText(p)}`;
}

export function renderJson(p: CanonicalPacket, hash: string): string {
  const doc = {
    schema_version: 1,
    kind: 'contextpack.packet',
    template: p.template,
    pack_id: packId(hash),
    context_snapshot_hash: hash,
    query: p.inputs.query,
    sections: p.sections
      .filter((s) => !s.budget.reserved)
      .map((s) => ({ name: s.name, text: s.text, items: p.included.filter((i) => i.section === s.name) })),
    text: packetText(p),
    // 001's ContextPackV2 fields, each with its source or the reason it is empty.
    context_pack_v2: contextV2Of(p),
    manifest: manifestOf(p, hash),
  };
  return JSON.stringify(doc, null, 2) + '\n';
}

/**
 * Acceptance criteria of the task, as ContextOS success criteria: checklist lines (`- [ ] …`) anywhere, and the
 * list items under a heading or label naming acceptance ("### Acceptance Criteria", "Acceptance:", "Done when").
 */
export function successCriteria(task: string | null): string[] {
  if (!task) return [];
  const out: string[] = [];
  let under = false;
  for (const line of task.split('\n')) {
    const m = /^\s*[-*]\s+\[[ xX]\]\s+(.+?)\s*$/.exec(line);
    if (m) {
      out.push(m[1]);
      continue;
    }
    const heading = /^\s*(#{1,6}\s+.*|[A-Za-z][\w ]{0,40}:\s*)$/.exec(line);
    if (heading) {
      under = /acceptance|done when|definition of done|success criteria/i.test(line);
      continue;
    }
    const item = /^\s*(?:[-*]|\d+[.)])\s+(.+?)\s*$/.exec(line);
    if (under && item) out.push(item[1]);
    else if (line.trim() !== '' && !item) under = false;
  }
  return out;
}

/** 001's ten-layer ContextOS projection of the packet: a strict-contract view, nothing the packet lacks. */
export function projectContextOs(p: CanonicalPacket, hash: string) {
  const m = manifestOf(p, hash);
  const pick = (kinds: string[]) => p.included.filter((i) => kinds.includes(i.kind)).map((i) => ({ id: i.id, kind: i.kind, source: i.source, score: i.score, digest: i.digest }));
  const criteria = successCriteria(p.inputs.task);
  const v2 = contextV2Of(p);
  return {
    contract_meta: { contract: 'contextos-context-pack', contract_version: 2, schema_version: 1, producer: p.engine_version, projected_from: `contextpack.packet@${p.template}` },
    pack_meta: {
      pack_id: m.pack_id,
      version: hash.slice(0, 12),
      ref: `${m.pack_id}@${hash.slice(0, 12)}`,
      template: p.template,
      content_hash: `sha256:${hash}`,
      context_snapshot_hash: hash,
      models: p.models,
    },
    intelligence_refs: { evidence: pick(['evidence']), retrieval: p.retrieval },
    business_context: {
      intent: p.inputs.query,
      task: p.inputs.task,
      goals: pick(['goal', 'gate', 'blocker', 'priority', 'directive']),
      payload: packetText(p),
      constraints: v2.constraints,
      preferences: v2.preferences,
      suggested_plan: v2.suggested_plan,
    },
    policy_layer: {
      routing_hints: v2.routing_hints,
      redaction: { rules: p.policy_rules, count: p.redactions.count, by_type: p.redactions.by_type, fail_closed: true },
      runtime_controls: { redaction_time_budget_ms: DEFAULT_TIME_BUDGET_MS, budget_unit: p.budgets.unit, total_budget: p.budgets.total_budget },
    },
    tooling_layer: {
      tools: p.inputs.tools.map((t) => ({
        name: t.name,
        purpose: t.purpose,
        ...(t.input_schema ? { input_schema: t.input_schema } : {}),
        capability_class: t.capability_class ?? 'observe',
        risk_level: t.risk_level ?? 'read_safe',
        approval_mode: t.approval_mode ?? 'read_only',
      })),
    },
    decision_layer: { decisions: pick(['decision', 'decision_timeline']), dropped_ids: m.dropped_ids },
    memory_layer: { blocks: pick(['state', 'learning', 'issue', 'goal', 'gate']), defaults: { write_back: 'explicit', scope: 'project' }, durable_facts: v2.durable_facts },
    evaluation_layer: {
      success_criteria: criteria,
      validity: m.validity,
      evidence_needed: m.evidence_needed,
      budget_report: m.budgets,
      budget_warnings: p.budget_warnings,
      truncation_events: p.truncation_events,
    },
    tone_and_comms: { format: 'markdown', section_order: p.sections.filter((s) => !s.budget.reserved).map((s) => s.name), stable_headers: true },
    context_ledger: {
      pack_id: m.pack_id,
      request: { query: p.inputs.query, template: p.template, max_tokens: p.inputs.max_tokens },
      policy_rules: p.policy_rules,
      tool_capabilities: m.tool_capabilities,
      evidence_ids: m.evidence_ids,
      memory_block_ids: m.memory_block_ids,
      budget_warnings: p.budget_warnings,
      dropped_block_ids: m.dropped_ids,
      context_snapshot_hash: hash,
    },
  };
}

export function renderPacket(p: CanonicalPacket, hash: string, format: PacketFormat): string {
  if (format === 'md') return renderMarkdown(p, hash);
  if (format === 'json') return renderJson(p, hash);
  if (format === 'contextos') return JSON.stringify(projectContextOs(p, hash), null, 2) + '\n';
  throw new Error(`unknown packet format ${JSON.stringify(format)} (expected md, json or contextos)`);
}
