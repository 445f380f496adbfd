// Seed 003's before-model step: the outgoing LlmRequest rewritten so that the Context Pack is the model's final input.
// The system instruction stays (gated, stable: the cached prefix); the last N turns stay as messages, verbatim but
// gated; older turns become the pack's conversation summary; the user's message becomes one layered-v1 pack built by
// the engine through the API (`packets.build`), so it is gated, budgeted, stored and replayable like any packet; the
// tool list is cut to the step's tools. Nothing the pack covers is sent twice.
import type { Content, FunctionDeclaration, GenerateContentConfig, Tool } from '@google/genai';
import type { ConversationTurnInput, PacketToolInput, TaskProfile } from '../../shared/packet.ts';
import { DEFAULT_KEEP_TURNS } from '../../shared/packet.ts';
import { MIN_MAX_TOKENS, QUERY_MAX } from '../../shared/limits.ts';
import { gateString } from '../core/redact/index.ts';
import { createTokenCounter, type TokenCounter } from '../core/tokens/index.ts';
import { DEFAULT_K, LAYERED_V1 } from '../core/packet/index.ts';
import { contentText, gateContent, groupTurns, requestIndex, textOf, turnInput } from './contents.ts';
import { artifactRefs, DEFAULT_STATE_KEYS, readPlan, type StateKeys } from './plan.ts';
import { ContextPackAdkError, type Project } from './project.ts';

/** The part of ADK's LlmRequest the step reads and rewrites (structurally, so this file never loads ADK). */
export interface RequestLike {
  contents: Content[];
  config?: GenerateContentConfig;
  toolsDict: Record<string, { name: string; description: string }>;
}

export interface PackStepOptions {
  /** The model's context window in tokens: the pack and everything sent beside it fit in it, less 003's slack. */
  window: number;
  /** Turns kept verbatim as messages before the pack (a tool call and its answer are one turn); default 5. */
  keepTurns?: number;
  /** Session-state keys for the plan, the step's tools and knowledge; default plan / tools / knowledge. */
  stateKeys?: Partial<StateKeys>;
  /** 003's remainder profile (research, docs, tests); default research. */
  profile?: TaskProfile;
  /**
   * Evidence hits fetched; default 20 (the engine's DEFAULT_K). The window bounds the pack, it need not fill it: at a
   * 1M-token window the engine's own default (window / 200 hits) would pour most of a project into every call.
   */
  k?: number;
  encoding?: 'o200k_base' | 'cl100k_base';
}

/** What one model call was sent, for the event's metadata and for tests. */
export interface PackRecord {
  context_snapshot_hash: string;
  pack_id: string;
  agent: string;
  invocation_id: string;
  /** The model's window and the share of it the pack was given (the rest holds system, tools and the kept turns). */
  window: number;
  pack_window: number;
  pack_tokens: number;
  /** Tokens of the whole request as sent: system instruction, tool declarations, every message. */
  request_tokens: number;
  tools: string[];
  kept_turns: number;
  summarized_turns: number;
  /** Lines the gate replaced in what was sent beside the pack (the pack's own are in its manifest). */
  redacted_lines: number;
  /** What could not be read as asked (state shape, unknown tools); the pack was built from the rest. */
  problems: string[];
}

export interface StepContext {
  agentName: string;
  agentDescription: string;
  invocationId: string;
  appName: string;
  userId: string;
  sessionId: string;
  userContent: Content | undefined;
  state: (key: string) => unknown;
  /** Artifact file names of the session (ADK's artifact service), listed by reference. */
  artifacts: string[];
}

/** Tool names ADK adds itself and keeps whatever the step lists (it exempts set_model_response from its own filter). */
const FRAMEWORK_TOOLS = new Set(['set_model_response']);
/** 003's slack: reserved for the reply, as a share of the window. */
const SLACK_SHARE = LAYERED_V1.layers.find((l) => l.reserved)!.floor!;
/** The kept turns never take the pack below this share of the window; older ones join the summary first (003: conversation drops oldest first). */
const MIN_PACK_SHARE = 0.5;
/** preload_memory's block in the system instruction: the pack's MEMORY layer carries the same project memory. */
const PRELOADED = /The following content is from your previous conversations with the user\.\nThey may be useful for answering the user's current query\.\n<PAST_CONVERSATIONS>\n[\s\S]*?\n<\/PAST_CONVERSATIONS>\n?/g;

const counters = new Map<string, TokenCounter>();
function counterFor(encoding: 'o200k_base' | 'cl100k_base'): TokenCounter {
  let c = counters.get(encoding);
  if (!c) counters.set(encoding, (c = createTokenCounter(encoding)));
  return c;
}

