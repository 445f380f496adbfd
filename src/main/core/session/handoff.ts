// Seed 002's Agent Handoff Protocols: compact the context (40 % for continuation, 20 % otherwise), build the handoff
// package within the type's token budget, store it by hash beside the packets (template `handoff-<type>`), record
// the handoff in memory (step 3) and move the sender's section ownership to the recipient (step 4).
import type { Database } from 'better-sqlite3';
import {
  HANDOFF_BUDGET_RANGES,
  HANDOFF_REDUCTION_TARGETS,
  type HandoffDecision,
  type HandoffIssue,
  type HandoffPackage,
  type HandoffResult,
  type HandoffTaskState,
  type HandoffType,
  type OwnershipTransfer,
} from '../../../shared/session.ts';
import { getExecutiveSummary, sectionsOwnedBy, transferOwnership } from '../hierarchy/index.ts';
import { addMemory, getLatestState, openIssues, rehydrate, relevantLearnings, searchMemories } from '../memory/index.ts';
import { canonicalJson, saveSnapshotRow, sha256Hex } from '../packet/index.ts';
import { getDefaultRedactor, type RedactionEvent, type Redactor } from '../redact/index.ts';
import { countTokens, type TokenEncoding } from '../tokens/index.ts';
import type { Transcript } from '../transcripts/index.ts';
import { compactTranscript, type CompactionResult } from './compact.ts';
import { agentCapabilities, expertiseMatch, languagesOf, tagsOfMemories } from './expertise.ts';
import { extract, openErrorsOf, openIssuesOf, type Extraction } from './extract.ts';
import { gateCompaction, gateExtraction, gateStrings, mostlyRedacted } from './gate.ts';
import { renderHandoffMarkdown } from './handoff-render.ts';
import { saveExtraction } from './save.ts';
import { joinLines } from './one-line.ts';
import { inline } from './quote.ts';
import { lastReportOf, reportsDone } from './blocking.ts';
import { isRedactedText, tailSentences } from './requests.ts';

export interface HandoffRequest {
  type: HandoffType;
  /** Parsed transcript (not yet redacted: the builder runs the gate). Without one, the package comes from the store alone. */
  transcript?: Transcript | null;
  from?: string;
  to?: string;
  reason?: string;
  /** Lower than the type's budget to tighten it; a higher value is ignored (002's range tops it). */
  maxTokens?: number;
  /** Sections to hand over; default: every section the sender owns. */
  sections?: string[];
  encoding?: TokenEncoding;
}

export interface HandoffDeps {
  db?: Database | null;
  redactor?: Redactor;
  now?: () => Date;
  /** Every redaction event (the packets' logs/redaction.jsonl sink: packetLogs(dbPath).redactionLog). */
  redactionLog?: ((e: RedactionEvent) => void) | null;
}

export interface BuiltHandoff {
  package: HandoffPackage;
  hash: string;
  bytes: Uint8Array;
  markdown: string;
  /** Gated like the package (counts as measured on the transcript as written). */
  compaction: CompactionResult | null;
  /** Gated: what `--save` stores. */
  extraction: Extraction | null;
  /** The transcript as parsed (counted and compacted as written): internal, never to be shown as is. */
  transcript: Transcript | null;
}

/** What storing a handoff needs of a built one (all of it crosses a worker boundary: handoff-offload.ts). */
export type StorableHandoff = Pick<BuiltHandoff, 'package' | 'hash' | 'bytes' | 'markdown' | 'extraction'>;

const DEFAULT_FROM = 'agent';
const DEFAULT_TO = 'next-agent';
const norm = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
const uniq = (xs: string[]) => [...new Set(xs.filter((x) => x.trim() !== ''))];

export function handoffBudget(type: HandoffType, maxTokens?: number): number {
  const top = HANDOFF_BUDGET_RANGES[type][1];
  return maxTokens !== undefined && maxTokens < top ? maxTokens : top;
}

function storeDecisions(db: Database): HandoffDecision[] {
  return searchMemories(db, { types: ['decision'], importanceGte: 7, sort: 'importance', limit: 10 }).map(({ memory: m }) => {
    const c = m.content as { decision: string; rationale: string; alternatives_considered: { name: string; reason: string }[] };
    return { id: m.decision_id ?? m.memory_id, title: m.title, decision: c.decision, rationale: c.rationale, alternatives: c.alternatives_considered, importance: m.importance, source: `memory ${m.decision_id ?? m.memory_id}` };
  });
}

