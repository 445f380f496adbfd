import { isoOrNull } from './jsonl-lines.ts';
import type { Transcript, TranscriptParser, TranscriptProblem, TranscriptTurn, TurnRole } from './types.ts';

// Markdown chat exports: one `## User` / `## Assistant` heading per turn (also `## System`, and `## Tool: name`,
// `## Tool: name (error)` for tool output). A time may follow the role: `## User — 2025-11-04T14:23:00Z` or
// `## Assistant (2025-11-04 14:23)`. Headings inside fenced code blocks are text, not turns.
// The other common exports start a turn the same way: `### Human` (any heading level), SpecStory's
// `_**User (2025-07-26 14:46Z)**_` / `_**Assistant (model)**_`, and `**User:**` with the text on the same line or
// below. A `---` closing a turn is the export's separator. `<think>` text stays: SpecStory rarely closes it, and
// the export is counted as written.

const ROLE_WORDS = 'user|human|assistant|claude|ai|system|tool(?:\\s+result)?';
const HEADING = new RegExp(`^#{1,4}\\s+(${ROLE_WORDS})\\b\\s*(.*)$`, 'i');
const SPECSTORY = new RegExp(`^_\\*\\*(${ROLE_WORDS})\\b\\s*([^*]*)\\*\\*_\\s*$`, 'i');
const BOLD = new RegExp(`^\\*\\*(${ROLE_WORDS})\\s*(\\([^)]*\\))?\\s*(?::\\s*\\*\\*|\\*\\*\\s*:)\\s*(.*)$`, 'i');

/** [role word, what follows it, text on the same line] when the line starts a turn in one of the known forms. */
function turnStart(line: string): { m: RegExpMatchArray; inline: string; strictTime: boolean } | null {
  const h = HEADING.exec(line);
  // Other heading levels only as a bare role (or a role and a time): `### User stories` is a document's heading.
  if (h && (line.startsWith('## ') || /^([—–(:-]|$)/.test(h[2]!.trim()))) return { m: h, inline: '', strictTime: line.startsWith('## ') };
  const sp = SPECSTORY.exec(line);
  if (sp) return { m: sp, inline: '', strictTime: false };
  const b = BOLD.exec(line);
  if (b) return { m: [b[0], b[1]!, b[2] ?? ''] as unknown as RegExpMatchArray, inline: b[3]!, strictTime: false };
  return null;
}
const FENCE = /^\s*(```|~~~)/;

const ROLES: Record<string, TurnRole> = { user: 'user', human: 'user', assistant: 'assistant', claude: 'assistant', ai: 'assistant', system: 'system', tool: 'tool', 'tool result': 'tool' };

interface Head {
  role: TurnRole;
  ts: string | null;
  tool: string | null;
  error: boolean;
  badTime: string | null;
}

function parseHeading(m: RegExpMatchArray, strictTime = true): Head {
  const role = ROLES[m[1]!.toLowerCase().replace(/\s+/g, ' ')]!;
  let rest = m[2]!.trim();
  let tool: string | null = null;
  let error = false;
  if (/\(error\)\s*$/i.test(rest)) {
    error = true;
    rest = rest.replace(/\(error\)\s*$/i, '').trim();
  }
  if (role === 'tool') {
    const t = /^[:(]\s*([\w.:-]+)\)?\s*(.*)$/.exec(rest);
    if (t) {
      tool = t[1]!;
      rest = t[2]!.trim();
    }
  }
  // Whatever is left is a time, with an optional separator.
  const timeText = rest.replace(/^[—–\-:(\s]+|[)\s]+$/g, '');
  let ts: string | null = null;
  let badTime: string | null = null;
  if (timeText !== '') {
    ts = /\d{4}-\d{2}-\d{2}/.test(timeText) ? isoOrNull(timeText.replace(' ', 'T')) : null;
    // Only `## Role <time>` promises a time; elsewhere the parenthesis may name a model.
    if (ts === null && strictTime) badTime = timeText;
  }
  return { role, ts, tool, error, badTime };
}

export const markdownChatParser: TranscriptParser = {
  format: 'markdown-chat',
  detect(text) {
    let user = false;
    let assistant = false;
    let inFence = false;
    for (const line of text.split(/\r?\n/)) {
      if (SPECSTORY.test(line)) inFence = false;
      else if (FENCE.test(line)) inFence = !inFence;
      if (inFence) continue;
      const start = turnStart(line);
      if (!start) continue;
      const role = ROLES[start.m[1]!.toLowerCase().replace(/\s+/g, ' ')];
      if (role === 'user') user = true;
      if (role === 'assistant') assistant = true;
      if (user && assistant) return true;
    }
    return false;
  },
  parse(text, source): Transcript {
    const problems: TranscriptProblem[] = [];
    const turns: TranscriptTurn[] = [];
    const lines = text.split(/\r?\n/);
    let current: { head: Head; line: number; body: string[] } | null = null;
    let preamble: { line: number; body: string[] } | null = null;
    let inFence = false;
    const flush = () => {
      if (!current) return;
      const body = current.body
        .join('\n')
        .replace(/^\s*\n|\s+$/g, '')
        .replace(/(^|\n+)---$/, '')
        .replace(/\s+$/, '');
      const { head } = current;
      turns.push({
        index: turns.length,
        line: current.line,
        role: head.role,
        kind: head.role === 'tool' ? 'tool_result' : 'text',
        ts: head.ts,
        text: body,
        tool_name: head.tool,
        tool_use_id: null,
        is_error: head.error,
      });
      current = null;
    };
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      // SpecStory's `_**User**_` / `_**Assistant**_` lines are the export's own markers: they start a turn whatever the
      // fences before them say (an answer with an unbalanced fence must not swallow the turns after it). A `## User`
      // heading is only Markdown, so inside a fence it stays text.
      const own = SPECSTORY.test(line);
      if (own) inFence = false;
      else if (FENCE.test(line)) inFence = !inFence;
      const start = inFence ? null : turnStart(line);
      if (start) {
        flush();
        const head = parseHeading(start.m, start.strictTime);
        if (head.badTime !== null) problems.push({ line: i + 1, message: `unreadable time ${JSON.stringify(head.badTime)} (kept the turn without a time)` });
        current = { head, line: i + 1, body: start.inline ? [start.inline] : [] };
        continue;
      }
      if (current) {
        (current as { body: string[] }).body.push(line);
        continue;
      }
      // Before the first turn: a `# Title` line is fine; other text belongs to no turn.
      if (line.trim() === '' || /^#\s/.test(line) || /^\s*<!--.*-->\s*$/.test(line) || line.trim() === '---') continue;
      if (!preamble) {
        preamble = { line: i + 1, body: [] };
        problems.push({ line: i + 1, message: 'text before the first `## User` / `## Assistant` heading (kept as a system turn)' });
      }
      preamble.body.push(line);
    }
    flush();
    if (preamble) {
      const p = preamble as { line: number; body: string[] };
      turns.unshift({ index: 0, line: p.line, role: 'system', kind: 'text', ts: null, text: p.body.join('\n'), tool_name: null, tool_use_id: null, is_error: false });
      turns.forEach((t, i) => (t.index = i));
    }
    return { format: 'markdown-chat', source, session_id: null, turns, problems };
  },
};
