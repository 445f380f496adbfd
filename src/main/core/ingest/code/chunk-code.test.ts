import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { createRedactor } from '../../redact/index.ts';
import { readers } from '../readers.ts';
import { createWordPieceCounter } from '../wordpiece.ts';
import { chunkCode } from './chunk-code.ts';
import { upgradeDylink, type CodeLanguage } from './grammars.ts';
import { symbolLanguage } from './languages.ts';

const counter = createWordPieceCounter();
const opts = { counter };

/** Anchor and line range of every chunk, as `anchor:start-end`. */
async function anchors(text: string, lang: CodeLanguage, maxTokens?: number): Promise<string[]> {
  const chunks = await chunkCode(text, lang, { ...opts, ...(maxTokens ? { maxTokens } : {}) });
  return chunks.map((c) => `${c.anchor}:${c.lineStart}-${c.lineEnd}`);
}

// Filler that makes a definition about half a chunk (≥ 127 word pieces), so two neighbours do not merge.
const body = (n: number, comment: string) => Array.from({ length: n }, (_, i) => `${comment} step ${i} validates the incoming request payload carefully`).join('\n');

describe('symbol chunking per language', () => {
  it('JavaScript: functions, classes, methods and `obj.prop = function` assignments', async () => {
    const src = [
      "'use strict';",
      '',
      '/** Runs the hooks in order. */',
      'function hookRunnerGenerator(hooks) {',
      body(12, '  //'),
      '}',
      '',
      'res.send = function send(body) {',
      body(12, '  //'),
      '};',
      '',
      'class Router {',
      body(12, '  //'),
      '}',
    ].join('\n');
    expect(await anchors(src, 'javascript')).toEqual(['hookRunnerGenerator:1-17', 'res.send:19-32', 'Router:34-47']);
  });

  it('TypeScript and TSX: exported functions, interfaces, arrow components', async () => {
    const ts = ['export interface Options {', body(12, '  //'), '}', '', 'export function createThing(o: Options): number {', body(12, '  //'), '  return 1;', '}'].join('\n');
    expect(await anchors(ts, 'typescript')).toEqual(['Options:1-14', 'createThing:16-30']);
    const tsx = ['export const Button = (p: { label: string }) => {', body(12, '  //'), '  return <button>{p.label}</button>;', '};'].join('\n');
    expect(await anchors(tsx, 'tsx')).toEqual(['Button:1-15']);
  });

  it('Python: decorated functions keep their decorator, classes split at methods when too big', async () => {
    const src = [
      'import os',
      '',
      '@app.route("/")',
      'def index():',
      body(12, '    #'),
      '    return "ok"',
      '',
      'class Flask:',
      '    """The app."""',
      '    def run(self):',
      body(12, '        #'),
      '        pass',
      '',
      '    def url_for(self, name):',
      body(12, '        #'),
      '        pass',
    ].join('\n');
    expect(await anchors(src, 'python')).toEqual(['index:1-17', 'Flask.run:19-34', 'Flask.url_for:36-49']);
  });

  it('Go: functions, methods as Type.Method, types', async () => {
    const src = ['package cobra', '', '// Command is a command.', 'type Command struct {', body(12, '\t//'), '}', '', '// Execute runs it.', 'func (c *Command) Execute() error {', body(12, '\t//'), '\treturn nil', '}'].join('\n');
    expect(await anchors(src, 'go')).toEqual(['Command:1-17', 'Command.Execute:19-34']);
  });

  it('Rust: items, impl blocks with methods as Type.method', async () => {
    const src = ['#[derive(Debug)]', 'pub struct Parser {', body(12, '    //'), '}', '', 'impl Parser {', '    pub fn parse(&self) -> u32 {', body(12, '        //'), '        1', '    }', '    pub fn reset(&mut self) {', body(12, '        //'), '    }', '}'].join('\n');
    expect(await anchors(src, 'rust')).toEqual(['Parser:1-15', 'Parser.parse:17-32', 'Parser.reset:33-47']);
  });

  it('Java: classes split into methods and constructors when too big', async () => {
    const src = ['package a;', '', 'public class Cache {', '  public Cache() {', body(12, '    //'), '  }', '', '  /** Evicts. */', '  public void evict() {', body(12, '    //'), '  }', '}'].join('\n');
    expect(await anchors(src, 'java')).toEqual(['Cache.Cache:1-17', 'Cache.evict:19-34']);
  });
});

