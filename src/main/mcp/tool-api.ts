// Which API method each MCP tool calls, and what becomes of every input field of that method over MCP: the tool
// argument that carries it (snake_case, as agents expect), or why an agent does not get it. One table gives the
// argument → input translation the tools use, the field names their errors are worded with, and, in
// tool-api.test.ts, the check that a field added to an API method reaches the tool or is withheld on purpose.
import type { ApiMethod } from '../../shared/api/index.ts';
import type { ToolName } from './tools.ts';

/** The tool argument (a dotted path for a nested one) that carries the API field, or why it is withheld. */
export type FieldFate = string | { withheld: string };

export interface ToolApi {
  method: ApiMethod;
  /** Every input field of the method (dotted paths for the fields of an object the tool spells otherwise). */
  fields: Record<string, FieldFate>;
}

const AGENT = { withheld: "the server writes as the agent 'mcp'" };
const PROJECT = { withheld: 'the server serves one project, chosen when it starts' };
const ENCODING = { withheld: 'budgets are counted with the default tokenizer (o200k_base)' };
/** The fields of the search filters, as both tools that filter spell them. */
const FILTERS = { filters: 'filters', 'filters.include': 'filters.include', 'filters.exclude': 'filters.exclude', 'filters.types': 'filters.types' } as const;
const PACK_ONLY = { withheld: 'pack takes the filters of `contextpack pack`: include, exclude and types' };

export const TOOL_API: Record<ToolName, ToolApi> = {
  search: {
    method: 'search.query',
    fields: {
      query: 'query',
      k: 'k',
      mode: 'mode',
      mmrLambda: { withheld: 'a tuning knob for people comparing rankings; agents get the default diversity' },
      ...FILTERS,
      'filters.pathGlob': 'filters.path_glob',
      'filters.modifiedAfter': 'filters.modified_after',
      'filters.modifiedBefore': 'filters.modified_before',
    },
  },
  pack: {
    method: 'packets.build',
    fields: {
      query: 'query',
      task: 'task',
      template: 'template',
      maxTokens: 'max_tokens',
      k: { withheld: 'the evidence follows the token budget' },
      ...FILTERS,
      'filters.pathGlob': PACK_ONLY,
      'filters.modifiedAfter': PACK_ONLY,
      'filters.modifiedBefore': PACK_ONLY,
      useDefaultExcludes: 'default_excludes',
      encoding: ENCODING,
      format: 'format',
      profile: { withheld: 'the profiles are presets of the command line; an agent says what it wants with query, task and filters' },
      sessionId: { withheld: 'captured sessions belong to the app and the command line' },
      tools: { withheld: 'an agent knows its own tools; the tool manifest is for packets built for another model' },
      conversation: { withheld: 'an agent has its conversation in context already' },
      keepTurns: { withheld: 'goes with conversation' },
      turnsElsewhere: { withheld: 'goes with conversation' },
    },
  },
  get_packet: {
    method: 'packets.get',
    fields: {
      hash: 'hash',
      format: { withheld: 'the packet comes back as it was built, in Markdown, with its fields in structuredContent' },
      raw: { withheld: 'the stored canonical JSON is for checking a hash, not for an agent' },
    },
  },
  replay: { method: 'packets.replay', fields: { hash: 'hash' } },
  remember: {
    method: 'memory.create',
    fields: {
      type: 'type',
      title: 'title',
      content: 'content',
      tags: 'tags',
      importance: 'importance',
      agent: AGENT,
      parent: { withheld: 'memory threads are kept by the app and the command line' },
      expires: { withheld: 'lifecycle dates are set by the user (the app or `contextpack memory update --expires`)' },
      timestamp: { withheld: 'a memory an agent writes is dated now' },
      project: PROJECT,
    },
  },
  rehydrate: {
    method: 'memory.rehydrate',
    fields: {
      maxTokens: 'max_tokens',
      touch: { withheld: 'a rehydration always counts as reading what it loads (the seed’s access step)' },
      project: PROJECT,
    },
  },
  hierarchy: { method: 'hierarchy.show', fields: { marker: 'marker' } },
  // stats also reads watch.status (no input either).
  stats: { method: 'stats.get', fields: {} },
  ingest: { method: 'library.refresh', fields: { paths: 'paths' } },
  update_memory: {
    method: 'memory.update',
    fields: {
      id: 'id',
      title: 'title',
      importance: 'importance',
      tags: 'tags',
      set: 'set',
      expires: { withheld: 'lifecycle dates are set by the user (the app or `contextpack memory update --expires`)' },
      agent: AGENT,
    },
  },
  resolve_issue: { method: 'memory.resolve', fields: { id: 'id', resolution: 'resolution', agent: AGENT } },
  capacity: {
    method: 'sessions.capacity',
    fields: {
      tokens: 'tokens',
      window: 'window',
      transcript: { withheld: 'an agent knows how many tokens it holds; counting a transcript it would have to send is what the tool saves' },
      encoding: ENCODING,
    },
  },
  handoff: {
    method: 'sessions.handoff',
    fields: {
      type: 'type',
      'transcript.text': 'transcript',
      'transcript.name': 'transcript_name',
      from: 'from',
      to: 'to',
      reason: 'reason',
      maxTokens: 'max_tokens',
      save: 'save',
      preview: { withheld: 'an agent hands off to be continued: the handoff is stored so the next session can rehydrate it; a preview is the workbench’s' },
      format: { withheld: 'the package comes back in Markdown, with its fields in structuredContent' },
      sections: { withheld: 'the sections the sender owns are handed over; choosing others is the app’s' },
      encoding: ENCODING,
    },
  },
  end_session: {
    method: 'sessions.end',
    fields: {
      notes: 'notes',
      notesName: { withheld: 'notes an agent sends come from no file' },
      'transcript.text': 'transcript',
      'transcript.name': { withheld: 'a transcript sent as text is named "transcript"' },
      agent: 'agent',
    },
  },
};

/** The tool arguments the table maps, each to its API field: `max_tokens` → `maxTokens`. */
function toolToApi(name: ToolName): Map<string, string> {
  const out = new Map<string, string>();
  for (const [api, fate] of Object.entries(TOOL_API[name].fields)) if (typeof fate === 'string') out.set(fate, api);
  return out;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let at = target;
  for (const p of parts.slice(0, -1)) at = (at[p] ??= {}) as Record<string, unknown>;
  at[parts.at(-1)!] = value;
}

/**
 * A tool's parsed arguments as its API method's input, renamed by the table (the fields of an object the table maps
 * field by field, such as filters, included). An argument the table does not map is passed under its own name.
 */
export function apiInputOf(name: ToolName, args: Record<string, unknown>): Record<string, unknown> {
  const map = toolToApi(name);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined) continue;
    const nested = [...map.keys()].some((k) => k.startsWith(`${key}.`));
    if (nested && isPlainObject(value)) {
      const api = map.get(key) ?? key;
      setPath(out, api, {});
      for (const [field, v] of Object.entries(value)) if (v !== undefined) setPath(out, map.get(`${key}.${field}`) ?? `${api}.${field}`, v);
    } else setPath(out, map.get(key) ?? key, value);
  }
  return out;
}

/** The API's field names, as the tools spell them, so an error names the field the agent sent (`maxTokens` → `max_tokens`). */
export const API_TO_TOOL_FIELDS: Record<string, string> = Object.fromEntries(
  Object.values(TOOL_API).flatMap((t) => Object.entries(t.fields).filter((e): e is [string, string] => typeof e[1] === 'string' && e[0] !== e[1])),
);
