import { afterAll, describe, expect, it } from 'vitest';
import type { SearchHit } from '../../../shared/types.ts';
import { tempDirs } from '../testing/tmp.ts';
import { buildPacket } from './assemble.ts';
import { selectEvidence } from './evidence-select.ts';
import { focusHits } from './focus.ts';
import { packetStore } from './fixtures.testkit.ts';
import { definitionsOf, mergeSpans, overCapUnit, unitFor, wholeUnits } from './whole-units.ts';
import { stem, unitWindows, windowTerms } from './unit-windows.ts';
import { namesFrom, relatedHits } from './related.ts';
import type { Store } from '../store/index.ts';

const tmp = tempDirs('cp-evidence-');
const stores: Store[] = [];
afterAll(() => {
  for (const s of stores) s.close();
  tmp.cleanup();
});

const hit = (over: Partial<SearchHit>): SearchHit => ({
  chunkId: 1, documentId: 1, externalId: null, path: '/p/lib/a.js', relPath: 'lib/a.js', title: 'a.js', anchor: '', headingPath: '', lineStart: 1, lineEnd: 5, text: 'x', score: 1, ...over,
});

// A long function whose query words sit in its middle: its chunk is a fragment, the unit is the whole function.
const filler = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `  const ${tag}${i} = compute${tag}(${i}, options.level${i % 7});`).join('\n');
const RESPONSE_JS = [
  "'use strict';",
  '',
  '/** Sends a response body. */',
  'res.send = function send(body) {',
  filler(30, 'pre'),
  '  // writable stream: respond with the transfer encoding chunked when no content length is known',
  '  if (!this.get("Content-Length")) this.set("Transfer-Encoding", "chunked");',
  filler(30, 'post'),
  '  return this;',
  '};',
  '',
  '/** Sets a header. */',
  'res.set = function set(field, value) {',
  '  this.setHeader(field, value);',
  '  return this;',
  '};',
  '',
  '/** Redirects. */',
  'res.redirect = function redirect(url) {',
  '  this.location(url);',
  '  return this;',
  '};',
  '',
].join('\n');

const FILES = {
  'lib/response.js': RESPONSE_JS,
  'lib/other.js': '/** Unrelated helper that mentions a stream once. */\nexports.helper = function helper() {\n  return 1 + 2;\n};\n',
  'History.md': '# History\n\n## 1.0\n\n- writable stream respond transfer encoding chunked content length fix\n- writable stream respond transfer encoding chunked again\n',
  'package-lock.json': '{ "name": "writable-stream-respond", "transfer": "encoding chunked content length" }\n',
  'test/res.send.js': "describe('res.send', () => {\n  it('responds with transfer encoding chunked on a writable stream', () => {\n    send('content length');\n  });\n});\n",
  'test/res.set.js': "it('sets transfer encoding chunked on a writable stream respond', () => {});\n",
};

