import { existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../api/index.ts';
import { allowedRoots } from '../cli/commands/serve.ts';
import { ingestPaths } from '../core/ingest/index.ts';
import { openStore, type Store } from '../core/store/index.ts';
import { tempDirs, writeTree } from '../core/testing/tmp.ts';
import { TOKEN_HEADER } from './security.ts';
import { startServer, type RunningServer } from './server.ts';

const tmp = tempDirs('cp-serve-trust-');
const running: { server: RunningServer; store: Store; close: () => Promise<void> }[] = [];
let rendererDir: string;

beforeAll(() => {
  rendererDir = tmp.make();
  writeTree(rendererDir, { 'index.html': '<!doctype html><title>t</title>' });
});
afterAll(async () => {
  for (const r of running) {
    await r.server.close();
    await r.close();
    r.store.close();
  }
  tmp.cleanup();
});

async function serve(opts: { ingestRoots?: string[]; maxBodyBytes?: number; store?: Store } = {}) {
  const dataDir = tmp.make();
  const store = opts.store ?? openStore(join(dataDir, 'serve.db'), { loadVec: false });
  const api = createApi({ store, dataDir, version: 't', transport: 'http', background: false, ingestRoots: opts.ingestRoots });
  const server = await startServer({ dispatch: api.dispatch, events: api.events, rendererDir, port: 0, maxBodyBytes: opts.maxBodyBytes });
  running.push({ server, store, close: api.close });
  return { server, dataDir, store };
}

interface Reply {
  status: number;
  body: string;
}

/** A real HTTP request; the body may be sent in pieces, with or without Content-Length. */
function send(server: RunningServer, path: string, body: string | Buffer[] = '', headers: Record<string, string | number> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: server.port, path, method: 'POST', headers: { 'content-type': 'application/json', [TOKEN_HEADER]: server.token, ...headers } },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      },
    );
    req.on('error', reject);
    if (Array.isArray(body)) {
      for (const part of body) req.write(part);
      req.end();
    } else req.end(body);
  });
}
const call = (server: RunningServer, method: string, input: unknown) => send(server, `/api/${method}`, JSON.stringify(input));
const upload = (files: Record<string, string>) => ({ files: Object.entries(files).map(([path, text]) => ({ path, base64: Buffer.from(text).toString('base64') })) });

