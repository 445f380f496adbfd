import { firstEntries, isObj, isoOrNull, jsonEntries, strOr, toolInputText } from './jsonl-lines.ts';
import type { Transcript, TranscriptParser, TranscriptProblem, TranscriptTurn, TurnOrigin, TurnRole } from './types.ts';

// Claude Code session files: one JSON object per line,
// {type, sessionId, uuid, timestamp, message: {role, content: string | [{type: text|tool_use|tool_result|thinking, …}]}}.
// The same entries saved as one JSON array (a widely copied Stop hook writes `logs/chat.json` so) read the same way.
// Lines of other types (summary, file-history-snapshot, …) carry no turn and are skipped without complaint.
// Flags kept: isCompactSummary (the agent's summary of what it compacted), isSidechain (a sub-agent's exchange),
// isMeta (text the harness added: a slash command's expanded prompt, caveats).

const TURN_TYPES = new Set(['user', 'assistant', 'system']);

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((b) => (isObj(b) && typeof b.text === 'string' ? b.text : '')).filter(Boolean).join('\n');
  return '';
}

/** TodoWrite's list and ExitPlanMode's plan as text the extractor reads like any checklist or plan. */
function toolUseText(name: string, input: unknown): string {
  if (name === 'TodoWrite' && isObj(input) && Array.isArray(input.todos)) {
    const mark: Record<string, string> = { completed: '[x]', in_progress: '[~]', pending: '[ ]' };
    const items = input.todos.filter(isObj).map((t) => `- ${mark[String(t.status)] ?? '[ ]'} ${strOr(t.content) ?? strOr(t.activeForm) ?? ''}`);
    return `Todo list:\n${items.join('\n')}`;
  }
  if (name === 'ExitPlanMode' && isObj(input) && typeof input.plan === 'string') return `Plan:\n${input.plan}`;
  return toolInputText(input);
}

const isEntry = (r: Record<string, unknown>) => typeof r.sessionId === 'string' && isObj(r.message) && typeof r.type === 'string';

export const claudeCodeParser: TranscriptParser = {
  format: 'claude-code',
  detect(text) {
    return firstEntries(text).some(isEntry);
  },
  parse(text, source): Transcript {
    const problems: TranscriptProblem[] = [];
    const turns: TranscriptTurn[] = [];
    const toolNames = new Map<string, string>();
    let sessionId: string | null = null;
    const push = (t: Omit<TranscriptTurn, 'index'>) => turns.push({ ...t, index: turns.length });
    for (const { line, rec } of jsonEntries(text, problems)) {
      const type = strOr(rec.type);
      if (type === null) {
        problems.push({ line, message: 'missing "type"' });
        continue;
      }
      if (!TURN_TYPES.has(type)) continue;
      sessionId ??= strOr(rec.sessionId);
      const ts = isoOrNull(rec.timestamp);
      const origin: TurnOrigin | undefined = rec.isCompactSummary === true ? 'compact_summary' : rec.isSidechain === true ? 'sidechain' : rec.isMeta === true ? 'injected' : undefined;
      const o = origin ? { origin } : {};
      if (type === 'system') {
        // Hook output, stop summaries, compaction boundaries: the harness speaking.
        const content = strOr(rec.content) ?? (isObj(rec.message) ? resultText(rec.message.content) : '');
        if (content) push({ line, role: 'system', kind: 'text', ts, text: content, tool_name: null, tool_use_id: null, is_error: false, origin: 'injected' });
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
        push({ line, role, kind: 'text', ts, text: content, tool_name: null, tool_use_id: null, is_error: false, ...o });
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
            if (typeof block.text === 'string' && block.text.trim() !== '') push({ line, role, kind: 'text', ts, text: block.text, tool_name: null, tool_use_id: null, is_error: false, ...o });
            break;
          case 'tool_use': {
            const name = strOr(block.name) ?? 'tool';
            const id = strOr(block.id);
            if (id) toolNames.set(id, name);
            push({ line, role: 'assistant', kind: 'tool_use', ts, text: toolUseText(name, block.input), tool_name: name, tool_use_id: id, is_error: false, ...o });
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
              ...o,
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