describe('evidence for code tasks (issue #23)', () => {
  it('shows the whole function a hit lands in, named after it, without changelog or lock file, tests as one pointer', async () => {
    const f = await packetStore(tmp.make(), { files: FILES });
    stores.push(f.store);
    const p = await buildPacket({ query: 'writable stream respond transfer encoding chunked', maxTokens: 8000 }, { sources: f.sources });
    const ev = p.included.filter((i) => i.kind === 'evidence').map((i) => i.source);
    const send = ev.find((s) => s.startsWith('lib/response.js#res.send'));
    // The function runs from its doc comment (line 3) to its closing brace (line 4 + 30 + 2 + 30 + 2 = 68).
    expect(send).toBe('lib/response.js#res.send:3-68');
    expect(ev.some((s) => s.startsWith('History.md') || s.startsWith('package-lock.json'))).toBe(false);
    expect(ev.filter((s) => s.startsWith('test/'))).toHaveLength(1);
    const intel = p.sections.find((s) => s.name === 'INTEL')!.text;
    expect(intel).toMatch(/\[E\d+\] tested in test\/res\.set?\.js.*:\d+-\d+ · score/);
    expect(intel).not.toContain("send('content length')");
    expect(p.retrieval.evidence_stop).toMatch(/changelogs, lock files, generated files or images the query does not name/);
    // The query that names the changelog gets it back.
    const hist = await buildPacket({ query: 'history of writable stream respond', maxTokens: 8000 }, { sources: f.sources });
    expect(hist.included.some((i) => i.source.startsWith('History.md'))).toBe(true);
  });

  it('stops at the relevance floor and says so, leaving budget unused', () => {
    const hits = [1, 0.9, 0.5, 0.3, 0.2, 0.1].map((r, i) => hit({ chunkId: i + 1, documentId: i + 1, relPath: `lib/f${i}.js`, path: `/p/lib/f${i}.js`, score: 0.5 - i * 0.01, relevance: r * 20 }));
    const s = selectEvidence(hits, 'parse crash', 0.25, 0.25);
    expect(s.kept.map((k) => k.hit.chunkId)).toEqual([1, 2, 3, 4]);
    expect(s.kept.map((k) => k.relative)).toEqual([1, 0.9, 0.5, 0.3]);
    expect(s.stop).toBe("evidence: 4 of 6 hits kept; 2 scored below 0.25 of the best hit's relevance");
    // Source files have the lower floor (0.1 by default); a doc at 0.2 stays out.
    const mixed = hits.map((h, i) => (i === 4 ? { ...h, relPath: 'docs/guide.md', path: '/p/docs/guide.md' } : h));
    const d = selectEvidence(mixed, 'parse crash');
    expect(d.kept.map((k) => k.hit.chunkId)).toEqual([1, 2, 3, 4, 6]);
    expect(d.stop).toBe("evidence: 5 of 6 hits kept; 1 scored below 0.25 of the best hit's relevance (source files 0.1)");
    // No relevance signal at all: nothing to measure a floor against, so everything stays.
    expect(selectEvidence(hits.map((h) => ({ ...h, score: 0, relevance: 0 })), 'parse crash').kept).toHaveLength(6);
  });

  it('never exceeds max_tokens by the real token count, even for dense code', async () => {
    // ~1.5 chars per token: a 4-chars-per-token budget would overshoot by more than half.
    const dense = Array.from({ length: 400 }, (_, i) => `a${i}[${i}]=b(${i},${i + 1});`).join('\n');
    const f = await packetStore(tmp.make(), { files: { 'src/dense.js': `function dense() {\n${dense}\n}\n`, 'src/more.js': `function more() {\n${dense.replaceAll('a', 'c')}\n}\n` } });
    stores.push(f.store);
    for (const maxTokens of [700, 1200, 2500, 5000]) {
      const p = await buildPacket({ query: 'dense more b a0 c1', maxTokens, k: 50 }, { sources: f.sources });
      expect(p.budgets.total_tokens, `max_tokens ${maxTokens}`).toBeLessThanOrEqual(maxTokens);
      expect(p.included.some((i) => i.kind === 'evidence')).toBe(true);
    }
  });
});

describe('whole units', () => {
  const src = [
    'class Router {', // 1
    '  handle(req) {', // 2
    '    const a = 1;', // 3
    '    const b = 2;', // 4
    '    const c = 3;', // 5
    '    const d = 4;', // 6
    '    const e = 5;', // 7
    '    const f = 6;', // 8
    '    return a + b + c + d + e + f;', // 9
    '  }', // 10
    '  use(fn) { this.fns.push(fn); }', // 11
    '}', // 12
    'function small() { return 1; }', // 13
    'function tiny() { return 2; }', // 14
  ].join('\n');

  it('finds definitions with tree-sitter, nested ones included', async () => {
    const defs = await definitionsOf('lib/router.js', src);
    expect(defs.map((d) => [d.name, d.start, d.end, d.depth])).toEqual([
      ['Router', 1, 12, 0], ['Router.handle', 2, 10, 1], ['Router.use', 11, 11, 1], ['small', 13, 13, 0], ['tiny', 14, 14, 0],
    ]);
    expect(await definitionsOf('notes.md', src)).toEqual([]);
  });

  it('widens a hit to its innermost definition under the cap, with the class when the cap allows only that', async () => {
    const defs = await definitionsOf('lib/router.js', src);
    expect(unitFor(defs, 5, 6)).toEqual({ start: 2, end: 10, names: ['Router.handle'] });
    // Too long for the cap: the hit stays as it is, named after what it is inside of.
    expect(unitFor(defs, 5, 6, 5)).toEqual({ start: 5, end: 6, names: ['Router.handle'] });
    // A chunk of small neighbours: both, whole, the first named as main.
    expect(unitFor(defs, 13, 14)).toEqual({ start: 13, end: 14, names: ['small', 'tiny'] });
  });

  it('merges spans of a file that touch, in line order, the best span naming the result', () => {
    const a = hit({ chunkId: 1 });
    const b = hit({ chunkId: 2 });
    const c = hit({ chunkId: 3 });
    const merged = mergeSpans([
      { start: 40, end: 50, hits: [c], names: ['far'], best: 0.9 },
      { start: 12, end: 20, hits: [b], names: ['second'], best: 1 },
      { start: 1, end: 10, hits: [a], names: ['first'], best: 0.4 },
    ]);
    expect(merged.map((s) => [s.start, s.end, s.names, s.hits.length])).toEqual([[1, 20, ['second', 'first'], 2], [40, 50, ['far'], 1]]);
  });
});

