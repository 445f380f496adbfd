// The MCP server: the tools of tools.ts and the stored packets as resources, each answered through the API's one
// dispatcher. Every text that leaves passes the redaction gate here, whatever the engine already did to it.
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { toJsonSchemaCompat } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Dispatch } from '../api/index.ts';
import { fieldIssues, type ApiError, type ApiEvent, type ApiOutput } from '../../shared/api/index.ts';
import type { MemoryType } from '../../shared/memory.ts';
import type { ReplayDiff } from '../../shared/packet.ts';
import { provenance } from '../../shared/provenance.ts';
import type { Redactor } from '../core/redact/index.ts';
import { ALL_TOOLS, enableHint, MAIN_FIELD, TOOL_ANNOTATIONS, TOOL_DESCRIPTIONS, TOOL_INPUTS, type ToolName } from './tools.ts';
import { API_TO_TOOL_FIELDS, apiInputOf, TOOL_API } from './tool-api.ts';
import { handoffStructure, packetStructure, rehydrateStructure, searchStructure, TOOL_OUTPUTS, type StructuredTool } from './outputs.ts';
import { pathHider, semanticOffForAgent, withoutCliAdvice } from './agent-text.ts';
import { registerPrompts } from './prompts.ts';
import { portableSchema } from './portable-schema.ts';

/** Characters of a text block gated at a time (gateBlockInParts). */
const GATE_PART_CHARS = 32 * 1024;

export interface McpServerDeps {
  dispatch: Dispatch;
  redactor: Redactor;
  version: string;
  /** The API's pushed events, for progress a call can report as it goes (an ingest's files). */
  subscribe?: (listener: (e: ApiEvent) => void) => () => void;
  /** Called once a tools/list has been answered: the moment to load what the tool calls need. */
  onToolsListed?: () => void;
  /** The tools to list and answer (`contextpack mcp --tools`); default every tool. The CLI passes DEFAULT_TOOLS. */
  tools?: readonly ToolName[];
}

export const PACKET_URI_PREFIX = 'contextpack://packet/';
/** The MCP spec's error code for resources/read of a URI the server does not have. */
const RESOURCE_NOT_FOUND = -32002;


class ToolFailure extends Error {}

type Extra = {
  _meta?: { progressToken?: string | number };
  sendNotification: (n: { method: 'notifications/progress'; params: { progressToken: string | number; progress: number; total?: number; message?: string } }) => Promise<void>;
};

/**
 * notifications/progress, when the client asked for it with a progressToken. After the last one the result waits a
 * moment: a client reading both in one chunk (the SDK's does) drops a notification that arrives with its result.
 */
async function progress(extra: Extra, done: number, total: number, message: string): Promise<void> {
  const token = extra._meta?.progressToken;
  if (token === undefined) return;
  await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: done, total, message } });
  if (done === total) await new Promise((resolve) => setTimeout(resolve, 2));
}

/** An issue's field as the tool's input spells it (`max_tokens`, `filters.modified_after`). */
const toolField = (field: string): string => API_TO_TOOL_FIELDS[field] ?? field;

/** `max_tokens: must be at least 250`, not `max_tokens: max_tokens must be at least 250`: the field is said once. */
function issueLine(field: string, message: string): string {
  const apiName = Object.entries(API_TO_TOOL_FIELDS).find(([, t]) => t === field)?.[0];
  const named = [field, field.split('.').pop()!, ...(apiName ? [apiName, apiName.split('.').pop()!] : [])].find((n) => message.startsWith(`${n} `));
  return `  ${field}: ${named ? message.slice(named.length + 1) : message}`;
}

/** One line per problem, each naming the field as the agent sent it; the summary line is not repeated below it. */
function describeError(e: ApiError): string {
  if (e.issues && e.issues.length > 0) return [`${e.code}:`, ...e.issues.map((i) => issueLine(toolField(i.field), i.message))].join('\n');
  const message = Object.entries(API_TO_TOOL_FIELDS).reduce((m, [api, tool]) => m.replaceAll(api, tool), e.message);
  return `${e.code}: ${message}`;
}

