import { describe, expect, it } from 'vitest';
import { classifyPath } from './file-types.ts';
import { decodeUtf8, htmlToText, readers } from './readers.ts';
import { createWordPieceCounter } from './wordpiece.ts';
import { inflatingPdf, minimalPdf } from './testing/pdf.ts';

const options = { counter: createWordPieceCounter() };
const enc = (s: string) => new TextEncoder().encode(s);

describe('file classification', () => {
  it('records the language of code from its extension or name', () => {
    expect(classifyPath('/p/a.ts')).toEqual({ type: 'code', language: 'typescript' });
    expect(classifyPath('/p/Dockerfile')).toEqual({ type: 'code', language: 'dockerfile' });
    expect(classifyPath('/p/x.py')).toEqual({ type: 'code', language: 'python' });
    expect(classifyPath('/p/README.md')).toEqual({ type: 'markdown', language: null });
    expect(classifyPath('/p/c.jsonl')).toEqual({ type: 'jsonl', language: null });
    expect(classifyPath('/p/logo.PNG')).toBe('binary');
    expect(classifyPath('/p/notes')).toEqual({ type: 'text', language: null });
  });
});

describe('readers', () => {
  it('markdown: title from the first H1', async () => {
    const [doc] = await readers.markdown(enc('# My Project\n\nHello'), '/p/README.md', options);
    expect(doc!.title).toBe('My Project');
    expect(doc!.chunks[0]!.anchor).toBe('my-project');
  });

  it('html: visible text only, headings become sections', async () => {
    const html = `<html><head><title>Page</title><style>.x{color:red}</style><script>var secret = 1;</script></head>
      <body><h1>Welcome</h1><p>Hello &amp; goodbye</p><noscript>enable js</noscript><h2>Details</h2><pre>  keep
  indent</pre></body></html>`;
    const { title, text } = htmlToText(html);
    expect(title).toBe('Page');
    expect(text).toContain('Hello & goodbye');
    expect(text).not.toContain('color:red');
    expect(text).not.toContain('secret');
    expect(text).not.toContain('enable js');
    expect(text).toContain('  indent');
    const [doc] = await readers.html(enc(html), '/p/x.html', options);
    expect(doc!.chunks.map((c) => c.anchor)).toEqual(['welcome', 'details']);
  });

  it('jsonl: BEIR rows become documents with external ids; other JSONL is plain lines', async () => {
    const rows = ['{"_id": "d1", "title": "T1", "text": "alpha"}', '{"id": 7, "title": "T2", "text": "beta"}'].join('\n');
    const docs = await readers.jsonl(enc(rows), '/p/c.jsonl', options);
    expect(docs.map((d) => [d.externalId, d.title, d.chunks[0]!.lineStart])).toEqual([['d1', 'T1', 1], ['7', 'T2', 2]]);
    const logs = await readers.jsonl(enc('{"level":"info","msg":"x"}\n'), '/p/log.jsonl', options);
    expect(logs).toHaveLength(1);
    expect(logs[0]!.externalId).toBeNull();
  });

  it('jsonl: a bad line is left out and reported by number; the good lines are indexed', async () => {
    const rows = [
      '{"_id": "d1", "title": "T1", "text": "alpha"}',
      '{broken',
      '{"_id": "d3", "title": "T3", "text": "gamma"}',
      '["not", "a", "record"]',
      '',
      '{"_id": "d6", "text": "zeta"',
      '{"_id": "d7", "title": "T7", "text": "eta"}',
    ].join('\n');
    const warnings: string[] = [];
    const docs = await readers.jsonl(enc(rows), '/p/c.jsonl', { ...options, warn: (m) => warnings.push(m) });
    expect(docs.map((d) => [d.externalId, d.chunks[0]!.lineStart])).toEqual([['d1', 1], ['d3', 3], ['d7', 7]]);
    expect(warnings).toEqual(['bad lines not indexed: lines 2, 6 (invalid JSON); line 4 (expected {"_id" or "id", "title", "text"})']);
    // A bad first line does not turn a collection into plain text.
    const first = await readers.jsonl(enc('{oops\n{"_id": "a", "text": "x"}\n'), '/p/c.jsonl', { ...options, warn: (m) => warnings.push(m) });
    expect(first.map((d) => d.externalId)).toEqual(['a']);
    expect(warnings.at(-1)).toBe('bad lines not indexed: line 1 (invalid JSON)');
  });

  it('json: invalid JSON is an error naming the problem', async () => {
    await expect(readers.json(enc('{"a": 1,,}'), '/p/a.json', options)).rejects.toThrow(/invalid JSON.*line 1/);
    await expect(readers.json(enc('{\n  "a": 1\n  "b": 2\n}'), '/p/a.json', options)).rejects.toThrow(/CommaExpected at line 3/);
    await expect(readers.json(enc(''), '/p/empty.json', options)).rejects.toThrow(/invalid JSON/);
    const [doc] = await readers.json(enc('{\n  "a": 1\n}'), '/p/a.json', options);
    expect(doc!.chunks[0]!.lineEnd).toBe(3);
  });

  it('json: tsconfig-style JSONC (comments, trailing commas) is read as written', async () => {
    const tsconfig = [
      '{',
      '  // Compiler options for the app',
      '  "compilerOptions": {',
      '    "strict": true, /* always */',
      '    "paths": { "@/*": ["src/*"], },',
      '  },',
      '}',
    ].join('\n');
    const [doc] = await readers.json(enc(tsconfig), '/p/tsconfig.json', options);
    expect(doc!.chunks.map((c) => c.text).join('\n')).toContain('// Compiler options for the app');
    expect(doc!.chunks.at(-1)!.lineEnd).toBe(7);
  });

  it('pdf: text per page with page anchors; a malformed PDF is a clear error', async () => {
    const [doc] = await readers.pdf(minimalPdf(['First page words', 'Second page words']), '/p/a.pdf', options);
    expect(doc!.chunks.map((c) => [c.anchor, c.text.trim()])).toEqual([
      ['page=1', 'First page words'],
      ['page=2', 'Second page words'],
    ]);
    await expect(readers.pdf(enc('%PDF-1.4 garbage'), '/p/bad.pdf', options)).rejects.toThrow(/malformed PDF/);
  });

  it('pdf: text extraction stops at maxTextChars, mid-page, and says so; under the limit nothing changes', async () => {
    const warnings: string[] = [];
    const bomb = inflatingPdf({ pages: 3, linesPerPage: 600 });
    const [doc] = await readers.pdf(bomb, '/p/bomb.pdf', { ...options, maxTextChars: 30_000, warn: (m) => warnings.push(m) });
    // Chunks overlap, so what was kept is counted in lines (34 characters each), per page.
    const lastLine = (page: string) => Math.max(...doc!.chunks.filter((c) => c.anchor === page).map((c) => c.lineEnd));
    expect(lastLine('page=1')).toBe(600);
    expect(lastLine('page=2')).toBeLessThanOrEqual(Math.ceil((30_000 - 600 * 34) / 34));
    expect(new Set(doc!.chunks.map((c) => c.anchor))).toEqual(new Set(['page=1', 'page=2']));
    expect(warnings).toEqual([expect.stringMatching(/^extracted text over the limit of 30000 characters \(a \d+-byte file .*\): indexed up to page 2 of 3, cut there; the rest is not indexed$/)]);
    const whole: string[] = [];
    const [all] = await readers.pdf(bomb, '/p/bomb.pdf', { ...options, warn: (m) => whole.push(m) });
    expect(whole).toEqual([]);
    expect(new Set(all!.chunks.map((c) => c.anchor))).toEqual(new Set(['page=1', 'page=2', 'page=3']));
  });

  it('rejects invalid UTF-8 with the byte offset', () => {
    expect(() => decodeUtf8(new Uint8Array([0x61, 0x62, 0xff, 0x63]))).toThrow(/not valid UTF-8 \(byte 2\)/);
  });
});
