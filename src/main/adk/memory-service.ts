// ADK's BaseMemoryService over the project's memory. addSessionToMemory reads an ADK session as the transcript
// readers read a transcript (one neutral Transcript, the same extractor and the same gate as `contextpack session
// end`): decisions, open issues, task state and learnings, saved deduplicated, each citing `adk:<app>/<session>:<n>`,
// the session's n-th event. searchMemory answers from project memory (ranked by the memory engine, with timestamps),
// so ADK's own load_memory and preload_memory tools read ContextPack's memory.
import type { BaseMemoryService, SearchMemoryRequest, SearchMemoryResponse, Session, Event, MemoryEntry } from '@google/adk';
import type { MemoryRecord } from '../../shared/memory.ts';
import type { SessionEndResult } from '../../shared/session.ts';
import { gateDeep } from '../core/redact/index.ts';
import { recordSession, summarizeSession } from '../core/session/index.ts';
import { normalizeTranscript, type Transcript, type TranscriptTurn } from '../core/transcripts/index.ts';
import { connect, type ContextPackSource } from './connection.ts';

export interface ContextPackMemoryServiceOptions {
  contextpack?: ContextPackSource;
  /** Memories returned per search (best first); default 10. */
  limit?: number;
  /** Who the saved memories are from; default `adk:<appName>`. */
  agent?: string;
}

const iso = (ms: number) => (Number.isFinite(ms) ? new Date(ms).toISOString() : null);

/** The events of an ADK session as a transcript: one turn per text, call and answer; `line` is the event's place (1-based). */
export function sessionTranscript(session: Session): Transcript {
  const turns: TranscriptTurn[] = [];
  session.events.forEach((e: Event, i) => {
    const ts = iso(e.timestamp);
    const line = i + 1;
    const fromUser = e.author === 'user';
    for (const p of e.content?.parts ?? []) {
      const base = { index: turns.length, line, ts, is_error: false, tool_name: null, tool_use_id: null };
      if (typeof p.text === 'string' && !p.thought) turns.push({ ...base, role: fromUser ? 'user' : 'assistant', kind: 'text', text: p.text });
      else if (p.functionCall) turns.push({ ...base, role: 'assistant', kind: 'tool_use', tool_name: p.functionCall.name ?? null, tool_use_id: p.functionCall.id ?? null, text: `${p.functionCall.name ?? 'tool'} ${JSON.stringify(p.functionCall.args ?? {})}` });
      else if (p.functionResponse) {
        const response = p.functionResponse.response ?? {};
        turns.push({ ...base, role: 'tool', kind: 'tool_result', tool_name: p.functionResponse.name ?? null, tool_use_id: p.functionResponse.id ?? null, text: JSON.stringify(response), is_error: 'error' in response });
      }
    }
  });
  // claude-code: a turn's line is its own (one event, one "line"), as the extractor cites JSONL transcripts.
  return normalizeTranscript({ format: 'claude-code', source: `adk:${session.appName}/${session.id}`, session_id: session.id, turns, problems: [] });
}

/** A memory as ADK's MemoryEntry: its type, title and the body fields a reader needs, through the gate. */
function entryOf(m: MemoryRecord): MemoryEntry {
  const c = m.content as unknown as Record<string, unknown>;
  const fields = ['decision', 'rationale', 'description', 'status', 'lesson', 'context', 'task_description', 'next_actions']
    .filter((k) => c[k] !== undefined && c[k] !== '' && !(Array.isArray(c[k]) && (c[k] as unknown[]).length === 0))
    .map((k) => `${k}: ${Array.isArray(c[k]) ? (c[k] as unknown[]).join('; ') : String(c[k])}`.slice(0, 600));
  const text = [`${m.memory_type} ${m.memory_id}: ${m.title}`, ...fields].join('\n');
  const gated = gateDeep({ text, author: m.agent_id }, { source: `memory ${m.memory_id}`, section: 'ADK' }).value;
  return { content: { role: 'user', parts: [{ text: gated.text }] }, author: gated.author, timestamp: m.timestamp };
}

export class ContextPackMemoryService implements BaseMemoryService {
  private readonly project: ReturnType<typeof connect>;
  private readonly options: ContextPackMemoryServiceOptions;

  constructor(options: ContextPackMemoryServiceOptions = {}) {
    this.options = options;
    this.project = connect(options.contextpack);
  }

  /** ADK's hook: the session's findings saved as project memory. */
  async addSessionToMemory(session: Session): Promise<void> {
    await this.addSession(session);
  }

  /**
   * The same, answering what was saved and what was already known (duplicates), and `event_ids`: each finding's
   * source (`adk:<app>/<session>:<n>`) with the id of the event it cites.
   */
  async addSession(session: Session): Promise<SessionEndResult & { event_ids: Record<string, string> }> {
    const project = await this.project.get();
    const opts = { agent: this.options.agent ?? `adk:${session.appName}`, redactionLog: project.redactionLog };
    const r = recordSession(project.store.db, summarizeSession(sessionTranscript(session), opts), opts);
    const event_ids: Record<string, string> = {};
    for (const f of [...r.summary.decisions_made, ...r.summary.issues_encountered]) {
      const n = Number(/:(\d+)$/.exec(f.source)?.[1]);
      const id = session.events[n - 1]?.id;
      if (id) event_ids[f.source] = id;
    }
    return { ...r, event_ids };
  }

  /** Project memory for the query, best first; the project is the scope (every user of the app shares it). */
  async searchMemory(request: SearchMemoryRequest): Promise<SearchMemoryResponse> {
    const query = request.query.trim();
    if (query === '') return { memories: [] };
    const project = await this.project.get();
    const r = await project.call('memory.search', { query: query.slice(0, 2000), limit: this.options.limit ?? 10, sort: 'relevance' });
    return { memories: r.hits.map((h) => entryOf(h.memory)) };
  }

  close(): Promise<void> {
    return this.project.close();
  }
}
