// Errors that resolve (#26 item 5): failed tool results grouped by what failed (the command, the test, the file) and
// the normalized message, never by a bare exit code; a root cause only from text that refers to that error; an
// error is resolved when a later run of the same command (or test) succeeds. Only unresolved errors are pitfalls.
import type { Transcript, TranscriptTurn } from '../transcripts/index.ts';
import { oneLine } from './requests.ts';

export interface ExtractedError {
  id: string;
  tool: string | null;
  /** What failed: the command line, the test, the file (null when the transcript does not say). */
  command: string | null;
  /** The error message lines, without the stack trace. */
  message: string;
  root_cause: string | null;
  /** How many times the same message occurred. */
  occurrences: number;
  /** A later run of the same command succeeded. */
  resolved: boolean;
  /** Where it was resolved. */
  resolved_at: { turn: number; line: number; ts: string | null } | null;
  /**
   * Why an unresolved error did not block the work (a probe, a check meant to fail, a later green run, work finished
   * after it: blocking.ts), or null when it did. Only blocking errors become issues and pitfalls.
   */
  expected?: string | null;
  at: { turn: number; line: number; ts: string | null };
}

const ROOT_CAUSE = /\b(root cause|caused by|the cause (?:is|was)|was due to|is due to|turned out|because of|fails? because|failed because|the (?:problem|issue) (?:is|was))\b/i;
export const STACK_FRAME = /^\s+at\s|^\s*File ".*", line \d+|^\s*Traceback \(most recent|^\s+\^+\s*$|^\s*\d+\s*\|\s|^\s*at .+:\d+:\d+\)?$/;
const BARE_EXIT = /^\s*(?:\[?\s*)?(?:exit(?:ed)? (?:code|status)|process exited with code|command failed with exit code)\s*:?\s*-?\d+\s*\]?\s*$/i;
const WRITE_TOOL = /^(write|edit|multiedit|notebookedit|str_replace\w*|create_file|write_file|write_to_file|edit_file|replace_in_file|apply_patch)$/i;
const STRONG = /^\s*(?:[\w.]*(?:Error|Exception)\b|error(?:\[\w+\])?:|ERROR\b|FAIL(?:ED)?\b|✘|×|E\s{2,}|fatal:|panic:|Traceback|<tool_use_error>|\S+:\d+:\d+: (?:error|[A-Z]\d+))/;
const PROTOCOL = /\b(InputValidationError|has not been read yet|Read it first before writing)\b/;
const USER_DECLINED = /\b(rejected by the user|user (?:rejected|declined|denied)|the user doesn't want to (?:proceed|take this action)|user chose to stay in plan mode)\b/i;
const PASSED = /\b(all (?:\d+ )?(?:tests?|checks?) pass(?:ed)?|\d+ passed|passing|0 failed|0 remaining|✓|success(?:fully)?|build (?:succeeded|completed)|ok\b)/i;
const FAILED_COUNT = /\b[1-9]\d* (?:failed|failing|errors?)\b/i;

/** The message lines of an error output: errorish lines without stack frames, never a bare "Exit code 1". */
export function errorMessage(text: string, command: string | null): string {
  const lines = text
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '' && !BARE_EXIT.test(l) && !STACK_FRAME.test(l));
  // Lines shaped like an error message come first; then the first line (tools put their message there), never a
  // line deep in a listing that only happens to say "error".
  const strong = lines.slice(0, 60).filter((l) => STRONG.test(l)).slice(0, 2);
  const use = strong.length > 0 ? strong : lines.slice(0, 1);
  const msg = use.map((l) => oneLine(l, 300)).join(' | ');
  if (msg) return msg;
  const code = /(-?\d+)\s*\]?\s*$/.exec(text.trim())?.[1];
  return `${command ?? 'the command'} failed${code ? ` (exit code ${code})` : ''} with no other output`;
}

const normalizeMessage = (s: string) =>
  s
    .replace(/\d{4}-\d{2}-\d{2}T[\d:.]+Z?/g, '')
    .replace(/\b\d+(\.\d+)?\s*m?s\b/g, '')
    .replace(/0x[0-9a-f]+/gi, '')
    .replace(/\(\d+(\.\d+)?s\)/g, '')
    .trim()
    .toLowerCase();

