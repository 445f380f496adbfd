import type { CanonicalPacket, PacketFormat, PacketManifest } from '../../../shared/packet.ts';
import { DEFAULT_TIME_BUDGET_MS } from '../redact/index.ts';
import { packetBody } from './ao-v1.ts';
import { packId } from './snapshots.ts';

const MEMORY_KINDS = new Set(['goal', 'blocker', 'priority', 'directive', 'state', 'decision_timeline', 'decision', 'learning', 'issue']);

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
    context_snapshot_hash: hash,
  };
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
    manifest: manifestOf(p, hash),
  };
  return JSON.stringify(doc, null, 2) + '\n';
}

/** Acceptance checklist lines (`- [ ] …`) of the task, as ContextOS success criteria. */
export function successCriteria(task: string | null): string[] {
  if (!task) return [];
  const out: string[] = [];
  for (const line of task.split('\n')) {
    const m = /^\s*[-*]\s+\[[ xX]\]\s+(.+?)\s*$/.exec(line);
    if (m) out.push(m[1]);
  }
  return out;
}

/** 001's ten-layer ContextOS projection of the packet: a strict-contract view, nothing the packet lacks. */
export function projectContextOs(p: CanonicalPacket, hash: string) {
  const m = manifestOf(p, hash);
  const pick = (kinds: string[]) => p.included.filter((i) => kinds.includes(i.kind)).map((i) => ({ id: i.id, kind: i.kind, source: i.source, score: i.score, digest: i.digest }));
  const criteria = successCriteria(p.inputs.task);
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
    business_context: { intent: p.inputs.query, task: p.inputs.task, goals: pick(['goal', 'blocker', 'priority', 'directive']), payload: packetText(p) },
    policy_layer: {
      redaction: { rules: p.policy_rules, count: p.redactions.count, by_type: p.redactions.by_type, fail_closed: true },
      runtime_controls: { redaction_time_budget_ms: DEFAULT_TIME_BUDGET_MS, budget_unit: p.budgets.unit, total_budget: p.budgets.total_budget },
    },
    tooling_layer: {
      tools: p.inputs.tools.map((t) => ({
        name: t.name,
        purpose: t.purpose,
        capability_class: t.capability_class ?? 'observe',
        risk_level: t.risk_level ?? 'read_safe',
        approval_mode: t.approval_mode ?? 'read_only',
      })),
    },
    decision_layer: { decisions: pick(['decision', 'decision_timeline']), dropped_ids: m.dropped_ids },
    memory_layer: { blocks: pick(['state', 'learning', 'issue', 'goal']), defaults: { write_back: 'explicit', scope: 'project' } },
    evaluation_layer: {
      success_criteria: criteria,
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
