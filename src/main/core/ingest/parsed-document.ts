import type { ChunkDraft } from './chunker.ts';

/** What a reader makes of one file: a leaf of its own, so the readers and the transcript reader need not import each other. */
export interface ParsedDocument {
  title: string;
  externalId: string | null;
  chunks: ChunkDraft[];
}
