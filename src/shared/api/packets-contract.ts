// The API contract of context packets (build, list, get, replay):
// each method's input schema and output type.
import { z } from 'zod';
import { MAX_MAX_TOKENS, MIN_MAX_TOKENS, capError, QUERY_MAX, TASK_MAX } from '../limits.ts';
import type { AssembledPacket, PacketListItem, ReplayDiff } from '../packet.ts';
import { capped, searchFiltersSchema, packetToolSchema, conversationTurnSchema, hashRefSchema } from './schemas.ts';

export const packetsInputs = {
  'packets.build': z
    .object({
      query: z.string().trim().min(1, 'query is required').max(QUERY_MAX, capError('query', QUERY_MAX)),
      task: capped('task', TASK_MAX).optional(),
      template: z.enum(['ao-v1', 'layered-v1']).optional(),
      maxTokens: z
        .number({ error: 'token budget must be a number' })
        .int('token budget must be a whole number')
        .min(MIN_MAX_TOKENS, `token budget must be at least ${MIN_MAX_TOKENS}`)
        .max(MAX_MAX_TOKENS, `token budget must be at most ${MAX_MAX_TOKENS}`)
        .optional(),
      /** Evidence hits fetched (the engine's range: 0 leaves evidence out). */
      k: z.number().int('k must be a whole number').min(0, 'k must be at least 0').max(100_000, 'k must be at most 100000').optional(),
      filters: searchFiltersSchema.optional(),
      useDefaultExcludes: z.boolean().optional(),
      /** The tokenizer budgets are counted with (`pack --encoding`). */
      encoding: z.enum(['o200k_base', 'cl100k_base']).optional(),
      // Issue #17: the same fields as `pack --format / --profile / --session / --tools-file / --conversation-file`.
      /** The rendering of `text` (md by default); the stored snapshot and its hash do not depend on it. */
      format: z.enum(['md', 'json', 'contextos']).optional(),
      profile: z.enum(['research', 'docs', 'tests']).optional(),
      sessionId: z.string().trim().min(1, 'session id is empty').max(200).optional(),
      tools: z.array(packetToolSchema).max(200).optional(),
      conversation: z.array(conversationTurnSchema).max(2000).optional(),
      keepTurns: z.number().int().min(0).max(1000).optional(),
      turnsElsewhere: z.number().int().min(0).max(1000).optional().describe('layered-v1: turns sent beside the pack as prior messages (an agent framework\'s history); named in CONVERSATION, not repeated.'),
    })
    .strict(),
  'packets.list': z.object({ limit: z.number().int().min(1).max(1000).optional() }).strict(),
  'packets.get': z
    .object({
      hash: hashRefSchema,
      format: z.enum(['md', 'json', 'contextos']).optional().describe('The rendering of `text`; default md.'),
      raw: z.boolean().optional().describe('Also answer `stored`: the exact stored bytes (canonical JSON), which hash to the id.'),
    })
    .strict(),
  'packets.replay': z.object({ hash: hashRefSchema }).strict(),
};

/** An assembled or stored packet as JSON: the snapshot bytes are left out (the hash names them). */
export type PacketView = Omit<AssembledPacket, 'bytes'>;

export interface PacketsOutputs {
  'packets.build': PacketView;
  'packets.list': PacketListItem[];
  'packets.get': PacketView & { stored?: string };
  'packets.replay': ReplayDiff;
}
