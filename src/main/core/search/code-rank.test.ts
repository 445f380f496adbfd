import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestPaths } from '../ingest/index.ts';
import { openStore, type Store } from '../store/index.ts';
import { tempDirs, writeTree } from '../testing/tmp.ts';
import { createBm25Retriever } from './bm25.ts';
import { isTestPath, queryIsAboutTests } from './code-paths.ts';
import { rankCandidates, type RankCandidate } from './code-rank.ts';
import { retrieverContract } from './retriever-contract.ts';

// The contract suite for the plain (signals off) form as well; the default form runs it in bm25.test.ts.
retrieverContract('bm25 without code signals', (store) => createBm25Retriever(store.db, { signals: false }));

const cand = (chunkId: number, documentId: number, score: number, relPath = `src/f${documentId}.ts`, isFile = true): RankCandidate => ({ chunkId, documentId, score, relPath, isFile });
const order = (r: { chunkId: number }[]) => r.map((x) => x.chunkId);
const none = new Map<number, number>();

describe('ranking signals (pure)', () => {
  it('path/symbol field score lifts every chunk of its document', () => {
    const c = [cand(1, 1, 5), cand(2, 2, 4)];
    expect(order(rankCandidates(c, none))).toEqual([1, 2]);
    expect(order(rankCandidates(c, new Map([[2, 3]])))).toEqual([2, 1]);
    expect(order(rankCandidates(c, new Map([[2, 3]]), { signals: { fieldWeight: 0 } }))).toEqual([1, 2]);
  });

  it('aggregates a file: several relevant chunks beat one slightly better chunk; not for collection entries', () => {
    const c = [cand(1, 1, 5), cand(2, 2, 4.8), cand(3, 2, 4.5)];
    expect(rankCandidates(c, none)[0]!.chunkId).toBe(2);
    expect(rankCandidates(c, none, { signals: { aggregation: 0 } })[0]!.chunkId).toBe(1);
    const entries = c.map((x) => ({ ...x, isFile: false }));
    expect(rankCandidates(entries, none)[0]!.chunkId).toBe(1);
  });

  it('demotes tests and fixtures unless the query is about tests', () => {
    const c = [cand(1, 1, 5, 'test/app.router.js'), cand(2, 2, 4, 'lib/router.js')];
    expect(order(rankCandidates(c, none))).toEqual([2, 1]);
    expect(order(rankCandidates(c, none, { aboutTests: true }))).toEqual([1, 2]);
    expect(order(rankCandidates(c, none, { signals: { testFactor: 1 } }))).toEqual([1, 2]);
  });

  it('caps one file softly: its later chunks decay, so another file gets in', () => {
    const c = [cand(1, 1, 10), cand(2, 1, 9), cand(3, 1, 8.5), cand(4, 2, 7)];
    const plain = rankCandidates(c, none, { signals: { repeatDecay: 1, aggregation: 0 } });
    expect(order(plain)).toEqual([1, 2, 3, 4]);
    const capped = rankCandidates(c, none, { signals: { aggregation: 0 } });
    expect(order(capped).indexOf(4)).toBeLessThan(2);
    for (let i = 1; i < capped.length; i++) expect(capped[i - 1]!.score).toBeGreaterThanOrEqual(capped[i]!.score);
  });

  it('knows test paths and test queries', () => {
    for (const p of ['test/app.js', 'src/x.test.ts', 'pkg/cmd_test.go', 'tests/test_app.py', 'src/FooTest.java', 'a/__mocks__/x.js', 'testdata/in.txt', 'examples/hello.py', 'src/core/packet/fixtures.testkit.ts'])
      expect(isTestPath(p), p).toBe(true);
    for (const p of ['lib/router.js', 'src/testament.ts', 'contest.py', 'src/attestation.go', 'latest/x.js']) expect(isTestPath(p), p).toBe(false);
    expect(queryIsAboutTests(['flaky', 'router'])).toBe(true);
    expect(queryIsAboutTests(['router', 'redirect'])).toBe(false);
  });
});

