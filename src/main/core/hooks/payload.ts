// The JSON a coding agent's hook system writes on a hook command's stdin. Claude Code documents
// {session_id, transcript_path, cwd, hook_event_name} plus per event `trigger` (PreCompact: manual | auto),
// `source` (SessionStart: startup | resume | clear | compact) and `reason` (SessionEnd); Codex's hooks send the same
// field names. Only these fields are read; everything else in the payload is ignored.
import { homedir } from 'node:os';

export const HOOK_EVENTS = ['PreCompact', 'SessionStart', 'SessionEnd', 'Stop'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

export interface HookPayload {
  event: HookEvent;
  session_id: string | null;
  transcript_path: string | null;
  cwd: string | null;
  /** PreCompact: manual | auto. */
  trigger: string | null;
  /** SessionStart: startup | resume | clear | compact. */
  source: string | null;
  /** SessionEnd: clear | logout | prompt_input_exit | other. */
  reason: string | null;
}

/** A payload the hook cannot act on; the message names the field. */
export class HookInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HookInputError';
  }
}

/** Hook payloads are a few hundred bytes; anything past this is not one. */
export const MAX_PAYLOAD_BYTES = 1 << 20;

/** `PreCompact`, `precompact`, `pre-compact`, `session_start` … → the event's documented name. */
export function hookEventOf(name: string): HookEvent | null {
  const key = name.toLowerCase().replace(/[-_\s]/g, '');
  return HOOK_EVENTS.find((e) => e.toLowerCase() === key) ?? null;
}

const optString = (rec: Record<string, unknown>, field: string, max = 4096): string | null => {
  const v = rec[field];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw new HookInputError(`hook payload: "${field}" must be a string, got ${Array.isArray(v) ? 'array' : typeof v}`);
  if (v.length > max) throw new HookInputError(`hook payload: "${field}" is longer than ${max} characters`);
  if (v.includes('\0')) throw new HookInputError(`hook payload: "${field}" contains a NUL byte`);
  return v;
};

/**
 * Parses the payload. The event comes from the command line (`contextpack hook PreCompact`) or, without one, from
 * `hook_event_name`; when both are given they must agree, so a hook wired to the wrong event is reported, not run.
 */
export function parseHookPayload(text: string, eventArg?: string): HookPayload {
  if (Buffer.byteLength(text) > MAX_PAYLOAD_BYTES) throw new HookInputError(`hook payload: larger than ${MAX_PAYLOAD_BYTES} bytes`);
  let rec: unknown;
  try {
    rec = text.trim() === '' ? {} : JSON.parse(text);
  } catch (err) {
    throw new HookInputError(`hook payload: not JSON (${(err as Error).message})`);
  }
  if (!rec || typeof rec !== 'object' || Array.isArray(rec)) throw new HookInputError('hook payload: expected a JSON object');
  const r = rec as Record<string, unknown>;
  const named = optString(r, 'hook_event_name', 64);
  const fromArg = eventArg !== undefined ? hookEventOf(eventArg) : null;
  if (eventArg !== undefined && !fromArg) throw new HookInputError(`unknown hook event ${JSON.stringify(eventArg)} (expected ${HOOK_EVENTS.join(', ')})`);
  const fromPayload = named !== null ? hookEventOf(named) : null;
  if (named !== null && !fromPayload && !fromArg) throw new HookInputError(`hook payload: unknown "hook_event_name" ${JSON.stringify(named)}`);
  if (fromArg && fromPayload && fromArg !== fromPayload) throw new HookInputError(`hook payload: "hook_event_name" is ${fromPayload}, but the command was called for ${fromArg}`);
  const event = fromArg ?? fromPayload;
  if (!event) throw new HookInputError('hook payload: no event (give it on the command line or as "hook_event_name")');
  return {
    event,
    session_id: optString(r, 'session_id', 256),
    transcript_path: optString(r, 'transcript_path'),
    cwd: optString(r, 'cwd'),
    trigger: optString(r, 'trigger', 64),
    source: optString(r, 'source', 64),
    reason: optString(r, 'reason', 64),
  };
}

/** `/home/me/.claude/…` → `~/.claude/…`: handoffs, memories and logs cite the transcript without the home folder's name. */
export function transcriptLabel(path: string, home = homedir()): string {
  return home && path.startsWith(home + '/') ? `~${path.slice(home.length)}` : path;
}
