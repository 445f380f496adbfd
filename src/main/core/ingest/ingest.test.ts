import { symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../store/index.ts';
import { tempDirs, writeTree } from '../testing/tmp.ts';
import { ingestPaths, rescan } from './ingest.ts';
import { inflatingPdf, minimalPdf } from './testing/pdf.ts';
import type { IngestProgress } from '../../../shared/types.ts';

const tmp = tempDirs('cp-ingest-');
afterAll(() => tmp.cleanup());

function fixtureTree(): string {
  const root = tmp.make();
  writeTree(root, {
    'README.md': '# Project\n\nThe zephyr protocol handles retries.\n\n## Usage\n\nCall zephyr.start().\n',
    '.gitignore': 'build/\n*.log\n',
    'build/out.js': 'ignored build output',
    'debug.log': 'ignored log line',
    'src/app.ts': 'export function quasar(): number {\n  return 42;\n}\n',
    'src/nested/deep/notes.txt': 'deep nested plain text about nebulae\n',
    'src/nested/.gitignore': '*.tmp\n!keep.tmp\n',
    'src/nested/drop.tmp': 'ignored by nested rule',
    'src/nested/keep.tmp': 'kept by negation',
    '.contextpackignore': 'secret-dir/\n',
    'secret-dir/x.md': '# hidden',
    'page.html': '<html><body><h1>Pulsar</h1><script>evil()</script><p>visible pulsar text</p></body></html>',
    'doc.pdf': minimalPdf(['Quokka habitats on page one', 'Page two text']),
    'broken.pdf': '%PDF-1.7\nthis is not a pdf body',
    'image.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]),
    'blob.dat2': new Uint8Array([1, 2, 0, 3, 4]),
    'latin1.txt': new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]),
    'data.json': '{\n  "name": "fixture"\n}\n',
    'corpus.jsonl': '{"_id": "A1", "title": "Alpha", "text": "aardvark facts"}\n{"_id": "B2", "title": "Beta", "text": "badger facts"}\n',
  });
  symlinkSync(join(root, 'src'), join(root, 'src', 'nested', 'loop'));
  return root;
}

