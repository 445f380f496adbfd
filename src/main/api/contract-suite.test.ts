// One suite, several doors (issue #24): every case runs over the API in-process, the IPC registration (with the
// structured clone Electron applies), HTTP (the serve server), MCP (the official SDK client) and the CLI, where the
// door has the method. Results are reduced to what a caller relies on and errors to their code and fields; any
// difference between doors fails the suite.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_METHODS, ipcChannel } from '../../shared/api/methods.ts';
import { citePath } from '../../shared/provenance.ts';
import { ingestPaths } from '../core/ingest/index.ts';
import { getDefaultRedactor } from '../core/redact/index.ts';
import { openStore, type Store } from '../core/store/index.ts';
import { tempDirs, writeTree } from '../core/testing/tmp.ts';
import { tinyModels, type TinyModelDir } from '../core/vectors/testing/tiny-embedder.ts';
import { flagName } from '../cli/api-flags.ts';
import { runCliCaptured } from '../cli/testing/run-cli.ts';
import { registerIpcApi } from '../electron/ipc.ts';
import { createMcpServer } from '../mcp/server.ts';
import { API_TO_TOOL_FIELDS } from '../mcp/tool-api.ts';
import { startServer, type RunningServer } from '../serve/server.ts';
import { TOKEN_HEADER } from '../serve/security.ts';
import { defaultModelDirs } from '../paths.ts';
import { createApi, type Api } from './index.ts';

type Outcome = { ok: true; facts: unknown } | { ok: false; code: string; fields: string[] };
type Facts = (value: any) => unknown;

interface Door {
  name: string;
  /** null: this door has no such method. */
  call(method: string, input: Record<string, unknown>, facts: Facts): Promise<Outcome | null>;
}

const tmp = tempDirs('cp-contract-');
const SESSION_FIXTURES = fileURLToPath(new URL('../core/session/fixtures/', import.meta.url));
let store: Store;
let api: Api;
let dbPath: string;
let root: string;
let http: RunningServer;
let mcp: Client;
let cliEnv: NodeJS.ProcessEnv;
let models: TinyModelDir;
let issueId: string;
let packetHash: string;
let decisionId: string;
let decisionsDir: string;
const doors: Door[] = [];

/** Fields without list positions: a repeated flag cannot say which of its values was wrong, only which flag. */
const errorOutcome = (code: string, fields: string[]): Outcome => ({ ok: false, code, fields: [...new Set(fields.map((f) => f.replace(/\.\d+(?=\.|$)/g, '')))].sort() });
const fromEnvelope = (r: { ok: boolean; value?: unknown; error?: { code: string; issues?: { field: string }[] } }, facts: Facts): Outcome =>
  r.ok ? { ok: true, facts: facts(r.value) } : errorOutcome(r.error!.code, (r.error!.issues ?? []).map((i) => i.field));

// --- MCP: the tools that front an API method, with the argument names an agent uses.
const TOOL_TO_API_FIELDS = Object.fromEntries(Object.entries(API_TO_TOOL_FIELDS).map(([a, t]) => [t, a]));
const snake = (o: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(o).map(([k, v]) => [
      API_TO_TOOL_FIELDS[k] ?? k,
      k === 'filters' && v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([fk, fv]) => [(API_TO_TOOL_FIELDS[`filters.${fk}`] ?? `filters.${fk}`).slice('filters.'.length), fv])) : v,
    ]),
  );
const MCP_TOOLS: Record<string, string> = { 'search.query': 'search', 'packets.build': 'pack', 'packets.get': 'get_packet', 'memory.rehydrate': 'rehydrate', 'library.refresh': 'ingest' };
/** What each tool's structured result says, in the API's terms, for the facts functions. */
const MCP_VALUE: Record<string, (s: any) => unknown> = {
  'search.query': (s) => ({ mode: s.mode, hits: s.hits.map((h: any) => ({ path: h.path, displayPath: h.path, anchor: h.anchor ?? '', lineStart: h.lines.start, lineEnd: h.lines.end, score: h.score })) }),
  'packets.build': (s) => ({ hash: s.hash }),
  'packets.get': (s) => ({ hash: s.hash }),
  'memory.rehydrate': (s) => ({ tokens: s.tokens, ids: s.items.map((i: any) => i.id) }),
  'library.refresh': (s) => s,
};

/** "invalid_input:\n  max_tokens: …" → the code and the fields, in the API's names. */
function parseToolError(text: string): Outcome {
  const [head, ...lines] = text.split('\n');
  const code = /^(\w+):/.exec(head!)?.[1] ?? 'failed';
  const fields = lines.map((l) => /^ {2}([\w.[\]]+): /.exec(l)?.[1]).filter((f): f is string => f !== undefined);
  return errorOutcome(code, fields.map((f) => TOOL_TO_API_FIELDS[f] ?? f));
}