/** The tool names the step allows, with the problems of a list that names tools the agent lacks. */
export function stepTools(allowed: string[] | null, available: string[]): { names: Set<string> | null; problems: string[] } {
  if (allowed === null) return { names: null, problems: [] };
  const have = new Set(available);
  const unknown = allowed.filter((n) => !have.has(n));
  return {
    names: new Set([...allowed, ...FRAMEWORK_TOOLS]),
    problems: unknown.length > 0 ? [`the step names tools this agent does not have: ${unknown.join(', ')}`] : [],
  };
}

function cutTools(req: RequestLike, allow: Set<string>): void {
  for (const name of Object.keys(req.toolsDict)) if (!allow.has(name)) delete req.toolsDict[name];
  if (!req.config?.tools) return;
  const kept: Tool[] = [];
  for (const t of req.config.tools as Tool[]) {
    if (!t.functionDeclarations) {
      kept.push(t);
      continue;
    }
    const decls = t.functionDeclarations.filter((d) => d.name !== undefined && allow.has(d.name));
    if (decls.length > 0) kept.push({ ...t, functionDeclarations: decls });
  }
  req.config.tools = kept;
}

function declarations(req: RequestLike): FunctionDeclaration[] {
  return ((req.config?.tools ?? []) as Tool[]).flatMap((t) => t.functionDeclarations ?? []);
}

/** The system instruction, gated, without preload_memory's block; the same agent config gives the same text. */
function stableSystem(config: GenerateContentConfig | undefined): { text: string; redacted: number } {
  const si = config?.systemInstruction;
  if (si === undefined || config === undefined) return { text: '', redacted: 0 };
  if (typeof si === 'string') {
    const g = gateString(si.replace(PRELOADED, '').trimEnd(), { source: 'adk.systemInstruction', section: 'ADK' });
    config.systemInstruction = g.text;
    return g;
  }
  const content: Content = Array.isArray(si) ? { parts: si.map((p) => (typeof p === 'string' ? { text: p } : p)) } : 'parts' in si || 'role' in si ? (si as Content) : { parts: [si as object] };
  const g = gateContent(content, 'adk.systemInstruction');
  config.systemInstruction = g.content;
  return { text: textOf(g.content), redacted: g.redacted };
}

function firstSentence(s: string, max = 160): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  const m = /^(.+?[.!?])(\s|$)/.exec(flat);
  const out = m ? m[1] : flat;
  return out.length <= max ? out : `${out.slice(0, max - 1)}…`;
}

/** The request as the REQUEST layer shows it (the engine's query cap); a longer one is given whole in the task. */
function queryOf(text: string): { query: string; whole: string | null } {
  const t = text.trim() === '' ? '(no text: the request is the attached parts)' : text;
  if (t.length <= QUERY_MAX) return { query: t, whole: null };
  const cut = t.slice(0, QUERY_MAX - 1);
  return { query: `${cut.replace(/\s+\S*$/, '')}…`, whole: t };
}

/**
 * Rewrites `req` in place: one Context Pack message for this model call, stored by the engine under its hash.
 */