/** A tool's arguments against its schema: unknown ones are named with the ones it takes. */
function invalidArguments(name: ToolName, error: z.ZodError): string {
  const known = Object.keys(TOOL_INPUTS[name].shape);
  const lines = fieldIssues(error).map((i) =>
    i.message === 'unknown field'
      ? `  ${i.field}: unknown argument${i.field.includes('.') ? '' : known.length > 0 ? ` (${name} takes ${known.join(', ')})` : ` (${name} takes none)`}`
      : issueLine(i.field, i.message),
  );
  return ['invalid_input:', ...lines].join('\n');
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

function formatRefresh(r: ApiOutput<'library.refresh'>): string {
  const list = (label: string, paths: string[]) => (paths.length === 0 ? [] : [`${label} (${paths.length}):`, ...paths.slice(0, 50).map((p) => `  ${p}`), ...(paths.length > 50 ? [`  … and ${paths.length - 50} more`] : [])]);
  return [
    `refreshed ${r.roots.join(', ')}: ${r.added.length} added, ${r.updated.length} updated, ${r.removed.length} removed, ${r.unchanged} unchanged (${r.files} files, ${Math.round(r.durationMs)} ms)`,
    ...list('added', r.added),
    ...list('updated', r.updated),
    ...list('removed', r.removed),
    ...list('skipped', r.skipped.map((x) => `${x.path}: ${x.reason}`)),
    ...list('failed', r.failed.map((x) => `${x.path}: ${x.reason}`)),
  ].join('\n');
}

/**
 * The tools/list entries, built once: input and output schemas as JSON Schema (draft 7, as the SDK's own server does),
 * spelt so that the most clients read them (portable-schema.ts).
 */
export function toolList(names: readonly ToolName[] = Object.keys(TOOL_INPUTS) as ToolName[]): Tool[] {
  return names.map((name) => {
    const output = (TOOL_OUTPUTS as Partial<Record<ToolName, z.ZodObject>>)[name];
    return {
      name,
      description: TOOL_DESCRIPTIONS[name],
      inputSchema: portableSchema(toJsonSchemaCompat(TOOL_INPUTS[name], { pipeStrategy: 'input' })) as Tool['inputSchema'],
      ...(output ? { outputSchema: portableSchema(toJsonSchemaCompat(output, { pipeStrategy: 'output' })) as Tool['outputSchema'] } : {}),
      annotations: TOOL_ANNOTATIONS[name],
    };
  });
}

/** The server's instructions, naming only the tools it serves. */
function instructionsFor(enabled: readonly ToolName[]): string {
  const uses: [ToolName, string][] = [
    ['rehydrate', 'start a session with `rehydrate` (project memory)'],
    ['pack', 'start a task with `pack` (a bounded, redacted context packet for it)'],
    ['search', 'use `search` to locate passages'],
    ['ingest', '`ingest` after you change files'],
    ['remember', '`remember` to record decisions, issues, state and learnings for the next session'],
  ];
  const said = uses.filter(([t]) => enabled.includes(t)).map(([, s]) => s);
  return `ContextPack holds this project's indexed files and memory${said.length ? `: ${said.join('; ')}` : ''}.`;
}

type ToolAnswer = CallToolResult & { structuredContent?: Record<string, unknown> };

export function createMcpServer(deps: McpServerDeps): McpServer {
  const enabled: readonly ToolName[] = deps.tools ?? ALL_TOOLS;
  const server = new McpServer(
    { name: 'contextpack', version: deps.version },
    {
      capabilities: { tools: {}, resources: {}, prompts: {} },
      instructions: instructionsFor(enabled),
    },
  );

  // The roots as the index knows them, read at each call (a refresh may add one), so paths leave root-relative.
  let roots: { path: string; name: string }[] = [];
  const readRoots = async (): Promise<void> => {
    const r = await deps.dispatch('roots.list', {});
    if (r.ok) roots = r.value as ApiOutput<'roots.list'>;
  };
  const hidePaths = pathHider(() => roots);
  const gate = (text: string, source: string): string => hidePaths(deps.redactor.redactText(text, { source: `mcp:${source}`, section: 'MCP' }).text);
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
  /**
   * A long text block (a 40k-token handoff) is gated a part at a time, the event loop free between parts, so the
   * server's other calls are answered meanwhile (issue #33: stats within 100 ms while a large handoff runs). Parts end
   * at a blank line, which no secret the gate knows runs across.
   */
  const gateBlockInParts = async (text: string, source: string): Promise<string> => {
    if (text.length < GATE_PART_CHARS * 2 || /^\s*[[{]/.test(text)) return gateBlock(text, source);
    let out = '';
    for (let from = 0; from < text.length; ) {
      const blank = text.indexOf('\n\n', from + GATE_PART_CHARS);
      const to = blank < 0 ? text.length : blank + 2;
      out += gate(text.slice(from, to), source);
      from = to;
      if (from < text.length) await new Promise((r) => setImmediate(r));
    }
    return out;
  };

  async function call<T>(method: string, input: unknown): Promise<T> {
    const r = await deps.dispatch(method, input);
    if (!r.ok) throw new ToolFailure(describeError(r.error));
    return r.value as T;
  }
  /** The tool's API method, with its arguments as that method's input (tool-api.ts), and what the server adds. */
  const callFor = <T>(name: ToolName, args: Record<string, unknown>, add: Record<string, unknown> = {}): Promise<T> =>
    call<T>(TOOL_API[name].method, { ...apiInputOf(name, args), ...add });

  // Why semantic search is off is said once a session, in the first answer that falls back (and always in stats).
  let semanticOffSaid = false;
  const retrievalLine = (mode: string, x: { fusion?: { method: string; k?: number; weights?: readonly number[] } | null; mmr?: { lambda: number; fetch_k: number; similarity: string } | null; fallback_reason?: string | null } | undefined): string => {
    const parts = [`mode ${mode}`];
    if (x?.fusion) parts.push(`fusion ${x.fusion.method}${x.fusion.k !== undefined ? ` k=${x.fusion.k}` : ''}${x.fusion.weights ? ` weights bm25 ${x.fusion.weights[0]}, vector ${x.fusion.weights[1]}` : ''}`);
    if (x?.mmr) parts.push(`MMR λ=${x.mmr.lambda} over ${x.mmr.fetch_k} (${x.mmr.similarity} similarity)`);
    if (x?.fallback_reason && !semanticOffSaid) {
      semanticOffSaid = true;
      parts.push(semanticOffForAgent(x.fallback_reason));
    }
    return `retrieval: ${parts.join('; ')}`;
  };

  const runners = new Map<ToolName, (args: any, extra: Extra) => Promise<ToolAnswer>>();
  const tool = <N extends ToolName>(name: N, run: (args: z.output<(typeof TOOL_INPUTS)[N]>, extra: Extra) => Promise<ToolAnswer>): void => {
    runners.set(name, run as (args: any, extra: Extra) => Promise<ToolAnswer>);
  };

  let listed: Tool[] | null = null;
  server.server.setRequestHandler(ListToolsRequestSchema, () => {
    listed ??= toolList(enabled);
    if (deps.onToolsListed) setImmediate(deps.onToolsListed);
    return { tools: listed };
  });
  // Our own tools/call: the SDK's would drop unknown arguments before a handler saw them, and word its own errors.
  server.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const name = request.params.name as ToolName;
    const run = runners.get(name);
    if (!run) throw new McpError(ErrorCode.InvalidParams, `Tool ${JSON.stringify(request.params.name)} not found`);
    // A tool left out of this server's set is refused the same way whoever calls it, saying how to turn it on.
    if (!enabled.includes(name)) return { isError: true, content: [{ type: 'text', text: `not_enabled: ${name} is not in this server's tool set; ${enableHint([name])}` }] };
    try {
      await readRoots();
      const parsed = TOOL_INPUTS[name].safeParse(request.params.arguments ?? {});
      if (!parsed.success) throw new ToolFailure(invalidArguments(name, parsed.error));
      const result = await run(parsed.data, extra as unknown as Extra);
      // The gate sees every text block and every structured value, whatever produced it (snippets, memory text, paths).
      return {
        ...result,
        content: await Promise.all(result.content.map(async (c) => (c.type === 'text' ? { ...c, text: await gateBlockInParts(c.text, name) } : c))),
        ...(result.structuredContent ? { structuredContent: gateJson(result.structuredContent, name) as Record<string, unknown> } : {}),
      };
    } catch (err) {
      const message = err instanceof ToolFailure ? err.message : `failed: ${(err as Error).message ?? String(err)}`;
      return { isError: true, content: [{ type: 'text', text: gate(withoutCliAdvice(message), name) }] };
    }
  });

  const structured = <N extends StructuredTool>(_name: N, value: z.infer<(typeof TOOL_OUTPUTS)[N]>): Record<string, unknown> => value as Record<string, unknown>;

  tool('search', async (a, extra) => {
    await progress(extra, 0, 1, 'searching');
    const r = await callFor<ApiOutput<'search.query'>>('search', a, { k: a.k ?? 10 });
    await progress(extra, 1, 1, `${r.hits.length} hits`);
    // The gate judges the chunk's own lines before they are joined and cut: a snippet cut inside a key would no
    // longer match the rule that knows the whole key.
    const snippet = (t: string) => gate(t, 'search').replace(/\s+/g, ' ').slice(0, 240);
    const hits = r.hits.map((h, i) => `${i + 1}. ${h.score.toFixed(3)}  ${provenance(h)}\n   ${snippet(h.text)}`);
    const off = r.retrieval?.fallback_reason ? semanticOffForAgent(r.retrieval.fallback_reason) : null;
    return {
      content: [{ type: 'text', text: [retrievalLine(r.mode, r.retrieval), '', ...(hits.length > 0 ? hits : ['no results'])].join('\n') }],
      structuredContent: structured('search', searchStructure(r, snippet, off)),
    };
  });

  tool('pack', async (a, extra) => {
    await progress(extra, 0, 1, 'retrieving evidence and assembling the packet');
    const p = await callFor<ApiOutput<'packets.build'>>('pack', a);
    await progress(extra, 1, 1, `packet ${p.hash.slice(0, 12)} stored`);
    const r = p.manifest.retrieval;
    const head = [
      `context_snapshot_hash: ${p.hash}`,
      `resource: ${PACKET_URI_PREFIX}${p.hash}`,
      retrievalLine(r.mode, r),
      `budget: ${p.manifest.budgets.total_tokens} tokens of ${p.manifest.budgets.max_tokens}; ${p.manifest.redactions.count} lines redacted`,
    ].join('\n');
    return {
      content: [
        { type: 'text', text: head },
        { type: 'text', text: p.text },
        { type: 'resource_link', uri: `${PACKET_URI_PREFIX}${p.hash}`, name: `packet ${p.hash.slice(0, 12)}`, mimeType: p.format === 'md' ? 'text/markdown' : 'application/json' },
      ],
      structuredContent: structured('pack', packetStructure(p, `${PACKET_URI_PREFIX}${p.hash}`)),
    };
  });

  tool('get_packet', async (a) => {
    const p = await callFor<ApiOutput<'packets.get'>>('get_packet', a);
    return { content: [{ type: 'text', text: p.text }], structuredContent: structured('get_packet', packetStructure(p, `${PACKET_URI_PREFIX}${p.hash}`)) };
  });

  tool('replay', async (a, extra) => {
    await progress(extra, 0, 1, 'reassembling against the current store');
    const d = await callFor<ReplayDiff>('replay', a);
    await progress(extra, 1, 1, d.identical ? 'identical' : 'changed');
    return { content: [{ type: 'text', text: formatDiff(d) }] };
  });

  tool('remember', async (a) => {
    const type = a.type as MemoryType;
    const content = typeof a.content === 'string' ? { [MAIN_FIELD[type]]: a.content } : a.content;
    const m = await callFor<ApiOutput<'memory.create'>>('remember', { ...a, content }, { agent: 'mcp' });
    return {
      content: [
        { type: 'text', text: `saved ${m.memory_type} ${m.decision_id ?? m.memory_id}: ${m.title}` },
        { type: 'text', text: JSON.stringify(m, null, 2) },
      ],
    };
  });

  tool('rehydrate', async (a) => {
    const b = await callFor<ApiOutput<'memory.rehydrate'>>('rehydrate', a);
    const omitted = b.omitted.length > 0 ? `\n\n(${b.omitted.length} items left out for the token budget)` : '';
    return { content: [{ type: 'text', text: `${b.text}${omitted}` }], structuredContent: structured('rehydrate', rehydrateStructure(b)) };
  });

  tool('hierarchy', async (a) => {
    const h = await callFor<ApiOutput<'hierarchy.show'>>('hierarchy', a);
    return { content: [{ type: 'text', text: h.text }] };
  });

  tool('stats', async (a) => {
    const s = await callFor<ApiOutput<'stats.get'>>('stats', a);
    const w = await call<ApiOutput<'watch.status'>>('watch.status', {});
    const followed = w.roots.filter((r) => r.watching).map((r) => r.name);
    const watcher =
      w.watching === 0
        ? `watcher    off: no root is followed in this session; call ingest after you change files`
        : `watcher    following ${followed.join(', ')}${w.busy ? ', indexing now' : ''}${w.queue > 0 ? `, ${w.queue} changes waiting` : ''}; last change ${w.lastChange ?? 'none yet'}`;
    const lines = [
      `sources    ${s.sources.indexed} indexed, ${s.sources.skipped} skipped, ${s.sources.failed} failed`,
      `documents  ${s.documents}`,
      `chunks     ${s.chunks}`,
      `last ingest ${s.lastIngest ? s.lastIngest.startedAt : 'never'}`,
      watcher,
      ...s.notices.map((n) => (/^semantic search off/.test(n) ? semanticOffForAgent(n) : withoutCliAdvice(n))),
    ];
    return { content: [{ type: 'text', text: lines.join('\n') }] };
  });

  tool('ingest', async (a, extra) => {
    await progress(extra, 0, 1, a.paths ? `refreshing ${a.paths.length} path${a.paths.length === 1 ? '' : 's'}` : 'refreshing every root');
    // The job's files as they are indexed, at most every 200 ms; the total is the files found plus the answer itself.
    let last = 0;
    let total = 1;
    const stop = deps.subscribe?.((e) => {
      if (e.name !== 'ingest.progress' || e.payload.phase !== 'index' || Date.now() - last < 200) return;
      last = Date.now();
      total = Math.max(total, e.payload.filesTotal + 1);
      void progress(extra, Math.min(e.payload.filesDone, total - 1), total, `indexed ${e.payload.filesDone} of ${e.payload.filesTotal} files`).catch(() => undefined);
    });
    let r: ApiOutput<'library.refresh'>;
    try {
      r = await callFor<ApiOutput<'library.refresh'>>('ingest', a);
    } finally {
      stop?.();
    }
    await progress(extra, total, total, `${r.added.length + r.updated.length + r.removed.length} changed`);
    return { content: [{ type: 'text', text: formatRefresh(r) }], structuredContent: structured('ingest', r) };
  });

  tool('update_memory', async (a) => {
    const r = await callFor<ApiOutput<'memory.update'>>('update_memory', a, { agent: 'mcp' });
    const m = r.memory;
    const line = `${r.changed ? 'updated' : 'unchanged'} ${m.memory_type} ${m.decision_id ?? m.memory_id}: ${m.title}${r.lifecycle ? ` (archived by the lifecycle rule ${r.lifecycle.rule}: ${r.lifecycle.reason})` : ''}`;
    return { content: [{ type: 'text', text: line }, { type: 'text', text: JSON.stringify(m, null, 2) }] };
  });

  tool('resolve_issue', async (a) => {
    const r = await callFor<ApiOutput<'memory.resolve'>>('resolve_issue', a, { agent: 'mcp' });
    return { content: [{ type: 'text', text: `${r.changed ? 'resolved' : 'already resolved'}: ${r.memory.title}${r.lifecycle ? ` (archived: ${r.lifecycle.reason})` : ''}` }] };
  });

  tool('capacity', async (a) => {
    const c = await callFor<ApiOutput<'sessions.capacity'>>('capacity', a);
    return { content: [{ type: 'text', text: `${c.level}: ${c.tokens} / ${c.window} tokens (${c.usage_pct.toFixed(1)} %)\naction: ${c.action} (${c.status})\n${c.response}` }] };
  });

  tool('handoff', async (a, extra) => {
    await progress(extra, 0, 1, 'compacting and building the handoff package');
    const h = await callFor<ApiOutput<'sessions.handoff'>>(
      'handoff',
      // A name without a transcript names nothing.
      { ...a, transcript_name: undefined },
      a.transcript ? { transcript: { name: a.transcript_name ?? 'transcript', text: a.transcript } } : {},
    );
    const p = h.package;
    await progress(extra, 1, 1, `handoff ${h.hash.slice(0, 12)} stored`);
    const head = `context_snapshot_hash: ${h.hash}\nbudget: ${p.budget.package_tokens} / ${p.budget.max_tokens} tokens; reduction ${(p.compaction.reduction_achieved * 100).toFixed(1)} %; preservation_validation ${p.compaction.preservation_validation}`;
    return { content: [{ type: 'text', text: head }, { type: 'text', text: h.text }], structuredContent: structured('handoff', handoffStructure(h)) };
  });

  tool('end_session', async (a) => {
    const r = await callFor<ApiOutput<'sessions.end'>>('end_session', a, a.transcript ? { transcript: { name: 'transcript', text: a.transcript } } : {});
    return { content: [{ type: 'text', text: `${r.headline}\nsaved ${r.saved.created.length} memories, ${r.saved.duplicates.length} already known` }] };
  });

  registerPrompts(server, enabled);

  server.registerResource(
    'packet',
    new ResourceTemplate(`${PACKET_URI_PREFIX}{hash}`, {
      list: async () => {
        await readRoots(); // a client may read resources before calling any tool
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
      await readRoots();
      const r = await deps.dispatch('packets.get', { hash: String(vars.hash) });
      // The spec's codes (-32002 for a resource that is not there), with the same agent-bound wording as a tool's error.
      if (!r.ok) throw new McpError(r.error.code === 'not_found' ? RESOURCE_NOT_FOUND : r.error.code === 'invalid_input' ? ErrorCode.InvalidParams : ErrorCode.InternalError, gate(withoutCliAdvice(describeError(r.error)), 'resources/read'), { uri: uri.href });
      const p = r.value as ApiOutput<'packets.get'>;
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: gateBlock(p.text, 'resources/read') }] };
    },
  );

  return server;
}