// --- CLI: the commands on the handler map, each from a method's input to its flags.
/** `fields`: the API field of a flag not named for it (`--reduction` sets targetReduction). */
/** `says`: whether the command has flags for everything the input gives (else the CLI is no door for that case). */
const CLI: Record<string, { args: (input: Record<string, unknown>) => string[]; value: (stdout: string) => unknown; fields?: Record<string, string>; says?: (input: Record<string, unknown>) => boolean }> = {
  'settings.get': { args: (i) => ['settings', '--json', ...extraFlags(i, [])], value: (o) => JSON.parse(o) },
  'settings.set': {
    args: (i) => ['settings', '--json', ...((i.evidenceExclude as string[] | undefined) ?? []).flatMap((g) => ['--evidence-exclude', g]), ...extraFlags(i, ['evidenceExclude'])],
    value: (o) => JSON.parse(o),
  },
  'stats.get': { args: (i) => ['stats', '--json', ...extraFlags(i, [])], value: (o) => JSON.parse(o) },
  // `search` calls the engine directly (start-up: docs/cli.md): compared here with the method it mirrors.
  'search.query': {
    args: (i) => {
      const f = (i.filters ?? {}) as { include?: string[] };
      return ['search', String(i.query), '--json', ...(i.k !== undefined ? ['--k', String(i.k)] : []), ...(f.include ?? []).flatMap((g) => ['--path', g]), ...extraFlags(i, ['query', 'k', 'filters'])];
    },
    value: (o) => JSON.parse(o),
    // Only the path globs have flags (--path); the dates have none.
    says: (i) => Object.keys((i.filters ?? {}) as object).every((f) => f === 'include'),
  },
  'memory.resolve': {
    args: (i) => ['memory', 'resolve', String(i.id), '--json', ...(i.resolution !== undefined ? ['--resolution', String(i.resolution)] : []), ...extraFlags(i, ['id', 'resolution'])],
    value: (o) => JSON.parse(o),
  },
  'memory.create': {
    args: (i) => [
      'memory', 'add', '--json',
      ...(i.type !== undefined ? ['--type', String(i.type)] : []),
      ...(i.title !== undefined ? ['--title', String(i.title)] : []),
      ...(i.content !== undefined ? ['--content', JSON.stringify(i.content)] : []),
      ...(i.importance !== undefined ? ['--importance', String(i.importance)] : []),
      ...extraFlags(i, ['type', 'title', 'content', 'importance']),
    ],
    value: (o) => JSON.parse(o),
  },
  'memory.search': {
    args: (i) => ['memory', 'search', ...(i.query !== undefined ? [String(i.query)] : []), '--json', ...(i.limit !== undefined ? ['--limit', String(i.limit)] : []), ...extraFlags(i, ['query', 'limit'])],
    value: (o) => JSON.parse(o),
  },
  'memory.get': { args: (i) => ['memory', 'show', String(i.id), '--json', ...extraFlags(i, ['id'])], value: (o) => JSON.parse(o) },
  'memory.update': {
    args: (i) => ['memory', 'update', String(i.id), '--json', ...(i.importance !== undefined ? ['--importance', String(i.importance)] : []), ...extraFlags(i, ['id', 'importance'])],
    value: (o) => JSON.parse(o),
  },
  'memory.rehydrate': {
    args: (i) => ['memory', 'rehydrate', '--json', ...(i.maxTokens !== undefined ? ['--max-tokens', String(i.maxTokens)] : []), ...extraFlags(i, ['maxTokens'])],
    value: (o) => JSON.parse(o),
  },
  'sessions.capacity': {
    args: (i) => ['capacity', '--json', ...(i.tokens !== undefined ? ['--tokens', String(i.tokens)] : []), ...(i.window !== undefined ? ['--window', String(i.window)] : []), ...extraFlags(i, ['tokens', 'window'])],
    value: (o) => JSON.parse(o),
  },
  // The command reads a file: the case's transcript is written to one of its name.
  'sessions.analyze': {
    args: (i) => {
      const t = i.transcript as { name: string; text: string } | undefined;
      const file = t ? join(tmp.make(), t.name) : undefined;
      if (t) writeFileSync(file!, t.text);
      return ['compact', '--json', ...(file ? ['--transcript', file] : []), ...(i.targetReduction !== undefined ? ['--reduction', String(i.targetReduction)] : []), ...extraFlags(i, ['transcript', 'targetReduction'])];
    },
    value: (o) => JSON.parse(o),
    fields: { reduction: 'targetReduction' },
  },
  'sessions.handoff': {
    args: (i) => ['handoff', '--json', ...(i.type !== undefined ? ['--type', String(i.type)] : []), ...(i.maxTokens !== undefined ? ['--max-tokens', String(i.maxTokens)] : []), ...extraFlags(i, ['type', 'maxTokens'])],
    value: (o) => ({ hash: JSON.parse(o).context_snapshot_hash, package: JSON.parse(o).package }),
  },
  'sessions.end': {
    args: (i) => {
      const file = i.notes !== undefined ? join(tmp.make(), String(i.notesName ?? 'notes')) : undefined;
      if (file) writeFileSync(file, String(i.notes));
      return ['session', 'end', '--json', ...(file ? ['--notes', file] : []), ...(i.agent !== undefined ? ['--agent', String(i.agent)] : []), ...extraFlags(i, ['notes', 'notesName', 'agent'])];
    },
    value: (o) => JSON.parse(o),
  },
  'library.ingest': {
    args: (i) => ['ingest', ...((i.paths as string[] | undefined) ?? []), '--json', '--no-embed', ...ingestFlags(i), ...extraFlags(i, ['paths', 'maxFileMb', 'followSymlinks'])],
    value: (o) => JSON.parse(o),
  },
  'library.rescan': { args: (i) => ['ingest', '--rescan', '--json', '--no-embed', ...ingestFlags(i), ...extraFlags(i, ['maxFileMb', 'followSymlinks'])], value: (o) => JSON.parse(o) },
  'packets.get': { args: (i) => ['replay', String(i.hash), '--format', 'json', ...extraFlags(i, ['hash'])], value: (o) => ({ hash: JSON.parse(o).context_snapshot_hash }) },
  'memory.maintain': { args: (i) => ['memory', 'maintain', '--json', ...(i.dryRun === true ? ['--dry-run'] : []), ...extraFlags(i, ['dryRun'])], value: (o) => JSON.parse(o) },
  'memory.audit': {
    args: (i) => ['memory', 'audit', ...(i.id !== undefined ? [String(i.id)] : []), '--json', ...(i.limit !== undefined ? ['--limit', String(i.limit)] : []), ...extraFlags(i, ['id', 'limit'])],
    value: (o) => JSON.parse(o),
  },
  'goals.show': { args: (i) => ['goals', '--json', ...extraFlags(i, [])], value: (o) => JSON.parse(o) },
  'goals.record': {
    args: (i) => ['goals', 'record', String(i.gate), String(i.status), '--json', ...(i.value !== undefined ? ['--value', String(i.value)] : []), ...extraFlags(i, ['gate', 'status', 'value'])],
    value: (o) => JSON.parse(o),
  },
  // The command reads a file: the case's text is written to one of its source name.
  'redact.text': {
    args: (i) => {
      const file = join(tmp.make(), String(i.source ?? 'text'));
      writeFileSync(file, String(i.text ?? ''));
      const patterns = (i.patterns as { id: string; type: string; pattern: string }[] | undefined) ?? [];
      return ['redact', file, '--json', ...patterns.flatMap((p) => ['--pattern', `${p.id}:${p.type}:${p.pattern}`]), ...extraFlags(i, ['text', 'source', 'patterns'])];
    },
    value: (o) => JSON.parse(o),
    fields: { pattern: 'patterns' },
  },
  'decisions.list': {
    args: (i) => [
      'decision', 'list', '--json',
      ...((i.tags as string[] | undefined) ?? []).flatMap((t) => ['--tags', t]),
      ...(i.importanceGte !== undefined ? ['--importance-gte', String(i.importanceGte)] : []),
      ...(i.archived === 'any' ? ['--all'] : i.archived === true ? ['--archived'] : []),
      ...extraFlags(i, ['tags', 'importanceGte', 'archived']),
    ],
    value: (o) => JSON.parse(o),
  },
  'decisions.create': {
    args: (i) => [
      'decision', 'new', '--json',
      ...(['title', 'decision', 'rationale', 'importance'] as const).flatMap((f) => (i[f] !== undefined ? [`--${f}`, String(i[f])] : [])),
      ...((i.tags as string[] | undefined) ?? []).flatMap((t) => ['--tags', t]),
      ...extraFlags(i, ['title', 'decision', 'rationale', 'importance', 'tags']),
    ],
    value: (o) => JSON.parse(o),
  },
  // `decision show` prints the record (or `{ chain }` with --chain); the method gives it beside its markdown.
  'decisions.get': {
    args: (i) => ['decision', 'show', ...(i.id !== undefined ? [String(i.id)] : []), '--json', ...(i.chain === true ? ['--chain'] : []), ...extraFlags(i, ['id', 'chain'])],
    value: (o) => (JSON.parse(o).chain ? { chain: JSON.parse(o).chain } : { decision: JSON.parse(o) }),
  },
  'decisions.supersedeBy': {
    args: (i) => ['decision', 'supersede', ...(i.decisionId !== undefined ? [String(i.decisionId)] : []), '--json', ...(i.by !== undefined ? ['--by', String(i.by)] : []), ...extraFlags(i, ['decisionId', 'by'])],
    value: (o) => JSON.parse(o),
  },
  'decisions.exportFiles': {
    args: (i) => ['decision', 'export', ...((i.decisionIds as string[] | undefined) ?? []), '--json', ...(i.dir !== undefined ? ['--out', String(i.dir)] : []), ...extraFlags(i, ['decisionIds', 'dir'])],
    value: (o) => JSON.parse(o),
  },
  'decisions.import': { args: (i) => ['decision', 'import', ...((i.paths as string[] | undefined) ?? []), '--json', ...extraFlags(i, ['paths'])], value: (o) => JSON.parse(o) },
  'projects.list': { args: (i) => ['projects', '--json', ...extraFlags(i, [])], value: (o) => JSON.parse(o) },
  'projects.create': { args: (i) => ['projects', 'new', String(i.name), '--json', ...extraFlags(i, ['name'])], value: (o) => JSON.parse(o) },
  'projects.rename': { args: (i) => ['projects', 'rename', String(i.name), String(i.newName), '--json', ...extraFlags(i, ['name', 'newName'])], value: (o) => JSON.parse(o) },
  'projects.delete': { args: (i) => ['projects', 'delete', String(i.name), '--yes', '--json', ...extraFlags(i, ['name'])], value: (o) => JSON.parse(o) },
  'library.embed': {
    args: (i) => ['embed', '--json', ...(i.modelId !== undefined ? ['--model', String(i.modelId)] : []), ...(i.batch !== undefined ? ['--batch', String(i.batch)] : []), ...extraFlags(i, ['modelId', 'batch'])],
    value: (o) => JSON.parse(o),
    fields: { model: 'modelId' },
  },
  'packets.list': { args: (i) => ['packets', '--json', ...extraFlags(i, [])], value: (o) => JSON.parse(o).packets },
  'sessions.list': { args: (i) => ['session', 'list', '--json', ...extraFlags(i, [])], value: (o) => JSON.parse(o).sessions },
  'packets.build': {
    args: (i) => {
      const f = (i.filters ?? {}) as { include?: string[] };
      return ['pack', '--format', 'json', '--query', String(i.query), ...(i.maxTokens !== undefined ? ['--max-tokens', String(i.maxTokens)] : []), ...(f.include ?? []).flatMap((g) => ['--path', g]), ...extraFlags(i, ['query', 'maxTokens', 'filters'])];
    },
    value: (o) => ({ hash: JSON.parse(o).manifest.context_snapshot_hash }),
  },
  // `hierarchy show` prints the tree and the index (no marker), a section, or a §4 file with its chunks as `chunk_list`.
  'hierarchy.tree': { args: (i) => ['hierarchy', 'show', '--json', ...extraFlags(i, [])], value: (o) => JSON.parse(o) },
  'hierarchy.show': {
    args: (i) => ['hierarchy', 'show', ...(i.marker !== undefined ? [String(i.marker)] : []), '--json', ...extraFlags(i, ['marker'])],
    value: (o) => {
      const j = JSON.parse(o);
      return j.chunk_list ? { files: [j], chunks: j.chunk_list } : j.files ? { files: j.files } : j.index ? { index: j.index } : { section: j };
    },
  },
  'hierarchy.summary': {
    args: (i) => ['hierarchy', 'summary', '--json', ...(i.goal !== undefined ? ['--goal', String(i.goal)] : []), ...(i.status_pct !== undefined ? ['--status', String(i.status_pct)] : []), ...extraFlags(i, ['goal', 'status_pct'])],
    value: (o) => JSON.parse(o),
    fields: { status: 'status_pct' },
  },
  'hierarchy.addSection': {
    args: (i) => ['hierarchy', 'add', '--json', ...(i.level !== undefined ? ['--level', String(i.level)] : []), ...(i.title !== undefined ? ['--title', String(i.title)] : []), ...(i.body !== undefined ? ['--body', String(i.body)] : []), ...extraFlags(i, ['level', 'title', 'body'])],
    value: (o) => JSON.parse(o),
  },
  'hierarchy.editSection': {
    args: (i) => ['hierarchy', 'edit', ...(i.marker !== undefined ? [String(i.marker)] : []), '--json', ...(i.status_pct !== undefined ? ['--status', String(i.status_pct)] : []), ...(i.agent !== undefined ? ['--agent', String(i.agent)] : []), ...extraFlags(i, ['marker', 'status_pct', 'agent'])],
    value: (o) => JSON.parse(o),
    fields: { status: 'status_pct' },
  },
  'hierarchy.own': {
    args: (i) => ['hierarchy', 'own', ...(i.section !== undefined ? [String(i.section)] : []), '--json', ...(i.agent !== undefined ? ['--agent', String(i.agent)] : []), ...(i.type !== undefined ? ['--type', String(i.type)] : []), ...extraFlags(i, ['section', 'agent', 'action', 'type'])],
    value: (o) => ({ ownership: JSON.parse(o) }),
  },
  'hierarchy.owners': { args: (i) => ['hierarchy', 'owners', '--json', ...extraFlags(i, [])], value: (o) => JSON.parse(o) },
  'hierarchy.draft': {
    args: (i) => ['hierarchy', 'draft', '--json', ...(i.level !== undefined ? ['--level', String(i.level)] : []), ...(i.query !== undefined ? ['--query', String(i.query)] : []), ...extraFlags(i, ['level', 'query'])],
    value: (o) => JSON.parse(o),
  },
  'hierarchy.hints': {
    args: (i) => ['hierarchy', 'hints', '--json', ...(i.change !== undefined ? ['--change', String(i.change)] : []), ...(i.path !== undefined ? ['--path', String(i.path)] : []), ...extraFlags(i, ['change', 'path'])],
    value: (o) => JSON.parse(o),
  },
};
const ingestFlags = (i: Record<string, unknown>) => [...(i.maxFileMb !== undefined ? ['--max-file-mb', String(i.maxFileMb)] : []), ...(i.followSymlinks === true ? ['--follow-symlinks'] : [])];
/** Fields the case gives beyond the command's own, as flags of their own name: how an unknown argument reaches a command line. */
function extraFlags(input: Record<string, unknown>, known: string[]): string[] {
  return Object.entries(input)
    .filter(([k]) => !known.includes(k))
    .flatMap(([k, v]) => [flagName(k), String(v)]);
}
/**
 * "contextpack: pack: --max-tokens: must be …" (or parseArgs' "Unknown option '--bogus'") → code and fields; the memory
 * commands with --json print `{ error, issues }` on stdout instead.
 */