describe('serve mode: library.ingest only under --root', () => {
  it('without --root, ingest by path is refused with how to allow it; uploads still work', async () => {
    const { server } = await serve({ ingestRoots: [] });
    const folder = tmp.make();
    writeTree(folder, { 'a.md': '# A\n\nalpha\n' });
    const r = await call(server, 'library.ingest', { paths: [folder] });
    expect(r.status).toBe(403);
    const error = JSON.parse(r.body).error;
    expect(error.code).toBe('forbidden');
    expect(error.message).toMatch(/contextpack serve --root DIR/);
    const up = await call(server, 'library.import', upload({ 'notes.md': '# Notes\n\nuploaded\n' }));
    expect(up.status).toBe(200);
    expect(JSON.parse(up.body).value.added).toHaveLength(1);
  });

  it('with --root, paths under it are read and paths outside it (also through a link) are refused', async () => {
    const allowed = tmp.make();
    const outside = tmp.make();
    writeTree(allowed, { 'docs/a.md': '# A\n\nalpha\n' });
    writeTree(outside, { 'secret.md': '# S\n\nsecret\n' });
    symlinkSync(join(outside, 'secret.md'), join(allowed, 'link.md'));
    const [root] = allowedRoots([allowed]);
    const { server } = await serve({ ingestRoots: [root!] });
    const ok = await call(server, 'library.ingest', { paths: [join(allowed, 'docs')] });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body).value.added).toEqual([join(allowed, 'docs', 'a.md')]);
    for (const p of [outside, join(allowed, 'link.md'), join(allowed, '..', 'x'), '/etc']) {
      const r = await call(server, 'library.ingest', { paths: [p] });
      expect([p, r.status]).toEqual([p, 403]);
      expect(JSON.parse(r.body).error.message).toContain('outside the allowed roots');
    }
    // The whole folder: the link out of it is skipped, not followed.
    const all = JSON.parse((await call(server, 'library.ingest', { paths: [allowed] })).body).value;
    expect(all.skipped).toEqual([{ path: join(allowed, 'link.md'), reason: 'symlink outside root' }]);
  });

  it('a rescan re-reads only the roots under --root (and uploads), not folders the CLI indexed elsewhere', async () => {
    const allowed = tmp.make();
    const elsewhere = tmp.make();
    writeTree(allowed, { 'a.md': '# A\n\nalpha\n' });
    writeTree(elsewhere, { 'b.md': '# B\n\nbravo\n' });
    const dataDir = tmp.make();
    const store = openStore(join(dataDir, 'r.db'), { loadVec: false });
    await ingestPaths(store.db, [allowed, elsewhere]);
    writeTree(allowed, { 'a2.md': '# A2\n' });
    writeTree(elsewhere, { 'b2.md': '# B2\n' });
    const { server } = await serve({ store, ingestRoots: allowedRoots([allowed]) });
    const report = JSON.parse((await call(server, 'library.rescan', {})).body).value;
    expect(report.roots).toEqual([allowed]);
    // a2.md is picked up by the rescan, or already by the watcher's reconcile on start (it follows allowed roots
    // only); b2.md by neither.
    const indexed = (store.db.prepare('SELECT path FROM sources ORDER BY path').all() as { path: string }[]).map((r) => r.path);
    expect(indexed).toContain(join(allowed, 'a2.md'));
    expect(indexed).not.toContain(join(elsewhere, 'b2.md'));
  });

  it('sources.reindex re-reads that one file, and refuses a source outside every --root', async () => {
    const allowed = tmp.make();
    const elsewhere = tmp.make();
    writeTree(allowed, { 'a.md': '# A\n\nalpha\n', 'c.md': '# C\n' });
    writeTree(elsewhere, { 'b.md': '# B\n\nbravo\n' });
    const store = openStore(join(tmp.make(), 'x.db'), { loadVec: false });
    await ingestPaths(store.db, [allowed, elsewhere]);
    writeTree(elsewhere, { 'b2.md': '# B2\n' });
    const { server } = await serve({ store, ingestRoots: allowedRoots([allowed]) });
    const idOf = (p: string) => (store.db.prepare('SELECT id FROM sources WHERE path = ?').get(p) as { id: number }).id;
    const hashOf = (p: string) => (store.db.prepare('SELECT content_hash FROM sources WHERE path = ?').get(p) as { content_hash: string | null }).content_hash;
    const outside = await call(server, 'sources.reindex', { id: idOf(join(elsewhere, 'b.md')) });
    expect(outside.status).toBe(403);
    expect(JSON.parse(outside.body).error.message).toMatch(/b\.md is outside the allowed roots/);
    expect(hashOf(join(elsewhere, 'b.md'))).not.toBeNull();
    const inside = await call(server, 'sources.reindex', { id: idOf(join(allowed, 'a.md')) });
    expect(inside.status).toBe(200);
    const report = JSON.parse(inside.body).value;
    expect(report).toMatchObject({ updated: [join(allowed, 'a.md')], files: 1 });
    const indexed = (store.db.prepare('SELECT path FROM sources ORDER BY path').all() as { path: string }[]).map((r) => r.path);
    expect(indexed).not.toContain(join(elsewhere, 'b2.md'));
  });

  it('serve --root must name existing folders', () => {
    const file = join(tmp.make(), 'f.txt');
    writeFileSync(file, 'x');
    expect(() => allowedRoots([join(file, 'nope')])).toThrow(/--root .*: ENOTDIR|ENOENT/);
    expect(() => allowedRoots([file])).toThrow(/not a folder/);
    expect(allowedRoots(undefined)).toEqual([]);
  });
});

