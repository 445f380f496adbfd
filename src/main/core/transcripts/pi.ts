import { firstRecords, isObj, isoOrNull, jsonlRecords, strOr, toolInputText } from './jsonl-lines.ts';
import type { Transcript, TranscriptParser, TranscriptProblem, TranscriptTurn } from './types.ts';

// The pi coding agent's session file: a first {"type":"session","version":3,id,cwd} line, then entries linked by
// parentId: {type:"message", message:{role: user|assistant|toolResult, content:[text|toolCall|thinking|image]}},
// model_change / thinking_level_change (settings), custom (extension state) and custom_message (text an
// extension put into the context: kept as injected). Entries are read in file order.

function blocksText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b) => (isObj(b) && b.type === 'text' && typeof b.text === 'string' ? b.text : '')).filter(Boolean).join('\n');
}

export const piParser: TranscriptParser = {
  format: 'pi',
  detect(text) {
    const first = firstRecords(text, 1)[0];
    return !!first && first.type === 'session' && typeof first.version === 'number' && typeof first.id === 'string' && !('payload' in first);
  },
  parse(text, source): Transcript {
    const problems: TranscriptProblem[] = [];
    const turns: TranscriptTurn[] = [];
    let sessionId: string | null = null;
    const push = (t: Omit<TranscriptTurn, 'index'>) => turns.push({ ...t, index: turns.length });
    for (const { line, rec } of jsonlRecords(text, problems)) {
      const ts = isoOrNull(rec.timestamp);
      switch (rec.type) {
        case 'session':
          sessionId ??= strOr(rec.id);
          break;
        case 'custom_message': {
          const body = blocksText(rec.content);
          if (body.trim() !== '') push({ line, role: 'user', kind: 'text', ts, text: body, tool_name: null, tool_use_id: null, is_error: false, origin: 'injected' });
          break;
        }
        case 'message': {
          const msg = rec.message;
          if (!isObj(msg)) {
            problems.push({ line, message: '"message" entry without a message object' });
            break;
          }
          const role = strOr(msg.role);
          if (role === 'toolResult') {
            push({ line, role: 'tool', kind: 'tool_result', ts, text: blocksText(msg.content), tool_name: strOr(msg.toolName), tool_use_id: strOr(msg.toolCallId), is_error: msg.isError === true });
            break;
          }
          if (role !== 'user' && role !== 'assistant') {
            problems.push({ line, message: `unknown role ${JSON.stringify(msg.role)}` });
            break;
          }
          if (typeof msg.content === 'string') {
            if (msg.content.trim() !== '') push({ line, role, kind: 'text', ts, text: msg.content, tool_name: null, tool_use_id: null, is_error: false });
            break;
          }
          for (const b of Array.isArray(msg.content) ? msg.content : []) {
            if (!isObj(b)) continue;
            if (b.type === 'text' && typeof b.text === 'string' && b.text.trim() !== '') push({ line, role, kind: 'text', ts, text: b.text, tool_name: null, tool_use_id: null, is_error: false });
            else if (b.type === 'toolCall') push({ line, role: 'assistant', kind: 'tool_use', ts, text: toolInputText(b.arguments), tool_name: strOr(b.name) ?? 'tool', tool_use_id: strOr(b.id), is_error: false });
          }
          break;
        }
        default:
          if (typeof rec.type !== 'string') problems.push({ line, message: 'entry without a "type"' });
      }
    }
    return { format: 'pi', source, session_id: sessionId, turns, problems };
  },
};
