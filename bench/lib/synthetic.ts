// The synthetic corpus the packet and MCP benchmarks share: a deterministic Zipf-ish vocabulary of pronounceable
// words plus some code-looking lines, written straight into a store (one transaction, real FTS5 through the triggers).
import type { Database } from 'better-sqlite3';
import { CHUNKER_VERSION } from '../../src/main/core/ingest/chunker.ts';

const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ra', 'to', 'su', 'vi', 'de', 'po', 'ga', 'che', 'ri', 'zu', 'an', 'el'];
// Word i spells i in base 16 with one syllable per digit: 6,000 distinct, pronounceable, stemmer-stable words.
export const VOCAB = Array.from({ length: 6000 }, (_, i) => 'x' + [...i.toString(16).padStart(4, '0')].map((d) => SYLLABLES[parseInt(d, 16)]).join(''));

export function syntheticText(seed = 42) {
  let s = seed;
  const rand = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const word = () => VOCAB[Math.floor(VOCAB.length * rand() ** 2.2)]!;
  const line = () => (rand() < 0.15 ? `  const ${word()} = ${word()}(${word()}, ${Math.floor(rand() * 100)});` : Array.from({ length: 8 + Math.floor(rand() * 8) }, word).join(' ') + '.');
  const chunkText = () => Array.from({ length: 10 }, line).join('\n');
  // Query terms from below the 100 most frequent words, which behave like stopwords (each is in most chunks).
  const term = () => VOCAB[100 + Math.floor(rand() * (VOCAB.length - 100))]!;
  return { rand, word, line, chunkText, term };
}

export type SyntheticText = ReturnType<typeof syntheticText>;

/** `chunks` chunks, `perDoc` to a markdown file under /bench/docs/. */
export function fillStore(db: Database, text: SyntheticText, chunks: number, perDoc = 10): void {
  db.transaction(() => {
    // The current chunker version: chunks of another version are not embedded (they would be re-chunked first).
    const src = db.prepare(`INSERT INTO sources (path, root, size, mtime_ms, type, status, chunker_version, indexed_at) VALUES (?, '/bench', 0, 0, 'markdown', 'indexed', ${CHUNKER_VERSION}, '2026-01-01T00:00:00Z')`);
    const doc = db.prepare('INSERT INTO documents (source_id, ordinal, title) VALUES (?, 0, ?)');
    const chunk = db.prepare(`INSERT INTO chunks (document_id, ordinal, text, heading_path, anchor, line_start, line_end, token_count, chunker_version) VALUES (?, ?, ?, ?, ?, ?, ?, 200, ${CHUNKER_VERSION})`);
    for (let d = 0; d < chunks / perDoc; d++) {
      const sid = src.run(`/bench/docs/doc-${d}.md`).lastInsertRowid;
      const did = doc.run(sid, `${text.word()} ${text.word()}`).lastInsertRowid;
      for (let c = 0; c < perDoc; c++) chunk.run(did, c, text.chunkText(), `${text.word()} > ${text.word()}`, `s-${c}`, c * 10 + 1, c * 10 + 10);
    }
  })();
}

/**
 * An issue-length task over the synthetic vocabulary (issue #32): a title, paragraphs of prose (Zipf words, as real
 * prose repeats common ones), a fenced code sample, a traceback with project and library frames, an error line and
 * an environment dump; about 3,000 characters, the size of a typical bug report.
 */
export function issueText(text: SyntheticText): string {
  const { rand, word, line, term } = text;
  const sentence = () => Array.from({ length: 10 + Math.floor(rand() * 10) }, () => (rand() < 0.3 ? term() : word())).join(' ') + '.';
  const paragraph = () => Array.from({ length: 3 + Math.floor(rand() * 3) }, sentence).join(' ');
  const frame = (lib: boolean) => `  File "${lib ? '/usr/lib/python3.11/site-packages/other' : '/home/me/proj/pkg'}/${term()}.py", line ${1 + Math.floor(rand() * 400)}, in ${term()}_${term()}\n    ${line().trim()}`;
  return [
    `${term()} ${word()} ${term()} fails when ${term()} is ${word()}`,
    '',
    '### Describe the bug',
    '',
    paragraph(),
    '',
    '```python',
    ...Array.from({ length: 8 }, line),
    '```',
    '',
    paragraph(),
    '',
    '```',
    'Traceback (most recent call last):',
    frame(false),
    frame(false),
    frame(true),
    frame(false),
    `ValueError: ${sentence()}`,
    '```',
    '',
    '### Expected behavior',
    '',
    paragraph(),
    '',
    '### Environment',
    '',
    ...Array.from({ length: 8 }, () => `- ${word()}: ${Math.floor(rand() * 3)}.${Math.floor(rand() * 30)}.${Math.floor(rand() * 10)}`),
  ].join('\n');
}
