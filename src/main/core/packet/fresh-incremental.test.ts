// Issue #35: ranking and packets are a function of the indexed content, never of how the store was filled. A tree
// is ingested fresh, and incrementally through three earlier versions (edits, additions, a deletion, a file changed
// and changed back, so row ids differ from a fresh ingest's); both stores must give the same search top-10 and the
// same packet hash, for a subject line and for an issue-length task.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ingestPaths } from '../ingest/index.ts';
import { chooseRetriever, createBm25Retriever } from '../search/index.ts';
import { openStore, type Store } from '../store/index.ts';
import { tempDirs, writeTree } from '../testing/tmp.ts';
import { buildPacket } from './assemble.ts';
import { canonicalJson, sha256Hex } from './canonical.ts';
import { createStoreSources } from './store-sources.ts';

const tmp = tempDirs('cp-fresh-incr-');
afterAll(() => tmp.cleanup());

const handler = (name: string, extra: string) =>
  `import { parse_header } from './headers';\n\nexport function ${name}(req, res) {\n  // reads the content type header and the charset\n  const header = parse_header(req.headers['content-type']);\n  ${extra}\n  return res.send(header.charset);\n}\n`;
const pyModule = (cls: string, body: string) =>
  `class ${cls}:\n    """Catalog entries merged by key."""\n\n    def merge_entries(self, other, prefer="newer"):\n        for key, entry in other.items():\n            ${body}\n        return self\n\n    def apply_preference(self, key, theirs, prefer):\n        del self._index[key]\n`;

// The same text in two places ties on every score: only a stable key can order them.
const DUPLICATE = handler('sendCharset', 'res.type(header.type);');

const V1: Record<string, string> = {
  'src/a/charset.ts': DUPLICATE,
  'src/b/charset.ts': DUPLICATE,
  'src/headers.ts': 'export function parse_header(value) {\n  // content type header parsing: type and charset parameters\n  return { type: value, charset: "utf-8" };\n}\n',
  'inventory/catalog.py': pyModule('Catalog', 'self._apply(key, entry, prefer)'),
  'docs/guide.md': '# Guide\n\nThe content type header carries the charset. Catalog entries are merged by key.\n',
};
const V2: Record<string, string> = {
  ...V1,
  'src/a/charset.ts': handler('sendCharset', 'res.type(header.type); // edited'),
  'src/c/charset.ts': DUPLICATE,
  'inventory/resolve.py': 'def apply_preference(index, key, prefer):\n    """Keep the newer entry when two catalogs share a key."""\n    index.pop(key, None)\n',
};
const V3: Record<string, string> = { ...V2, 'src/a/charset.ts': DUPLICATE, 'tests/test_catalog.py': 'def test_merge_entries():\n    assert Catalog().merge_entries({}) is not None\n' };
const V4: Record<string, string> = {
  ...V3,
  'inventory/catalog.py': pyModule('Catalog', 'self.apply_preference(key, entry, prefer)'),
  'src/d/charset.ts': DUPLICATE,
};
const REMOVED_IN_V4 = ['src/c/charset.ts'];

const ISSUE = `merge_entries raises KeyError when two catalogs share a key

Calling \`Catalog.merge_entries()\` with prefer="newer" crashes:

\`\`\`
Traceback (most recent call last):
  File "repro.py", line 4, in <module>
    a.merge_entries(b, prefer="newer")
  File "/venv/lib/python3.11/site-packages/inventory/catalog.py", line 5, in merge_entries
    self.apply_preference(key, entry, prefer)
KeyError: 'A1'
\`\`\`

Also, the content type header's charset is sent wrong by sendCharset. Environment: python 3.11.4, numpy 1.26.0
`;
const QUERIES = ['content type header charset', 'parse_header charset', 'merge_entries apply_preference', ISSUE];

async function view(store: Store) {
  const bm25 = createBm25Retriever(store.db);
  const tops: string[][] = [];
  for (const q of QUERIES) tops.push((await bm25.search({ text: q, k: 10 })).map((h) => `${h.relPath}:${h.lineStart}-${h.lineEnd} ${h.score.toFixed(9)}`));
  const choice = await chooseRetriever({ db: store.db, vec: store.vec, bm25, openSemantic: async () => ({ ok: false, reason: 'test: BM25 only' }) }, { purpose: 'packet' });
  const sources = createStoreSources(store.db, { retriever: choice.retriever, retrievalFallback: choice.fallbackReason });
  const hashes: string[] = [];
  // The snapshot hash is the sha256 of the packet's canonical JSON (assemble.ts).
  for (const q of QUERIES) hashes.push(sha256Hex(canonicalJson(await buildPacket({ query: q.split('\n')[0]!, task: q, maxTokens: 2000 }, { sources }))));
  return { tops, hashes };
}

describe('a tree ingested fresh and incrementally', () => {
  it('gives the same search top-10 and the same packet hash', async () => {
    const root = join(tmp.make(), 'proj');
    const incremental = openStore(join(root, '..', 'incremental.db'));
    for (const version of [V1, V2, V3]) {
      writeTree(root, version);
      await ingestPaths(incremental.db, [root]);
    }
    writeTree(root, V4);
    for (const rel of REMOVED_IN_V4) rmSync(join(root, rel));
    await ingestPaths(incremental.db, [root]);
    const fresh = openStore(join(root, '..', 'fresh.db'));
    await ingestPaths(fresh.db, [root]);

    // The same chunks, under other row ids.
    const chunks = (s: Store) => s.db.prepare('SELECT s.rel_path || \':\' || c.line_start AS k, c.id FROM chunks c JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id ORDER BY k').all() as { k: string; id: number }[];
    expect(chunks(incremental).map((c) => c.k)).toEqual(chunks(fresh).map((c) => c.k));
    expect(chunks(incremental).map((c) => c.id)).not.toEqual(chunks(fresh).map((c) => c.id));

    const a = await view(incremental);
    const b = await view(fresh);
    expect(a.tops).toEqual(b.tops);
    expect(a.tops[0]!.length).toBeGreaterThan(3);
    // Asked twice (the second time from the postings cache), the answer is the same.
    expect((await view(incremental)).tops).toEqual(a.tops);
    expect(a.hashes).toEqual(b.hashes);
    expect(new Set(a.hashes).size).toBe(QUERIES.length);
    incremental.close();
    fresh.close();
  });
});
