import {
  DEFAULT_KEEP_TURNS,
  PACKET_TEMPLATES,
  TASK_PROFILES,
  type AllocatorSignals,
  type ApprovalMode,
  type CapabilityClass,
  type ConversationTurn,
  type PacketEncoding,
  type PacketRequest,
  type PacketTemplateId,
  type PacketTool,
  type RiskLevel,
  type TaskProfile,
} from '../../../shared/packet.ts';
import { MAX_MAX_TOKENS, MIN_MAX_TOKENS, overCap, QUERY_MAX, TASK_MAX } from '../../../shared/limits.ts';
import { SOURCE_TYPES, type SearchFilters, type SourceType } from '../../../shared/types.ts';
import { GLOB_MAX, globError } from '../../../shared/globs.ts';
import { TOKEN_ENCODINGS } from '../tokens/index.ts';
import { AO_V1, LAYERED_V1 } from './templates.ts';

export class PacketRequestError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(`${field}: ${message}`);
    this.name = 'PacketRequestError';
    this.field = field;
  }
}

// Every member of a resolved request is either a checked enum or number, a date-shaped string, or free text that
// assembly passes through the redaction gate before it is stored. Members the request type does not name are left
// out here, so nothing unchecked can ride along into the packet or the stored request.
const CAPABILITY_CLASSES: readonly CapabilityClass[] = ['observe', 'recall', 'think_support', 'verify', 'act'];
const RISK_LEVELS: readonly RiskLevel[] = ['read_safe', 'read_sensitive', 'write_reversible', 'write_external', 'write_irreversible'];
const APPROVAL_MODES: readonly ApprovalMode[] = ['read_only', 'local_write', 'network', 'delegated', 'destructive'];
const SIGNAL_KEYS: readonly (keyof AllocatorSignals)[] = [
  'checklist_evidence_ratio',
  'expected_tool_calls',
  'risk_weight',
  'retrieval_hit_rate',
  'similarity',
  'freshness',
  'unresolved_questions',
  'dialogue_depth',
];
/** Printed outside the gate (turn headers) or kept as a filter bound: a date's characters only. */
const DATE_SHAPE = /^[0-9][0-9T:.+\- Z]{3,39}$/;

function oneOfOrUndefined<T extends string>(v: unknown, allowed: readonly T[], field: string): T | undefined {
  if (v === undefined || v === null) return undefined;
  // The value is not echoed: it is free text the gate has not seen.
  if (!allowed.includes(v as T)) throw new PacketRequestError(field, `must be one of ${allowed.join(', ')}`);
  return v as T;
}

export interface ResolvedRequest {
  query: string;
  task: string | null;
  template: PacketTemplateId;
  maxTokens: number;
  encoding: PacketEncoding;
  k: number;
  filters: SearchFilters | null;
  useDefaultExcludes: boolean;
  profile: TaskProfile;
  signals: NonNullable<PacketRequest['signals']>;
  tools: PacketTool[];
  conversation: ConversationTurn[];
  keepTurns: number;
  turnsElsewhere: number;
  briefTask: boolean;
  sessionId: string | null;
}

export const DEFAULT_K = 20;
/**
 * Without an explicit k, enough hits to fill the evidence budget: a chunk is at most ~254 word pieces, about 200
 * o200k tokens, so max_tokens / 200 hits cover the whole packet; the layout then keeps the best that fit.
 */
export function defaultK(maxTokens: number): number {
  return Math.max(DEFAULT_K, Math.ceil(maxTokens / 200));
}
export { MAX_MAX_TOKENS, MIN_MAX_TOKENS };