export async function packStep(req: RequestLike, ctx: StepContext, project: Project, options: PackStepOptions): Promise<PackRecord> {
  const window = options.window;
  if (!Number.isInteger(window) || window < MIN_MAX_TOKENS * 2) throw new ContextPackAdkError(`contextpack/adk: window must be a whole number of tokens, at least ${MIN_MAX_TOKENS * 2}, got ${JSON.stringify(window)}`);
  const keepTurns = options.keepTurns ?? DEFAULT_KEEP_TURNS;
  const keys = { ...DEFAULT_STATE_KEYS, ...options.stateKeys };
  const encoding = options.encoding ?? 'o200k_base';
  const counter = counterFor(encoding);
  const plan = readPlan(ctx.state, keys);
  const problems = [...plan.problems];

  // Tools: the step's own when the state names them (the plugin's beforeToolSelection already cut them; an agent
  // callback has only this point), sorted by name so the pack's TOOLS layer is stable.
  const tools = stepTools(plan.tools, Object.keys(req.toolsDict));
  problems.push(...tools.problems);
  if (tools.names) cutTools(req, tools.names);
  const decls = declarations(req);
  const packTools: PacketToolInput[] = decls
    .filter((d) => d.name && !/[\r\n]/.test(d.name))
    .map((d) => ({ name: d.name!, description: firstSentence(d.description ?? '') }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

  const system = stableSystem(req.config);
  let redacted = system.redacted;

  // Messages: history before the user's message, the message itself, and what this turn added after it (tool calls
  // and answers, another agent's words). Only the history is aged; the rest is this step's, sent as it is.
  const idx = requestIndex(req.contents, ctx.userContent);
  const requestContent = idx >= 0 ? req.contents[idx] : ctx.userContent;
  // ADK left the message out (includeContents 'none' on a later call): the pack closes the messages instead.
  const history = idx >= 0 ? req.contents.slice(0, idx) : req.contents.slice();
  const after = idx >= 0 ? req.contents.slice(idx + 1) : [];
  const turns = groupTurns(history);
  const gateAll = (cs: Content[], source: string) =>
    cs.map((c) => {
      const g = gateContent(c, source);
      redacted += g.redacted;
      return g.content;
    });
  // Only the turns that may stay as messages are gated and counted here; older ones go to the engine, which gates
  // them on their way into the pack's summary.
  const candidates = turns.slice(Math.max(0, turns.length - keepTurns)).map((t) => gateAll(t, 'adk.contents'));
  const gatedAfter = gateAll(after, 'adk.contents');
  const count = (c: Content) => counter.count(contentText(c));
  const systemTokens = counter.count(system.text);
  const declTokens = decls.length > 0 ? counter.count(JSON.stringify(decls)) : 0;
  const afterTokens = gatedAfter.reduce((s, c) => s + count(c), 0);
  const headerReserve = counter.count(`<!-- contextpack schema_version=1 template=layered-v1 pack_id=${'0'.repeat(12)} context_snapshot_hash=${'0'.repeat(64)} -->\n`);
  const fixedOutside = systemTokens + declTokens + afterTokens + headerReserve;
  // A few tokens per message for the provider's framing of it.
  const turnTokens = candidates.map((t) => t.reduce((s, c) => s + count(c) + 4, 0));
  const keptTokens = (kept: number) => turnTokens.slice(turnTokens.length - kept).reduce((s, n) => s + n, 0);
  // With the pack given W − outside/(1 − slack), the allocator's own slack leaves the reply 003's share of W.
  const packWindowFor = (kept: number) => Math.floor(window - (fixedOutside + keptTokens(kept)) / (1 - SLACK_SHARE));
  let keep = candidates.length;
  while (keep > 0 && packWindowFor(keep) < window * MIN_PACK_SHARE) keep--;
  const packWindow = packWindowFor(keep);
  if (packWindow < MIN_MAX_TOKENS) {
    throw new ContextPackAdkError(
      `contextpack/adk: the ${window}-token window leaves the pack ${Math.max(0, packWindow)} tokens (at least ${MIN_MAX_TOKENS} needed): the system instruction, the tool declarations and this turn's messages take ${fixedOutside} tokens`,
    );
  }
  const older = turns.slice(0, turns.length - keep);
  const conversation: ConversationTurnInput[] = older.map(turnInput);

  const requestText = textOf(requestContent);
  const { query, whole } = queryOf(requestText);
  const artifacts = artifactRefs(ctx.state, keys, ctx.artifacts, `${ctx.appName}/${ctx.userId}/${ctx.sessionId}`);
  const taskLines = [
    `Agent: ${ctx.agentName}${ctx.agentDescription.trim() ? ` (${firstSentence(ctx.agentDescription, 200)})` : ''}`,
    ...(plan.task !== null ? [plan.task] : []),
    ...(artifacts.length > 0 ? ['Artifacts (by reference; load one with a tool when the step needs its content):', ...artifacts.map((a) => `- ${a}`)] : []),
    ...(whole !== null ? ['User request (whole; the REQUEST layer shows its start):', whole] : []),
  ];
  const built = await project.call('packets.build', {
    query,
    task: taskLines.join('\n'),
    template: 'layered-v1',
    maxTokens: packWindow,
    encoding,
    k: options.k ?? DEFAULT_K,
    ...(options.profile ? { profile: options.profile } : {}),
    ...(packTools.length > 0 ? { tools: packTools } : {}),
    ...(conversation.length > 0 ? { conversation, keepTurns: 0 } : {}),
    // The kept turns are the messages before the pack: the CONVERSATION layer points at them, never repeats them.
    ...(keep > 0 ? { turnsElsewhere: keep } : {}),
    sessionId: `adk:${ctx.appName}/${ctx.sessionId}`.slice(0, 200),
    format: 'md',
  });

  // The user's message becomes the pack; its non-text parts (images, files) stay with it.
  const extra = (requestContent?.parts ?? []).filter((p) => typeof p.text !== 'string' && p.functionResponse === undefined);
  const packMessage: Content = { role: 'user', parts: [{ text: built.text }, ...extra] };
  req.contents = [...candidates.slice(candidates.length - keep).flat(), packMessage, ...gatedAfter];
  // The body's exact count is in the manifest; the md header line is the only addition.
  const packTokens = built.manifest.budgets.total_tokens + headerReserve;
  return {
    context_snapshot_hash: built.hash,
    pack_id: built.manifest.pack_id,
    agent: ctx.agentName,
    invocation_id: ctx.invocationId,
    window,
    pack_window: packWindow,
    pack_tokens: packTokens,
    request_tokens: fixedOutside - headerReserve + keptTokens(keep) + packTokens,
    tools: packTools.map((t) => t.name),
    kept_turns: keep,
    summarized_turns: older.length,
    redacted_lines: redacted,
    problems,
  };
}
