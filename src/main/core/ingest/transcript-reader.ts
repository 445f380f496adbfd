import { basename } from 'node:path';
import { detectTranscript, normalizeTranscript, renderTurn } from '../transcripts/index.ts';
import { chunkLines, type ChunkDraft, type ChunkOptions } from './chunker.ts';
import type { ParsedDocument } from './parsed-document.ts';

/**
 * An agent session transcript (any format core/transcripts reads), recognized by content: one
 * chunk run per turn, `turn=N` anchors, and the turn's source line as provenance. Null when the text is not one.
 * Malformed lines are skipped here (ingest keeps the rest); `contextpack capacity|handoff --transcript` report them.
 */
export function readTranscript(text: string, path: string, options: ChunkOptions): ParsedDocument[] | null {
  const parser = detectTranscript(text);
  if (!parser) return null;
  const t = normalizeTranscript(parser.parse(text, path));
  if (t.turns.length === 0) return null;
  // JSON turns sit on one line (or one array entry); Markdown turns span theirs.
  const jsonl = t.format !== 'markdown-chat' && t.format !== 'aider';
  const chunks: ChunkDraft[] = [];
  for (const turn of t.turns) {
    const meta = { headingPath: [`Turn ${turn.index}`, turn.kind === 'text' ? turn.role : `${turn.tool_name ?? 'tool'} ${turn.kind === 'tool_use' ? 'call' : 'result'}`], anchor: `turn=${turn.index}` };
    const drafts = chunkLines(renderTurn(turn), options, turn.line, meta);
    // A JSONL turn is one source line however its text wraps.
    chunks.push(...(jsonl ? drafts.map((c) => ({ ...c, lineStart: turn.line, lineEnd: turn.line })) : drafts));
  }
  const title = `${t.format} transcript${t.session_id ? ` ${t.session_id}` : ''} (${basename(path)})`;
  return [{ title, externalId: t.session_id, chunks }];
}