describe('serve mode: request faults', () => {
  it('a malformed percent-escape is a 400, not a 500', async () => {
    const { server } = await serve();
    const api = await send(server, '/api/stats%E0%A4%A');
    expect(api.status).toBe(400);
    expect(JSON.parse(api.body).error.message).toMatch(/malformed percent-escape/);
    const page = await new Promise<number>((resolve, reject) => {
      request({ host: '127.0.0.1', port: server.port, path: '/%E0%A4%A' }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      }).on('error', reject).end();
    });
    expect(page).toBe(400);
  });

  it('an upload name clash is a 409 without a stack trace, and leaves no .part file', async () => {
    const { server, dataDir } = await serve({ ingestRoots: [] });
    expect((await call(server, 'library.import', upload({ 'x/a.md': '# A\n', 'loose.md': '# L\n' }))).status).toBe(200);
    const clashes = [
      upload({ x: 'a file where a folder was uploaded' }),
      upload({ 'loose.md/inner.md': 'a folder where a file was uploaded' }),
      upload({ y: 'file', 'y/b.md': 'and folder in one drop' }),
      upload({ 'z/c': 'file', 'z/c/d.md': 'and folder inside one dropped folder' }),
    ];
    for (const input of clashes) {
      const r = await call(server, 'library.import', input);
      expect(r.status).toBe(409);
      const error = JSON.parse(r.body).error;
      expect(error.code).toBe('conflict');
      expect(error.message).toMatch(/^files: .+ (is already an uploaded (file|folder)|is given both as a file and as a folder)/);
      expect(r.body).not.toMatch(/\n\s+at |\.ts:\d+/);
    }
    const imports = join(dataDir, 'imports');
    const everything = readdirSync(imports, { recursive: true }).map(String);
    expect(everything.filter((f) => f.endsWith('.part') || f.includes('.staging'))).toEqual([]);
    // Nothing of the refused uploads is left staged either.
    expect(existsSync(`${imports}.staging`) ? readdirSync(`${imports}.staging`) : []).toEqual([]);
    expect(everything.sort()).toEqual(['loose.md', 'x', join('x', 'a.md')]);
    expect(readFileSync(join(imports, 'loose.md'), 'utf8')).toBe('# L\n');
  });

  it('a batched upload that clashes drops its staged batches', async () => {
    const { server, dataDir } = await serve({ ingestRoots: [] });
    const batch = (final: boolean) => ({ id: 'batch-0001', final });
    expect((await call(server, 'library.import', { ...upload({ 'docs/a.md': '# A\n' }), batch: batch(false) })).status).toBe(200);
    const r = await call(server, 'library.import', { ...upload({ 'docs/a.md/b.md': '# B\n' }), batch: batch(true) });
    expect(r.status).toBe(409);
    expect(JSON.parse(r.body).error.message).toMatch(/^files: docs\/a\.md is given both as a file and as a folder/);
    const staging = join(dataDir, 'imports.staging');
    expect(existsSync(staging) ? readdirSync(staging) : []).toEqual([]);
  });

  it('an over-limit body gets its 413, readable by the client, with or without Content-Length', async () => {
    const { server } = await serve({ maxBodyBytes: 10_000 });
    const big = Buffer.alloc(2_000_000, 0x20);
    const declared = await send(server, '/api/stats.get', [big], { 'content-length': big.length });
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body).error.message).toBe('request body: larger than 10000 bytes');
    const pieces = Array.from({ length: 64 }, () => Buffer.alloc(32_000, 0x20));
    const chunked = await send(server, '/api/stats.get', pieces, { 'transfer-encoding': 'chunked' });
    expect(chunked.status).toBe(413);
    // fetch (what the page uses) reads it too.
    const res = await fetch(`${server.url}api/stats.get`, { method: 'POST', headers: { 'content-type': 'application/json', [TOKEN_HEADER]: server.token }, body: big });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_input');
    // The server is still fine for the next caller.
    expect((await call(server, 'stats.get', {})).status).toBe(200);
  });
});

describe('serve mode on a damaged store', () => {
  it('reads go on; a change answers 503 with the reason, not a raw SQLite error', async () => {
    const dir = tmp.make();
    const path = join(dir, 'd.db');
    const s = openStore(path, { loadVec: false });
    s.db.transaction(() => {
      for (let i = 0; i < 3000; i++) s.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run(`k${i}`, 'v'.repeat(80));
    })();
    s.close();
    const bytes = readFileSync(path);
    bytes.fill(0xff, bytes.length - 4096 + 8, bytes.length - 4096 + 40);
    writeFileSync(path, bytes);
    const store = openStore(path, { loadVec: false });
    expect(store.readOnlyReason).not.toBeNull();
    const { server, dataDir } = await serve({ store });
    expect((await call(server, 'stats.get', {})).status).toBe(200);
    // An upload is refused before a byte of it reaches imports/.
    const up = await call(server, 'library.import', { files: [{ path: 'notes/a.md', base64: Buffer.from('# A\n').toString('base64') }] });
    expect(up.status).toBe(503);
    expect(JSON.parse(up.body).error).toEqual({ code: 'unavailable', message: store.readOnlyReason });
    expect(existsSync(join(dataDir, 'imports'))).toBe(false);
    const folder = tmp.make();
    writeTree(folder, { 'a.md': '# A\n' });
    const w = await call(server, 'library.ingest', { paths: [folder] });
    expect(w.status).toBe(503);
    expect(JSON.parse(w.body).error).toEqual({ code: 'unavailable', message: store.readOnlyReason });
  });
});