describe('windows in a unit over the cap', () => {
  // A 202-line function (a shell script in a string): the query's rare words sit at line 161, far from the hit.
  const body = Array.from({ length: 200 }, (_, i) => (i === 159 ? '    if [ ${#activeHelp} -ne 0 ]; then  # check length' : `    completion_line_${i}="completion"`));
  const lines = ['func genScript() string {', ...body, '}'];

  it('shows the lines matching the query best, rare words counting most, not the lines already shown', () => {
    const terms = windowTerms('activeHelp length check in completion');
    expect(terms).toEqual(expect.arrayContaining(['activehelp', 'active', 'help', 'length', 'check', 'completion']));
    // "completion" is on every line: the window goes to line 161 (the file's line of body[159]), ± 2 lines.
    expect(unitWindows(lines, { start: 1, end: 202 }, terms, [{ start: 1, end: 10 }])).toEqual([{ start: 159, end: 163 }]);
    expect(unitWindows(lines, { start: 1, end: 202 }, terms, [{ start: 155, end: 165 }])).toEqual(expect.not.arrayContaining([{ start: 159, end: 163 }]));
    expect(unitWindows(lines, { start: 1, end: 202 }, [], [])).toEqual([]);
    expect(stem('completions')).toBe('completion');
    expect(stem('filtering')).toBe('filter');
  });

  it('applies only when every definition holding the hit is over the cap, through wholeUnits', async () => {
    const text = lines.join('\n');
    const defs = await definitionsOf('script.go', text);
    expect(overCapUnit(defs, 3, 8)?.name).toBe('genScript');
    expect(overCapUnit(defs, 3, 8, 300)).toBeNull();
    const h = hit({ path: '/p/script.go', relPath: 'script.go', lineStart: 3, lineEnd: 8, text: lines.slice(2, 8).join('\n') });
    const units = await wholeUnits([{ hit: h, relative: 1 }], () => lines, 'activeHelp length check');
    // Over the cap: the hit as it is, and the window named after the function, scored just below the hit.
    expect(units.map((u) => [u.hit.lineStart, u.hit.lineEnd, u.hit.anchor, u.relative])).toEqual([[3, 8, 'genScript', 1], [159, 163, 'genScript', 0.9]]);
    expect(units[1]!.hit.text.split('\n')[2]).toContain('activeHelp');
    // Only the WINDOW_UNITS (3) most relevant over-cap definitions of a packet show windows.
    const four = [1, 0.9, 0.8, 0.7].map((r, i) => ({ hit: { ...h, documentId: i + 1, chunkId: i + 1 }, relative: r }));
    const many = await wholeUnits(four, () => lines, 'activeHelp length check');
    expect(many.filter((u) => u.hit.lineStart === 159).map((u) => u.hit.documentId)).toEqual([1, 2, 3]);
    // Without a query (or with a whole unit under the cap) nothing is added.
    expect(await wholeUnits([{ hit: h, relative: 1 }], () => lines)).toHaveLength(1);
  });
});

describe('focus files', () => {
  it('adds the other matching chunks of the best source files, not tests, not what is shown already', () => {
    const kept = [
      { hit: hit({ documentId: 1, lineStart: 1, lineEnd: 10 }), role: 'source' as const, relative: 1 },
      { hit: hit({ documentId: 2, relPath: 'test/a.js', lineStart: 1, lineEnd: 10 }), role: 'test' as const, relative: 0.8 },
    ];
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`);
    const matches = [
      { documentId: 1, lineStart: 1, lineEnd: 10, score: 10 },
      { documentId: 1, lineStart: 40, lineEnd: 50, score: 5 },
      { documentId: 1, lineStart: 70, lineEnd: 80, score: 1 },
    ];
    const seen: number[][] = [];
    const out = focusHits(kept, 'q', (docs) => (seen.push(docs), matches), () => lines, 3, 0.15);
    expect(seen).toEqual([[1]]);
    expect(out.map((o) => [o.hit.lineStart, o.hit.lineEnd, o.relative, o.hit.text.split('\n')[0]])).toEqual([[40, 50, 0.5, 'line 40']]);
    expect(focusHits(kept, 'q', null, () => lines)).toEqual([]);
  });

  it('passes over a best file already shown whole, for the next file with more to show', () => {
    // Doc 1: a tiny re-export, its one chunk shown. Doc 2: the file with a second matching place. Doc 3: also.
    const kept = [1, 2, 3].map((d) => ({ hit: hit({ documentId: d, relPath: `lib/${d}.js`, lineStart: 1, lineEnd: 3 }), role: 'source' as const, relative: 1 - d / 10 }));
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`);
    const matches = [
      { documentId: 1, lineStart: 1, lineEnd: 3, score: 9 },
      { documentId: 2, lineStart: 1, lineEnd: 3, score: 9 },
      { documentId: 2, lineStart: 60, lineEnd: 70, score: 3 },
      { documentId: 3, lineStart: 1, lineEnd: 3, score: 9 },
      { documentId: 3, lineStart: 20, lineEnd: 30, score: 9 },
    ];
    const out = focusHits(kept, 'q', () => matches, () => lines, 1, 0.15);
    expect(out.map((o) => [o.hit.documentId, o.hit.lineStart])).toEqual([[2, 60]]);
    expect(focusHits(kept, 'q', () => matches, () => lines, 2, 0.15).map((o) => o.hit.documentId)).toEqual([2, 3]);
  });
});