describe('ranking signals on a real store', () => {
  const tmp = tempDirs('cp-code-rank-');
  let store: Store;
  let root: string;
  beforeAll(async () => {
    root = tmp.make();
    const filler = (topic: string) => Array.from({ length: 6 }, (_, i) => `// ${topic} note ${i}: handles the response object and header values`).join('\n');
    writeTree(root, {
      // The body of content-type.js never says "content type" as words; only its path does.
      'lib/content-type.js': `function parse(str) {\n  return str.split(';')[0];\n}\nmodule.exports = { parse };\n`,
      'lib/response.js': `${filler('response')}\nfunction send(body) {\n  // sets the content type header: content type from the body type\n  return body;\n}\n`,
      'lib/mime.js': `function lookup(ext) {\n  // the content type of an extension; content type defaults to the octet type\n  return ext;\n}\n`,
      'lib/static.js': `function serve(file) {\n  // content type and content length for the file type\n  return file;\n}\n`,
      'lib/negotiate.js': `function acceptsCharsets(req) {\n  return req.get('ac-cs');\n}\n`,
      'lib/other.js': `function choose(list) {\n  // picks charsets the client accepts from the list\n  return list[0];\n}\n`,
      'test/router.test.js': `// router dispatch: route handler order and router params\nit('router dispatch calls the route handler', () => {});\nit('router dispatch skips a route handler', () => {});\n`,
      'lib/router.js': `function dispatch(route) {\n  // route handler lookup\n  return route;\n}\n`,
      'lib/big.js': Array.from({ length: 12 }, (_, i) => `function redirect${i}(res) {\n${Array.from({ length: 12 }, (_, j) => `  // redirect location status ${i} ${j} for the response and its url target`).join('\n')}\n  return res;\n}`).join('\n'),
      // Both say "package" and "name" often; only one uses the identifier `package_name`.
      'lib/names.js': `function label(pkg) {\n  // the name of the package and its version: name of each package, the name for a package\n  return pkg.name + ' ' + pkg.version;\n}\n`,
      'lib/dist.js': `function resolve(meta) {\n  const package_name = meta.top;\n  return package_name;\n}\n`,
      'lib/redirect-helper.js': `function location(res) {\n  // redirect location\n  return res;\n}\n`,
    });
    store = openStore(':memory:');
    await ingestPaths(store.db, [root]);
  });
  afterAll(() => {
    store.close();
    tmp.cleanup();
  });
  const files = async (text: string, k: number, signals?: false) =>
    (await createBm25Retriever(store.db, signals === false ? { signals: false } : {}).search({ text, k })).map((h) => h.path.slice(root.length + 1));

  it('path field: `content-type` finds lib/content-type.js', async () => {
    expect(await files('content-type', 2, false)).not.toContain('lib/content-type.js');
    expect((await files('content-type', 2))[0]).toBe('lib/content-type.js');
  });

  it('symbol field: a symbol name in plain words finds the file that defines it', async () => {
    // Its body never has the words (`acceptsCharsets` is one token), so plain BM25 cannot find it at all.
    expect(await files('accepts charsets', 10, false)).not.toContain('lib/negotiate.js');
    expect((await files('accepts charsets', 2))).toContain('lib/negotiate.js');
  });

  it('test demotion: the source file outranks its test unless the query asks for tests', async () => {
    expect((await files('router dispatch route handler', 1, false))[0]).toBe('test/router.test.js');
    expect((await files('router dispatch route handler', 1))[0]).toBe('lib/router.js');
    expect((await files('router dispatch route handler test', 1))[0]).toBe('test/router.test.js');
  });

  it('per-file decay: one big file does not fill the top 5', async () => {
    const plain = await files('redirect location', 5, false);
    expect(new Set(plain)).toEqual(new Set(['lib/big.js']));
    expect(await files('redirect location', 5)).toContain('lib/redirect-helper.js');
  });

  it('identifier phrase: a chunk holding `package_name` as written outranks one with its words scattered', async () => {
    expect((await files('package name', 1))[0]).toBe('lib/names.js');
    expect((await files('wrong package_name', 1))[0]).toBe('lib/dist.js');
  });
});
