import { firstRecords, isObj, isoOrNull, jsonlRecords, strOr, toolInputText } from './jsonl-lines.ts';
import type { Transcript, TranscriptParser, TranscriptProblem, TranscriptTurn } from './types.ts';

// Codex CLI rollout files (~/.codex/sessions/…/rollout-*.jsonl). Current form: {timestamp, type, payload} lines with
// type session_meta | response_item | event_msg | turn_context; the older form writes the response items directly
// ({type: message|function_call|function_call_output|…}) after a first {id, timestamp, instructions} line.
// event_msg lines repeat what response items already hold, so only response items become turns. A `compacted` line
// holds the summary Codex wrote of the context it dropped (kept as a compact_summary turn); `web_search_call` items
// are the agent's searches; turn_context lines (cwd, model, policies per turn) carry no conversation.

const ITEM_TYPES = new Set(['message', 'function_call', 'function_call_output', 'local_shell_call', 'custom_tool_call', 'custom_tool_call_output', 'reasoning']);

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b) => (isObj(b) && typeof b.text === 'string' ? b.text : '')).filter(Boolean).join('\n');
}

/** function_call_output.output is often JSON {output, metadata: {exit_code}}; a non-zero exit code is an error. */
function outputOf(raw: unknown): { text: string; isError: boolean } {
  let value: unknown = raw;
  if (isObj(raw) && 'output' in raw && !('content' in raw)) value = raw.output;
  if (typeof value === 'string') {
    const s = value.trim();
    if (s.startsWith('{')) {
      try {
        const o = JSON.parse(s) as Record<string, unknown>;
        const meta = isObj(o.metadata) ? o.metadata : {};
        const code = typeof meta.exit_code === 'number' ? meta.exit_code : null;
        if (typeof o.output === 'string') return { text: o.output, isError: code !== null && code !== 0 };
      } catch {
        /* plain text output */
      }
    }
    return { text: value, isError: false };
  }
  if (isObj(value)) {
    const ok = value.success;
    return { text: contentText(value.content) || JSON.stringify(value), isError: ok === false };
  }
  return { text: '', isError: false };
}

const isEnvelope = (r: Record<string, unknown>) => typeof r.type === 'string' && isObj(r.payload);

export const codexParser: TranscriptParser = {
  format: 'codex',
  detect(text) {
    const recs = firstRecords(text);
    if (recs.some((r) => isEnvelope(r) && ['session_meta', 'response_item', 'turn_context', 'event_msg', 'compacted'].includes(r.type as string))) return true;
    // Older direct form: a header with instructions, then response items.
    return recs.length > 1 && 'instructions' in recs[0]! && typeof recs[0]!.id === 'string' && recs.slice(1).some((r) => ITEM_TYPES.has(r.type as string));
  },
  parse(text, source): Transcript {
    const problems: TranscriptProblem[] = [];
    const turns: TranscriptTurn[] = [];
    const toolNames = new Map<string, string>();
    let sessionId: string | null = null;
    let lastTs: string | null = null;
    const push = (t: Omit<TranscriptTurn, 'index'>) => turns.push({ ...t, index: turns.length });
    for (const { line, rec } of jsonlRecords(text, problems)) {
      let item: Record<string, unknown>;
      let ts: string | null;
      if (isEnvelope(rec)) {
        const payload = rec.payload as Record<string, unknown>;
        ts = isoOrNull(rec.timestamp) ?? isoOrNull(payload.timestamp);
        if (rec.type === 'session_meta') {
          sessionId ??= strOr(payload.id);
          continue;
        }
        if (rec.type === 'compacted') {
          const summary = strOr(payload.message) ?? contentText(payload.replacement_history);
          if (summary && summary.trim() !== '') push({ line, role: 'assistant', kind: 'text', ts, text: summary, tool_name: null, tool_use_id: null, is_error: false, origin: 'compact_summary' });
          continue;
        }
        if (rec.type !== 'response_item') continue;
        item = payload;
      } else if (typeof rec.type === 'string') {
        item = rec;
        ts = isoOrNull(rec.timestamp);
      } else {
        if (typeof rec.id === 'string' && 'instructions' in rec) sessionId ??= rec.id;
        else if (rec.record_type === undefined) problems.push({ line, message: 'neither a {type, payload} envelope nor a response item' });
        continue;
      }
      ts ??= lastTs;
      lastTs = ts;
      switch (item.type) {
        case 'message': {
          const role = strOr(item.role);
          const body = contentText(item.content);
          if (role !== 'user' && role !== 'assistant' && role !== 'system' && role !== 'developer') {
            problems.push({ line, message: `message with unknown role ${JSON.stringify(item.role)}` });
            break;
          }
          // AGENTS.md and <environment_context> preambles stay (they were in the context) and are marked as injected
          // when the transcript is normalized.
          if (body.trim() !== '') push({ line, role: role === 'developer' ? 'system' : role, kind: 'text', ts, text: body, tool_name: null, tool_use_id: null, is_error: false });
          break;
        }
        case 'function_call':
        case 'custom_tool_call':
        case 'local_shell_call': {
          const name = strOr(item.name) ?? (item.type === 'local_shell_call' ? 'shell' : 'tool');
          const id = strOr(item.call_id) ?? strOr(item.id);
          if (id) toolNames.set(id, name);
          let args: unknown = item.arguments ?? item.input ?? item.action;
          if (typeof args === 'string') {
            try {
              args = JSON.parse(args);
            } catch {
              /* keep the raw string */
            }
          }
          push({ line, role: 'assistant', kind: 'tool_use', ts, text: toolInputText(args), tool_name: name, tool_use_id: id, is_error: false });
          break;
        }
        case 'function_call_output':
        case 'custom_tool_call_output': {
          const id = strOr(item.call_id);
          const out = outputOf(item.output);
          push({ line, role: 'tool', kind: 'tool_result', ts, text: out.text, tool_name: (id && toolNames.get(id)) ?? null, tool_use_id: id, is_error: out.isError });
          break;
        }
        case 'web_search_call': {
          const action = isObj(item.action) ? item.action : {};
          const query = strOr(action.query) ?? (Array.isArray(action.queries) ? action.queries.filter((q) => typeof q === 'string').join(' | ') : null) ?? strOr(action.url) ?? toolInputText(action);
          push({ line, role: 'assistant', kind: 'tool_use', ts, text: `query: ${query}`, tool_name: 'web_search', tool_use_id: strOr(item.id), is_error: item.status === 'failed' });
          break;
        }
        case 'compaction':
        case 'compaction_summary': {
          const summary = strOr(item.summary) ?? strOr(item.encrypted_content);
          if (summary && !item.encrypted_content) push({ line, role: 'assistant', kind: 'text', ts, text: summary, tool_name: null, tool_use_id: null, is_error: false, origin: 'compact_summary' });
          break;
        }
        case 'reasoning':
          break; // often encrypted; never context a successor can use
        default:
          if (typeof item.type !== 'string') problems.push({ line, message: 'response item without a "type"' });
      }
    }
    return { format: 'codex', source, session_id: sessionId, turns, problems };
  },
};
