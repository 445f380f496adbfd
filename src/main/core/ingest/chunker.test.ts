import { describe, expect, it } from 'vitest';
import { chunkLines, chunkMarkdown, markdownSections, slugify, splitSentences } from './chunker.ts';
import { createWordPieceCounter } from './wordpiece.ts';

const counter = createWordPieceCounter();

describe('markdown sections', () => {
  it('gives heading paths, GitHub-style anchors and start lines, ignoring headings in code fences', () => {
    const md = ['intro line', '# Guide', 'text', '## Install', 'steps', '```sh', '# not a heading', '```', '## Install', 'again', '# Other'].join('\n');
    const s = markdownSections(md);
    expect(s.map((x) => [x.headingPath.join(' > '), x.anchor, x.startLine])).toEqual([
      ['', '', 1],
      ['Guide', 'guide', 2],
      ['Guide > Install', 'install', 4],
      ['Guide > Install', 'install-1', 9],
      ['Other', 'other', 11],
    ]);
  });

  it('slugifies like GitHub', () => {
    expect(slugify('Hello, World! (v2)')).toBe('hello-world-v2');
    expect(slugify('Ünïcode Tïtle')).toBe('ünïcode-tïtle');
  });
});

describe('chunking', () => {
  it('keeps every chunk within the word-piece window, with exact line ranges', () => {
    const lines = Array.from({ length: 400 }, (_, i) => `line ${i + 1}: the quick brown fox jumps over the lazy dog`);
    const chunks = chunkLines(lines.join('\n'), { counter });
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) {
      expect(c.tokenCount).toBeLessThanOrEqual(254);
      expect(counter.count(c.text)).toBe(c.tokenCount);
      const first = c.text.split('\n')[0]!;
      expect(first).toBe(lines[c.lineStart - 1]);
      expect(c.text.split('\n').at(-1)).toBe(lines[c.lineEnd - 1]);
    }
    expect(chunks[0]!.lineStart).toBe(1);
    expect(chunks.at(-1)!.lineEnd).toBe(400);
  });

  it('overlaps consecutive chunks a little and always moves forward', () => {
    const text = Array.from({ length: 200 }, (_, i) => `alpha beta gamma ${i}`).join('\n');
    const chunks = chunkLines(text, { counter, overlapTokens: 12 });
    for (let i = 1; i < chunks.length; i++) {
      expect(chunks[i]!.lineStart).toBeLessThanOrEqual(chunks[i - 1]!.lineEnd);
      expect(chunks[i]!.lineStart).toBeGreaterThan(chunks[i - 1]!.lineStart);
    }
  });

  it('splits one huge line at sentences, then words, then characters', () => {
    const sentence = 'Mitochondria regulate apoptosis in stressed cells. ';
    const long = sentence.repeat(120) + 'x'.repeat(5000);
    const chunks = chunkLines(long, { counter });
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) {
      expect(c.tokenCount).toBeLessThanOrEqual(254);
      expect(c.lineStart).toBe(1);
      expect(c.lineEnd).toBe(1);
    }
  });

  it('attaches the heading path and anchor to markdown chunks and drops blank-only chunks', () => {
    const md = '# Title\n\nIntro text.\n\n## Setup\n\nRun it.\n\n\n';
    const chunks = chunkMarkdown(md, { counter });
    expect(chunks.map((c) => [c.anchor, c.headingPath, c.lineStart, c.lineEnd])).toEqual([
      ['title', ['Title'], 1, 3],
      ['setup', ['Title', 'Setup'], 5, 7],
    ]);
  });

  it('returns nothing for empty input', () => {
    expect(chunkLines('', { counter })).toEqual([]);
    expect(chunkMarkdown('\n\n', { counter })).toEqual([]);
  });
});

describe('sentence splitting', () => {
  it('splits exactly as the look-behind regex split it replaced', () => {
    const lookBehind = /(?<=[.!?;])\s+/;
    const samples = ['', '.', '. ', ' . ', 'a.  b', 'a.\u00a0b!\u2003\u2003c', 'end.', 'x;\n\ny', '...  ', '. . .', 'a.b', '\ufeff.\ufeffz', 'a?\t', 'One. Two! Three? Four; five'];
    let x = 5;
    const alphabet = 'ab .!?;\t\n\u00a0\u3000,';
    for (let i = 0; i < 2000; i++) samples.push(Array.from({ length: i % 40 }, () => alphabet[(x = (x * 69069 + 1) % 4294967296) % alphabet.length]).join(''));
    for (const s of samples) expect(splitSentences(s), JSON.stringify(s)).toEqual(s.split(lookBehind));
  });
});

