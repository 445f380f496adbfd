// The MCP server end to end: the SDK's own client spawns `contextpack mcp` over stdio (the real CLI entry, a real
// SQLite file, the real engine) and talks to it as an agent would.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestPaths } from '../core/ingest/index.ts';
import { DEFAULT_HYBRID } from '../core/search/hybrid.ts';
import { openStore } from '../core/store/index.ts';
import { tempDirs, writeTree } from '../core/testing/tmp.ts';
import { tinyModels, type TinyModelDir } from '../core/vectors/testing/tiny-embedder.ts';

const bin = fileURLToPath(new URL('../cli/bin.mjs', import.meta.url));
const tmp = tempDirs('cp-mcp-');

// Built at run time so no secret-shaped literal sits in the repository.
const FAKE_KEY = 'AKIA' + 'QW7R2T9Y4U6I8O0P';

interface Session {
  client: Client;
  stderr: () => string;
  close(): Promise<void>;
}

async function connect(db: string, env: Record<string, string>): Promise<Session> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', '--db', db], env: { ...(process.env as Record<string, string>), ...env }, stderr: 'pipe' });
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
  const child = spawn(process.execPath, [bin, 'mcp', '--db', db], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'ignore'] });
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

type ToolResult = { isError?: boolean; content: { type: string; text?: string; uri?: string }[] };
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
  let env: Record<string, string>;
  beforeAll(async () => {
    const dir = tmp.make();
    db = join(dir, 'p.db');
    const store = openStore(db);
    await ingestPaths(store.db, [makeProject()]);
    store.close();
    // No model anywhere: an empty models folder and a throwaway user-data folder.
    env = { CONTEXTPACK_MODELS_DIR: tmp.make(), CONTEXTPACK_HOME: tmp.make() };
    s = await connect(db, env);
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  it('lists the thirteen tools, each with a description and an input schema', async () => {
    const { tools } = await s.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['capacity', 'end_session', 'get_packet', 'handoff', 'hierarchy', 'pack', 'rehydrate', 'remember', 'replay', 'resolve_issue', 'search', 'stats', 'update_memory']);
    for (const t of tools) {
      expect(t.description!.length, t.name).toBeGreaterThan(60);
      expect(t.inputSchema.type).toBe('object');
    }
    const pack = tools.find((t) => t.name === 'pack')!;
    expect(Object.keys(pack.inputSchema.properties!)).toEqual(['query', 'task', 'template', 'max_tokens', 'format']);
    expect(pack.inputSchema.required).toEqual(['query']);
    expect(tools.filter((t) => t.annotations?.readOnlyHint === false).map((t) => t.name).sort()).toEqual(['end_session', 'handoff', 'pack', 'rehydrate', 'remember', 'resolve_issue', 'update_memory']);
  });

  it('search: cited hits, best-available mode with the reason, and the fake key redacted', async () => {
    const progress: number[] = [];
    const r = await call(s, 'search', { query: 'pelican gateway access key', k: 5 }, (p) => progress.push(p.progress));
    expect(r.isError).toBeFalsy();
    const t = text(r);
    expect(t).toMatch(/retrieval: mode bm25; not hybrid: semantic search off: no vectors yet/);
    expect(t).toMatch(/docs\/auth\.md#[^:\s]+:\d+-\d+/);
    expect(t).not.toContain(FAKE_KEY);
    expect(t).toContain('[REDACTED:');
    // The SDK client runs notification handlers a microtask late and forgets a request's progress handler when its
    // result arrives, so a final notification read in the same chunk as the result is dropped on the client side.
    // The raw-protocol test below checks that the server sends every one.
    expect(progress[0]).toBe(0);
    expect(progress.every((p) => p === 0 || p === 1)).toBe(true);
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
    expect(progress[0]).toMatchObject({ progress: 0, total: 2 });
    expect(progress.every((p) => p.progress === 0 || p.progress === 2)).toBe(true);
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

    const bundle = text(await call(s, 'rehydrate', { max_tokens: 5000 }));
    expect(bundle).toContain('Rotate keys daily');
    expect(bundle).toContain('Gateway drops reloads');
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
    expect(text(bad)).toMatch(/content\.colour/);
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
    ];
    for (const [name, args, field] of cases) {
      const r = await call(s, name, args);
      expect(r.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(text(r), `${name} ${JSON.stringify(args)}`).toMatch(field);
    }
    expect((await call(s, 'stats', {})).isError).toBeFalsy();
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