function storeIssues(db: Database): HandoffIssue[] {
  return openIssues(db, { limit: 15 }).map((m) => ({
    id: m.memory_id,
    title: m.title,
    severity: m.content.severity,
    detail: [m.content.description, m.content.investigation_status, m.content.next_actions].filter((s) => s && s.trim() !== '').join(' — '),
    source: `memory ${m.memory_id}`,
  }));
}

function stateFromStore(db: Database): HandoffTaskState | null {
  const s = getLatestState(db);
  if (!s) return null;
  return { task: s.content.task_description, completion_percentage: s.content.completion_percentage ?? null, completed: s.content.substeps_completed, in_progress: [], not_started: s.content.substeps_remaining, next_actions: s.content.next_actions, blockers: s.content.blockers };
}

/** Shrinks a text to `budget` tokens by dropping whole lines from the end, with a note saying so. */
function fitLines(text: string, budget: number, count: (s: string) => number): string {
  if (count(text) <= budget) return text;
  const lines = text.split('\n');
  const note = `[… truncated to fit the handoff budget of ${budget} tokens]`;
  let lo = 0;
  let hi = lines.length;
  // Binary search on the number of lines kept: counting is the cost, so log2(n) counts instead of n.
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (count(`${lines.slice(0, mid).join('\n')}\n${note}\n`) <= budget) lo = mid;
    else hi = mid - 1;
  }
  return lo === 0 ? '' : `${lines.slice(0, lo).join('\n')}\n${note}\n`;
}

