// The MCP server: the tools of tools.ts and the stored packets as resources, each answered through the API's one
// dispatcher. Every text that leaves passes the redaction gate here, whatever the engine already did to it.
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Dispatch } from '../api/index.ts';
import type { ApiError, ApiOutput } from '../../shared/api/index.ts';
import type { MemoryType } from '../../shared/memory.ts';
import type { ReplayDiff } from '../../shared/packet.ts';
import type { SearchFilters } from '../../shared/types.ts';
import { provenance } from '../../shared/provenance.ts';
import type { Redactor } from '../core/redact/index.ts';
import { API_TO_TOOL_FIELDS, TOOL_ANNOTATIONS, TOOL_DESCRIPTIONS, TOOL_INPUTS, type ToolName } from './tools.ts';

export interface McpServerDeps {
  dispatch: Dispatch;
  redactor: Redactor;
  version: string;
}

export const PACKET_URI_PREFIX = 'contextpack://packet/';

/** The main field of each memory type, for `content` given as plain text. */
const MAIN_FIELD: Record<MemoryType, string> = { decision: 'decision', issue: 'description', state: 'task_description', learning: 'lesson' };

class ToolFailure extends Error {}

type Extra = {
  _meta?: { progressToken?: string | number };
  sendNotification: (n: { method: 'notifications/progress'; params: { progressToken: string | number; progress: number; total?: number; message?: string } }) => Promise<void>;
};

/** notifications/progress, when the client asked for it with a progressToken. */
async function progress(extra: Extra, done: number, total: number, message: string): Promise<void> {
  const token = extra._meta?.progressToken;
  if (token === undefined) return;
  await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: done, total, message } });
}

function describeError(e: ApiError): string {
  const issues = (e.issues ?? []).map((i) => `  ${API_TO_TOOL_FIELDS[i.field] ?? i.field}: ${i.message}`);
  const message = Object.entries(API_TO_TOOL_FIELDS).reduce((m, [api, tool]) => m.replaceAll(api, tool), e.message);
  return [`${e.code}: ${message}`, ...issues].join('\n');
}

function toApiFilters(
  f: { include?: string[]; exclude?: string[]; path_glob?: string; types?: SearchFilters['types']; modified_after?: string; modified_before?: string } | undefined,
): SearchFilters | undefined {
  if (!f) return undefined;
  return {
    ...(f.include !== undefined ? { include: f.include } : {}),
    ...(f.exclude !== undefined ? { exclude: f.exclude } : {}),
    ...(f.path_glob !== undefined ? { pathGlob: f.path_glob } : {}),
    ...(f.types !== undefined ? { types: f.types } : {}),
    ...(f.modified_after !== undefined ? { modifiedAfter: f.modified_after } : {}),
    ...(f.modified_before !== undefined ? { modifiedBefore: f.modified_before } : {}),
  };
}

function retrievalLine(r: { mode: string; retrieval?: ApiOutput<'search.query'>['retrieval'] }): string {
  const parts = [`mode ${r.mode}`];
  const x = r.retrieval;
  if (x?.fusion) parts.push(`fusion ${x.fusion.method}${x.fusion.k !== undefined ? ` k=${x.fusion.k}` : ''}${x.fusion.weights ? ` weights bm25 ${x.fusion.weights[0]}, vector ${x.fusion.weights[1]}` : ''}`);
  if (x?.mmr) parts.push(`MMR λ=${x.mmr.lambda} over ${x.mmr.fetch_k} (${x.mmr.similarity} similarity)`);
  if (x?.fallback_reason) parts.push(`not hybrid: ${x.fallback_reason}`);
  return `retrieval: ${parts.join('; ')}`;
}

