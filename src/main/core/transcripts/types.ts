// An agent session transcript as one neutral shape, whatever tool wrote it (Claude Code, Codex CLI, a Markdown export).

export type TurnRole = 'user' | 'assistant' | 'system' | 'tool';
export type TurnKind = 'text' | 'tool_use' | 'tool_result';

export interface TranscriptTurn {
  /** Order in the transcript, from 0. */
  index: number;
  /** 1-based line in the source file where the turn starts (provenance: `file:line`). */
  line: number;
  role: TurnRole;
  kind: TurnKind;
  /** ISO 8601, or null when the format carries no time. */
  ts: string | null;
  text: string;
  /** The tool called (tool_use) or answered (tool_result). */
  tool_name: string | null;
  /** Links a tool_result to its tool_use. */
  tool_use_id: string | null;
  /** A tool result the tool itself flagged as failed (Claude's is_error, Codex's non-zero exit code, `(error)` in Markdown). */
  is_error: boolean;
}

export interface TranscriptProblem {
  line: number;
  message: string;
}

export type TranscriptFormat = 'claude-code' | 'codex' | 'markdown-chat';
export const TRANSCRIPT_FORMATS: readonly TranscriptFormat[] = ['claude-code', 'codex', 'markdown-chat'];

export interface Transcript {
  format: TranscriptFormat;
  /** Where it came from (a path, or a name the caller gives). */
  source: string;
  session_id: string | null;
  turns: TranscriptTurn[];
  /** Lines that could not be read; every other line is kept. */
  problems: TranscriptProblem[];
}

/** One transcript format. detect() looks at content only (never the file name), so ingest can recognize a transcript anywhere. */
export interface TranscriptParser {
  format: TranscriptFormat;
  detect(text: string): boolean;
  parse(text: string, source: string): Transcript;
}