export function buildHandoff(req: HandoffRequest, deps: HandoffDeps = {}): BuiltHandoff {
  const db = deps.db ?? null;
  const redactor = deps.redactor ?? getDefaultRedactor();
  const encoding = req.encoding ?? 'o200k_base';
  const count = (s: string) => countTokens(s, encoding);
  const now = (deps.now ?? (() => new Date()))();
  const type = req.type;
  const from = req.from?.trim() || DEFAULT_FROM;
  const to = req.to?.trim() || DEFAULT_TO;
  const maxTokens = handoffBudget(type, req.maxTokens);
  const reductionTarget = HANDOFF_REDUCTION_TARGETS[type];

  // The transcript as written: capacity, compaction and extraction measure it; the gate applies to what leaves.
  const transcript: Transcript | null = req.transcript ?? null;

  // Extraction first (no budget yet), so the structured fields are known before the context is sized.
  const x = transcript ? extract(transcript, { redacted: mostlyRedacted(redactor) }) : null;
  // What `--save` stores and the compaction report carries: gated once (not counted: the package counts its own).
  const gatedX = x ? gateExtraction(x, redactor, { n: 0 }) : null;
  const summary = db ? getExecutiveSummary(db) : null;

  const decisions: HandoffDecision[] = [];
  for (const d of x?.decisions ?? []) {
    if (d.importance < 7) continue;
    decisions.push({ id: `transcript:${d.at.turn}`, title: d.title, decision: d.decision, rationale: d.rationale, alternatives: d.alternatives, importance: d.importance, source: `${transcript!.source}:${d.at.line}` });
  }
  if (db) for (const d of storeDecisions(db)) if (!decisions.some((e) => norm(e.title) === norm(d.title))) decisions.push(d);

  const issues: HandoffIssue[] = [];
  for (const i of x ? openIssuesOf(x) : []) {
    issues.push({ id: i.key ?? i.id, title: i.title, severity: i.severity, detail: joinLines(i.text), source: `${transcript!.source}:${i.at.line}` });
  }
  if (db) for (const i of storeIssues(db)) if (!issues.some((e) => norm(e.title) === norm(i.title) || norm(i.title).includes(norm(e.title)))) issues.push(i);

  // A handoff of a transcript states that session's task, never one recorded in the store by another session.
  const state: HandoffTaskState = x
    ? { task: x.state.task, completion_percentage: x.state.completion_percentage, completed: x.state.completed, in_progress: x.state.in_progress, not_started: x.state.not_started, next_actions: withLatestRequest(x), blockers: x.state.blockers }
    : ((db && stateFromStore(db)) ?? { task: req.reason ?? '', completion_percentage: null, completed: [], in_progress: [], not_started: [], next_actions: [], blockers: [] });

  const transfers: OwnershipTransfer[] = [];
  if (db && req.from && req.to) {
    const owned = sectionsOwnedBy(db, req.from, { now: () => now });
    const wanted = req.sections ? new Set(req.sections.map((s) => s.replace(/^§/, ''))) : null;
    for (const o of owned) {
      if (wanted && !wanted.has(o.section_id)) continue;
      transfers.push({ section_id: `§${o.section_id}`, owner_agent_id: to, ownership_type: 'exclusive', acquired_at: now.toISOString(), previous_owner: from, lock_reason: `Handoff from ${from}` });
    }
  }

  const learnings = uniq([...(x?.learnings.map((l) => l.text) ?? []), ...(db && type === 'complete' ? relevantLearnings(db, state.task, { limit: 5 }).map((h) => h.memory.content.lesson) : [])]);
  const files = uniq([...(x?.files.map((f) => f.path) ?? [])]);
  const executive = x ? transcriptSummary(x, transcript!) : summary?.text.trim() || [state.task && `Task: ${state.task}`, state.completion_percentage !== null ? `Progress: ${state.completion_percentage}% complete` : '', state.blockers.length ? `Blockers: ${state.blockers.join('; ')}` : ''].filter(Boolean).join('\n');

  // Skills the work needs (languages of its files, tags of its stored decisions and issues) against what the
  // recipient has shown in this store.
  const required = [...languagesOf(files), ...(db ? tagsOfMemories(db, [...decisions, ...issues].map((r) => r.id)) : [])];
  const expertise = expertiseMatch(required, db ? agentCapabilities(db, to) : { skills: [], sessions: 0, memories: 0 }, to);

  const pkg: HandoffPackage = {
    schema: 'contextpack.handoff/1',
    handoff_metadata: {
      from_agent_id: from,
      to_agent_id: to,
      handoff_type: type,
      // The moment of the handed-over context: the transcript's last turn, so one transcript gives one hash.
      timestamp: [...(transcript?.turns ?? [])].reverse().find((t) => t.ts)?.ts ?? now.toISOString(),
      reason: req.reason?.trim() || defaultReason(type),
      context_token_count: 0,
    },
    context_summary: {
      executive_summary: executive,
      critical_decisions: decisions,
      open_issues: issues,
      current_task_state: state,
      blocking_dependencies: uniq([...state.blockers, ...(summary?.blockers ?? [])]),
    },
    work_products: {
      completed: uniq([...state.completed, ...(x?.done.map((d) => d.text) ?? []), ...(x?.files.map((f) => `Modified ${f.path}`) ?? [])]),
      in_progress: state.in_progress,
      not_started: state.not_started,
    },
    agent_expertise_match: expertise,
    ownership_transfers: transfers,
    next_actions: {
      immediate: state.next_actions.slice(0, 3),
      short_term: uniq([...state.next_actions.slice(3), ...state.not_started]),
      success_criteria: uniq(x?.acceptance.map((a) => a.text) ?? []),
    },
    agent_specific_notes: {
      from_agent_observations: learnings,
      suggested_approach: x?.plan?.text ?? '',
      // Only errors no later run fixed; each named by what failed.
      known_pitfalls: (x ? openErrorsOf(x) : []).map((e) => `${e.command ? `${e.command}: ` : ''}${e.message}${e.occurrences > 1 ? ` (×${e.occurrences})` : ''}${e.root_cause ? ` — root cause: ${e.root_cause}` : ''}`),
      useful_resources: files.slice(0, 20),
    },
    compacted_context: '',
    compaction: { tokens_before: 0, tokens_after: 0, tokens_saved: 0, elements_removed: 0, preservation_validation: true, reduction_target: reductionTarget, reduction_achieved: 0, reduction_target_met: false },
    budget: { max_tokens: maxTokens, range: [...HANDOFF_BUDGET_RANGES[type]], package_tokens: 0, within_budget: true, encoding },
    source: { transcript: transcript?.source ?? null, format: transcript?.format ?? null, session_id: transcript?.session_id ?? null, turns: transcript?.turns.length ?? 0, problems: transcript?.problems.length ?? 0, redactions: 0 },
  };
  const counter: { n: number; log?: HandoffDeps['redactionLog'] } = { n: 0, log: deps.redactionLog };
  const gated = gateStrings(pkg, redactor, counter);

  // What is left of the budget after the structured fields is the compacted context's.
  const fixed = count(renderHandoffMarkdown(gated, null));
  const contextBudget = Math.max(0, maxTokens - fixed - 64);
  let compaction: CompactionResult | null = null;
  if (transcript) {
    const focus = type === 'specialist' ? [...state.blockers, ...issues.map((i) => i.title), ...(x?.errors.map((e) => e.message) ?? [])].join(' ') : undefined;
    compaction = compactTranscript(transcript, {
      count,
      focus,
      extraction: x!,
      preservedOnly: type === 'emergency',
      // 2 % under the budget: the sum of per-turn counts is an estimate of the joined text's count, and a text over
      // the budget would be cut line by line (fitLines), which costs far more than compacting a little deeper.
      targetFor: (before) => Math.min(Math.floor(contextBudget * 0.98), Math.floor(before * (1 - reductionTarget))),
    });
    compaction = gateCompaction(compaction, redactor, counter, 'HANDOFF', transcript.source, { detail: false, gatedExtraction: gatedX! });
    let text = compaction.text;
    if (count(text) > contextBudget) {
      text = fitLines(text, contextBudget, count);
      for (const c of compaction.preserved) c.present = c.expect.every((e) => text.includes(e));
      compaction.summary.preservation_validation = compaction.preserved.every((c) => c.present);
    }
    const after = count(text);
    gated.compacted_context = text;
    const s = compaction.summary;
    gated.compaction = {
      tokens_before: s.tokens_before,
      tokens_after: after,
      tokens_saved: s.tokens_before - after,
      elements_removed: s.elements_removed,
      preservation_validation: s.preservation_validation,
      reduction_target: reductionTarget,
      reduction_achieved: round4(s.tokens_before === 0 ? 0 : (s.tokens_before - after) / s.tokens_before),
      reduction_target_met: s.tokens_before === 0 || (s.tokens_before - after) / s.tokens_before >= reductionTarget,
    };
  } else if (db) {
    // No transcript: the store's rehydration bundle is the context (a preview: it does not count as access). It is
    // already a selection of whole memories, so only the budget bounds it; the reduction is reported, not forced.
    const summary = getExecutiveSummary(db);
    const full = rehydrate(db, { summary, touch: false, maxTokens: 1_000_000, now: () => now });
    const fit = rehydrate(db, { summary, touch: false, maxTokens: contextBudget, now: () => now });
    gated.compacted_context = gateStrings(fit.text, redactor, counter);
    gated.compaction = {
      tokens_before: full.tokens,
      tokens_after: fit.tokens,
      tokens_saved: full.tokens - fit.tokens,
      elements_removed: fit.omitted.length,
      preservation_validation: fit.omitted.length === 0 || fit.omitted.every((o) => o.memory_type === 'learning'),
      reduction_target: reductionTarget,
      reduction_achieved: round4(full.tokens === 0 ? 0 : (full.tokens - fit.tokens) / full.tokens),
      reduction_target_met: full.tokens === 0 || (full.tokens - fit.tokens) / full.tokens >= reductionTarget,
    };
  }
  gated.source.redactions = counter.n;
  gated.handoff_metadata.context_token_count = count(gated.compacted_context);
  // The count appears in the rendering it counts: settle it (a digit more or less moves it by a token at most).
  for (let i = 0, n = -1; i < 4 && n !== gated.budget.package_tokens; i++) {
    n = gated.budget.package_tokens;
    gated.budget.package_tokens = count(renderHandoffMarkdown(gated, null));
  }
  gated.budget.within_budget = gated.budget.package_tokens <= maxTokens;

  const json = canonicalJson(gated);
  const bytes = new TextEncoder().encode(json);
  const hash = sha256Hex(bytes);
  const pkgOut = JSON.parse(json) as HandoffPackage;
  return { package: pkgOut, hash, bytes, markdown: renderHandoffMarkdown(pkgOut, hash), compaction, extraction: gatedX, transcript };
}

