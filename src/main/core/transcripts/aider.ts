import type { Transcript, TranscriptParser, TranscriptProblem, TranscriptTurn, TurnRole } from './types.ts';

// Aider's chat history (.aider.chat.history.md), appended to by every session run in the repository:
//   # aider chat started at 2025-05-23 16:51:58      a session starts (several per file)
//   #### fix the login test                          the user's message, one `#### ` line per line of it
//   > Applied edit to src/auth.py                    aider's own output: status, command output, warnings
//   anything else                                    the model's answer (edit blocks included)
// Markdown line breaks (two trailing spaces) are dropped. Inside a fence of the answer, `> ` and `#### ` are text.

const STARTED = /^# aider chat started at (\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2})?)/;
const USER = /^####(?: |$)(.*)$/;
const TOOL = /^>(?: |$)(.*)$/;
const FENCE = /^\s*(```|~~~|````)/;
// aider prints these when a command it ran failed or a check found errors.
const FAILED = /^(Traceback \(most recent call last\)|Error:|E\s{2,}|FAILED\b|.*\b\d+ failed\b|.*\berror\b.*\bexit(?:ed)? (?:code|status) [1-9])/im;

/** Aider writes local time without a zone; read as UTC so the same file gives the same times on every machine. */
function localIso(s: string): string | null {
  const ms = Date.parse(`${s.replace(' ', 'T')}Z`);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}

export const aiderParser: TranscriptParser = {
  format: 'aider',
  detect(text) {
    return /^# aider chat started at \d{4}-\d{2}-\d{2}/m.test(text.slice(0, 64 * 1024));
  },
  parse(text, source): Transcript {
    const problems: TranscriptProblem[] = [];
    const turns: TranscriptTurn[] = [];
    let ts: string | null = null;
    let cur: { role: TurnRole; line: number; body: string[] } | null = null;
    let inFence = false;
    const flush = () => {
      if (!cur) return;
      // One line (most turns of a long history) without a join and two regex passes.
      const body = cur.body.length === 1 ? cur.body[0]!.trimEnd() : cur.body.join('\n').replace(/^\n+|\s+$/g, '');
      if (body !== '') {
        const tool = cur.role === 'tool';
        turns.push({ index: turns.length, line: cur.line, role: cur.role, kind: tool ? 'tool_result' : 'text', ts, text: body, tool_name: tool ? 'aider' : null, tool_use_id: null, is_error: tool && FAILED.test(body) });
      }
      cur = null;
    };
    const add = (role: TurnRole, lineNo: number, s: string) => {
      if (!cur || cur.role !== role) {
        flush();
        cur = { role, line: lineNo, body: [] };
      }
      (cur as { body: string[] }).body.push(s.endsWith('  ') ? s.slice(0, -2) : s);
    };
    // Line by line without splitting the whole text first: a history of 10^6 turns is 2·10^6 lines.
    let last: string | undefined;
    let at = 0;
    for (let i = 0; at <= text.length; i++) {
      const nl = text.indexOf('\n', at);
      const end = nl < 0 ? text.length : nl;
      const line = text.slice(at, end > at && text.charCodeAt(end - 1) === 13 ? end - 1 : end);
      at = end + 1;
      const prev = last;
      last = line;
      // Aider's own markers stand whatever the answer's fences say: a session start always, a user line when it opens
      // a message (after a blank line or another user line), as aider writes it. An answer with an unbalanced fence
      // must not swallow the turns after it.
      if (inFence && (STARTED.test(line) || (USER.test(line) && (prev?.trim() === '' || USER.test(prev ?? ''))))) inFence = false;
      if (!inFence) {
        const started = STARTED.exec(line);
        if (started) {
          flush();
          ts = localIso(started[1]!);
          if (ts === null) problems.push({ line: i + 1, message: `unreadable session start time ${JSON.stringify(started[1])}` });
          continue;
        }
        const u = USER.exec(line);
        if (u) {
          add('user', i + 1, u[1]!);
          continue;
        }
        const t = TOOL.exec(line);
        if (t && (cur === null || (cur as { role: TurnRole }).role !== 'assistant' || prev?.trim() === '')) {
          add('tool', i + 1, t[1]!);
          continue;
        }
      }
      if (FENCE.test(line)) inFence = !inFence;
      // A blank line ends a user or tool block; the answer runs on through its blank lines.
      if (line.trim() === '' && cur && (cur as { role: TurnRole }).role !== 'assistant') {
        flush();
        continue;
      }
      if (line.trim() === '' && !cur) continue;
      add('assistant', i + 1, line);
    }
    flush();
    return { format: 'aider', source, session_id: null, turns, problems };
  },
};
