import { firstRecords, isObj, isoOrNull, jsonlRecords, strOr, toolInputText } from './jsonl-lines.ts';
import type { Transcript, TranscriptParser, TranscriptProblem, TranscriptTurn, TurnRole } from './types.ts';

// Claude Code session files: one JSON object per line,
// {type, sessionId, uuid, timestamp, message: {role, content: string | [{type: text|tool_use|tool_result|thinking, …}]}}.
// Lines of other types (summary, file-history-snapshot, …) carry no turn and are skipped without complaint.

const TURN_TYPES = new Set(['user', 'assistant', 'system']);

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((b) => (isObj(b) && typeof b.text === 'string' ? b.text : '')).filter(Boolean).join('\n');
  return '';
}

export const claudeCodeParser: TranscriptParser = {
  format: 'claude-code',
  detect(text) {
    return firstRecords(text).some((r) => typeof r.sessionId === 'string' && isObj(r.message) && typeof r.type === 'string');
  },
  parse(text, source): Transcript {
    const problems: TranscriptProblem[] = [];
    const turns: TranscriptTurn[] = [];
    const toolNames = new Map<string, string>();
    let sessionId: string | null = null;
    const push = (t: Omit<TranscriptTurn, 'index'>) => turns.push({ ...t, index: turns.length });
    for (const { line, rec } of jsonlRecords(text, problems)) {
      const type = strOr(rec.type);
      if (type === null) {
        problems.push({ line, message: 'missing "type"' });
        continue;
      }
      if (!TURN_TYPES.has(type)) continue;
      sessionId ??= strOr(rec.sessionId);
      const ts = isoOrNull(rec.timestamp);
      if (type === 'system') {
        const content = strOr(rec.content) ?? (isObj(rec.message) ? resultText(rec.message.content) : '');
        if (content) push({ line, role: 'system', kind: 'text', ts, text: content, tool_name: null, tool_use_id: null, is_error: false });
        continue;
      }
      const msg = rec.message;
      if (!isObj(msg)) {
        problems.push({ line, message: `"${type}" line without a "message" object` });
        continue;
      }
      const role = (strOr(msg.role) ?? type) as TurnRole;
      if (role !== 'user' && role !== 'assistant') {
        problems.push({ line, message: `unknown role ${JSON.stringify(msg.role)}` });
        continue;
      }
      const content = msg.content;
      if (typeof content === 'string') {
        push({ line, role, kind: 'text', ts, text: content, tool_name: null, tool_use_id: null, is_error: false });
        continue;
      }
      if (!Array.isArray(content)) {
        problems.push({ line, message: 'message.content must be a string or a list of blocks' });
        continue;
      }
      for (const block of content) {
        if (!isObj(block)) continue;
        switch (block.type) {
          case 'text':
            if (typeof block.text === 'string' && block.text.trim() !== '') push({ line, role, kind: 'text', ts, text: block.text, tool_name: null, tool_use_id: null, is_error: false });
            break;
          case 'tool_use': {
            const name = strOr(block.name) ?? 'tool';
            const id = strOr(block.id);
            if (id) toolNames.set(id, name);
            push({ line, role: 'assistant', kind: 'tool_use', ts, text: toolInputText(block.input), tool_name: name, tool_use_id: id, is_error: false });
            break;
          }
          case 'tool_result': {
            const id = strOr(block.tool_use_id);
            push({
              line,
              role: 'tool',
              kind: 'tool_result',
              ts,
              text: resultText(block.content),
              tool_name: (id && toolNames.get(id)) ?? null,
              tool_use_id: id,
              is_error: block.is_error === true,
            });
            break;
          }
          default:
            // thinking, images, …: not context a successor can use.
            break;
        }
      }
    }
    return { format: 'claude-code', source, session_id: sessionId, turns, problems };
  },
};