function formatDiff(d: ReplayDiff): string {
  const out = [d.identical ? `identical: ${d.hash}` : `stored  ${d.hash}\nrebuilt ${d.reassembled_hash}`];
  for (const i of d.added) out.push(`+ ${i.section} ${i.source}${i.score === null ? '' : ` (score ${i.score})`}`);
  for (const i of d.removed) out.push(`- ${i.section} ${i.source}${i.score === null ? '' : ` (score ${i.score})`}`);
  for (const c of d.changed) out.push(`~ ${c.section} ${c.id}: score ${c.before.score} → ${c.after.score}${c.before.digest === c.after.digest ? '' : ', content changed'}`);
  for (const n of d.notes) out.push(`  ${n}`);
  out.push(`${d.added.length} added, ${d.removed.length} removed, ${d.changed.length} changed`);
  return out.join('\n');
}

export function createMcpServer(deps: McpServerDeps): McpServer {
  const server = new McpServer(
    { name: 'contextpack', version: deps.version },
    {
      capabilities: { tools: {}, resources: {} },
      instructions:
        'ContextPack holds this project\'s indexed files and memory. Start a task with `rehydrate` (project memory) and `pack` (a bounded, redacted context packet for the task); ' +
        'use `search` to locate passages, `remember` to record decisions, issues, state and learnings for the next session.',
    },
  );

  const gate = (text: string, source: string): string => deps.redactor.redactText(text, { source: `mcp:${source}`, section: 'MCP' }).text;
  /**
   * A JSON document is gated value by value: redacting whole lines of its text would break the JSON (and a key such
   * as "aws_key" beside a value reads like an assignment to the line rules, where the value alone does not).
   */
  const gateJson = (value: unknown, source: string): unknown => {
    if (typeof value === 'string') return gate(value, source);
    if (Array.isArray(value)) return value.map((v) => gateJson(v, source));
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [gate(k, source), gateJson(v, source)]));
    return value;
  };
  const gateBlock = (text: string, source: string): string => {
    if (/^\s*[[{]/.test(text)) {
      try {
        const indent = /^[[{]\n( +)/.exec(text)?.[1]?.length ?? 0;
        return JSON.stringify(gateJson(JSON.parse(text), source), null, indent) + (text.endsWith('\n') ? '\n' : '');
      } catch {
        // not JSON after all: gated as text below
      }
    }
    return gate(text, source);
  };

  async function call<T>(method: string, input: unknown): Promise<T> {
    const r = await deps.dispatch(method, input);
    if (!r.ok) throw new ToolFailure(describeError(r.error));
    return r.value as T;
  }

  function tool<N extends ToolName>(name: N, run: (args: any, extra: Extra) => Promise<CallToolResult>): void {
    server.registerTool(name, { description: TOOL_DESCRIPTIONS[name], inputSchema: TOOL_INPUTS[name] as any, annotations: TOOL_ANNOTATIONS[name] }, (async (args: unknown, extra: Extra) => {
      try {
        const result = await run(args, extra);
        // The gate sees every text block, whatever produced it (search snippets, memory text, paths, errors).
        return { ...result, content: result.content.map((c) => (c.type === 'text' ? { ...c, text: gateBlock(c.text, name) } : c)) };
      } catch (err) {
        const message = err instanceof ToolFailure ? err.message : `failed: ${(err as Error).message ?? String(err)}`;
        return { isError: true, content: [{ type: 'text', text: gate(message, name) }] };
      }
    }) as any);
  }

  tool('search', async (a, extra) => {
    await progress(extra, 0, 1, 'searching');
    const r = await call<ApiOutput<'search.query'>>('search.query', { query: a.query, k: a.k ?? 10, mode: a.mode, filters: toApiFilters(a.filters) });
    await progress(extra, 1, 1, `${r.hits.length} hits`);
    // The gate judges the chunk's own lines before they are joined and cut: a snippet cut inside a key would no
    // longer match the rule that knows the whole key.
    const hits = r.hits.map((h, i) => `${i + 1}. ${h.score.toFixed(3)}  ${provenance(h)}\n   ${gate(h.text, 'search').replace(/\s+/g, ' ').slice(0, 240)}`);
    return { content: [{ type: 'text', text: [retrievalLine(r), '', ...(hits.length > 0 ? hits : ['no results'])].join('\n') }] };
  });

  tool('pack', async (a, extra) => {
    await progress(extra, 0, 2, 'retrieving evidence and assembling the packet');
    const p = await call<ApiOutput<'packets.build'>>('packets.build', { query: a.query, task: a.task, template: a.template, maxTokens: a.max_tokens, format: a.format });
    await progress(extra, 2, 2, `packet ${p.hash.slice(0, 12)} stored`);
    const r = p.manifest.retrieval;
    const head = [
      `context_snapshot_hash: ${p.hash}`,
      `resource: ${PACKET_URI_PREFIX}${p.hash}`,
      retrievalLine({ mode: r.mode, retrieval: { fusion: r.fusion ?? null, mmr: r.mmr ?? null, fallback_reason: r.fallback_reason ?? null } }),
      `budget: ${p.manifest.budgets.total_tokens} tokens of ${p.manifest.budgets.max_tokens}; ${p.manifest.redactions.count} lines redacted`,
    ].join('\n');
    return {
      content: [
        { type: 'text', text: head },
        { type: 'text', text: p.text },
        { type: 'resource_link', uri: `${PACKET_URI_PREFIX}${p.hash}`, name: `packet ${p.hash.slice(0, 12)}`, mimeType: p.format === 'md' ? 'text/markdown' : 'application/json' },
      ],
    };
  });

  tool('get_packet', async (a) => {
    const p = await call<ApiOutput<'packets.get'>>('packets.get', { hash: a.hash });
    return { content: [{ type: 'text', text: p.text }] };
  });

  tool('replay', async (a, extra) => {
    await progress(extra, 0, 1, 'reassembling against the current store');
    const d = await call<ReplayDiff>('packets.replay', { hash: a.hash });
    await progress(extra, 1, 1, d.identical ? 'identical' : 'changed');
    return { content: [{ type: 'text', text: formatDiff(d) }] };
  });

  tool('remember', async (a) => {
    const type = a.type as MemoryType;
    const content = typeof a.content === 'string' ? { [MAIN_FIELD[type]]: a.content } : a.content;
    const m = await call<ApiOutput<'memory.create'>>('memory.create', { type, title: a.title, content, tags: a.tags, importance: a.importance, agent: 'mcp' });
    return {
      content: [
        { type: 'text', text: `saved ${m.memory_type} ${m.decision_id ?? m.memory_id}: ${m.title}` },
        { type: 'text', text: JSON.stringify(m, null, 2) },
      ],
    };
  });

  tool('rehydrate', async (a) => {
    const b = await call<ApiOutput<'memory.rehydrate'>>('memory.rehydrate', { maxTokens: a.max_tokens });
    const omitted = b.omitted.length > 0 ? `\n\n(${b.omitted.length} items left out for the token budget)` : '';
    return { content: [{ type: 'text', text: `${b.text}${omitted}` }] };
  });

  tool('hierarchy', async (a) => {
    const h = await call<ApiOutput<'hierarchy.show'>>('hierarchy.show', { marker: a.marker });
    return { content: [{ type: 'text', text: h.text }] };
  });

  tool('stats', async () => {
    const s = await call<ApiOutput<'stats.get'>>('stats.get', {});
    const lines = [
      `sources    ${s.sources.indexed} indexed, ${s.sources.skipped} skipped, ${s.sources.failed} failed`,
      `documents  ${s.documents}`,
      `chunks     ${s.chunks}`,
      `last ingest ${s.lastIngest ? s.lastIngest.startedAt : 'never'}`,
      ...s.notices,
    ];
    return { content: [{ type: 'text', text: lines.join('\n') }] };
  });

  tool('update_memory', async (a) => {
    const r = await call<ApiOutput<'memory.update'>>('memory.update', { id: a.id, title: a.title, importance: a.importance, tags: a.tags, set: a.set, agent: 'mcp' });
    const m = r.memory;
    const line = `${r.changed ? 'updated' : 'unchanged'} ${m.memory_type} ${m.decision_id ?? m.memory_id}: ${m.title}${r.lifecycle ? ` (archived by the lifecycle rule ${r.lifecycle.rule}: ${r.lifecycle.reason})` : ''}`;
    return { content: [{ type: 'text', text: line }, { type: 'text', text: JSON.stringify(m, null, 2) }] };
  });

  tool('resolve_issue', async (a) => {
    const r = await call<ApiOutput<'memory.resolve'>>('memory.resolve', { id: a.id, resolution: a.resolution, agent: 'mcp' });
    return { content: [{ type: 'text', text: `${r.changed ? 'resolved' : 'already resolved'}: ${r.memory.title}${r.lifecycle ? ` (archived: ${r.lifecycle.reason})` : ''}` }] };
  });

  tool('capacity', async (a) => {
    const c = await call<ApiOutput<'sessions.capacity'>>('sessions.capacity', { tokens: a.tokens, window: a.window });
    return { content: [{ type: 'text', text: `${c.level}: ${c.tokens} / ${c.window} tokens (${c.usage_pct.toFixed(1)} %)\naction: ${c.action} (${c.status})\n${c.response}` }] };
  });

  tool('handoff', async (a, extra) => {
    await progress(extra, 0, 1, 'compacting and building the handoff package');
    const h = await call<ApiOutput<'sessions.handoff'>>('sessions.handoff', {
      type: a.type,
      transcript: a.transcript ? { name: a.transcript_name ?? 'transcript', text: a.transcript } : undefined,
      from: a.from,
      to: a.to,
      reason: a.reason,
      maxTokens: a.max_tokens,
      save: a.save,
    });
    const p = h.package;
    await progress(extra, 1, 1, `handoff ${h.hash.slice(0, 12)} stored`);
    const head = `context_snapshot_hash: ${h.hash}\nbudget: ${p.budget.package_tokens} / ${p.budget.max_tokens} tokens; reduction ${(p.compaction.reduction_achieved * 100).toFixed(1)} %; preservation_validation ${p.compaction.preservation_validation}`;
    return { content: [{ type: 'text', text: head }, { type: 'text', text: h.text }] };
  });

  tool('end_session', async (a) => {
    const r = await call<ApiOutput<'sessions.end'>>('sessions.end', { notes: a.notes, transcript: a.transcript ? { name: 'transcript', text: a.transcript } : undefined, agent: a.agent });
    return { content: [{ type: 'text', text: `${r.headline}\nsaved ${r.saved.created.length} memories, ${r.saved.duplicates.length} already known` }] };
  });

  server.registerResource(
    'packet',
    new ResourceTemplate(`${PACKET_URI_PREFIX}{hash}`, {
      list: async () => {
        const r = await deps.dispatch('packets.list', { limit: 100 });
        if (!r.ok) return { resources: [] };
        return {
          resources: (r.value as ApiOutput<'packets.list'>).map((p) => ({
            uri: `${PACKET_URI_PREFIX}${p.hash}`,
            // Gated whole, then cut: a cut can hide a secret from the rule that matches it.
            name: `packet ${p.hash.slice(0, 12)}: ${gate(p.query, 'resources/list')}`.replace(/\s+/g, ' ').slice(0, 120),
            mimeType: 'text/markdown',
          })),
        };
      },
    }),
    { title: 'Context packet', description: 'A stored context packet, by its context_snapshot_hash (Markdown, exactly as built).', mimeType: 'text/markdown' },
    async (uri, vars) => {
      const r = await deps.dispatch('packets.get', { hash: String(vars.hash) });
      if (!r.ok) throw new Error(describeError(r.error));
      const p = r.value as ApiOutput<'packets.get'>;
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: gateBlock(p.text, 'resources/read') }] };
    },
  );

  return server;
}