/** Checks a request field by field and fills defaults; the error names the field. */
export function resolveRequest(r: PacketRequest): ResolvedRequest {
  if (r === null || typeof r !== 'object') throw new PacketRequestError('request', 'must be an object');
  if (typeof r.query !== 'string') throw new PacketRequestError('query', 'must be a string');
  if (r.task !== undefined && r.task !== null && typeof r.task !== 'string') throw new PacketRequestError('task', 'must be a string');
  if (r.query.length > QUERY_MAX) throw new PacketRequestError('query', overCap('query', QUERY_MAX, r.query.length));
  if (typeof r.task === 'string' && r.task.length > TASK_MAX) throw new PacketRequestError('task', overCap('task', TASK_MAX, r.task.length));
  const template = r.template ?? 'ao-v1';
  if (!PACKET_TEMPLATES.includes(template)) throw new PacketRequestError('template', `must be one of ${PACKET_TEMPLATES.join(', ')}, got ${JSON.stringify(template)}`);
  const maxTokens = r.maxTokens ?? (template === 'ao-v1' ? AO_V1.defaultMaxTokens : LAYERED_V1.defaultWindow);
  if (!Number.isInteger(maxTokens) || maxTokens < MIN_MAX_TOKENS || maxTokens > MAX_MAX_TOKENS)
    throw new PacketRequestError('maxTokens', `must be an integer in [${MIN_MAX_TOKENS}, ${MAX_MAX_TOKENS}], got ${JSON.stringify(maxTokens)}`);
  const encoding = r.encoding ?? 'o200k_base';
  if (!TOKEN_ENCODINGS.includes(encoding)) throw new PacketRequestError('encoding', `must be one of ${TOKEN_ENCODINGS.join(', ')}, got ${JSON.stringify(encoding)}`);
  const k = r.k ?? defaultK(maxTokens);
  if (!Number.isInteger(k) || k < 0 || k > 100_000) throw new PacketRequestError('k', `must be an integer in [0, 100000], got ${JSON.stringify(k)}`);
  const profile = r.profile ?? LAYERED_V1.defaultProfile;
  if (!TASK_PROFILES.includes(profile)) throw new PacketRequestError('profile', `must be one of ${TASK_PROFILES.join(', ')}, got ${JSON.stringify(profile)}`);
  const rawSignals = r.signals ?? {};
  if (typeof rawSignals !== 'object' || Array.isArray(rawSignals)) throw new PacketRequestError('signals', 'must be an object');
  const signals: AllocatorSignals = {};
  // Signal names are recorded in the manifest as keys, outside the gate: only the known ones are accepted.
  for (const [key, v] of Object.entries(rawSignals)) {
    if (!(SIGNAL_KEYS as readonly string[]).includes(key)) throw new PacketRequestError('signals', `unknown signal (known: ${SIGNAL_KEYS.join(', ')})`);
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new PacketRequestError(`signals.${key}`, `must be a number ≥ 0, got ${JSON.stringify(v)}`);
    signals[key as keyof AllocatorSignals] = v;
  }
  const rawTools = r.tools ?? [];
  if (!Array.isArray(rawTools)) throw new PacketRequestError('tools', 'must be an array');
  const tools: PacketTool[] = rawTools.map((t, i) => {
    if (!t || typeof t.name !== 'string' || t.name.trim() === '') throw new PacketRequestError(`tools[${i}].name`, 'must be a non-empty string');
    // One line: the name is the item id and leads the tool's line in the Tools layer.
    if (/[\r\n]/.test(t.name)) throw new PacketRequestError(`tools[${i}].name`, 'must be a single line');
    const purpose = t.purpose ?? t.description;
    if (typeof purpose !== 'string') throw new PacketRequestError(`tools[${i}].description`, 'must be a string');
    if (t.purpose !== undefined && t.description !== undefined && t.purpose !== t.description) throw new PacketRequestError(`tools[${i}].description`, 'give description or purpose, not both');
    const input_schema = t.input_schema;
    if (input_schema !== undefined && (input_schema === null || typeof input_schema !== 'object' || Array.isArray(input_schema)))
      throw new PacketRequestError(`tools[${i}].input_schema`, 'must be a JSON Schema object');
    if (input_schema !== undefined) checkJsonValue(input_schema, `tools[${i}].input_schema`, 0);
    const capability_class = oneOfOrUndefined(t.capability_class, CAPABILITY_CLASSES, `tools[${i}].capability_class`);
    const risk_level = oneOfOrUndefined(t.risk_level, RISK_LEVELS, `tools[${i}].risk_level`);
    const approval_mode = oneOfOrUndefined(t.approval_mode, APPROVAL_MODES, `tools[${i}].approval_mode`);
    return {
      name: t.name,
      purpose,
      ...(input_schema !== undefined ? { input_schema } : {}),
      ...(capability_class ? { capability_class } : {}),
      ...(risk_level ? { risk_level } : {}),
      ...(approval_mode ? { approval_mode } : {}),
    };
  });
  const rawConversation = r.conversation ?? [];
  if (!Array.isArray(rawConversation)) throw new PacketRequestError('conversation', 'must be an array');
  const conversation: ConversationTurn[] = rawConversation.map((t, i) => {
    if (!t || (t.role !== 'user' && t.role !== 'assistant')) throw new PacketRequestError(`conversation[${i}].role`, 'must be "user" or "assistant"');
    const text = t.content ?? t.text;
    if (typeof text !== 'string') throw new PacketRequestError(`conversation[${i}].content`, 'must be a string');
    // The timestamp is printed in the turn's header line, which is not free text: keep it to a date's characters.
    if (t.ts !== undefined && (typeof t.ts !== 'string' || !DATE_SHAPE.test(t.ts))) throw new PacketRequestError(`conversation[${i}].ts`, 'must be an ISO 8601 timestamp');
    return { role: t.role, text, ...(t.ts !== undefined ? { ts: t.ts } : {}) };
  });
  const keepTurns = r.keepTurns ?? DEFAULT_KEEP_TURNS;
  if (!Number.isInteger(keepTurns) || keepTurns < 0 || keepTurns > 1000) throw new PacketRequestError('keepTurns', `must be an integer in [0, 1000], got ${JSON.stringify(keepTurns)}`);
  const turnsElsewhere = r.turnsElsewhere ?? 0;
  if (!Number.isInteger(turnsElsewhere) || turnsElsewhere < 0 || turnsElsewhere > 1000) throw new PacketRequestError('turnsElsewhere', `must be an integer in [0, 1000], got ${JSON.stringify(turnsElsewhere)}`);
  const filters = resolveFilters(r.filters);
  if (r.useDefaultExcludes !== undefined && typeof r.useDefaultExcludes !== 'boolean') throw new PacketRequestError('useDefaultExcludes', 'must be true or false');
  if (r.sessionId !== undefined && r.sessionId !== null && typeof r.sessionId !== 'string') throw new PacketRequestError('sessionId', 'must be a string');
  return {
    query: r.query,
    task: r.task ?? null,
    template,
    maxTokens,
    encoding,
    k,
    filters,
    useDefaultExcludes: r.useDefaultExcludes ?? true,
    profile,
    signals,
    tools,
    conversation,
    keepTurns,
    turnsElsewhere,
    briefTask: r.briefTask === true,
    sessionId: r.sessionId ?? null,
  };
}