const round4 = (v: number) => Math.round(v * 1e4) / 1e4;

/** Lines of the executive summary SessionStart reads back (hooks/inject.ts). */
export const LAST_REPORT_LABEL = "Agent's last report";
export const FINISHED_LINE = 'Finished: the agent\'s last report says the work is done, and no error, blocker or remaining step is open';

/** A request newer than every state the agent wrote has not been acted on in that state yet: it comes first. */
function withLatestRequest(x: Extraction): string[] {
  const s = x.state;
  const r = s.latest_request;
  if (!r || (s.at && s.at.turn > r.turn) || s.next_actions.some((n) => n.includes(r.line))) return s.next_actions;
  // Whether the agent had started on it (answered or called a tool after it) decides the verb.
  const started = s.latest_request_answered;
  return [`${started ? 'Continue' : 'Answer'} the user's latest request: ${r.line}`, ...s.next_actions];
}

/** What the successor reads first: the task as it stands, the user's latest words, the goal, the status. */
function transcriptSummary(x: Extraction, t: Transcript): string {
  const s = x.state;
  const where = (r: { turn: number; at_line: number }) => `turn ${r.turn}, line ${r.at_line}`;
  const out: string[] = [];
  if (s.latest_request && s.latest_request.line === s.task) out.push(`Task (the user's latest request, ${where(s.latest_request)}): ${s.task}`);
  else {
    if (s.task) out.push(`Task: ${s.task}`);
    if (s.latest_request) out.push(`Latest user request (${where(s.latest_request)}): ${s.latest_request.line}`);
  }
  if (s.last_ack) out.push(`The user's last message (${where(s.last_ack)}): "${s.last_ack.line}"`);
  if (s.goal) out.push(`Goal (first request): ${s.goal}`);
  if (s.status) out.push(`Status: ${s.status}`);
  if (s.completion_percentage !== null) out.push(`Progress: ${s.completion_percentage}% complete`);
  if (s.in_progress.length) out.push(`In progress: ${s.in_progress.join('; ')}`);
  // The agent's last report, whole sentences (SessionStart quotes it as such), and whether it closes the work.
  const last = lastReportOf(t);
  const report = last && !isRedactedText(last.text) ? last : null;
  if (report) out.push(`${LAST_REPORT_LABEL} (turn ${report.index}, line ${report.line}): ${tailSentences(report.text, 1_200)}`);
  else if (s.last_update) out.push(`Agent's last update (turn ${s.last_update.turn}, line ${s.last_update.line}): ${s.last_update.text}`);
  const after = s.latest_request ? s.latest_request.turn : -1;
  // Finished: the last word is the agent's, it says done, asks nothing, and nothing it or the errors say is open.
  const remaining = s.not_started.length + s.in_progress.length + s.blockers.length + s.next_actions.length + openErrorsOf(x).length;
  if (report && report.index > after && reportsDone(report.text) && !/\?\s*$/.test(report.text.trim()) && remaining === 0) out.push(FINISHED_LINE);
  if (s.blockers.length) out.push(`Blockers: ${s.blockers.join('; ')}`);
  const open = openErrorsOf(x).length;
  const fixed = x.errors.length - open;
  if (x.errors.length) out.push(`Errors: ${open} unresolved, ${fixed} resolved by a later run`);
  // Each line a label of ours and a value from the transcript, folded to one line (quote.ts).
  return out.map(inline).join('\n');
}

