// npm run bench:pdf-inflate [-- --lines 1700000] [--textless | --one-string]
// A PDF bomb through the real PDF reader: one page whose Flate content stream (about 0.56 MB on disk at the default)
// inflates to about 68 MB of operators and 58 MB of text. Prints the file size, chunks made, wall time and peak RSS
// growth. Its streams inflate past the PDF bound (max(64 MiB, 3× the 20 MiB text limit)), so it is refused before
// pdf.js reads it (smaller `--lines` are read and cut by the extracted-text limit with a warning). `--textless`: operators
// that show no text (only the inflation bound stops them); `--one-string`: the text as one string literal (refused by
// the string bound before pdf.js builds it).
import { parseArgs } from 'node:util';
import { readers, DEFAULT_MAX_TEXT_CHARS } from '../src/main/core/ingest/readers.ts';
import { inflatingPdf } from '../src/main/core/ingest/testing/pdf.ts';
import { createWordPieceCounter } from '../src/main/core/ingest/wordpiece.ts';

const { values } = parseArgs({ options: { lines: { type: 'string', default: '1700000' }, textless: { type: 'boolean', default: false }, 'one-string': { type: 'boolean', default: false } } });
const counter = createWordPieceCounter();
const pdf = inflatingPdf({ pages: 1, linesPerPage: Number(values.lines), textless: values.textless, oneString: values['one-string'] });
const before = process.memoryUsage().rss;
let peak = before;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
const warnings: string[] = [];
const t0 = performance.now();
let doc: Awaited<ReturnType<typeof readers.pdf>>[number] | undefined;
try {
  [doc] = await readers.pdf(pdf, 'bomb.pdf', { counter, warn: (m) => warnings.push(m) });
} catch (err) {
  warnings.push(`refused: ${(err as Error).message}`);
}
const ms = performance.now() - t0;
clearInterval(sampler);
peak = Math.max(peak, process.memoryUsage().rss);
console.log(`pdf ${(pdf.length / 1e6).toFixed(2)} MB on disk, limit ${DEFAULT_MAX_TEXT_CHARS} characters`);
console.log(`chunks ${doc?.chunks.length ?? 0}, ${(ms / 1000).toFixed(1)} s, peak RSS +${Math.round((peak - before) / 1e6)} MB`);
console.log(`warning: ${warnings[0] ?? '(none)'}`);
