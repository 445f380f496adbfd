// An agent session transcript as one neutral shape, whatever tool wrote it (Claude Code, Codex CLI, a Markdown export).

export type TurnRole = 'user' | 'assistant' | 'system' | 'tool';
export type TurnKind = 'text' | 'tool_use' | 'tool_result';
/**
 * Where a turn's words come from when not plainly from its role: `injected` (the harness wrote it in the user's
 * place: AGENTS.md / CLAUDE.md instructions, environment blocks, system reminders, hook output, command caveats),
 * `command` (a slash command the user ran, as `/name args`), `compact_summary` (the agent's own summary of the
 * context it compacted: Claude Code's isCompactSummary, Codex's `compacted`), `sidechain` (a sub-agent's exchange
 * inside the main session).
 */
export type TurnOrigin = 'injected' | 'command' | 'compact_summary' | 'sidechain';

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
  /** Unset for a turn that is what its role says (the user's own words, the agent's own answer). */
  origin?: TurnOrigin;
}

export interface TranscriptProblem {
  line: number;
  message: string;
}

export type TranscriptFormat = 'claude-code' | 'codex' | 'pi' | 'cline' | 'aider' | 'markdown-chat';
export const TRANSCRIPT_FORMATS: readonly TranscriptFormat[] = ['claude-code', 'codex', 'pi', 'cline', 'aider', 'markdown-chat'];

/** What each format is, for the error an unrecognised file gets. */
export const FORMAT_DESCRIPTIONS: Record<TranscriptFormat, string> = {
  'claude-code': 'Claude Code session JSONL (lines with sessionId and message), or the same entries saved as one JSON array',
  codex: 'Codex CLI rollout JSONL ({timestamp, type, payload} lines)',
  pi: 'pi coding agent session JSONL (first line {"type":"session","version":…})',
  cline: 'Cline / Roo task export (api_conversation_history.json, ui_messages.json, or the task folder)',
  aider: 'Aider chat history (.aider.chat.history.md: "# aider chat started at", "#### " user lines)',
  'markdown-chat': 'Markdown chat export ("## User" / "## Assistant", "### Human", "**User:**", SpecStory\'s "_**User**_")',
};

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
