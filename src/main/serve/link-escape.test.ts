// Serve mode and links that lead out of `--root`: real HTTP requests to the real server over the real API, each
// door asked to read or write through a symbolic link.
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
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

const tmp = tempDirs('cp-serve-links-');
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

async function serve(ingestRoots: string[], store?: Store) {
  const dataDir = tmp.make();
  const s = store ?? openStore(join(dataDir, 'serve.db'), { loadVec: false });
  const api = createApi({ store: s, dataDir, version: 't', transport: 'http', background: false, ingestRoots });
  const server = await startServer({ dispatch: api.dispatch, events: api.events, rendererDir, port: 0 });
  running.push({ server, store: s, close: api.close });
  return { server, store: s };
}

function call(server: RunningServer, method: string, input: unknown): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: server.port, path: `/api/${method}`, method: 'POST', headers: { 'content-type': 'application/json', [TOKEN_HEADER]: server.token } },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(input));
  });
}

/** `base/root` (the --root), `base/outside/private.md`, and links in the root that lead out. */
function layout() {
  const base = tmp.make();
  const root = join(base, 'root');
  writeTree(base, { 'root/docs/a.md': '# A\n\ninside-alpha\n', 'root/sub/b.md': '# B\n\ninside-bravo\n', 'outside/private.md': 'outside-private-marker\n' });
  symlinkSync('../../outside', join(root, 'docs', 'link'));
  symlinkSync('/', join(root, 'docs', 'rootlink'));
  return { base, root, outside: join(base, 'outside') };
}

const indexedText = (store: Store) => (store.db.prepare('SELECT text FROM chunks').all() as { text: string }[]).map((r) => r.text).join('\n');

describe('serve --root: no door reads or writes through a link out of the root', () => {
  it('library.ingest of docs/link/private.md and docs/rootlink/etc/hostname is a 403; the whole root skips the links', async () => {
    const { root } = layout();
    const { server, store } = await serve(allowedRoots([root]));
    for (const p of [join(root, 'docs/link/private.md'), join(root, 'docs/rootlink/etc/hostname'), join(root, 'docs/link')]) {
      const r = await call(server, 'library.ingest', { paths: [p] });
      expect([p, r.status]).toEqual([p, 403]);
      expect(r.body.error.message).toContain('outside the allowed roots');
    }
    const all = await call(server, 'library.ingest', { paths: [root] });
    expect(all.status).toBe(200);
    expect(all.body.value.skipped.map((s: { reason: string }) => s.reason)).toEqual(['symlink outside root', 'symlink outside root']);
    expect(indexedText(store)).not.toContain('outside-private-marker');
  });

  it('followSymlinks widens a root only within --root: ingest and rescan both stay inside', async () => {
    const { root } = layout();
    const { server, store } = await serve(allowedRoots([join(root, 'docs')]));
    const r = await call(server, 'library.ingest', { paths: [join(root, 'docs')], followSymlinks: true });
    expect(r.status).toBe(200);
    expect(indexedText(store)).toContain('inside-alpha');
    expect(indexedText(store)).not.toContain('outside-private-marker');
    const again = await call(server, 'library.rescan', { followSymlinks: true });
    expect(again.status).toBe(200);
    expect(indexedText(store)).not.toContain('outside-private-marker');
  });

  it('a root filed wider than --root (by the CLI) does not let a link inside it reach past --root', async () => {
    const { root } = layout();
    // The CLI indexed the whole root; serve may read only root/sub, where a link points at root/docs.
    const store = openStore(join(tmp.make(), 'w.db'), { loadVec: false });
    await ingestPaths(store.db, [root]);
    symlinkSync('../docs', join(root, 'sub', 'to-docs'));
    writeFileSync(join(root, 'docs', 'later.md'), '# Later\n\ndocs-later-marker\n');
    const { server } = await serve(allowedRoots([join(root, 'sub')]), store);
    const r = await call(server, 'library.ingest', { paths: [join(root, 'sub')] });
    expect(r.status).toBe(200);
    expect(r.body.value.skipped).toEqual([{ path: join(root, 'sub', 'to-docs'), reason: 'symlink outside root' }]);
    expect(indexedText(store)).not.toContain('docs-later-marker');
  });

  it('sources.reindex of a source whose folder became a link out of the root reads nothing outside', async () => {
    const { base, root } = layout();
    writeTree(root, { 'notes/n.md': '# N\n\nnotes-marker\n' });
    const { server, store } = await serve(allowedRoots([root]));
    expect((await call(server, 'library.ingest', { paths: [root] })).status).toBe(200);
    const id = (store.db.prepare('SELECT id FROM sources WHERE path = ?').get(join(root, 'notes', 'n.md')) as { id: number }).id;
    // The folder is swapped for a link to a folder outside that holds an n.md of its own.
    writeTree(base, { 'elsewhere/n.md': 'elsewhere-marker\n' });
    const { renameSync } = await import('node:fs');
    renameSync(join(root, 'notes'), join(base, 'notes-old'));
    symlinkSync(join(base, 'elsewhere'), join(root, 'notes'));
    const r = await call(server, 'sources.reindex', { id });
    expect(r.status, JSON.stringify(r.body)).toBe(403);
    expect(indexedText(store)).not.toContain('elsewhere-marker');
  });

  it('decisions.exportFiles replaces a DEC-….md that is a link to a file outside --root; the target is untouched', async () => {
    const { base, root, outside } = layout();
    const { server } = await serve(allowedRoots([root]));
    const created = await call(server, 'decisions.create', {
      title: 'Use SQLite', decision: 'SQLite for the store', rationale: 'one file, local', importance: 5,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = created.body.value.decision_id as string;
    const dir = join(root, 'decisions');
    mkdirSync(dir);
    const victim = join(outside, 'victim.md');
    writeFileSync(victim, 'victim-bytes\n');
    symlinkSync(victim, join(dir, `${id}.md`));
    const r = await call(server, 'decisions.exportFiles', { dir });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(readFileSync(victim, 'utf8')).toBe('victim-bytes\n');
    expect(lstatSync(join(dir, `${id}.md`)).isFile()).toBe(true);
    expect(readFileSync(join(dir, `${id}.md`), 'utf8')).toContain('Use SQLite');
    // Into a folder through a link (existing or dangling) out of the root: refused, nothing created outside.
    symlinkSync(join(base, 'not-yet'), join(root, 'dangling'));
    for (const d of [join(root, 'docs', 'link'), join(root, 'dangling', 'decisions')]) {
      const out = await call(server, 'decisions.exportFiles', { dir: d });
      expect([d, out.status]).toEqual([d, 403]);
    }
    expect(existsSync(join(base, 'not-yet'))).toBe(false);
    expect(existsSync(join(outside, `${id}.md`))).toBe(false);
  });
});
