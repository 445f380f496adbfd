import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../core/store/index.ts';
import { tempDirs, writeTree } from '../core/testing/tmp.ts';
import { createApi } from '../api/index.ts';
import { startServer, type RunningServer } from './server.ts';
import { CONTENT_SECURITY_POLICY, TOKEN_HEADER } from './security.ts';

const tmp = tempDirs('cp-serve-');
let store: Store;
let server: RunningServer;
let rendererDir: string;
let corpus: string;

beforeAll(async () => {
  const dataDir = tmp.make();
  rendererDir = tmp.make();
  corpus = tmp.make();
  writeTree(rendererDir, { 'index.html': '<!doctype html><title>t</title>', 'assets/app.js': 'console.log(1)' });
  writeTree(corpus, { 'notes.md': '# Notes\n\nthe heron waits at dawn\n' });
  writeTree(dataDir, { 'secret.txt': 'outside the renderer' });
  store = openStore(join(dataDir, 'serve.db'));
  const api = createApi({ store, dataDir, version: 't', transport: 'http', background: false });
  server = await startServer({ dispatch: api.dispatch, events: api.events, rendererDir, port: 0 });
});
afterAll(async () => {
  await server.close();
  store.close();
  tmp.cleanup();
});

/** Raw requests, so Host and Origin can be set to what an attacker's page would send. */
function send(path: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path, method: opts.method ?? 'GET', headers: opts.headers }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

const api = (method: string, input: unknown, headers: Record<string, string> = {}) =>
  send(`/api/${method}`, { method: 'POST', body: JSON.stringify(input), headers: { 'content-type': 'application/json', [TOKEN_HEADER]: server.token, ...headers } });

describe('serve mode', () => {
  it('prints a loopback URL with a fresh random token in the fragment', async () => {
    expect(server.openUrl).toBe(`http://127.0.0.1:${server.port}/#token=${server.token}`);
    expect(server.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const other = await startServer({ dispatch: async () => ({ ok: true, value: null }), events: { emit() {}, subscribe: () => () => {} }, rendererDir });
    expect(other.token).not.toBe(server.token);
    await other.close();
  });

  it('serves the renderer with the CSP header and never a file outside it', async () => {
    const index = await send('/');
    expect(index.status).toBe(200);
    expect(index.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(index.headers['x-content-type-options']).toBe('nosniff');
    expect((await send('/assets/app.js')).headers['content-type']).toMatch(/javascript/);
    expect((await send('/../secret.txt')).status).toBe(404);
    expect((await send('/%2e%2e/secret.txt')).status).toBe(404);
    expect((await send('/assets/../../secret.txt')).status).toBe(404);
  });

  it('requires the token on every API call', async () => {
    const none = await send('/api/stats.get', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(none.status).toBe(401);
    expect((await api('stats.get', {}, { [TOKEN_HEADER]: server.token.slice(1) + 'x' })).status).toBe(401);
    expect((await send('/api/events')).status).toBe(401);
    const good = await api('stats.get', {});
    expect(good.status).toBe(200);
    expect(JSON.parse(good.body)).toMatchObject({ ok: true, value: { dbPath: store.path } });
  });

  it('refuses foreign Host and Origin headers (DNS rebinding, cross-site pages)', async () => {
    expect((await send('/', { headers: { host: `evil.example:${server.port}` } })).status).toBe(421);
    expect((await api('stats.get', {}, { host: `evil.example:${server.port}` })).status).toBe(421);
    expect((await api('stats.get', {}, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await api('stats.get', {}, { origin: `http://127.0.0.1:${server.port + 1}` })).status).toBe(403);
    expect((await api('stats.get', {}, { origin: `http://localhost:${server.port}`, host: `localhost:${server.port}` })).status).toBe(200);
  });

  it('maps contract errors to HTTP statuses and keeps the envelope', async () => {
    const bad = await api('search.query', { query: '' });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error.issues[0].field).toBe('query');
    expect((await api('no.such', {})).status).toBe(404);
    expect((await send('/api/stats.get', { method: 'POST', body: '{', headers: { 'content-type': 'application/json', [TOKEN_HEADER]: server.token } })).status).toBe(400);
    expect((await send('/api/stats.get', { method: 'POST', body: '{}', headers: { 'content-type': 'text/plain', [TOKEN_HEADER]: server.token } })).status).toBe(415);
  });

  it('streams ingest progress as Server-Sent Events', async () => {
    const res = await fetch(`${server.url}api/events`, { headers: { [TOKEN_HEADER]: server.token } });
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const reader = res.body!.getReader();
    const ingest = api('library.ingest', { paths: [corpus] });
    let text = '';
    while (!text.includes('"phase":"done"')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    await reader.cancel();
    expect(JSON.parse((await ingest).body).value.added).toEqual([join(corpus, 'notes.md')]);
    expect(text).toMatch(/event: ingest\.progress\ndata: \{.*"phase":"index".*"filesDone":1/);
  });

  it('refuses to bind anything but loopback, and says how to build a missing renderer', async () => {
    const noop = { dispatch: async () => ({ ok: true as const, value: null }), events: { emit() {}, subscribe: () => () => {} } };
    await expect(startServer({ ...noop, rendererDir, host: '0.0.0.0' })).rejects.toThrow(/loopback/);
    await expect(startServer({ ...noop, rendererDir: join(rendererDir, 'nope') })).rejects.toThrow(/run npm run build/);
  });
});