describe('related code', () => {
  it('follows a hit to its same-name definitions and the functions it calls, scored below it and few', async () => {
    const f = await packetStore(tmp.make(), {
      files: {
        'lib/app.js': 'function handle(req) {\n  const route = matchRoute(req.path);\n  return dispatch(route, req);\n}\n',
        'lib/router.js': 'function matchRoute(path) {\n  return table[path];\n}\n\nfunction dispatch(route, req) {\n  return route(req);\n}\n',
        'lib/sync.js': 'function handle(req) {\n  return null;\n}\n',
        'lib/server.js': 'function serve(req) {\n  // handle (req) logs nothing\n  return handle(req);\n}\n',
        'lib/log.js': 'function note(msg) {\n  // we handle msg here\n  return msg;\n}\n',
        'test/app.test.js': 'function matchRoute() {}\n',
      },
    });
    stores.push(f.store);
    const seed = hit({ documentId: 1, anchor: 'handle', text: 'function handle(req) {\n  const route = matchRoute(req.path);\n  return dispatch(route, req);\n}', lineStart: 1, lineEnd: 4 });
    expect(namesFrom(seed)).toEqual(['handle', 'matchRoute', 'dispatch']);
    const found = f.sources.definitionsNamed!(['handle', 'matchRoute', 'dispatch'], 10).map((h) => `${h.relPath}#${h.anchor}`);
    // matchRoute and dispatch share a chunk (small neighbours), anchored by the first: found by either name.
    expect(found).toEqual(expect.arrayContaining(['lib/router.js#matchRoute', 'lib/sync.js#handle']));
    expect(f.sources.definitionsNamed!(['dispatch'], 10).map((h) => `${h.relPath}#${h.anchor}`)).toEqual(['lib/router.js#matchRoute']);
    const app = f.sources.definitionsNamed!(['handle'], 10).find((h) => h.relPath === 'lib/app.js')!;
    const related = relatedHits([{ hit: { ...app, text: seed.text }, role: 'source', relative: 1 }], f.sources.definitionsNamed!, 0.25);
    // Not the seed itself, not a test; half the seed's relevance.
    expect(related.map((r) => [r.hit.relPath, r.hit.anchor, r.relative])).toEqual(expect.arrayContaining([['lib/sync.js', 'handle', 0.5], ['lib/router.js', 'matchRoute', 0.5]]));
    expect(related.some((r) => r.hit.relPath === 'lib/app.js' || r.hit.relPath!.startsWith('test/'))).toBe(false);
    // Callers: chunks calling the name, not its definitions, not a mere mention.
    expect(f.sources.callersOf!(['handle'], 10).map((h) => `${h.relPath}#${h.anchor}`)).toEqual(['lib/server.js#serve']);
    expect(f.sources.callersOf!(['matchRoute'], 10).map((h) => `${h.relPath}#${h.anchor}`)).toEqual(['lib/app.js#handle']);
    const withCallers = relatedHits([{ hit: { ...app, text: seed.text }, role: 'source', relative: 1 }], f.sources.definitionsNamed!, 0.25, 3, f.sources.callersOf!);
    expect(withCallers.map((r) => [r.hit.relPath, r.relative])).toEqual(expect.arrayContaining([['lib/server.js', 0.5]]));
    expect(withCallers).toHaveLength(related.length + 1);
    // A seed too weak for its related code to clear the floor leads nowhere.
    expect(relatedHits([{ hit: app, role: 'source', relative: 0.4 }], f.sources.definitionsNamed!, 0.25)).toEqual([]);
  });
});