/** Plain JSON only (an input schema is stored and hashed): no functions, no non-finite numbers, bounded depth. */
function checkJsonValue(v: unknown, field: string, depth: number): void {
  if (depth > 20) throw new PacketRequestError(field, 'is nested too deeply (more than 20 levels)');
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new PacketRequestError(field, 'must hold finite numbers only');
    return;
  }
  if (Array.isArray(v)) return v.forEach((x, i) => checkJsonValue(x, `${field}[${i}]`, depth + 1));
  if (typeof v === 'object') return Object.entries(v as Record<string, unknown>).forEach(([k, x]) => checkJsonValue(x, `${field}.${k}`, depth + 1));
  throw new PacketRequestError(field, `must be plain JSON, got a ${typeof v}`);
}

/** Search filters: the glob is free text (gated before it is stored), types an enum, the bounds date-shaped. */
function resolveFilters(f: PacketRequest['filters'] | null | undefined): SearchFilters | null {
  if (f === undefined || f === null) return null;
  if (typeof f !== 'object' || Array.isArray(f)) throw new PacketRequestError('filters', 'must be an object');
  const out: SearchFilters = {};
  if (f.pathGlob !== undefined) {
    if (typeof f.pathGlob !== 'string') throw new PacketRequestError('filters.pathGlob', 'must be a string');
    out.pathGlob = f.pathGlob;
  }
  for (const key of ['include', 'exclude'] as const) {
    const v = f[key];
    if (v === undefined) continue;
    if (!Array.isArray(v)) throw new PacketRequestError(`filters.${key}`, 'must be an array of globs');
    const globs = v.map((g: unknown, i) => {
      if (typeof g !== 'string' || g.length > GLOB_MAX || /[\r\n\0]/.test(g)) throw new PacketRequestError(`filters.${key}[${i}]`, `must be a one-line glob of at most ${GLOB_MAX} characters`);
      const error = globError(g);
      if (error) throw new PacketRequestError(`filters.${key}[${i}]`, error);
      return g;
    });
    if (globs.length > 100) throw new PacketRequestError(`filters.${key}`, 'at most 100 globs');
    if (globs.length > 0) out[key] = globs;
  }
  // excludeDefault is never taken from a request: it is what the store's settings say at assembly time.
  if (f.types !== undefined) {
    if (!Array.isArray(f.types)) throw new PacketRequestError('filters.types', 'must be an array');
    out.types = f.types.map((t: unknown, i) => {
      if (!SOURCE_TYPES.includes(t as SourceType)) throw new PacketRequestError(`filters.types[${i}]`, `must be one of ${SOURCE_TYPES.join(', ')}`);
      return t as SourceType;
    });
  }
  for (const key of ['modifiedAfter', 'modifiedBefore'] as const) {
    const v = f[key];
    if (v === undefined) continue;
    if (typeof v !== 'string' || !DATE_SHAPE.test(v) || Number.isNaN(Date.parse(v))) throw new PacketRequestError(`filters.${key}`, 'must be an ISO 8601 date');
    out[key] = v;
  }
  return out;
}
