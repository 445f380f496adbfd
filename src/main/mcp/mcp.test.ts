// The MCP server end to end: the SDK's own client spawns `contextpack mcp` over stdio (the real CLI entry, a real
// SQLite file, the real engine) and talks to it as an agent would.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestPaths } from '../core/ingest/index.ts';
import { DEFAULT_HYBRID } from '../core/search/hybrid.ts';
import { openStore } from '../core/store/index.ts';
import { tempDirs, writeTree } from '../core/testing/tmp.ts';
import { tinyModels, type TinyModelDir } from '../core/vectors/testing/tiny-embedder.ts';
import { DEFAULT_TOOLS, type ToolName } from './tools.ts';

const bin = fileURLToPath(new URL('../cli/bin.mjs', import.meta.url));
const tmp = tempDirs('cp-mcp-');

// Built at run time so no secret-shaped literal sits in the repository.
const FAKE_KEY = 'AKIA' + 'QW7R2T9Y4U6I8O0P';

interface Session {
  client: Client;
  stderr: () => string;
  close(): Promise<void>;
}

// Most cases exercise every tool, so they start the server as `--tools all`; the default set has its own case.
async function connect(db: string, env: Record<string, string>, tools = 'all'): Promise<Session> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', '--db', db, '--tools', tools], env: { ...(process.env as Record<string, string>), ...env }, stderr: 'pipe' });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const client = new Client({ name: 'contextpack-test', version: '0.0.0' });
  await client.connect(transport);
  return { client, stderr: () => err, close: () => client.close() };
}

/**
 * Talks JSON-RPC to the server by hand and returns every stdout line: each must be a JSON-RPC message, since one
 * stray log line would corrupt the stream for a real client.
 */
async function rawSession(db: string, env: Record<string, string>, call: { name: string; arguments: Record<string, unknown> }): Promise<string[]> {
  const child = spawn(process.execPath, [bin, 'mcp', '--db', db, '--tools', 'all'], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'ignore'] });
  let out = '';
  const done = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.split('\n').some((l) => l.includes('"id":2'))) resolve();
    });
    child.once('exit', () => reject(new Error(`server exited early; stdout: ${out}`)));
  });
  const send = (m: unknown) => child.stdin.write(JSON.stringify(m) + '\n');
  send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { ...call, _meta: { progressToken: 'p1' } } });
  try {
    await done;
  } finally {
    child.stdin.end();
    child.kill();
  }
  return out.split('\n').filter((l) => l !== '');
}

function expectOnlyProtocol(lines: string[]): unknown[] {
  const messages = lines.map((l) => JSON.parse(l) as { jsonrpc: string });
  for (const m of messages) expect(m.jsonrpc).toBe('2.0');
  return messages;
}

type ToolResult = { isError?: boolean; content: { type: string; text?: string; uri?: string }[]; structuredContent?: unknown };
const text = (r: ToolResult) => r.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
const call = async (s: Session, name: string, args: Record<string, unknown>, onprogress?: (p: { progress: number; total?: number }) => void) =>
  (await s.client.callTool({ name, arguments: args }, undefined, onprogress ? { onprogress } : undefined)) as ToolResult;

function makeProject(): string {
  const root = tmp.make();
  writeTree(root, {
    'docs/auth.md': `# Auth service\n\n## Tokens\n\nThe pelican gateway signs session tokens with a rotating key.\n\naws_access_key_id = ${FAKE_KEY}\n\n## Rotation\n\nKeys rotate every 24 hours; the pelican gateway reloads them.\n`,
    'docs/retries.md': '# Retries\n\nThe pelican gateway retries failed uploads with exponential backoff and jitter.\n',
    // The key sits where a 240-character snippet would cut it in two.
    'docs/long.md': `# Long\n\n${'ravens '.repeat(31).trim()}\nkey = ${FAKE_KEY}\n`,
    'src/gateway.ts': 'export function rotateKeys(now: Date) {\n  // pelican gateway key rotation\n  return now.getTime();\n}\n',
  });
  return root;
}

