// Agent session transcripts as a source (issues #13, #26): Claude Code (JSONL or one JSON array), Codex CLI rollouts,
// pi sessions, Cline / Roo task exports, Aider chat histories and Markdown chat exports (SpecStory and the like),
// behind one parser interface. Recognition is by content, so a transcript is found wherever it sits.
import { closeSync, constants, existsSync, fstatSync, openSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { overCap, TRANSCRIPT_MAX } from '../../../shared/limits.ts';
import { gateLabel, type RedactionEvent, type Redactor } from '../redact/index.ts';
import { aiderParser } from './aider.ts';
import { forgetJsonArray } from './jsonl-lines.ts';
import { claudeCodeParser } from './claude-code.ts';
import { CLINE_TASK_FILES, clineParser } from './cline.ts';
import { codexParser } from './codex.ts';
import { markdownChatParser } from './markdown-chat.ts';
import { normalizeTranscript } from './normalize.ts';
import { piParser } from './pi.ts';
import { FORMAT_DESCRIPTIONS, type Transcript, type TranscriptFormat, type TranscriptParser, type TranscriptTurn } from './types.ts';

export type { Transcript, TranscriptFormat, TranscriptParser, TranscriptProblem, TranscriptTurn, TurnKind, TurnOrigin, TurnRole } from './types.ts';
export { FORMAT_DESCRIPTIONS, TRANSCRIPT_FORMATS } from './types.ts';
export { commandOf, isInjectedText, normalizeTranscript, stripControl } from './normalize.ts';
export { aiderParser, claudeCodeParser, clineParser, codexParser, markdownChatParser, piParser };

/** Most specific first: Claude Code lines also look like generic JSON, Markdown is the last resort. */
export const TRANSCRIPT_PARSERS: readonly TranscriptParser[] = [claudeCodeParser, codexParser, piParser, clineParser, aiderParser, markdownChatParser];

export function detectTranscript(text: string): TranscriptParser | null {
  return TRANSCRIPT_PARSERS.find((p) => p.detect(text)) ?? null;
}

/** More turns than any real session has (10^6 one-word turns fit; 8 MB of two-character turns would not). */
export const TRANSCRIPT_MAX_TURNS = 1_500_000;

export class TranscriptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TranscriptError';
  }
}

/**
 * Parses a transcript in whichever format it is; throws TranscriptError naming the source and listing the formats
 * when none fits. Terminal control sequences are stripped and harness-injected turns marked (normalize.ts).
 */
export function parseTranscript(text: string, source: string, format?: TranscriptFormat): Transcript {
  // One cap for every door (CLI file, MCP, API): a transcript must fit in one MCP message (limits.ts).
  if (text.length > TRANSCRIPT_MAX) throw new TranscriptError(overCap(`${source}: transcript`, TRANSCRIPT_MAX, text.length));
  try {
    const parser = format ? TRANSCRIPT_PARSERS.find((p) => p.format === format)! : detectTranscript(text);
    if (!parser) {
      throw new TranscriptError(`${source}: not a recognized transcript. Formats read:\n${TRANSCRIPT_FORMATS_LIST}`);
    }
    const parsed = parser.parse(text, source);
    // The work bound of everything downstream (extraction and compaction are linear in it): a file of more turns is
    // refused with its count, before any of that work starts.
    if (parsed.turns.length > TRANSCRIPT_MAX_TURNS) throw new TranscriptError(overCap(`${source}: transcript`, TRANSCRIPT_MAX_TURNS, parsed.turns.length, 'turns'));
    return normalizeTranscript(parsed);
  } finally {
    // The parsed array detection shared with the parser is let go: a long-lived server must not keep the last one.
    forgetJsonArray();
  }
}

const TRANSCRIPT_FORMATS_LIST = TRANSCRIPT_PARSERS.map((p) => `  - ${p.format}: ${FORMAT_DESCRIPTIONS[p.format]}`).join('\n');

/**
 * A transcript file, or a Cline / Roo task folder (its api_conversation_history.json, else ui_messages.json).
 * The text is returned with the path actually read, for callers that keep it.
 */
export function readTranscriptPath(path: string): { text: string; path: string } {
  if (statSync(path).isDirectory()) {
    const file = CLINE_TASK_FILES.map((f) => join(path, f)).find((f) => existsSync(f));
    if (!file) throw new TranscriptError(`${path}: a folder, but not a Cline / Roo task folder (no ${CLINE_TASK_FILES.join(' or ')} in it)`);
    return { text: readTranscriptFile(file), path: file };
  }
  return { text: readTranscriptFile(path), path };
}

/** The most bytes a transcript within TRANSCRIPT_MAX characters can take (a UTF-16 unit is at most 3 bytes of UTF-8). */
export const TRANSCRIPT_MAX_BYTES = 3 * TRANSCRIPT_MAX;

/**
 * A transcript file's text: only a regular file (a FIFO, socket or device is refused at once: opened non-blocking,
 * checked before any read), and never more than TRANSCRIPT_MAX_BYTES read (a larger file is refused by its size).
 */
export function readTranscriptFile(path: string): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOCTTY ?? 0));
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new TranscriptError(`${path}: ${st.isFIFO() ? 'a FIFO' : st.isSocket() ? 'a socket' : st.isDirectory() ? 'a folder' : 'a device'}, not a regular file (refused)`);
    if (st.size > TRANSCRIPT_MAX_BYTES) throw new TranscriptError(overCap(`${path}: transcript`, TRANSCRIPT_MAX_BYTES, st.size, 'bytes'));
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/** One turn as a line of text: `[time] role (tool, error): text`. The form compaction, handoffs and ingest show. */
export function turnHeader(t: TranscriptTurn): string {
  const who = t.kind === 'tool_use' ? `assistant → ${t.tool_name ?? 'tool'}` : t.kind === 'tool_result' ? `${t.tool_name ?? 'tool'} result${t.is_error ? ' (error)' : ''}` : t.role;
  return `${t.ts ? `[${t.ts}] ` : ''}${who}`;
}

export function renderTurn(t: TranscriptTurn): string {
  return `${turnHeader(t)}: ${t.text}`;
}

/**
 * Every turn's text through the redaction gate, before anything is measured, extracted, stored or shown: a secret
 * an agent printed into its session must not reach a handoff, a memory or the clipboard.
 */
export function redactTranscript(t: Transcript, redactor: Redactor, section = 'TRANSCRIPT', log?: ((e: RedactionEvent) => void) | null): { transcript: Transcript; redactions: number } {
  let redactions = 0;
  // The transcript's name (a file name, an MCP `transcript_name`) is provenance that reaches the redaction log, the
  // handoff's `Source:` line and its stored snapshot: it passes the gate like the text, before any of them sees it.
  const source = gateLabel(t.source, { redactor, source: 'transcript name', section });
  const turns = t.turns.map((turn) => {
    const r = redactor.redactText(turn.text, { source: `${source}:${turn.line}`, section });
    redactions += r.redactions.length;
    if (log) for (const e of r.redactions) log(e);
    return r.redactions.length > 0 ? { ...turn, text: r.text } : turn;
  });
  const session_id = t.session_id ? gateLabel(t.session_id, { redactor, source: 'transcript session id', section }) : t.session_id;
  return { transcript: { ...t, source, session_id, turns }, redactions };
}