describe('ingest of a fixture tree', () => {
  it('indexes what it should, reports bad files, and continues', async () => {
    const root = fixtureTree();
    const store = openStore(join(tmp.make(), 'i.db'));
    const progress: IngestProgress[] = [];
    const report = await ingestPaths(store.db, [root], { onProgress: (p) => progress.push(p) });

    const rel = (p: string) => p.slice(root.length + 1);
    expect(report.added.map(rel).sort()).toEqual([
      '.contextpackignore', '.gitignore', 'README.md', 'corpus.jsonl', 'data.json', 'doc.pdf', 'page.html',
      'src/app.ts', 'src/nested/.gitignore', 'src/nested/deep/notes.txt', 'src/nested/keep.tmp',
    ]);
    const failed = Object.fromEntries(report.failed.map((f) => [rel(f.path), f.reason]));
    expect(failed['broken.pdf']).toMatch(/malformed PDF/);
    expect(failed['latin1.txt']).toMatch(/not valid UTF-8/);
    expect(failed['src/nested/loop']).toBe('symlink loop');
    const skipped = Object.fromEntries(report.skipped.map((f) => [rel(f.path), f.reason]));
    expect(skipped['image.png']).toMatch(/binary/);
    expect(skipped['blob.dat2']).toMatch(/binary content/);

    const last = progress.at(-1)!;
    expect(last.phase).toBe('done');
    expect(last.filesDone).toBe(last.filesTotal);
    expect(progress.some((p) => p.phase === 'index' && p.bytesDone > 0)).toBe(true);

    const status = store.db.prepare('SELECT path, status, error, language FROM sources').all() as { path: string; status: string; error: string | null; language: string | null }[];
    const byRel = Object.fromEntries(status.map((s) => [rel(s.path), s]));
    expect(byRel['src/app.ts']!.language).toBe('typescript');
    expect(byRel['broken.pdf']!.status).toBe('failed');
    expect(byRel['image.png']!.status).toBe('skipped');
    expect(byRel['build/out.js']).toBeUndefined();
    expect(byRel['secret-dir/x.md']).toBeUndefined();

    const ids = store.db.prepare('SELECT external_id FROM documents WHERE external_id IS NOT NULL ORDER BY external_id').all();
    expect(ids).toEqual([{ external_id: 'A1' }, { external_id: 'B2' }]);
    const pdfChunk = store.db.prepare("SELECT c.anchor FROM chunks c JOIN chunks_fts f ON f.rowid = c.id WHERE chunks_fts MATCH 'quokka'").get();
    expect(pdfChunk).toEqual({ anchor: 'page=1' });
    const html = store.db.prepare("SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH 'evil'").get();
    expect(html).toEqual({ n: 0 });
    store.close();
  });

  it('skips files over the size limit with a recorded reason', async () => {
    const root = tmp.make();
    writeTree(root, { 'big.txt': 'x'.repeat(5000), 'small.txt': 'ok' });
    const store = openStore(':memory:');
    const report = await ingestPaths(store.db, [root], { maxFileBytes: 1000 });
    expect(report.skipped).toEqual([{ path: join(root, 'big.txt'), reason: 'too big: 5000 bytes > limit 1000' }]);
    expect(report.added).toEqual([join(root, 'small.txt')]);
    store.close();
  });

  it('bounds the text a small compressed PDF inflates to by the same limit, with the reason in the report', async () => {
    const root = tmp.make();
    // About 2 KB on disk, about 200,000 characters of text once its content stream is inflated.
    const bomb = inflatingPdf({ pages: 2, linesPerPage: 3000 });
    expect(bomb.length).toBeLessThan(4000);
    writeTree(root, { 'bomb.pdf': bomb });
    const store = openStore(':memory:');
    const report = await ingestPaths(store.db, [root], { maxFileBytes: 20_000 });
    expect(report.added).toEqual([join(root, 'bomb.pdf')]);
    expect(report.warnings).toEqual([
      { path: join(root, 'bomb.pdf'), reason: expect.stringMatching(/^extracted text over the limit of 20000 characters .*indexed up to page 1 of 2, cut there/) },
    ]);
    // Chunks overlap, so the text indexed is counted in lines: 34 characters each ('the same sentence again and again\n').
    const { lines } = store.db.prepare('SELECT max(line_end) AS lines FROM chunks').get() as { lines: number };
    expect(lines).toBeLessThanOrEqual(Math.ceil(20_000 / 34));
    expect(lines).toBeGreaterThan(500);
    store.close();
  });

  it('dedupes unchanged files, replaces changed ones, and drops deleted ones on rescan', async () => {
    const root = tmp.make();
    writeTree(root, { 'a.md': '# A\n\nfirst version walrus\n', 'b.txt': 'bravo\n', 'c.txt': 'charlie\n' });
    const store = openStore(':memory:');
    const count = (q: string) => (store.db.prepare('SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH ?').get(q) as { n: number }).n;
    await ingestPaths(store.db, [root]);
    const before = store.db.prepare('SELECT id FROM chunks ORDER BY id').all();

    const again = await ingestPaths(store.db, [root]);
    expect(again).toMatchObject({ added: [], updated: [], removed: [], unchanged: 3, chunks: 0 });
    expect(store.db.prepare('SELECT id FROM chunks ORDER BY id').all()).toEqual(before);

    // Same content, new mtime: hashed, found equal, not re-chunked.
    utimesSync(join(root, 'b.txt'), new Date(), new Date(Date.now() + 5000));
    expect((await ingestPaths(store.db, [root])).unchanged).toBe(3);

    writeFileSync(join(root, 'a.md'), '# A\n\nsecond version narwhal\n');
    unlinkSync(join(root, 'c.txt'));
    const r = await rescan(store.db);
    expect(r.updated).toEqual([join(root, 'a.md')]);
    expect(r.removed).toEqual([join(root, 'c.txt')]);
    expect(count('walrus')).toBe(0);
    expect(count('narwhal')).toBe(1);
    expect(count('charlie')).toBe(0);
    expect(store.db.prepare('SELECT count(*) AS n FROM sources').get()).toEqual({ n: 2 });
    store.close();
  });

  it('drops a deleted file when a folder inside an earlier root is ingested again, and leaves its look-alike sibling', async () => {
    // The folder name has a character past U+FFFF, where JS and SQLite string lengths differ.
    const root = tmp.make();
    writeTree(root, { 'notes🗂/x.txt': 'xray\n', 'notes🗂/y.txt': 'yankee\n', 'notes🗂-old/z.txt': 'zulu\n' });
    const store = openStore(':memory:');
    await ingestPaths(store.db, [root]);
    unlinkSync(join(root, 'notes🗂', 'y.txt'));
    const r = await ingestPaths(store.db, [join(root, 'notes🗂')]);
    expect(r.removed).toEqual([join(root, 'notes🗂', 'y.txt')]);
    expect((store.db.prepare('SELECT path FROM sources ORDER BY path').all() as { path: string }[]).map((s) => s.path)).toEqual([
      join(root, 'notes🗂-old', 'z.txt'),
      join(root, 'notes🗂', 'x.txt'),
    ]);
    store.close();
  });

  it('removes a single-file root that disappeared', async () => {
    const root = tmp.make();
    writeTree(root, { 'only.md': '# Only\n' });
    const store = openStore(':memory:');
    await ingestPaths(store.db, [join(root, 'only.md')]);
    unlinkSync(join(root, 'only.md'));
    const r = await rescan(store.db);
    expect(r.removed).toEqual([join(root, 'only.md')]);
    expect(r.failed).toEqual([]);
    store.close();
  });

  it('logs every run', async () => {
    const root = tmp.make();
    writeTree(root, { 'x.txt': 'x' });
    const store = openStore(':memory:');
    await ingestPaths(store.db, [root]);
    const log = store.db.prepare('SELECT added, finished_at IS NOT NULL AS done FROM ingest_log').all();
    expect(log).toEqual([{ added: 1, done: 1 }]);
    store.close();
  });
});