function parseCliError(code: number, stderr: string, stdout = '', fields: Record<string, string> = {}): Outcome {
  if (stderr === '' && stdout.trimStart().startsWith('{')) return errorOutcome('invalid_input', (JSON.parse(stdout) as { issues: { field: string }[] }).issues.map((i) => i.field));
  // The first line is the error; the usage printed under it names every flag.
  // A positional argument is named <like-this>.
  const flags = [...stderr.split('\n')[0]!.matchAll(/(?:^|[\s'"])(--[a-z][a-z-]*|<[a-z][a-z-]*>)/g)].map((m) => m[1]!.replace(/^<(.*)>$/, '--$1'));
  // Exit 2 is every caller error; which one, the message says.
  // (A missing record is said in the engine's words, which may add a hint in brackets: it names no field.)
  const kind = code !== 2 ? 'failed' : /( not found( \(.*\))?|^contextpack: no packet snapshot with hash .*|^contextpack: projects \w+: no project named \S+)$/.test(stderr.split('\n')[0]!) ? 'not_found' : 'invalid_input';
  if (kind === 'not_found') return errorOutcome(kind, []);
  return errorOutcome(kind, flags.map((f) => fields[f.slice(2)] ?? f.slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())));
}

beforeAll(async () => {
  const dir = tmp.make();
  dbPath = join(dir, 'c.db');
  store = openStore(dbPath);
  root = tmp.make();
  writeTree(root, {
    'docs/auth.md': '# Auth\n\n## Tokens\n\nThe pelican gateway signs session tokens with a rotating key.\n\n## Rotation\n\nKeys rotate every 24 hours.\n',
    'docs/retries.md': '# Retries\n\nThe pelican gateway retries uploads with backoff.\n',
    'GOALS.md': '# GOALS\n\n## Gates\n- tests-pass: The tests pass (threshold 100%)\n',
    'src/gateway.ts': 'export function rotateKeys(now: Date) {\n  // pelican gateway key rotation\n  return now.getTime();\n}\n',
  });
  await ingestPaths(store.db, [root]);
  // The CLI finds models from its environment; every door looks in the same folders, which hold a tiny test model
  // (library.embed; nothing is embedded before its case, the last, so every other case runs BM25-only).
  models = await tinyModels();
  cliEnv = { CONTEXTPACK_HOME: tmp.make(), CONTEXTPACK_MODELS_DIR: models.root };
  api = createApi({
    store,
    dataDir: dir,
    version: 't',
    transport: 'http',
    background: false,
    watch: false,
    modelDirs: defaultModelDirs(cliEnv),
    // The CLI's home: every door lists the same projects.
    projects: { home: cliEnv.CONTEXTPACK_HOME!, current: 'default' },
  });

  const issue = await api.dispatch('memory.create', { type: 'issue', title: 'Gateway drops reloads', content: { description: 'Reload fails after rotation', severity: 'high' } });
  issueId = (issue as { value: { memory_id: string } }).value.memory_id;
  decisionsDir = join(tmp.make(), 'decisions');
  decisionId = ((await api.dispatch('decisions.create', { title: 'Rotate gateway keys daily', decision: 'Rotate every 24 hours.', rationale: 'Limits a leaked key.', importance: 8, tags: ['security'] })) as { value: { decision_id: string } }).value.decision_id;
  const packet = await api.dispatch('packets.build', { query: 'pelican gateway', maxTokens: 2000 });
  packetHash = (packet as { value: { hash: string } }).value.hash;

  doors.push({ name: 'in-process', call: async (m, i, facts) => fromEnvelope(await api.dispatch(m, i), facts) });

  const handlers = new Map<string, (event: { senderFrame: { url: string } }, input: unknown) => unknown>();
  registerIpcApi({ handle: (channel, listener) => void handlers.set(channel, listener) }, api.dispatch, (url) => url === 'file:///renderer/index.html');
  doors.push({
    name: 'ipc',
    // Electron copies arguments and results with the structured clone algorithm: what does not survive it is lost.
    call: async (m, i, facts) => fromEnvelope(structuredClone(await handlers.get(ipcChannel(m as never))!({ senderFrame: { url: 'file:///renderer/index.html' } }, structuredClone(i)) as never), facts),
  });

  const rendererDir = tmp.make();
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>t</title>');
  http = await startServer({ dispatch: api.dispatch, events: api.events, rendererDir, port: 0 });
  doors.push({
    name: 'http',
    call: async (m, i, facts) => {
      const res = await fetch(new URL(`/api/${m}`, http.url), { method: 'POST', headers: { 'content-type': 'application/json', [TOKEN_HEADER]: http.token }, body: JSON.stringify(i) });
      return fromEnvelope((await res.json()) as never, facts);
    },
  });

  const server = createMcpServer({ dispatch: api.dispatch, redactor: getDefaultRedactor(), version: 't' });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  mcp = new Client({ name: 'contract-suite', version: '0' });
  await mcp.connect(b);
  await mcp.listTools(); // the client validates structuredContent against the listed outputSchema from here on
  doors.push({
    name: 'mcp',
    call: async (m, i, facts) => {
      const tool = MCP_TOOLS[m];
      if (!tool) return null;
      const r = (await mcp.callTool({ name: tool, arguments: snake(i) })) as { isError?: boolean; content: { text?: string }[]; structuredContent?: unknown };
      if (r.isError) return parseToolError(r.content[0]!.text!);
      return { ok: true, facts: facts(MCP_VALUE[m]!(r.structuredContent)) };
    },
  });

  doors.push({
    name: 'cli',
    call: async (m, i, facts) => {
      const c = CLI[m];
      if (!c || c.says?.(i) === false) return null;
      const r = await runCliCaptured([...c.args(i), '--db', dbPath], { env: cliEnv });
      return r.code === 0 ? { ok: true, facts: facts(c.value(r.stdout)) } : parseCliError(r.code, r.stderr, r.stdout, c.fields);
    },
  });
}, 60_000);
afterAll(async () => {
  await mcp?.close();
  await http?.close();
  await api?.close();
  store?.close();
  await models?.cleanup();
  tmp.cleanup();
});

const hitFacts: Facts = (v) => ({ mode: v.mode, hits: v.hits.map((h: any) => `${citePath(h)}#${h.anchor ?? ''}:${h.lineStart}-${h.lineEnd} ${h.score.toFixed(6)}`) });
const hashFacts: Facts = (v) => v.hash ?? v.manifest?.context_snapshot_hash;

/** Each method with a valid input, an invalid one and an unknown argument (plus what a caller reads of a result). */
const CASES: { method: string; input: () => Record<string, unknown>; facts?: Facts }[] = [
  { method: 'stats.get', input: () => ({}), facts: (v) => ({ sources: v.sources, documents: v.documents, chunks: v.chunks, notices: v.notices }) },
  { method: 'stats.get', input: () => ({ bogus: 1 }) },
  { method: 'settings.get', input: () => ({}), facts: (v) => v.evidenceExclude },
  { method: 'settings.get', input: () => ({ bogus: 1 }) },
  { method: 'settings.set', input: () => ({ evidenceExclude: ['test/**'] }), facts: (v) => v.evidenceExclude },
  { method: 'settings.set', input: () => ({ evidenceExclude: [''] }) },
  { method: 'settings.set', input: () => ({ evidenceExclude: ['test/**'], bogus: 1 }) },
  { method: 'search.query', input: () => ({ query: 'pelican gateway', k: 5 }), facts: hitFacts },
  { method: 'search.query', input: () => ({ query: 'pelican gateway', k: 5, filters: { include: ['src/**'] } }), facts: hitFacts },
  { method: 'search.query', input: () => ({ query: 'x', k: 0 }) },
  { method: 'search.query', input: () => ({ query: 'x', k: 5, filters: { modifiedAfter: 'someday' } }) },
  { method: 'search.query', input: () => ({ query: 'x', k: 5, bogus: 1 }) },
  { method: 'packets.build', input: () => ({ query: 'pelican gateway key rotation', maxTokens: 2000 }), facts: hashFacts },
  { method: 'packets.build', input: () => ({ query: 'pelican gateway key rotation', maxTokens: 2000, filters: { include: ['docs/**'] } }), facts: hashFacts },
  { method: 'packets.build', input: () => ({ query: 'x', maxTokens: 10 }) },
  { method: 'packets.build', input: () => ({ query: 'x', bogus: 1 }) },
  { method: 'packets.list', input: () => ({ limit: 5 }), facts: (v) => v.map((p: { hash: string }) => p.hash) },
  { method: 'packets.list', input: () => ({ limit: 0 }) },
  { method: 'packets.list', input: () => ({ limit: 5, bogus: 1 }) },
  { method: 'sessions.list', input: () => ({ limit: 5 }), facts: (v) => v.map((x: { id: string }) => x.id) },
  { method: 'sessions.list', input: () => ({ limit: 0 }) },
  { method: 'packets.get', input: () => ({ hash: packetHash }), facts: hashFacts },
  { method: 'packets.get', input: () => ({ hash: 'xyz' }) },
  { method: 'packets.get', input: () => ({ hash: 'f'.repeat(64) }) },
  { method: 'packets.get', input: () => ({ hash: 'f'.repeat(64), bogus: 1 }) },
  { method: 'memory.rehydrate', input: () => ({ maxTokens: 3000 }), facts: (v) => ({ tokens: v.tokens, ids: v.ids ?? [v.current_state, ...v.key_decisions, ...v.open_issues, ...v.applicable_learnings].filter(Boolean).map((r: any) => r.decision_id ?? r.memory_id) }) },
  { method: 'memory.rehydrate', input: () => ({ maxTokens: 1 }) },
  { method: 'memory.rehydrate', input: () => ({ bogus: 1 }) },
  // Resolved by the first door; the others find it resolved: what they say of the issue is the same.
  { method: 'memory.resolve', input: () => ({ id: issueId, resolution: 'reload after each rotation' }), facts: (v) => ({ id: v.memory.memory_id, status: v.memory.content.status }) },
  { method: 'memory.resolve', input: () => ({ id: issueId, bogus: 1 }) },
  { method: 'memory.search', input: () => ({ query: 'gateway reloads', limit: 5 }), facts: (v) => v.hits.map((h: any) => h.memory.memory_id) },
  { method: 'memory.search', input: () => ({ limit: 0 }) },
  { method: 'memory.get', input: () => ({ id: issueId }), facts: (v) => ({ id: v.memory_id, title: v.title }) },
  { method: 'memory.get', input: () => ({ id: 'no-such-memory' }) },
  // Changed by the first door; the others find it so: what they say of the issue is the same.
  { method: 'memory.update', input: () => ({ id: issueId, importance: 9 }), facts: (v) => ({ id: v.memory.memory_id, importance: v.memory.importance }) },
  { method: 'memory.update', input: () => ({ id: issueId, importance: 11 }) },
  { method: 'memory.create', input: () => ({ type: 'learning', title: 'Rotate before reload', content: { lesson: 'reload after the key rotates' }, importance: 6 }), facts: (v) => ({ type: v.memory_type, title: v.title, importance: v.importance }) },
  { method: 'memory.create', input: () => ({ type: 'learning', title: '', content: { lesson: 'x' } }) },
  { method: 'memory.create', input: () => ({ type: 'state', title: 'S', content: { task_description: 'x', completion_percentage: 140 } }) },
  { method: 'sessions.capacity', input: () => ({ tokens: 181_000, window: 200_000 }), facts: (v) => ({ level: v.level, pct: v.usage_pct, action: v.action }) },
  { method: 'sessions.capacity', input: () => ({ tokens: 5, window: 0 }) },
  { method: 'sessions.analyze', input: () => ({ transcript: { name: 'midtask.codex.jsonl', text: readFileSync(join(SESSION_FIXTURES, 'midtask.codex.jsonl'), 'utf8') }, targetReduction: 0.3 }), facts: (v) => ({ before: v.compaction.tokens_before, removed: v.compaction.elements_removed, valid: v.compaction.preservation_validation, preserved: v.preserved }) },
  { method: 'sessions.analyze', input: () => ({ transcript: { name: 'midtask.codex.jsonl', text: readFileSync(join(SESSION_FIXTURES, 'midtask.codex.jsonl'), 'utf8') }, targetReduction: 2 }) },
  { method: 'sessions.handoff', input: () => ({ type: 'continuation', maxTokens: 3000 }), facts: (v) => ({ type: v.package.handoff_metadata.handoff_type, max: v.package.budget.max_tokens, hash: /^[0-9a-f]{64}$/.test(v.hash) }) },
  { method: 'sessions.handoff', input: () => ({ type: 'farewell' }) },
  { method: 'sessions.handoff', input: () => ({ type: 'continuation', maxTokens: 50 }) },
  { method: 'sessions.end', input: () => ({ notes: 'Done: the gateway retries uploads with backoff.\nTODO: rotate the signing key daily.', notesName: 'notes.md', agent: 'contract' }), facts: (v) => ({ headline: v.headline, done: v.summary.done }) },
  { method: 'sessions.end', input: () => ({ notes: '', agent: 'contract' }) },
  { method: 'library.ingest', input: () => ({ paths: [root], maxFileMb: 5 }), facts: (v) => ({ files: v.files, failed: v.failed, skipped: v.skipped }) },
  { method: 'library.ingest', input: () => ({ paths: [root], maxFileMb: 0 }) },
  { method: 'library.rescan', input: () => ({ followSymlinks: false }), facts: (v) => ({ files: v.files, failed: v.failed }) },
  { method: 'library.rescan', input: () => ({ maxFileMb: 0 }) },
  { method: 'memory.maintain', input: () => ({ dryRun: true }), facts: (v) => ({ dry: v.dry_run, archived: v.archived, deleted: v.deleted }) },
  { method: 'memory.audit', input: () => ({ id: issueId, limit: 1 }), facts: (v) => v.entries.map((e: any) => e.memory_id) },
  { method: 'memory.audit', input: () => ({ limit: 0 }) },
  // (A refused gate is said in the engine's words on the command line, which name no flag: compared by the goals tests.)
  { method: 'goals.record', input: () => ({ gate: 'tests-pass', status: 'pass', value: '100%' }), facts: (v) => ({ gate: v.gate_id, status: v.status, value: v.value }) },
  { method: 'goals.show', input: () => ({}), facts: (v) => ({ gates: v.gates.map((g: any) => `${g.id} ${g.status} ${g.value}`), passing: v.passing }) },
  { method: 'redact.text', input: () => ({ text: 'see TICKET-42\nsecret_key = "q8Zr3kV9xT2mN7pL4wY6bC1dF5gH0jKs"\n', source: 'notes.txt', patterns: [{ id: 'ticket', type: 'ticket', pattern: 'TICKET-\\d+' }] }), facts: (v) => ({ text: v.text, byType: v.byType }) },
  { method: 'redact.text', input: () => ({ text: 'x', source: 'x.txt', patterns: [{ id: 'neg', type: 'custom', pattern: 'foo(?!bar)' }] }) },
  // The command orders by importance without a query, the API by date: the facts compare the set.
  { method: 'decisions.list', input: () => ({ tags: ['security'], importanceGte: 5, archived: 'any' }), facts: (v) => v.decisions.map((d: any) => d.decision_id).sort() },
  { method: 'decisions.list', input: () => ({ importanceGte: 11 }) },
  // Each door records one: what they say of it is the same, its number aside.
  { method: 'decisions.create', input: () => ({ title: 'Retry uploads', decision: 'Back off exponentially.', rationale: 'The gateway throttles.', importance: 6, tags: ['gateway'] }), facts: (v) => ({ title: v.title, importance: v.importance, tags: v.tags }) },
  { method: 'decisions.create', input: () => ({ title: '', decision: 'x', rationale: 'y', importance: 0 }) },
  { method: 'decisions.create', input: () => ({ title: 'T', decision: 'x', rationale: 'y', importance: 5, supersedes: 'yesterday' }) },
  { method: 'decisions.get', input: () => ({ id: decisionId }), facts: (v) => ({ id: v.decision.decision_id, title: v.decision.title }) },
  { method: 'decisions.get', input: () => ({ id: decisionId, chain: true }), facts: (v) => v.chain.map((d: any) => d.decision_id) },
  { method: 'decisions.get', input: () => ({ id: 'DEC-2001-01-01-009' }) },
  { method: 'decisions.supersedeBy', input: () => ({ decisionId: 'DEC-2001-01-01-009', by: decisionId }) },
  { method: 'decisions.supersedeBy', input: () => ({ decisionId: 'last week', by: decisionId }) },
  // Written by the first door; the others find the files as they are: the files named are the same.
  { method: 'decisions.exportFiles', input: () => ({ dir: decisionsDir, decisionIds: [decisionId] }), facts: (v) => [...v.written, ...v.unchanged].map((f: string) => f.slice(decisionsDir.length)) },
  { method: 'decisions.exportFiles', input: () => ({ dir: decisionsDir, decisionIds: ['DEC-2001-01-01-009'] }) },
  { method: 'decisions.import', input: () => ({ paths: [decisionsDir] }), facts: (v) => ({ results: v.results.map((r: any) => `${r.action} ${r.decision_id}`), skipped: v.skipped }) },
  { method: 'projects.list', input: () => ({}), facts: (v) => ({ current: v.current, projects: v.projects.map((p: any) => p.name) }) },
  // (A created project exists for the next door: only the refusal is compared.)
  { method: 'projects.create', input: () => ({ name: '../up' }) },
  { method: 'hierarchy.summary', input: () => ({ goal: 'Ship the gateway', status_pct: 40 }), facts: (v) => ({ goal: v.goal, status: v.status_pct }) },
  { method: 'hierarchy.summary', input: () => ({ goal: 'Ship the gateway', status_pct: 140 }) },
  // Each door adds one: what they say of it is the same, its number aside.
  { method: 'hierarchy.addSection', input: () => ({ level: 2, title: 'Gateway', body: 'Keys rotate daily.' }), facts: (v) => ({ level: v.level, title: v.title, parent: v.parent_marker ?? null }) },
  { method: 'hierarchy.addSection', input: () => ({ level: 5, title: 'Deep' }) },
  { method: 'hierarchy.addSection', input: () => ({ level: 2, title: '' }) },
  { method: 'hierarchy.editSection', input: () => ({ marker: '§2.1', status_pct: 30, agent: 'contract' }), facts: (v) => ({ marker: v.marker, status: v.status_pct }) },
  { method: 'hierarchy.editSection', input: () => ({ marker: '§2.1', status_pct: 101 }) },
  { method: 'hierarchy.editSection', input: () => ({ marker: '§2.99', status_pct: 30 }) },
  { method: 'hierarchy.show', input: () => ({ marker: '§2.1' }), facts: (v) => ({ marker: v.section.marker, title: v.section.title }) },
  { method: 'hierarchy.show', input: () => ({ marker: '§4.docs/auth.md' }), facts: (v) => ({ files: v.files.map((f: any) => f.marker), chunks: v.chunks.map((c: any) => `${c.anchor}:${c.lineStart}-${c.lineEnd} ${c.text.length}`) }) },
  { method: 'hierarchy.show', input: () => ({ marker: '§4.docs/*' }), facts: (v) => ({ files: v.files.map((f: any) => f.marker), chunks: v.chunks ?? null }) },
  { method: 'hierarchy.show', input: () => ({ marker: '§4.nope.md' }) },
  { method: 'hierarchy.show', input: () => ({ marker: '§3.42' }) },
  { method: 'hierarchy.tree', input: () => ({}), facts: (v) => ({ l4: v.tree.l4.map((n: any) => n.marker), l1: v.tree.l1?.goal, sections: v.tree.sections.map((s: any) => s.title) }) },
  { method: 'hierarchy.own', input: () => ({ section: '§2.1', agent: 'contract', action: 'acquire', type: 'exclusive' }), facts: (v) => ({ section: v.ownership.section_id, owner: v.ownership.owner_agent_id, type: v.ownership.ownership_type }) },
  { method: 'hierarchy.own', input: () => ({ section: '§2.1', agent: 'contract', action: 'acquire', type: 'everyone' }) },
  { method: 'hierarchy.owners', input: () => ({}), facts: (v) => v.owners.map((o: any) => `${o.section_id} ${o.owner_agent_id}`) },
  { method: 'hierarchy.draft', input: () => ({ level: 2, query: 'pelican gateway' }), facts: (v) => ({ text: v.text, sources: v.sources }) },
  { method: 'hierarchy.draft', input: () => ({ level: 4, query: 'pelican gateway' }) },
  { method: 'hierarchy.hints', input: () => ({ change: 'bug-fix', path: 'docs/auth.md' }), facts: (v) => v },
  { method: 'hierarchy.hints', input: () => ({ change: 'rename' }) },
  { method: 'library.refresh', input: () => ({ paths: ['docs/auth.md'] }), facts: (v) => ({ roots: v.roots, added: v.added, updated: v.updated, removed: v.removed }) },
  { method: 'library.refresh', input: () => ({ paths: [join(tmp.make(), 'elsewhere.md')] }) },
  { method: 'library.refresh', input: () => ({ paths: ['docs'], bogus: 1 }) },
  // (Renaming or deleting one would leave the next door nothing to act on: the refusals are compared.)
  { method: 'projects.rename', input: () => ({ name: 'nope', newName: 'other' }) },
  { method: 'projects.rename', input: () => ({ name: 'default', newName: '../up' }) },
  { method: 'projects.delete', input: () => ({ name: 'nope' }) },
  { method: 'projects.delete', input: () => ({ name: 'default' }) },
  { method: 'library.embed', input: () => ({ batch: 0 }) },
  { method: 'library.embed', input: () => ({ modelId: 'no-slash' }) },
  // Last: the first door embeds every chunk, the others find them embedded; what they say of the space is the same.
  { method: 'library.embed', input: () => ({ batch: 2 }), facts: (v) => ({ model: v.modelId, done: v.done, total: v.total, active: v.active }) },
];

describe('the contract over every door', () => {
  it('gives the same results and the same errors (code and fields) over in-process, IPC, HTTP, MCP and the CLI', async () => {
    const differences: string[] = [];
    const coverage = new Map<string, Set<string>>();
    for (const c of CASES) {
      const input = c.input();
      const facts = c.facts ?? ((v: unknown) => v);
      let reference: Outcome | null = null;
      for (const door of doors) {
        const got = await door.call(c.method, input, facts);
        if (got === null) continue;
        (coverage.get(c.method) ?? coverage.set(c.method, new Set()).get(c.method)!).add(door.name);
        if (reference === null) reference = got;
        else if (JSON.stringify(got) !== JSON.stringify(reference)) differences.push(`${c.method} ${JSON.stringify(input)}: ${door.name} ${JSON.stringify(got)} ≠ in-process ${JSON.stringify(reference)}`);
      }
      // A valid case must succeed and an invalid one fail, or the comparison proves little.
      expect(reference?.ok, `${c.method} ${JSON.stringify(input)}`).toBe(c.facts !== undefined);
      if (reference && !reference.ok && reference.code === 'invalid_input') expect(reference.fields.length, `${c.method} ${JSON.stringify(input)} names no field`).toBeGreaterThan(0);
    }
    expect(differences).toEqual([]);
    // Which doors each method was compared over (the CLI has only the commands on the handler map).
    expect(Object.fromEntries([...coverage].map(([m, d]) => [m, [...d].sort()]))).toEqual({
      'stats.get': ['cli', 'http', 'in-process', 'ipc'],
      'packets.list': ['cli', 'http', 'in-process', 'ipc'],
      'sessions.list': ['cli', 'http', 'in-process', 'ipc'],
      'settings.get': ['cli', 'http', 'in-process', 'ipc'],
      'settings.set': ['cli', 'http', 'in-process', 'ipc'],
      'search.query': ['cli', 'http', 'in-process', 'ipc', 'mcp'],
      'packets.build': ['cli', 'http', 'in-process', 'ipc', 'mcp'],
      'packets.get': ['cli', 'http', 'in-process', 'ipc', 'mcp'],
      'memory.rehydrate': ['cli', 'http', 'in-process', 'ipc', 'mcp'],
      'memory.search': ['cli', 'http', 'in-process', 'ipc'],
      'memory.get': ['cli', 'http', 'in-process', 'ipc'],
      'memory.update': ['cli', 'http', 'in-process', 'ipc'],
      'memory.create': ['cli', 'http', 'in-process', 'ipc'],
      'sessions.capacity': ['cli', 'http', 'in-process', 'ipc'],
      'sessions.analyze': ['cli', 'http', 'in-process', 'ipc'],
      'sessions.handoff': ['cli', 'http', 'in-process', 'ipc'],
      'sessions.end': ['cli', 'http', 'in-process', 'ipc'],
      'library.ingest': ['cli', 'http', 'in-process', 'ipc'],
      'memory.maintain': ['cli', 'http', 'in-process', 'ipc'],
      'memory.audit': ['cli', 'http', 'in-process', 'ipc'],
      'goals.show': ['cli', 'http', 'in-process', 'ipc'],
      'goals.record': ['cli', 'http', 'in-process', 'ipc'],
      'redact.text': ['cli', 'http', 'in-process', 'ipc'],
      'decisions.list': ['cli', 'http', 'in-process', 'ipc'],
      'projects.list': ['cli', 'http', 'in-process', 'ipc'],
      'projects.create': ['cli', 'http', 'in-process', 'ipc'],
      'projects.rename': ['cli', 'http', 'in-process', 'ipc'],
      'projects.delete': ['cli', 'http', 'in-process', 'ipc'],
      'library.embed': ['cli', 'http', 'in-process', 'ipc'],
      'library.rescan': ['cli', 'http', 'in-process', 'ipc'],
      'library.refresh': ['http', 'in-process', 'ipc', 'mcp'],
      'memory.resolve': ['cli', 'http', 'in-process', 'ipc'],
      'decisions.create': ['cli', 'http', 'in-process', 'ipc'],
      'decisions.get': ['cli', 'http', 'in-process', 'ipc'],
      'decisions.supersedeBy': ['cli', 'http', 'in-process', 'ipc'],
      'decisions.exportFiles': ['cli', 'http', 'in-process', 'ipc'],
      'decisions.import': ['cli', 'http', 'in-process', 'ipc'],
      'hierarchy.summary': ['cli', 'http', 'in-process', 'ipc'],
      'hierarchy.addSection': ['cli', 'http', 'in-process', 'ipc'],
      'hierarchy.editSection': ['cli', 'http', 'in-process', 'ipc'],
      'hierarchy.show': ['cli', 'http', 'in-process', 'ipc'],
      'hierarchy.tree': ['cli', 'http', 'in-process', 'ipc'],
      'hierarchy.own': ['cli', 'http', 'in-process', 'ipc'],
      'hierarchy.owners': ['cli', 'http', 'in-process', 'ipc'],
      'hierarchy.draft': ['cli', 'http', 'in-process', 'ipc'],
      'hierarchy.hints': ['cli', 'http', 'in-process', 'ipc'],
    });
  }, 120_000);

  it('every API method refuses an unknown argument by name, with the same code, over every door that has it', async () => {
    const differences: string[] = [];
    for (const method of API_METHODS) {
      const seen: string[] = [];
      for (const door of doors) {
        const got = await door.call(method, { bogus: 1 }, (v) => v);
        if (got === null) continue;
        const said = got.ok ? 'accepted' : `${got.code}${got.fields.includes('bogus') ? ' naming bogus' : ` without naming bogus (${got.fields.join(', ')})`}`;
        seen.push(`${door.name}: ${said}`);
        if (said !== 'invalid_input naming bogus') differences.push(`${method} over ${door.name}: ${said}`);
      }
      expect(seen.length, method).toBeGreaterThanOrEqual(3);
    }
    expect(differences).toEqual([]);
  }, 120_000);
});