/** What a tool call ran: the command without `cd … &&` and env prefixes, or the file it touched. */
export function commandKey(callText: string | null): string | null {
  if (!callText) return null;
  const m = /^(?:command|cmd):\s*([\s\S]+)$/.exec(callText.trim());
  if (m) {
    let c = m[1]!.replace(/\s+/g, ' ').trim();
    c = c.replace(/^(?:bash|sh|zsh) -l?c /, '').replace(/^["']|["']$/g, '');
    c = c.replace(/^(?:cd \S+ (?:&&|;) )+/, '').replace(/^(?:[A-Z_][A-Z0-9_]*=\S* )+/, '');
    for (let i = 0; i < 2; i++) c = c.replace(/\s*(?:2>&1|\|\s*(?:head|tail)\b.*)$/, '').trim();
    return c.slice(0, 200);
  }
  const p = /^(?:file_path|path|filename|file|pattern|query|url):\s*(\S+)/.exec(callText.trim());
  if (p) return p[1]!.replace(/^[^\w./~-]+/, '').slice(0, 200);
  // A JSON input (sub-agent tasks, custom tools): its description or name says what was attempted.
  try {
    const v = JSON.parse(callText) as Record<string, unknown>;
    for (const k of ['description', 'name', 'title', 'subagent_type']) if (typeof v[k] === 'string') return oneLine(v[k] as string, 120);
    if (typeof v.input === 'string') return oneLine(v.input.split('\n')[0]!.replace(/^[^\w./~-]+/, ''), 120);
  } catch {
    /* not JSON */
  }
  return oneLine(callText, 120);
}

function writesFile(callText: string, path: string): boolean {
  const base = path.split('/').pop() ?? '';
  if (!base || !callText.startsWith('command:')) return false;
  const esc = base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?:>>?|\\btee\\s+(?:-a\\s+)?)\\s*["']?(?:\\S*/)?${esc}(?=["'\\s;&|]|$)`).test(callText);
}

/** Same program and subcommand (`npm test`, `npx vitest`, `pytest`): a later green run of the family resolves a red one. */
const family = (key: string) => key.split(' ').filter((w) => !w.startsWith('-')).slice(0, 2).join(' ');
/** The same arguments under another program name (`python x.py` → `python3 x.py`): the same run, retried. */
const args = (key: string) => key.split(' ').slice(1).join(' ');

const SALIENT = /[\p{L}\p{N}_./:-]{4,}/gu;
const STOP = new Set(['error', 'errors', 'failed', 'failure', 'cannot', 'found', 'with', 'that', 'this', 'from', 'file', 'expected', 'received', 'exit', 'code', 'command', 'the', 'and', 'undefined', 'true', 'false', 'null']);
const salient = (s: string) => new Set((s.toLowerCase().match(SALIENT) ?? []).filter((w) => !STOP.has(w) && !/^\d+$/.test(w)));

export function extractErrors(t: Transcript, own: (turn: TranscriptTurn) => boolean): ExtractedError[] {
  const calls = new Map<string, TranscriptTurn>();
  for (const turn of t.turns) if (turn.kind === 'tool_use' && turn.tool_use_id) calls.set(turn.tool_use_id, turn);
  const callOf = (r: TranscriptTurn): TranscriptTurn | null => {
    if (r.tool_use_id && calls.has(r.tool_use_id)) return calls.get(r.tool_use_id)!;
    const prev = t.turns[r.index - 1];
    return prev && prev.kind === 'tool_use' ? prev : null;
  };
  const results = t.turns.filter((x) => x.kind === 'tool_result');
  const prose = t.turns.filter((x) => x.kind === 'text' && x.role !== 'user' && own(x));
  const errors: ExtractedError[] = [];
  const byKey = new Map<string, ExtractedError>();
  const firstAt = new Map<ExtractedError, number>();
  for (const r of results) {
    const call = callOf(r);
    // Exports without tool calls (Markdown) often echo the command as the output's first line: `$ npm test`.
    const echoed = call ? null : /^\s*\$ (.+)$/m.exec(r.text.split('\n').find((x) => x.trim() !== '') ?? '')?.[1];
    const key = commandKey(call?.text ?? (echoed ? `command: ${echoed}` : null));
    if (!r.is_error) {
      // A success resolves the open errors of the same command, or of its family when the output says it passed.
      const tool = r.tool_name ?? call?.tool_name ?? null;
      for (const e of errors) {
        if (e.resolved || e.command === null || key === null) continue;
        // A failed write of a file, written later by a shell redirect (`cat > .env.sample`, `tee .env.sample`).
        if (!/\s/.test(e.command) && writesFile(call?.text ?? '', e.command)) {
          e.resolved = true;
          e.resolved_at = { turn: r.index, line: r.line, ts: r.ts };
          continue;
        }
        // A call the harness refused for its form (a missing parameter, a write before a read) is fixed by the next
        // well-formed call of the same tool.
        if (PROTOCOL.test(e.message) && e.tool === tool) {
          e.resolved = true;
          e.resolved_at = { turn: r.index, line: r.line, ts: r.ts };
          continue;
        }
        // The same tool, or a write that succeeded on the file a failed read or edit was about.
        if (e.tool !== tool && !(e.command === key && tool !== null && WRITE_TOOL.test(tool))) continue;
        const sameArgs = args(e.command) !== '' && args(e.command) === args(key);
        // `a && b` failed and `b` later ran green: the step that failed was the last one.
        const lastStep = e.command.includes(' && ') && e.command.split(' && ').at(-1) === key.split(' && ').at(-1);
        const green = PASSED.test(r.text) && (!FAILED_COUNT.test(r.text) || /\b0 (?:remaining|failed|errors?)\b/i.test(r.text));
        if (e.command === key || sameArgs || lastStep || (family(e.command) === family(key) && green)) {
          e.resolved = true;
          e.resolved_at = { turn: r.index, line: r.line, ts: r.ts };
        }
      }
      continue;
    }
    // The user declining a plan or a tool call is a decision, not a failure to fix.
    if (USER_DECLINED.test(r.text.slice(0, 400))) continue;
    const tool = r.tool_name ?? call?.tool_name ?? null;
    const message = errorMessage(r.text, key);
    const at = { turn: r.index, line: r.line, ts: r.ts };
    const k = `${tool}\u0000${key ?? ''}\u0000${normalizeMessage(message)}`;
    const prev = byKey.get(k);
    if (prev) {
      prev.occurrences++;
      prev.at = at;
      prev.resolved = false;
      prev.resolved_at = null;
    } else {
      const e: ExtractedError = { id: `error:${errors.length + 1}`, tool, command: key, message, root_cause: null, occurrences: 1, resolved: false, resolved_at: null, at };
      firstAt.set(e, at.turn);
      errors.push(e);
      byKey.set(k, e);
    }
  }
  // Root causes: a ROOT_CAUSE line in the agent's prose before the next failure (it answers this error), or later
  // within 40 turns when it names something of this error (its command, file, test or message words).
  const failures = results.filter((r) => r.is_error).map((r) => r.index);
  for (const e of errors) {
    const words = salient(`${e.command ?? ''} ${e.message}`);
    const from = firstAt.get(e)!;
    const nextFailure = failures.find((i) => i > from) ?? Infinity;
    for (const p of prose) {
      if (p.index <= from || p.index > e.at.turn + 40) continue;
      const hit = p.text.split('\n').find((line) => {
        if (!ROOT_CAUSE.test(line)) return false;
        if (p.index < nextFailure) return true;
        const w = salient(line);
        for (const x of words) if (w.has(x)) return true;
        return false;
      });
      if (hit) {
        e.root_cause = oneLine(hit.replace(/\*\*|__/g, '').replace(/^\s*[-*]\s*/, '').replace(/^root cause\s*:\s*/i, ''), 400);
        break;
      }
    }
  }
  return errors;
}
