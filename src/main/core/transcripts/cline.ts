import { arrayElementLines, isObj, isoOrNull, jsonArray, strOr, toolInputText } from './jsonl-lines.ts';
import type { Transcript, TranscriptParser, TranscriptProblem, TranscriptTurn } from './types.ts';

// Cline (and its fork Roo Code) keep a task as a folder: api_conversation_history.json (the messages sent to the
// model: {role, content: [text|tool_use|thinking]}; tool results come back as user text "[tool for 'x'] Result:…",
// the IDE's state as <environment_details>) and ui_messages.json (what the panel showed: {ts, type: say|ask, say|ask,
// text}). Either file reads on its own; a folder reads its API history, or its UI messages when that is all it has.

const TOOL_RESULT = /^\[([\w.-]+)(?: for '([\s\S]*?)')?\] Result:\s*/;
const ERROR_RESULT = /^(The tool execution failed|Error\b|.*\berror\b.*\bexit code [1-9])/i;

/** `- [ ] a` task_progress checklists as the extractor reads any todo list. */
const todoTurn = (line: number, ts: string | null, list: string): Omit<TranscriptTurn, 'index'> => ({
  line,
  role: 'assistant',
  kind: 'tool_use',
  ts,
  text: `Todo list:\n${list.trim()}`,
  tool_name: 'task_progress',
  tool_use_id: null,
  is_error: false,
});

function apiHistory(arr: unknown[]): boolean {
  const first = arr.find(isObj);
  return !!first && (first.role === 'user' || first.role === 'assistant') && 'content' in first && !('sessionId' in first) && !('type' in first);
}

function uiMessages(arr: unknown[]): boolean {
  const first = arr.find(isObj);
  return !!first && typeof first.ts === 'number' && (first.type === 'say' || first.type === 'ask');
}

function parseApi(arr: unknown[], lines: number[], problems: TranscriptProblem[]): TranscriptTurn[] {
  const turns: TranscriptTurn[] = [];
  const push = (t: Omit<TranscriptTurn, 'index'>) => turns.push({ ...t, index: turns.length });
  let progress = '';
  arr.forEach((m, i) => {
    const line = lines[i] ?? i + 1;
    if (!isObj(m) || (m.role !== 'user' && m.role !== 'assistant')) {
      problems.push({ line, message: 'expected a {role: user|assistant, content} message' });
      return;
    }
    const ts = isoOrNull(m.ts);
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : Array.isArray(m.content) ? m.content : [];
    for (const b of blocks) {
      if (!isObj(b)) continue;
      if (b.type === 'text' && typeof b.text === 'string' && b.text.trim() !== '') {
        const tr = m.role === 'user' ? TOOL_RESULT.exec(b.text) : null;
        if (tr) {
          const body = b.text.slice(tr[0].length);
          push({ line, role: 'tool', kind: 'tool_result', ts, text: tr[2] ? `${tr[2]}\n${body}` : body, tool_name: tr[1]!, tool_use_id: null, is_error: ERROR_RESULT.test(body) });
        } else {
          // The first request comes wrapped in <task>, replies to questions in <feedback> / <answer>: the user's words.
          const text = b.text.replace(/^\s*<(task|feedback|answer)>\s*([\s\S]*?)\s*<\/\1>\s*$/, '$2');
          push({ line, role: m.role, kind: 'text', ts, text, tool_name: null, tool_use_id: null, is_error: false });
        }
      } else if (b.type === 'tool_use') {
        const name = strOr(b.name) ?? 'tool';
        push({ line, role: 'assistant', kind: 'tool_use', ts, text: toolInputText(b.input), tool_name: name, tool_use_id: strOr(b.id), is_error: false });
        const tp = isObj(b.input) ? strOr(b.input.task_progress) : null;
        if (tp && tp.trim() !== '' && tp !== progress) {
          progress = tp;
          push(todoTurn(line, ts, tp));
        }
      }
    }
  });
  return turns;
}

function parseUi(arr: unknown[], lines: number[], problems: TranscriptProblem[]): TranscriptTurn[] {
  const turns: TranscriptTurn[] = [];
  const push = (t: Omit<TranscriptTurn, 'index'>) => turns.push({ ...t, index: turns.length });
  let progress = '';
  arr.forEach((m, i) => {
    const line = lines[i] ?? i + 1;
    if (!isObj(m) || (m.type !== 'say' && m.type !== 'ask')) {
      problems.push({ line, message: 'expected a {ts, type: say|ask} message' });
      return;
    }
    const ts = isoOrNull(m.ts);
    const text = strOr(m.text) ?? '';
    const what = strOr(m.say) ?? strOr(m.ask) ?? '';
    const base = { line, ts, tool_use_id: null, is_error: false };
    switch (what) {
      case 'task':
      case 'user_feedback':
        if (text.trim()) push({ ...base, role: 'user', kind: 'text', text, tool_name: null });
        break;
      case 'text':
        // The panel shows the task as the first `text`; later ones are the agent's.
        if (text.trim()) push({ ...base, role: turns.length === 0 ? 'user' : 'assistant', kind: 'text', text, tool_name: null });
        break;
      case 'completion_result':
      case 'followup':
        if (text.trim()) push({ ...base, role: 'assistant', kind: 'text', text, tool_name: null });
        break;
      case 'command':
        push({ ...base, role: 'assistant', kind: 'tool_use', text: `command: ${text}`, tool_name: 'execute_command' });
        break;
      case 'command_output': {
        // Output arrives in chunks, one message each: one result.
        const prev = turns.at(-1);
        if (prev && prev.kind === 'tool_result' && prev.tool_name === 'execute_command') prev.text += text;
        else push({ ...base, role: 'tool', kind: 'tool_result', text, tool_name: 'execute_command' });
        break;
      }
      case 'tool': {
        let input: unknown = text;
        try {
          input = JSON.parse(text);
        } catch {
          /* plain text */
        }
        push({ ...base, role: 'assistant', kind: 'tool_use', text: toolInputText(input), tool_name: isObj(input) ? (strOr(input.tool) ?? 'tool') : 'tool' });
        break;
      }
      case 'error':
        push({ ...base, role: 'tool', kind: 'tool_result', text, tool_name: null, is_error: true });
        break;
      case 'task_progress':
        if (text.trim() && text !== progress) {
          progress = text;
          push(todoTurn(line, ts, text));
        }
        break;
      default:
        break; // reasoning, api_req_started, checkpoints, resume prompts: the panel's own bookkeeping
    }
  });
  return turns;
}

export const clineParser: TranscriptParser = {
  format: 'cline',
  detect(text) {
    const arr = jsonArray(text);
    return !!arr && (apiHistory(arr) || uiMessages(arr));
  },
  parse(text, source): Transcript {
    const problems: TranscriptProblem[] = [];
    const arr = jsonArray(text) ?? [];
    const lines = arrayElementLines(text);
    const turns = apiHistory(arr) ? parseApi(arr, lines, problems) : parseUi(arr, lines, problems);
    return { format: 'cline', source, session_id: null, turns, problems };
  },
};

/** In a Cline / Roo task folder, the file to read: the API history, else the UI messages. */
export const CLINE_TASK_FILES = ['api_conversation_history.json', 'ui_messages.json'] as const;