describe('contextpack mcp (BM25-only store)', () => {
  let s: Session;
  let db: string;
  let root: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    const dir = tmp.make();
    db = join(dir, 'p.db');
    const store = openStore(db);
    root = makeProject();
    await ingestPaths(store.db, [root]);
    store.close();
    // No model anywhere: an empty models folder and a throwaway user-data folder.
    env = { CONTEXTPACK_MODELS_DIR: tmp.make(), CONTEXTPACK_HOME: tmp.make() };
    s = await connect(db, env);
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  it('lists the fourteen tools, every argument described, strict, with output schemas where an agent reads fields', async () => {
    const { tools } = await s.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['capacity', 'end_session', 'get_packet', 'handoff', 'hierarchy', 'ingest', 'pack', 'rehydrate', 'remember', 'replay', 'resolve_issue', 'search', 'stats', 'update_memory']);
    // Every argument and filter has a description, and every object says no other key is allowed. The fields of a
    // memory's content are named for what they hold and described together, on `content` and `set`.
    const undescribed: string[] = [];
    const walk = (schema: Record<string, any>, at: string) => {
      if (schema.type === 'object' && schema.properties) {
        if (schema.additionalProperties !== false) undescribed.push(`${at}: open object`);
        for (const [k, v] of Object.entries(schema.properties as Record<string, any>)) {
          if (!v.description && !/^(remember\.content|update_memory\.set)\b/.test(at)) undescribed.push(`${at}.${k}`);
          walk(v, `${at}.${k}`);
        }
      }
      for (const sub of [...(schema.anyOf ?? []), ...(schema.items ? [schema.items] : [])]) walk(sub, at);
    };
    for (const t of tools) {
      expect(t.description!.length, t.name).toBeGreaterThan(60);
      expect(t.inputSchema.type).toBe('object');
      walk(t.inputSchema as Record<string, any>, t.name);
    }
    expect(undescribed).toEqual([]);
    const pack = tools.find((t) => t.name === 'pack')!;
    expect(Object.keys(pack.inputSchema.properties!)).toEqual(['query', 'task', 'template', 'max_tokens', 'format', 'filters', 'default_excludes']);
    expect(Object.keys((pack.inputSchema.properties!.filters as { properties: object }).properties)).toEqual(['include', 'exclude', 'types']);
    expect(pack.inputSchema.required).toEqual(['query']);
    // remember.content lists the typed fields of every memory type (state's list fields included).
    const content = (tools.find((t) => t.name === 'remember')!.inputSchema.properties!.content as { anyOf: { properties?: Record<string, unknown> }[] }).anyOf;
    expect(Object.keys(content.find((b) => b.properties)!.properties!)).toEqual(expect.arrayContaining(['decision', 'rationale', 'severity', 'task_description', 'substeps_remaining', 'lesson']));
    expect(tools.filter((t) => t.outputSchema).map((t) => t.name).sort()).toEqual(['get_packet', 'handoff', 'ingest', 'pack', 'rehydrate', 'search']);
    // Only hints that differ from the spec's defaults are sent: read-only tools say so, the others say they destroy nothing.
    expect(tools.filter((t) => t.annotations?.readOnlyHint !== true).map((t) => t.name).sort()).toEqual(['end_session', 'handoff', 'ingest', 'pack', 'rehydrate', 'remember', 'resolve_issue', 'update_memory']);
    expect(tools.every((t) => t.annotations?.readOnlyHint === true || t.annotations?.destructiveHint === false)).toBe(true);
    const { prompts } = await s.client.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual(['hand_off', 'start_task']);
    const start = await s.client.getPrompt({ name: 'start_task', arguments: { task: 'Fix the retry loop' } });
    expect((start.messages[0]!.content as { text: string }).text).toMatch(/`rehydrate`[\s\S]*`pack`[\s\S]*Fix the retry loop/);
    const hand = await s.client.getPrompt({ name: 'hand_off', arguments: { type: 'emergency', to: 'reviewer' } });
    expect((hand.messages[0]!.content as { text: string }).text).toContain('`handoff` with type "emergency", to "reviewer"');
    // The handoff tool's types, and no other.
    await expect(s.client.getPrompt({ name: 'hand_off', arguments: { type: 'sideways' } })).rejects.toThrow(/-32602[\s\S]*type/);
  });

  it('without --tools: the default set only; another tool is refused saying how to turn it on, and the prompts adapt', async () => {
    const d = await connect(db, env, 'default');
    try {
      const { tools } = await d.client.listTools();
      expect(tools.map((t) => t.name)).toEqual([...DEFAULT_TOOLS]);
      const r = await call(d, 'ingest', {});
      expect(r.isError).toBe(true);
      expect(text(r)).toBe('not_enabled: ingest is not in this server\'s tool set; start `contextpack mcp` with `--tools all` (or `--tools default,ingest`)');
      // The watcher follows the roots, so start_task does not ask for ingest; handoff with save: true covers end_session.
      const start = (await d.client.getPrompt({ name: 'start_task', arguments: { task: 'Fix the retry loop' } })).messages[0]!.content as { text: string };
      expect(start.text).not.toMatch(/ingest|not enabled/);
      const hand = (await d.client.getPrompt({ name: 'hand_off', arguments: {} })).messages[0]!.content as { text: string };
      expect(hand.text).toMatch(/`handoff` with type "continuation"/);
      expect(hand.text).not.toMatch(/end_session|not enabled/);
      expect(d.client.getInstructions()).not.toContain('ingest');
    } finally {
      await d.close();
    }
    // A list without handoff: hand_off says how to turn it on.
    const narrow = await connect(db, env, 'search,pack');
    try {
      expect((await narrow.client.listTools()).tools.map((t) => t.name)).toEqual(['search', 'pack']);
      const hand = (await narrow.client.getPrompt({ name: 'hand_off', arguments: {} })).messages[0]!.content as { text: string };
      expect(hand.text).toContain('(`remember`, `handoff` are not enabled in this server: ask the user to start `contextpack mcp` with `--tools all` (or `--tools default,remember,handoff`).)');
    } finally {
      await narrow.close();
    }
  });

  it('search: cited hits, best-available mode with the reason, and the fake key redacted', async () => {
    const progress: number[] = [];
    const r = await call(s, 'search', { query: 'pelican gateway access key', k: 5 }, (p) => progress.push(p.progress));
    expect(r.isError).toBeFalsy();
    const t = text(r);
    // Said once a session, without advice to run a command the agent cannot run.
    expect(t).toMatch(/^retrieval: mode bm25; semantic search off: no vectors yet .*no tool here adds them\)\n/);
    expect(t).not.toMatch(/contextpack embed|run `/);
    expect(t).toMatch(/docs\/auth\.md#[^:\s]+:\d+-\d+/);
    const sc = r.structuredContent as { mode: string; hits: { rank: number; path: string; anchor: string | null; lines: { start: number; end: number }; score: number; snippet: string }[] };
    expect(sc.mode).toBe('bm25');
    expect(sc.hits[0]).toMatchObject({ rank: 1, path: expect.stringMatching(/^(docs|src)\/[a-z]+\.(md|ts)$/), lines: { start: expect.any(Number), end: expect.any(Number) }, score: expect.any(Number) });
    expect(JSON.stringify(sc)).not.toContain(FAKE_KEY);
    expect(progress).toEqual([0, 1]);
    expect(text(await call(s, 'search', { query: 'pelican' }))).toMatch(/^retrieval: mode bm25\n/);
    expect(t).not.toContain(FAKE_KEY);
    expect(t).toContain('[REDACTED:');
    const cut = text(await call(s, 'search', { query: 'ravens', k: 3 }));
    expect(cut).toContain('long.md');
    expect(cut).not.toContain(FAKE_KEY.slice(0, 8));
    const onlyCode = text(await call(s, 'search', { query: 'pelican gateway key rotation', filters: { include: ['src/**'] } }));
    expect(onlyCode).toMatch(/gateway\.ts/);
    expect(onlyCode).not.toMatch(/\.md#/);
  });

  it('pack: the packet with its hash, BM25 + text MMR recorded with the fallback reason; get_packet, resource and replay agree', async () => {
    const progress: { progress: number; total?: number }[] = [];
    const r = await call(s, 'pack', { query: 'pelican gateway key rotation', task: 'Explain key rotation.\n- [ ] names the gateway', max_tokens: 2000, format: 'json' }, (p) => progress.push(p));
    expect(r.isError).toBeFalsy();
    const t = text(r);
    expect(t).not.toContain(FAKE_KEY);
    const hash = /context_snapshot_hash: ([0-9a-f]{64})/.exec(t)![1]!;
    expect(progress).toMatchObject([{ progress: 0, total: 1 }, { progress: 1, total: 1 }]);
    const sc = r.structuredContent as { hash: string; items: { kind: string; path?: string; lines?: object }[] };
    expect(sc.hash).toBe(hash);
    expect(sc.items.filter((i) => i.kind === 'evidence').length).toBeGreaterThan(0);
    for (const i of sc.items.filter((x) => x.kind === 'evidence')) expect(i).toMatchObject({ path: expect.any(String), lines: { start: expect.any(Number) } });
    expect(r.content.find((c) => c.type === 'resource_link')?.uri).toBe(`contextpack://packet/${hash}`);
    const json = JSON.parse(r.content[1]!.text!);
    expect(json.manifest.context_snapshot_hash).toBe(hash);
    expect(json.manifest.retrieval).toMatchObject({ mode: 'bm25', fusion: null, mmr: { lambda: 0.5, similarity: 'text' }, fallback_reason: expect.stringContaining('no vectors yet') });
    expect(json.manifest.models.embedder).toBeNull();

    const stored = text(await call(s, 'get_packet', { hash }));
    expect(stored).toContain(hash);
    expect(stored).toContain('pelican gateway');
    expect(stored).not.toContain(FAKE_KEY);
    const res = await s.client.readResource({ uri: `contextpack://packet/${hash}` });
    expect((res.contents[0] as { text: string }).text).toBe(stored);
    const listed = await s.client.listResources();
    expect(listed.resources.map((x) => x.uri)).toContain(`contextpack://packet/${hash}`);
    expect(text(await call(s, 'replay', { hash }))).toContain(`identical: ${hash}`);
  });

  it('remember: a decision through its template (errors name the field), an issue from plain text; rehydrate and hierarchy show them', async () => {
    const bad = await call(s, 'remember', { type: 'decision', title: 'Rotate keys daily', content: { decision: 'Rotate signing keys every 24 hours.' }, importance: 8 });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/content\.rationale: .*required/);
    const noImportance = await call(s, 'remember', { type: 'decision', title: 'Rotate keys daily', content: { decision: 'x', rationale: 'y' } });
    expect(noImportance.isError).toBe(true);
    expect(text(noImportance)).toMatch(/importance/);
    const ok = await call(s, 'remember', { type: 'decision', title: 'Rotate keys daily', content: { decision: 'Rotate signing keys every 24 hours.', rationale: 'Limits the damage of a leaked key.' }, importance: 8, tags: ['security'] });
    expect(ok.isError).toBeFalsy();
    expect(text(ok)).toMatch(/saved decision DEC-\d{4}-\d{2}-\d{2}-\d{3}: Rotate keys daily/);
    const issue = await call(s, 'remember', { type: 'issue', title: 'Gateway drops reloads', content: { description: `Reload fails when the key is ${FAKE_KEY}`, severity: 'high' } });
    expect(issue.isError, text(issue)).toBeFalsy();
    expect(text(issue)).not.toContain(FAKE_KEY);
    expect(text(issue)).toContain('[REDACTED:');
    const learning = await call(s, 'remember', { type: 'learning', title: 'Reload after rotation', content: 'The gateway must reload keys after each rotation.' });
    expect(text(learning)).toContain('"lesson": "The gateway must reload keys after each rotation."');
    const badIssue = await call(s, 'remember', { type: 'issue', title: 'x', content: { severity: 'urgent', description: 'y' } });
    expect(text(badIssue)).toMatch(/content\.severity/);
    // A state as plain text: completion_percentage is optional, as the tool's description says; none is stored.
    const state = await call(s, 'remember', { type: 'state', title: 'Key rotation', content: 'Rotation job written; the gateway reload is next.' });
    expect(state.isError).toBeFalsy();
    expect(text(state)).toContain('"completion_percentage": null');
    const badState = await call(s, 'remember', { type: 'state', title: 'x', content: { task_description: 'y', completion_percentage: 140 } });
    expect(text(badState)).toMatch(/content\.completion_percentage/);

    const bundle = text(await call(s, 'rehydrate', { max_tokens: 5000 }));
    expect(bundle).toContain('Rotate keys daily');
    expect(bundle).toContain('Gateway drops reloads');
    expect(bundle).toContain('**Task**: Rotation job written; the gateway reload is next.\n');
    expect(bundle).not.toContain(FAKE_KEY);
    const nav = await call(s, 'hierarchy', {});
    expect(nav.isError).toBeFalsy();
    expect(text(nav)).toMatch(/§4/);
    const missing = await call(s, 'hierarchy', { marker: '§3.9' });
    expect(missing.isError).toBe(true);
  });

  it('sessions (seed 002): update_memory, resolve_issue, capacity, handoff from a transcript, end_session', async () => {
    const issue = text(await call(s, 'remember', { type: 'issue', title: 'Checkout double charge', content: { description: 'A retry charges twice', severity: 'critical' } }));
    const id = /"memory_id": "([^"]+)"/.exec(issue)![1]!;
    const up = await call(s, 'update_memory', { id, importance: 9, set: { 'attempted_fixes[]': 'retry guard' } });
    expect(up.isError, text(up)).toBeFalsy();
    expect(JSON.parse(up.content[1]!.text as string)).toMatchObject({ importance: 9, content: { attempted_fixes: ['retry guard'] } });
    const bad = await call(s, 'update_memory', { id, set: { colour: 'red' } });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/set\.colour: unknown argument/);
    expect(text(await call(s, 'resolve_issue', { id, resolution: 'idempotency keys' }))).toBe('resolved: Checkout double charge');
    expect(text(await call(s, 'rehydrate', {}))).not.toContain('Checkout double charge');
    expect(text(await call(s, 'capacity', { tokens: 185_000 }))).toMatch(/^ORANGE: 185000 \/ 200000 tokens \(92\.5 %\)/);
    const transcript = ['## User', 'Make checkout idempotent', '', '## Assistant', 'DECISION: Use idempotency keys on payments Rationale: retries must not charge twice Importance: 9', '', `The test gateway key is ${FAKE_KEY}`, '', 'TASK: Idempotent checkout', 'Progress: 40% complete', 'Next actions:', '1. Add the key column'].join('\n');
    const h = await call(s, 'handoff', { type: 'continuation', transcript, transcript_name: 'chat.md', from: 'impl-1', to: 'impl-2' });
    expect(h.isError, text(h)).toBeFalsy();
    const ht = text(h);
    expect(ht).toMatch(/context_snapshot_hash: [0-9a-f]{64}\nbudget: \d+ \/ 40000 tokens; reduction -?[\d.]+ %; preservation_validation true/);
    expect(ht).toContain('Use idempotency keys on payments');
    expect(ht).not.toContain(FAKE_KEY);
    const end = await call(s, 'end_session', { notes: 'Done: idempotency keys\nTODO: backfill old orders', agent: 'impl-1' });
    expect(text(end)).toMatch(/^impl-1: Done: idempotency keys — 1 done, 0 decisions, 0 bugs, 1 TODO\nsaved 1 memories/);
  });

  it('stats: counts and the capability notices', async () => {
    const t = text(await call(s, 'stats', {}));
    expect(t).toMatch(/chunks\s+\d+/);
    expect(t).toContain('semantic search off');
    expect(t).toMatch(/^watcher /m);
    expect(t).not.toMatch(/contextpack embed|run `/);
  });

  it('bad input comes back as a tool error naming the field, and the server keeps serving', async () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['pack', { query: 'x', max_tokens: 10 }, /max_tokens/],
      ['pack', { query: 'x', template: 'nope' }, /template/],
      ['search', { query: '' }, /query/],
      ['search', { query: 'x', k: 0 }, /\bk\b/],
      ['search', { query: 'x', filters: { modified_after: 'someday' } }, /filters\.modified_after/],
      ['get_packet', { hash: 'xyz' }, /hash/],
      ['get_packet', { hash: 'f'.repeat(64) }, /not_found|not found/],
      ['remember', { type: 'opinion', title: 't', content: 'c' }, /type/],
      ['rehydrate', { max_tokens: 1 }, /max_tokens/],
      // Unknown arguments are refused by name, never dropped: the agent would believe tests were excluded.
      ['pack', { query: 'x', exclude: ['tests/**'] }, /^invalid_input:\n {2}exclude: unknown argument \(pack takes query, task, template, max_tokens, format, filters, default_excludes\)$/],
      ['pack', { query: 'x', filters: { path_glob: '*' } }, /filters\.path_glob: unknown argument/],
      ['search', { query: 'x', filters: { colour: 'red' } }, /filters\.colour: unknown argument/],
      ['stats', { verbose: true }, /verbose: unknown argument \(stats takes none\)/],
      ['remember', { type: 'issue', title: 't', content: { description: 'd', colour: 'red' } }, /content\.colour: unknown argument/],
    ];
    for (const [name, args, field] of cases) {
      const r = await call(s, name, args);
      expect(r.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(text(r), `${name} ${JSON.stringify(args)}`).toMatch(field);
    }
    // Said once, with the field as the agent spelt it.
    const date = text(await call(s, 'search', { query: 'x', filters: { modified_after: 'someday' } }));
    expect(date.match(/must be a date/g)).toHaveLength(1);
    expect(date).not.toContain('modifiedAfter');
    expect((await call(s, 'stats', {})).isError).toBeFalsy();
  });

  it('every tool: a valid call succeeds, an invalid argument and an unknown one are tool errors naming them', async () => {
    const hash = (r: ToolResult) => (r.structuredContent as { hash: string }).hash;
    const packet = hash(await call(s, 'pack', { query: 'pelican gateway' }));
    const issue = /"memory_id": "([^"]+)"/.exec(text(await call(s, 'remember', { type: 'issue', title: 'Upload stalls', content: { description: 'Uploads stall at 99 %', severity: 'low' } })))![1]!;
    // One row per tool (the type makes a new tool add one): a valid call, an invalid argument, an unknown argument.
    const cases: Record<ToolName, [Record<string, unknown>, Record<string, unknown>, RegExp, Record<string, unknown>]> = {
      search: [{ query: 'pelican' }, { query: 'x', mode: 'fuzzy' }, /^ {2}mode: /m, { query: 'x', limit: 3 }],
      pack: [{ query: 'pelican', max_tokens: 1000 }, { query: 'x', format: 'pdf' }, /^ {2}format: /m, { query: 'x', budget: 900 }],
      get_packet: [{ hash: packet }, { hash: 'XYZ' }, /^ {2}hash: must be the 64 lowercase hex digits/m, { hash: packet, format: 'json' }],
      replay: [{ hash: packet }, { hash: 42 }, /^ {2}hash: /m, { hash: packet, diff: true }],
      remember: [{ type: 'learning', title: 'Backoff', content: 'retry with jitter' }, { type: 'issue', title: 't', content: 'plain text' }, /^ {2}content\.severity: /m, { type: 'learning', title: 't', content: 'c', priority: 3 }],
      rehydrate: [{ max_tokens: 3000 }, { max_tokens: 499 }, /^ {2}max_tokens: must be at least 500$/m, { budget: 3000 }],
      hierarchy: [{}, { marker: '' }, /^ {2}marker: /m, { level: 2 }],
      stats: [{}, { verbose: 1 }, /^ {2}verbose: unknown argument/m, { colour: 'red' }],
      ingest: [{ paths: ['docs/retries.md'] }, { paths: [''] }, /^ {2}paths\.0: a path is empty$/m, { paths: ['docs'], force: true }],
      update_memory: [{ id: issue, tags: ['uploads'] }, { id: issue, importance: 11 }, /^ {2}importance: must be at most 10$/m, { id: issue, status: 'done' }],
      resolve_issue: [{ id: issue, resolution: 'raised the timeout' }, { id: '' }, /^ {2}id: is required$/m, { id: issue, closed: true }],
      capacity: [{ tokens: 1000 }, { tokens: 1.5 }, /^ {2}tokens: must be a whole number$/m, { tokens: 1000, model: 'x' }],
      handoff: [{ type: 'specialist', to: 'reviewer' }, { type: 'sideways' }, /^ {2}type: /m, { type: 'complete', urgent: true }],
      end_session: [{ notes: 'Done: checked every tool' }, { notes: '' }, /^ {2}notes: /m, { notes: 'Done: x', summary: 'y' }],
    };
    const { tools } = await s.client.listTools();
    expect(Object.keys(cases).sort()).toEqual(tools.map((t) => t.name).sort());
    for (const [name, [valid, invalid, named, unknown]] of Object.entries(cases)) {
      const ok = await call(s, name, valid);
      expect(ok.isError, `${name}: ${text(ok)}`).toBeFalsy();
      const bad = await call(s, name, invalid);
      expect(bad.isError, name).toBe(true);
      expect(text(bad), name).toMatch(/^(invalid_input|forbidden|not_found):\n/);
      expect(text(bad), name).toMatch(named);
      const extra = Object.keys(unknown).find((k) => !(k in valid) && !(k in invalid))!;
      const u = await call(s, name, unknown);
      expect(u.isError, name).toBe(true);
      expect(text(u), name).toBe(`invalid_input:\n  ${extra}: unknown argument (${name} takes ${Object.keys(tools.find((t) => t.name === name)!.inputSchema.properties ?? {}).join(', ') || 'none'})`);
    }
  });

  it('every structuredContent validates against its tool\'s outputSchema (Ajv, strict)', async () => {
    const { tools } = await s.client.listTools();
    const ajv = new Ajv({ strict: true, allErrors: true });
    const packet = await call(s, 'pack', { query: 'pelican gateway key rotation', task: 'Explain rotation.\n- [ ] names the gateway' });
    const structured: Record<string, Record<string, unknown>> = {
      search: { query: 'pelican gateway', k: 5 },
      pack: { query: 'pelican gateway key rotation', filters: { exclude: ['src/**'] } },
      get_packet: { hash: (packet.structuredContent as { hash: string }).hash },
      rehydrate: {},
      ingest: {},
      handoff: { type: 'emergency', reason: 'context window at 95 %' },
    };
    expect(Object.keys(structured).sort()).toEqual(tools.filter((t) => t.outputSchema).map((t) => t.name).sort());
    for (const [name, args] of Object.entries(structured)) {
      const r = await call(s, name, args);
      expect(r.isError, `${name}: ${text(r)}`).toBeFalsy();
      const validate = ajv.compile(tools.find((t) => t.name === name)!.outputSchema!);
      expect(validate(r.structuredContent), `${name}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
  });

  it('resources/read of a packet that is not there: the spec\'s -32002, with no command to run', async () => {
    const err = await s.client.readResource({ uri: `contextpack://packet/${'0'.repeat(64)}` }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(-32002);
    expect((err as McpError).message).toMatch(/not_found: no packet snapshot with hash 0{64}$/);
  });

  it("pack takes the CLI's filters and default-excludes switch", async () => {
    const evidence = async (args: Record<string, unknown>) => {
      const r = await call(s, 'pack', { query: 'rotating key session tokens rotation', ...args });
      expect(r.isError, text(r)).toBeFalsy();
      return (r.structuredContent as { items: { kind: string; path?: string }[] }).items.filter((i) => i.kind === 'evidence').map((i) => i.path!);
    };
    const all = await evidence({});
    expect(all.some((p) => p.startsWith('docs/'))).toBe(true);
    expect(await evidence({ filters: { include: ['src/**'] } })).toEqual(['src/gateway.ts']);
    const noDocs = await evidence({ filters: { exclude: ['docs/**'] }, default_excludes: false });
    expect(noDocs.length).toBeGreaterThan(0);
    expect(noDocs.every((p) => !p.startsWith('docs/'))).toBe(true);
    expect((await evidence({ filters: { types: ['code'] } })).every((p) => p.endsWith('.ts'))).toBe(true);
  });

  it('ingest refreshes what the agent changed under the roots, refuses anything outside, and answers in relative paths', async () => {
    writeTree(root, { 'docs/new.md': '# New\n\nThe heron gateway buffers uploads.\n' });
    const progress: { progress: number; total?: number }[] = [];
    const added = await call(s, 'ingest', { paths: ['docs/new.md'] }, (p) => progress.push(p));
    expect(added.isError, text(added)).toBeFalsy();
    expect(text(added)).toMatch(/1 added, 0 updated, 0 removed/);
    expect(text(added)).toContain('  docs/new.md');
    expect(text(added)).not.toContain(root);
    // From 0 to done, never back: the files as they are indexed, then the answer.
    expect(progress[0]!.progress).toBe(0);
    expect(progress.at(-1)!.progress).toBe(progress.at(-1)!.total);
    expect(progress.every((p, i) => i === 0 || p.progress >= progress[i - 1]!.progress)).toBe(true);
    expect(text(await call(s, 'search', { query: 'heron gateway' }))).toContain('docs/new.md');
    const outside = [['/etc/hostname', /forbidden:\n {2}paths\.0: \/etc\/hostname is outside the project's roots/], ['../../etc', /paths\.0: \.\.\/\.\.\/etc leads outside/], ['nowhere/x.md', /not_found:\n {2}paths\.0: nowhere\/x\.md is under none of the project's roots/]] as const;
    for (const [path, message] of outside) {
      const r = await call(s, 'ingest', { paths: [path] });
      expect(r.isError, path).toBe(true);
      expect(text(r)).toMatch(message);
    }
    rmSync(join(root, 'docs/new.md'));
    const all = await call(s, 'ingest', {});
    expect(text(all)).toMatch(/0 added, 0 updated, 1 removed/);
    expect(text(all)).toContain('  docs/new.md');
    // No answer carries the root's absolute path.
    expect(text(await call(s, 'stats', {}))).not.toContain(root);
  });

  it('a client that leaves before any tools/list (prompts only) ends the server cleanly', async () => {
    const child = spawn(process.execPath, [bin, 'mcp', '--db', db], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const answered = new Promise<void>((resolve) => child.stdout.on('data', (d: Buffer) => (out += d.toString()).includes('"id":2') && resolve()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }) + '\n');
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'prompts/list' }) + '\n');
    await answered;
    child.stdin.end();
    // Node exits with 13 and "unsettled top-level await" when nothing is left to wait on but the server's own await.
    expect(await exited).toBe(0);
    expect(err).not.toMatch(/unsettled|Warning/);
  });

  it('writes nothing but protocol on stdout, progress included, and logs on stderr', async () => {
    expect(s.stderr()).toContain('contextpack mcp: serving');
    const messages = expectOnlyProtocol(await rawSession(db, env, { name: 'pack', arguments: { query: 'pelican gateway' } })) as { method?: string; params?: { progressToken?: string } }[];
    expect(messages.filter((m) => m.method === 'notifications/progress').map((m) => m.params!.progressToken)).toEqual(['p1', 'p1']);
  });
});

