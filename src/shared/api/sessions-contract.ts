// The API contract of sessions (capacity, compaction, handoffs, session end, captures):
// each method's input schema and output type.
import type { CapturedSession } from '../captures.ts';
import { z } from 'zod';
import { MAX_MAX_TOKENS, NOTES_MAX, capError } from '../limits.ts';
import { HANDOFF_TYPES, type CapacityReport, type CompactionSummary, type ElementReport, type HandoffPackage, type HandoffResult, type PreservedCheck, type SessionEndResult } from '../session.ts';
import { hashRefSchema, transcriptSchema, agentSchema, encodingSchema, windowSchema } from './schemas.ts';

export const sessionsInputs = {
  'sessions.capacity': z
    .object({
      tokens: z.number().int().min(0).optional(),
      window: windowSchema.optional(),
      transcript: transcriptSchema.optional(),
      encoding: encodingSchema.optional().describe("The tokenizer a transcript's turns are counted with; default o200k_base."),
    })
    .strict()
    .refine((v) => (v.tokens === undefined) !== (v.transcript === undefined), { message: 'give tokens or a transcript', path: ['tokens'] }),
  'sessions.analyze': z
    .object({
      transcript: transcriptSchema,
      window: windowSchema.optional(),
      targetReduction: z.number().min(0).max(0.95).optional(),
      targetTokens: z.number().int().min(1).optional().describe('Compact to about this many tokens (targetReduction wins when both are given); default: the seed\'s target for the size.'),
    })
    .strict(),
  'sessions.handoff': z
    .object({
      type: z.enum(HANDOFF_TYPES as unknown as [string, ...string[]]),
      transcript: transcriptSchema.optional(),
      from: agentSchema.optional(),
      to: agentSchema.optional(),
      reason: z.string().trim().max(2000).optional(),
      maxTokens: z.number().int().min(100, 'token budget must be at least 100').max(MAX_MAX_TOKENS).optional(),
      save: z.boolean().optional(),
      preview: z.boolean().optional().describe('Build the package and answer it, storing nothing: no snapshot, no state memory, no ownership moved, nothing saved.'),
      format: z.enum(['md', 'json']).optional(),
      sections: z.array(z.string().trim().min(1).max(300)).max(100).optional().describe('Hierarchy sections to hand over (e.g. §2.1); default every section the sender owns.'),
      encoding: encodingSchema.optional().describe('The tokenizer the budget is counted with; default o200k_base.'),
    })
    .strict(),
  'sessions.handoffGet': z
    .object({ hash: hashRefSchema, raw: z.boolean().optional().describe('Also answer `stored`: the exact stored bytes, which hash to the id.') })
    .strict(),
  'sessions.end': z
    .object({
      notes: z.string().min(1).max(NOTES_MAX, capError('notes', NOTES_MAX)).optional(),
      notesName: z.string().trim().min(1).max(1024).optional().describe("Where the notes came from (a file name), kept as the session's source; default notes."),
      transcript: transcriptSchema.optional(),
      agent: agentSchema.optional(),
    })
    .strict()
    .refine((v) => (v.notes === undefined) !== (v.transcript === undefined), { message: 'give notes or a transcript', path: ['notes'] }),
  'sessions.list': z.object({ limit: z.number().int().min(1).max(1000).optional() }).strict(),
  'sessions.captures': z.object({ limit: z.number().int().min(1).max(1000).optional(), window: windowSchema.optional() }).strict(),
};

/** A transcript as the method read it: the lines it skipped come back, so a caller can say so without parsing it again. */
export interface TranscriptRead {
  name: string;
  format: string;
  turns: number;
  problems: { line: number; message: string }[];
}

/** A dropped transcript, measured and compacted (the Sessions view). */
export interface SessionAnalysis {
  name: string;
  format: string;
  session_id: string | null;
  turns: number;
  problems: { line: number; message: string }[];
  redactions: number;
  capacity: CapacityReport;
  compaction: CompactionSummary;
  reduction: number;
  target_tokens: number | null;
  preserved: PreservedCheck[];
  elements: ElementReport[];
  text: string;
}

export interface StoredSessionView {
  id: string;
  agent_id: string;
  started_at: string | null;
  ended_at: string;
  source: string;
  headline: string;
}

export interface SessionsOutputs {
  'sessions.capacity': CapacityReport & { transcript?: TranscriptRead };
  'sessions.analyze': SessionAnalysis;
  'sessions.handoff': HandoffResult & { transcript?: TranscriptRead };
  'sessions.handoffGet': { hash: string; package: HandoffPackage; text: string; stored?: string };
  'sessions.end': SessionEndResult & { transcript?: TranscriptRead };
  'sessions.list': StoredSessionView[];
  'sessions.captures': CapturedSession[];
}