function defaultReason(type: HandoffType): string {
  switch (type) {
    case 'complete':
      return 'Assigned task complete: handing over to the coordinator';
    case 'specialist':
      return 'Blocker outside the current expertise: specialist consultation';
    case 'continuation':
      return 'Token capacity reached: continuation in a fresh context';
    case 'emergency':
      return 'Agent failure or timeout: emergency recovery';
  }
}

export interface CreateHandoffOptions extends HandoffDeps {
  format?: 'md' | 'json';
  /** Save the decisions, issues and learnings found in the transcript as memories (deduplicated). */
  save?: boolean;
}

/** Builds, stores by hash, records in memory (step 3), transfers ownership (step 4), optionally saves the findings. */
export function createHandoff(db: Database, req: HandoffRequest, opts: CreateHandoffOptions = {}): HandoffResult {
  return storeHandoff(db, buildHandoff(req, { ...opts, db }), req, opts);
}

/**
 * The writing half of createHandoff, for a caller that builds outside any transaction (the hooks: a build takes
 * seconds, a write lock must be held for milliseconds) and runs this inside a short write transaction of its own.
 */
export function storeHandoff(db: Database, built: StorableHandoff, req: HandoffRequest, opts: CreateHandoffOptions = {}): HandoffResult {
  const now = (opts.now ?? (() => new Date()))();
  const p = built.package;
  const format = opts.format ?? 'md';
  let stored = false;
  let recorded: string | null = null;
  let saved: HandoffResult['saved'] = null;
  db.transaction(() => {
    stored = saveSnapshotRow(db, {
      hash: built.hash,
      bytes: built.bytes,
      template: `handoff-${p.handoff_metadata.handoff_type}`,
      query: `${p.handoff_metadata.from_agent_id} → ${p.handoff_metadata.to_agent_id}: ${p.handoff_metadata.reason}`,
      createdAt: now.toISOString(),
      totalChars: built.markdown.length,
      totalTokens: p.budget.package_tokens,
      redactions: p.source.redactions,
      items: p.context_summary.critical_decisions.length + p.context_summary.open_issues.length,
      dropped: p.compaction.elements_removed,
      request: { kind: 'handoff', type: req.type, from: req.from ?? null, to: req.to ?? null, reason: req.reason ?? null, maxTokens: req.maxTokens ?? null, transcript: p.source.transcript },
    });
    const s = p.context_summary.current_task_state;
    const mem = addMemory(
      db,
      {
        memory_type: 'state',
        title: `Handoff ${p.handoff_metadata.from_agent_id} → ${p.handoff_metadata.to_agent_id} (${p.handoff_metadata.handoff_type})`.slice(0, 100),
        content: {
          task_description: s.task || p.handoff_metadata.reason,
          // A percentage only when the transcript states one: an unstated one is stored as none, never "0 %" (issue #33).
          completion_percentage: s.completion_percentage,
          substeps_completed: s.completed,
          substeps_remaining: [...s.in_progress, ...s.not_started],
          blockers: s.blockers,
          next_actions: s.next_actions,
        },
        tags: ['handoff', `handoff-${p.handoff_metadata.handoff_type}`, `snapshot-${built.hash.slice(0, 16)}`],
        importance: 6,
        agent_id: p.handoff_metadata.from_agent_id,
      },
      { now: () => now, actor: p.handoff_metadata.from_agent_id },
    );
    recorded = mem.memory_id;
    // 002's step 4, as the package lists it: exclusive to the recipient, the sender kept as previous owner.
    for (const t of p.ownership_transfers) transferOwnership(db, t.section_id, p.handoff_metadata.from_agent_id, t.owner_agent_id, { now: () => now, reason: t.lock_reason, type: t.ownership_type });
    if (opts.save && built.extraction) saved = saveExtraction(db, built.extraction, { agent: p.handoff_metadata.from_agent_id, now: () => now, tags: ['from-transcript', 'handoff'] });
  }).immediate();
  return { hash: built.hash, package: p, text: handoffText(built, format), format, recorded_memory_id: recorded, saved, stored };
}

const handoffText = (built: StorableHandoff, format: 'md' | 'json'): string =>
  format === 'json' ? `${JSON.stringify({ ...built.package, context_snapshot_hash: built.hash }, null, 2)}\n` : built.markdown;

/** A built handoff as a result with nothing written: no snapshot, no state memory, no ownership moved, nothing saved. */
export function previewHandoff(built: StorableHandoff, format: 'md' | 'json' = 'md'): HandoffResult {
  return { hash: built.hash, package: built.package, text: handoffText(built, format), format, recorded_memory_id: null, saved: null, stored: false };
}

/** A stored snapshot's bytes, when they hold a handoff package. */
export function decodeHandoff(bytes: Uint8Array): HandoffPackage | null {
  try {
    const v = JSON.parse(Buffer.from(bytes).toString('utf8')) as Partial<HandoffPackage>;
    return v && v.schema === 'contextpack.handoff/1' && v.handoff_metadata ? (v as HandoffPackage) : null;
  } catch {
    return null;
  }
}