describe('symbol chunking: budgets, merging, splitting', () => {
  it('names a chained assignment by its first target', async () => {
    expect(await anchors('res.contentType = res.type = function contentType(type) {\n  return type;\n};\n', 'javascript')).toEqual(['res.contentType:1-3']);
  });

  it('merges small neighbours, and every chunk keeps the exact word-piece budget', async () => {
    const src = ['function a() { return 1; }', 'function b() { return 2; }', 'function c() { return 3; }'].join('\n');
    const chunks = await chunkCode(src, 'javascript', opts);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toMatchObject({ anchor: 'a', headingPath: ['a', 'b', 'c'], lineStart: 1, lineEnd: 3 });
    const big = ['function huge() {', body(80, '  //'), '}', 'function tail() { return 0; }'].join('\n');
    const parts = await chunkCode(big, 'javascript', opts);
    expect(parts.length).toBeGreaterThan(3);
    for (const c of parts) {
      expect(c.tokenCount).toBeLessThanOrEqual(254);
      expect(c.tokenCount).toBe(c.text.split('\n').reduce((n, l) => n + counter.count(l), 0));
    }
    expect(new Set(parts.slice(0, -1).map((c) => c.anchor))).toEqual(new Set(['huge']));
    // The split keeps the line chunker's overlap between consecutive pieces of one definition.
    expect(parts[1]!.lineStart).toBeLessThanOrEqual(parts[0]!.lineEnd);
    expect(parts.at(-1)!.headingPath).toContain('tail');
  });

  it('passes symbol names through the redaction gate before they become anchors', async () => {
    const redactor = createRedactor();
    const secretName = 'AKIAIOSFODNN7EXAMPLE';
    const chunks = await chunkCode(`function ${secretName}() { return 1; }\nfunction ok() {}`, 'javascript', { ...opts, redactor });
    expect(chunks.map((c) => c.anchor)).toEqual(['redacted']);
    expect(JSON.stringify(chunks.map((c) => [c.anchor, c.headingPath]))).not.toContain(secretName);
  });

  it('maps extensions to grammars; other languages keep the line chunker', async () => {
    expect(['a.js', 'a.mjs', 'a.ts', 'a.tsx', 'a.py', 'a.go', 'a.rs', 'A.java'].map(symbolLanguage)).toEqual(['javascript', 'javascript', 'typescript', 'tsx', 'python', 'go', 'rust', 'java']);
    expect(symbolLanguage('a.rb')).toBeNull();
    const [doc] = await readers.code(new TextEncoder().encode('def hello\n  1\nend\n'), '/x/a.rb', opts);
    expect(doc!.chunks.map((c) => c.anchor)).toEqual(['']);
    const [js] = await readers.code(new TextEncoder().encode('function hello() {}\n'), '/x/a.js', opts);
    expect(js!.chunks.map((c) => c.anchor)).toEqual(['hello']);
    // A minified file (a few very long lines) is not parsed: line chunks, no anchors.
    const minified = Array.from({ length: 2_000 }, (_, i) => `function f${i}(a){return a+${i}}`).join(';');
    const [min] = await readers.code(new TextEncoder().encode(minified), '/x/app.min.js', opts);
    expect(new Set(min!.chunks.map((c) => c.anchor))).toEqual(new Set(['']));
  });

  it('rewrites the legacy dylink section once and leaves a module in the new layout alone', () => {
    const require = createRequire(import.meta.url);
    const legacy = new Uint8Array(readFileSync(require.resolve('tree-sitter-wasms/out/tree-sitter-go.wasm')));
    const name = (b: Uint8Array) => new TextDecoder().decode(b.subarray(11, 11 + b[10]!));
    expect(name(legacy)).toBe('dylink');
    const upgraded = upgradeDylink(legacy);
    expect(name(upgraded)).toBe('dylink.0');
    expect(upgradeDylink(upgraded)).toBe(upgraded);
    // Everything after the custom section is byte for byte the same.
    expect(Buffer.from(upgraded.subarray(upgraded.length - 1000)).equals(Buffer.from(legacy.subarray(legacy.length - 1000)))).toBe(true);
  });
});
