// Request bodies parsed as they arrive: real HTTP requests to the real server, whose dispatch echoes what it was given.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDirs, writeTree } from '../core/testing/tmp.ts';
import type { ApiResult } from '../../shared/api/index.ts';
import { TOKEN_HEADER } from './security.ts';
import { startServer, type RunningServer } from './server.ts';

const tmp = tempDirs('cp-json-body-');
let server: RunningServer;

beforeAll(async () => {
  const rendererDir = tmp.make();
  writeTree(rendererDir, { 'index.html': '<!doctype html>' });
  const dispatch = (async (_name: string, input: unknown) => ({ ok: true, value: input }) as ApiResult<unknown>) as never;
  const events = { subscribe: () => () => {} } as never;
  server = await startServer({ dispatch, events, rendererDir, port: 0, maxBodyBytes: 1024 * 1024 });
});
afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

/** Sends the body in the pieces given (split anywhere, also inside a UTF-8 character), chunked. */
function send(pieces: Buffer[]): Promise<{ status: number; body: { ok: boolean; value?: unknown; error?: { message: string } } }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: server.port, path: '/api/echo', method: 'POST', headers: { 'content-type': 'application/json', [TOKEN_HEADER]: server.token } },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    for (const p of pieces) req.write(p);
    req.end();
  });
}

const split = (text: string, size: number): Buffer[] => {
  const bytes = Buffer.from(text);
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
};

describe('serve: JSON bodies parsed while they stream', () => {
  it('gives the same value as JSON.parse however the body is cut, escapes and multi-byte characters included', async () => {
    const value = { files: [{ path: 'naïve/über.md', base64: 'QUJD'.repeat(5000) }], text: 'é😀 "quoted" \\ \n\t\u0001', n: [0, -1.5e3, true, null], batch: { id: 'abcdefgh', final: false } };
    const text = JSON.stringify(value);
    for (const size of [1, 3, 7, 1024, text.length]) {
      const r = await send(split(text, size));
      expect([size, r.status]).toEqual([size, 200]);
      expect(r.body.value).toEqual(value);
    }
  });

  it('an empty body is {}; malformed JSON, trailing data and a cut-off body are 400s that say why', async () => {
    expect((await send([])).body.value).toEqual({});
    for (const [body, why] of [['{"a":', /unexpected end/], ['{"a":1} x', /Unexpected "x"/], ['{"a":1}{"b":2}', /Unexpected "\{"/], ['nul', /unexpected end/], ['{"a":tru}', /Unexpected/], ['{"a":"\xff"}', /./]] as const) {
      const r = await send([Buffer.from(body, body.includes('\xff') ? 'latin1' : 'utf8')]);
      expect([body, r.status]).toEqual([body, 400]);
      expect(r.body.error!.message).toMatch(/^request body: /);
      expect(r.body.error!.message).toMatch(why);
    }
    // A "__proto__" key stays a plain key (as JSON.parse has it), never the object's prototype.
    const proto = await send([Buffer.from('{"__proto__":{"polluted":1},"a":2}')]);
    expect(proto.body.value).toEqual(JSON.parse('{"__proto__":{"polluted":1},"a":2}'));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // Whitespace after the value is fine, also in its own piece.
    expect((await send([Buffer.from('{"a":1}'), Buffer.from('\n  ')])).body.value).toEqual({ a: 1 });
  });

  it('a body over the cap sent without Content-Length is a 413 as soon as it passes it', async () => {
    const big = [Buffer.from('{"s":"'), ...Array.from({ length: 20 }, () => Buffer.alloc(64 * 1024, 'a')), Buffer.from('"}')];
    const r = await send(big);
    expect(r.status).toBe(413);
    expect(r.body.error!.message).toBe('request body: larger than 1048576 bytes');
  });
});