describe('bulk FTS path for big files', () => {
  it('indexes a big file exactly as the insert trigger does, and leaves the trigger in place', async () => {
    const lines = Array.from({ length: 400 }, (_, i) => JSON.stringify({ _id: `d${i}`, title: `Title ${i}`, text: `body word${i} shared ${'filler '.repeat(i % 7)}` }));
    const big = tmp.make();
    writeTree(big, { 'big.jsonl': lines.join('\n') + '\n', 'small.jsonl': lines.slice(0, 5).join('\n') + '\n' });
    const store = openStore(':memory:');
    const trigger = () => store.db.prepare("SELECT sql FROM sqlite_master WHERE name = 'chunks_fts_insert'").get();
    const before = trigger();
    await ingestPaths(store.db, [join(big, 'big.jsonl')]);
    expect(trigger()).toEqual(before);
    // Reference: the same content through the trigger (a file below the bulk threshold), then compare the FTS rows.
    const hits = (q: string) => store.db.prepare('SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH ?').get(q) as { n: number };
    expect(hits('shared').n).toBe(400);
    expect(hits('title:"title 399"').n).toBe(1);
    expect(hits('word123').n).toBe(1);
    await ingestPaths(store.db, [join(big, 'small.jsonl')]);
    expect(hits('shared').n).toBe(405);
    expect(hits('title:"title 3"').n).toBe(2);
    // Every chunk has its FTS row (contentless tables answer rowid lookups through the index).
    const rows = store.db.prepare('SELECT count(*) AS n FROM chunks').get() as { n: number };
    expect(rows.n).toBe(405);
    // Re-ingesting the big file after a change replaces its rows in the index too.
    writeFileSync(join(big, 'big.jsonl'), lines.map((l) => l.replace('shared', 'common')).join('\n') + '\n');
    await ingestPaths(store.db, [join(big, 'big.jsonl')]);
    expect(hits('shared').n).toBe(5);
    expect(hits('common').n).toBe(400);
    store.close();
  });
});
