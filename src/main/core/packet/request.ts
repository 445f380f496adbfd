import {
  PACKET_TEMPLATES,
  TASK_PROFILES,
  type PacketEncoding,
  type PacketRequest,
  type PacketTemplateId,
  type TaskProfile,
} from '../../../shared/packet.ts';
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

export interface ResolvedRequest {
  query: string;
  task: string | null;
  template: PacketTemplateId;
  maxTokens: number;
  encoding: PacketEncoding;
  k: number;
  filters: PacketRequest['filters'] | null;
  profile: TaskProfile;
  signals: NonNullable<PacketRequest['signals']>;
  tools: NonNullable<PacketRequest['tools']>;
  conversation: NonNullable<PacketRequest['conversation']>;
  sessionId: string | null;
}

export const DEFAULT_K = 20;
/** 000's budget table minimum: 1,000 chars = 250 tokens. */
export const MIN_MAX_TOKENS = 250;
export const MAX_MAX_TOKENS = 2_000_000;

/** Checks a request field by field and fills defaults; the error names the field. */
export function resolveRequest(r: PacketRequest): ResolvedRequest {
  if (r === null || typeof r !== 'object') throw new PacketRequestError('request', 'must be an object');
  if (typeof r.query !== 'string') throw new PacketRequestError('query', 'must be a string');
  if (r.task !== undefined && r.task !== null && typeof r.task !== 'string') throw new PacketRequestError('task', 'must be a string');
  const template = r.template ?? 'ao-v1';
  if (!PACKET_TEMPLATES.includes(template)) throw new PacketRequestError('template', `must be one of ${PACKET_TEMPLATES.join(', ')}, got ${JSON.stringify(template)}`);
  const maxTokens = r.maxTokens ?? (template === 'ao-v1' ? AO_V1.defaultMaxTokens : LAYERED_V1.defaultWindow);
  if (!Number.isInteger(maxTokens) || maxTokens < MIN_MAX_TOKENS || maxTokens > MAX_MAX_TOKENS)
    throw new PacketRequestError('maxTokens', `must be an integer in [${MIN_MAX_TOKENS}, ${MAX_MAX_TOKENS}], got ${JSON.stringify(maxTokens)}`);
  const encoding = r.encoding ?? 'o200k_base';
  if (!TOKEN_ENCODINGS.includes(encoding)) throw new PacketRequestError('encoding', `must be one of ${TOKEN_ENCODINGS.join(', ')}, got ${JSON.stringify(encoding)}`);
  const k = r.k ?? DEFAULT_K;
  if (!Number.isInteger(k) || k < 0 || k > 100_000) throw new PacketRequestError('k', `must be an integer in [0, 100000], got ${JSON.stringify(k)}`);
  const profile = r.profile ?? LAYERED_V1.defaultProfile;
  if (!TASK_PROFILES.includes(profile)) throw new PacketRequestError('profile', `must be one of ${TASK_PROFILES.join(', ')}, got ${JSON.stringify(profile)}`);
  const signals = r.signals ?? {};
  for (const [key, v] of Object.entries(signals)) {
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new PacketRequestError(`signals.${key}`, `must be a number ≥ 0, got ${JSON.stringify(v)}`);
  }
  const tools = r.tools ?? [];
  if (!Array.isArray(tools)) throw new PacketRequestError('tools', 'must be an array');
  tools.forEach((t, i) => {
    if (!t || typeof t.name !== 'string' || t.name.trim() === '') throw new PacketRequestError(`tools[${i}].name`, 'must be a non-empty string');
    if (typeof t.purpose !== 'string') throw new PacketRequestError(`tools[${i}].purpose`, 'must be a string');
  });
  const conversation = r.conversation ?? [];
  if (!Array.isArray(conversation)) throw new PacketRequestError('conversation', 'must be an array');
  conversation.forEach((t, i) => {
    if (!t || (t.role !== 'user' && t.role !== 'assistant')) throw new PacketRequestError(`conversation[${i}].role`, 'must be "user" or "assistant"');
    if (typeof t.text !== 'string') throw new PacketRequestError(`conversation[${i}].text`, 'must be a string');
    // The timestamp is printed in the turn's header line, which is not free text: keep it to a date's characters.
    if (t.ts !== undefined && (typeof t.ts !== 'string' || !/^[0-9][0-9T:.+\- Z]{3,39}$/.test(t.ts))) throw new PacketRequestError(`conversation[${i}].ts`, 'must be an ISO 8601 timestamp');
  });
  return {
    query: r.query,
    task: r.task ?? null,
    template,
    maxTokens,
    encoding,
    k,
    filters: r.filters ?? null,
    profile,
    signals,
    tools,
    conversation,
    sessionId: r.sessionId ?? null,
  };
}
