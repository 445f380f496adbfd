// Issue #22 item 3 over MCP stdio: a message over the 10 MiB cap gets a JSON-RPC error naming the cap (the SDK's
// transport hung up instead), malformed lines get -32700 / -32600, fields over their caps get tool errors naming the
// cap, and the same connection keeps serving after each. The real CLI entry, the SDK's own client, raw stdio.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { MCP_MESSAGE_MAX_BYTES, MEMORY_CONTENT_MAX, NOTES_MAX, TRANSCRIPT_MAX } from '../../shared/limits.ts';
import { tempDirs } from '../core/testing/tmp.ts';

const bin = fileURLToPath(new URL('../cli/bin.mjs', import.meta.url));
const tmp = tempDirs('cp-mcp-limits-');
afterAll(() => tmp.cleanup());

type Reply = { jsonrpc: string; id: string | number | null; result?: unknown; error?: { code: number; message: string } };

/** Writes raw lines to `contextpack mcp` and collects its replies until `count` have arrived. */
async function raw(db: string, lines: string[], count: number): Promise<{ replies: Reply[]; alive: boolean }> {
  const child = spawn(process.execPath, [bin, 'mcp', '--db', db, '--tools', 'all'], { env: process.env, stdio: ['pipe', 'pipe', 'ignore'] });
  let out = '';
  let exited = false;
  child.once('exit', () => (exited = true));
  const done = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.split('\n').filter((l) => l.trim() !== '').length >= count) resolve();
    });
    child.once('exit', () => reject(new Error(`server exited; stdout: ${out.slice(0, 2000)}`)));
  });
  for (const l of lines) child.stdin.write(l.endsWith('\n') ? l : `${l}\n`);
  try {
    await done;
  } finally {
    child.stdin.end();
    setTimeout(() => child.kill(), 2000).unref();
  }
  return { replies: out.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Reply), alive: !exited };
}

const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
const initialized = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
const stats = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'stats', arguments: {} } });

describe('MCP stdio: every line gets an answer, the connection stays', () => {
  it('malformed lines get -32700 / -32600, and the next request is served', async () => {
    const db = join(tmp.make(), 'raw.db');
    const { replies } = await raw(db, [init, initialized, '{"jsonrpc": "2.0", "id": 2, "method": ', '{"jsonrpc":"2.0","id":3}', '[1, 2]', '"just a string"', stats(4)], 6);
    const byId = (id: Reply['id']) => replies.filter((r) => r.id === id);
    expect(byId(1)[0]).toMatchObject({ id: 1, result: { serverInfo: { name: 'contextpack' } } });
    const errors = replies.filter((r) => r.error);
    expect(errors.map((r) => [r.id, r.error!.code])).toEqual([
      [null, -32700],
      [3, -32600],
      [null, -32600],
      [null, -32600],
    ]);
    expect(errors[0]!.error!.message).toMatch(/^Parse error: /);
    expect(byId(4)[0]).toMatchObject({ id: 4, result: { content: [{ type: 'text' }] } });
  });

  it('a line over the message cap is answered -32600 with its id, read in passing, and the next request is served', async () => {
    const db = join(tmp.make(), 'big.db');
    // The id written first, then last (the SDK client's order): found either way.
    const pad = 'x'.repeat(MCP_MESSAGE_MAX_BYTES + 1024);
    const first = `{"jsonrpc":"2.0","id":"big-1","method":"tools/call","params":{"name":"remember","arguments":{"type":"learning","title":"t","content":"${pad}"}}}`;
    const last = `{"method":"tools/call","params":{"name":"remember","arguments":{"type":"learning","title":"t","content":"${pad}"}},"jsonrpc":"2.0","id":77}`;
    const { replies, alive } = await raw(db, [init, initialized, first, last, stats(5)], 4);
    expect(alive).toBe(true);
    const big = replies.filter((r) => r.id === 'big-1' || r.id === 77);
    expect(big.map((r) => [r.id, r.error?.code])).toEqual([
      ['big-1', -32600],
      [77, -32600],
    ]);
    expect(big[0]!.error!.message).toContain(`message is too long: ${first.length} bytes, over the cap of ${MCP_MESSAGE_MAX_BYTES} bytes`);
    expect(replies.find((r) => r.id === 5)).toMatchObject({ result: { content: [{ type: 'text' }] } });
  });

  it('the SDK client: an oversized call and fields over their caps come back as errors naming the cap, on one connection', async () => {
    const db = join(tmp.make(), 'sdk.db');
    const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', '--db', db, '--tools', 'all'], env: process.env as Record<string, string>, stderr: 'pipe' });
    const client = new Client({ name: 'limits-test', version: '0.0.0' });
    await client.connect(transport);
    try {
      const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<{ isError?: boolean; content: { type: string; text?: string }[] }>;
      const text = (r: { content: { type: string; text?: string }[] }) => r.content.map((c) => c.text ?? '').join('\n');

      await expect(call('remember', { type: 'learning', title: 'huge', content: 'y'.repeat(MCP_MESSAGE_MAX_BYTES + 10) })).rejects.toThrow(/-32600.*message is too long: \d+ bytes, over the cap of 10485760 bytes/);

      const content = await call('remember', { type: 'learning', title: 'big lesson', content: 'z'.repeat(MEMORY_CONTENT_MAX + 1) });
      expect(content.isError).toBe(true);
      expect(text(content)).toContain(`content: is too long: ${MEMORY_CONTENT_MAX + 1} characters, over the cap of ${MEMORY_CONTENT_MAX} characters`);
      const lesson = await call('remember', { type: 'learning', title: 'big lesson', content: { lesson: 'w'.repeat(MEMORY_CONTENT_MAX) } });
      expect(lesson.isError).toBe(true);
      expect(text(lesson)).toMatch(/content: is too long: \d+ characters of JSON, over the cap of 262144 characters of JSON/);

      const handoff = await call('handoff', { type: 'continuation', transcript: `## User\n${'v'.repeat(TRANSCRIPT_MAX)}` });
      expect(handoff.isError).toBe(true);
      expect(text(handoff)).toContain(`over the cap of ${TRANSCRIPT_MAX} characters`);
      const notes = await call('end_session', { notes: 'n'.repeat(NOTES_MAX + 1) });
      expect(notes.isError).toBe(true);
      expect(text(notes)).toContain(`notes: is too long: ${NOTES_MAX + 1} characters, over the cap of ${NOTES_MAX} characters`);

      const ok = await call('remember', { type: 'learning', title: 'small lesson', content: 'retry with jitter' });
      expect(ok.isError, text(ok)).toBeFalsy();
    } finally {
      await client.close();
    }
  });
});
