import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BoundedStdioServerTransport } from './stdio-transport.ts';

/** A transport over in-memory streams with a small cap: what it delivers and what it answers. */
async function feed(chunks: (string | Buffer)[], maxBytes = 64) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const t = new BoundedStdioServerTransport(stdin, stdout, maxBytes);
  const messages: unknown[] = [];
  t.onmessage = (m) => messages.push(m);
  let out = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  await t.start();
  for (const c of chunks) stdin.write(c);
  await new Promise((r) => setImmediate(r));
  await t.close();
  return { messages, replies: out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id: unknown; error: { code: number; message: string } }) };
}

describe('BoundedStdioServerTransport', () => {
  it('joins a message split across chunks, takes CRLF, skips blank lines', async () => {
    const { messages, replies } = await feed(['{"jsonrpc":"2.0",', '"method":"ping","id":1}\r\n', '\n', '{"jsonrpc":"2.0","method":"n"}\n']);
    expect(messages).toEqual([{ jsonrpc: '2.0', method: 'ping', id: 1 }, { jsonrpc: '2.0', method: 'n' }]);
    expect(replies).toEqual([]);
  });

  it('answers a line over the cap once, wherever its chunks end, and reads the next line', async () => {
    const big = `{"jsonrpc":"2.0","method":"x","params":{"p":"${'y'.repeat(200)}"},"id":"k"}`;
    const { messages, replies } = await feed([big.slice(0, 50), big.slice(50, 120), `${big.slice(120)}\n{"jsonrpc":"2.0","method":"ping","id":2}\n`]);
    expect(replies).toEqual([{ jsonrpc: '2.0', id: 'k', error: { code: -32600, message: expect.stringContaining(`message is too long: ${big.length} bytes, over the cap of 64 bytes`) } }]);
    expect(messages).toEqual([{ jsonrpc: '2.0', method: 'ping', id: 2 }]);
  });

  it('answers -32700 for a line that is not JSON and -32600 for JSON that is not JSON-RPC', async () => {
    const { messages, replies } = await feed(['{oops\n', '{"id":9,"hello":1}\n', '{"jsonrpc":"2.0","method":"ping","id":3}\n']);
    expect(replies.map((r) => [r.id, r.error.code])).toEqual([
      [null, -32700],
      [9, -32600],
    ]);
    expect(messages).toHaveLength(1);
  });
});