describe('contextpack mcp with the tiny model installed', () => {
  let s: Session;
  let models: TinyModelDir;
  let db: string;
  beforeAll(async () => {
    models = await tinyModels();
    const dir = tmp.make();
    db = join(dir, 'h.db');
    const store = openStore(db);
    await ingestPaths(store.db, [makeProject()]);
    await models.embedAll(store.db);
    store.close();
    s = await connect(db, { CONTEXTPACK_MODELS_DIR: models.root, CONTEXTPACK_HOME: tmp.make() });
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    await models?.cleanup();
    tmp.cleanup();
  });

  it('packs with hybrid retrieval (the default fusion, no MMR) and records it in the manifest', async () => {
    const r = await call(s, 'pack', { query: 'pelican gateway key rotation', format: 'json' });
    expect(r.isError).toBeFalsy();
    const t = text(r);
    expect(t).not.toContain(FAKE_KEY);
    const json = JSON.parse(r.content[1]!.text!);
    expect(json.manifest.retrieval).toMatchObject({ mode: 'hybrid', fusion: { method: 'normalized', weights: DEFAULT_HYBRID.weights }, mmr: null, fallback_reason: null });
    expect(json.manifest.models).toMatchObject({ embedder: 'Xenova/all-MiniLM-L6-v2', retriever: 'hybrid' });
    const found = text(await call(s, 'search', { query: 'pelican gateway' }));
    expect(found).toContain(`retrieval: mode hybrid; fusion normalized weights bm25 ${DEFAULT_HYBRID.weights[0]}, vector ${DEFAULT_HYBRID.weights[1]}`);
    expect(found).not.toContain('MMR');
    expect(found).not.toContain(FAKE_KEY);
  });

  it('keeps stdout to the protocol while the model runtime loads and embeds the query', async () => {
    const lines = await rawSession(db, { CONTEXTPACK_MODELS_DIR: models.root, CONTEXTPACK_HOME: tmp.make() }, { name: 'search', arguments: { query: 'key rotation' } });
    const messages = expectOnlyProtocol(lines) as { id?: number; result?: { content: { text: string }[] } }[];
    expect(messages.find((m) => m.id === 2)!.result!.content[0]!.text).toMatch(/mode hybrid/);
  });
});
