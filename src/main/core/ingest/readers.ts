import { basename } from 'node:path';
import { createRequire } from 'node:module';
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';
import type { SourceType } from '../../../shared/types.ts';
import { chunkLines, chunkMarkdown, markdownSections, type ChunkDraft, type ChunkOptions } from './chunker.ts';
import { chunkCode } from './code/chunk-code.ts';
import { symbolLanguage } from './code/languages.ts';
import { readTranscript } from './transcript-reader.ts';
import type { ParsedDocument } from './parsed-document.ts';
import { boundedPdfText, PdfBoundError } from './pdf-bounds.ts';
import type { PdfText } from './pdf-text.ts';

export type { ParsedDocument } from './parsed-document.ts';

export interface ReadOptions extends ChunkOptions {
  /** A problem that left part of the file out while the rest was read (reported with the file, not as a failure). */
  warn?: (message: string) => void;
  /**
   * Most characters a compressed format may inflate to (default DEFAULT_MAX_TEXT_CHARS): the file-size limit bounds
   * only what is on disk, and a 0.5 MB PDF can inflate to 100 MB of text.
   */
  maxTextChars?: number;
}

/** The same bound as the default file-size limit: a PDF yields no more text than a text file may hold. */
export const DEFAULT_MAX_TEXT_CHARS = 20 * 1024 * 1024;

/** One reader per file type; each turns a file's bytes into documents with provenance-carrying chunks. */
export type Reader = (bytes: Uint8Array, path: string, options: ReadOptions) => Promise<ParsedDocument[]>;

export class FileError extends Error {}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new FileError(`not valid UTF-8 (byte ${firstInvalidUtf8Byte(bytes)})`);
  }
}

function firstInvalidUtf8Byte(bytes: Uint8Array): number {
  // Binary-search the longest prefix that decodes; an incomplete trailing sequence makes a prefix fail too.
  let lo = 0;
  let hi = bytes.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, mid), { stream: true });
      lo = mid;
    } catch {
      hi = mid - 1;
    }
  }
  return lo;
}

const markdown: Reader = async (bytes, path, options) => {
  const text = decodeUtf8(bytes);
  const transcript = readTranscript(text, path, options);
  if (transcript) return transcript;
  const sections = markdownSections(text);
  const h1 = sections.find((s) => s.level === 1);
  return [{ title: h1?.headingPath[0] ?? basename(path), externalId: null, chunks: chunkMarkdown(text, options, sections) }];
};

const lines: Reader = async (bytes, path, options) => [
  { title: basename(path), externalId: null, chunks: chunkLines(decodeUtf8(bytes), options) },
];

/** Code in a language with a grammar is chunked at its definitions (anchors name the symbol); other code by lines. */
const code: Reader = async (bytes, path, options) => {
  const text = decodeUtf8(bytes);
  // Minified or generated one-liners have no definitions worth an anchor, and parsing them costs seconds.
  const minified = text.length > 20_000 && text.length / (text.split('\n', 2_000).length) > 1_000;
  const lang = minified ? null : symbolLanguage(path);
  const chunks = lang ? await chunkCode(text, lang, { ...options, source: path }) : chunkLines(text, options);
  return [{ title: basename(path), externalId: null, chunks }];
};

/** Plain text (.txt, .log, no extension) may be a saved agent transcript: recognized by content, like JSONL and Markdown. */
const plain: Reader = async (bytes, path, options) => readTranscript(decodeUtf8(bytes), path, options) ?? lines(bytes, path, options);

const BLOCK_TAGS = new Set([
  'address', 'article', 'aside', 'blockquote', 'br', 'dd', 'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure',
  'footer', 'form', 'header', 'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'table', 'tr', 'td', 'th', 'ul',
]);
const HIDDEN_TAGS = new Set(['script', 'style', 'noscript', 'template', 'svg', 'head', 'iframe', 'object']);

// htmlparser2 loads with the first HTML file, not with every ingest (or every CLI command that imports ingest).
// require() of the ES module keeps htmlToText synchronous (Node ≥ 22.12). Not named `require`: a local of that
// name would shadow CommonJS's own in the bundled main process.
const requireHtmlParser = createRequire(import.meta.url);
let htmlParser: typeof import('htmlparser2').Parser | undefined;

/** Visible text only; headings become markdown headings so the markdown chunker yields § anchors for HTML too. */
export function htmlToText(html: string): { title: string | null; text: string } {
  let out = '';
  let hidden = 0;
  let title: string | null = null;
  let inTitle = false;
  let pre = 0;
  htmlParser ??= (requireHtmlParser('htmlparser2') as typeof import('htmlparser2')).Parser;
  const parser = new htmlParser(
    {
      onopentag(name) {
        if (name === 'title') inTitle = true;
        if (name === 'pre') pre++;
        if (HIDDEN_TAGS.has(name)) hidden++;
        else if (/^h[1-6]$/.test(name)) out += `\n\n${'#'.repeat(Number(name[1]))} `;
        else if (BLOCK_TAGS.has(name)) out += '\n';
      },
      ontext(data) {
        if (inTitle) title = (title ?? '') + data;
        if (hidden === 0) out += pre > 0 ? data : data.replace(/\s+/g, ' ');
      },
      onclosetag(name) {
        if (name === 'title') inTitle = false;
        if (name === 'pre') pre = Math.max(0, pre - 1);
        if (HIDDEN_TAGS.has(name)) hidden = Math.max(0, hidden - 1);
        else if (/^h[1-6]$/.test(name)) out += '\n\n';
        else if (BLOCK_TAGS.has(name)) out += '\n';
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.write(html);
  parser.end();
  const text = out
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return { title: (title as string | null)?.trim() || null, text };
}

const html: Reader = async (bytes, path, options) => {
  const { title, text } = htmlToText(decodeUtf8(bytes));
  const sections = markdownSections(text);
  const h1 = sections.find((s) => s.level === 1);
  return [{ title: title ?? h1?.headingPath[0] ?? basename(path), externalId: null, chunks: chunkMarkdown(text, options, sections) }];
};

const pdf: Reader = async (bytes, path, options) => {
  const limit = options.maxTextChars ?? DEFAULT_MAX_TEXT_CHARS;
  let read: PdfText;
  try {
    // Bounded: what its streams inflate to and the tokens pdf.js would build from them (pdf-bounds.ts).
    read = await boundedPdfText(bytes, limit);
  } catch (err) {
    if (err instanceof PdfBoundError) throw new FileError(`PDF ${err.message}`);
    throw new FileError(`malformed PDF: ${(err as Error).message}`);
  }
  const { title, pages, cut } = read;
  if (cut) {
    options.warn?.(
      `extracted text over the limit of ${limit} characters (a ${bytes.length}-byte file whose compressed streams inflate far beyond it): ` +
        `indexed up to page ${cut.page} of ${cut.of}, cut there; the rest is not indexed`,
    );
  }
  const chunks: ChunkDraft[] = [];
  pages.forEach((pageText, i) => {
    chunks.push(...chunkLines(pageText, options, 1, { headingPath: [`Page ${i + 1}`], anchor: `page=${i + 1}` }));
  });
  return [{ title: title ?? basename(path), externalId: null, chunks }];
};

/**
 * A JSONL file whose lines are `{"_id"|"id", "title", "text"}` is a collection (one document per line, BEIR's
 * corpus shape); any other JSONL is read as plain lines. In a collection, a bad line (invalid JSON, another shape)
 * is left out and reported by number; the good lines are indexed.
 */
const jsonl: Reader = async (bytes, path, options) => {
  const text = decodeUtf8(bytes);
  const transcript = readTranscript(text, path, options);
  if (transcript) return transcript;
  const rows = text.split(/\r?\n/);
  const docs: ParsedDocument[] = [];
  const bad = new Map<string, number[]>();
  const reject = (why: string, line: number) => bad.set(why, [...(bad.get(why) ?? []), line]);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!.trim();
    if (row === '') continue;
    let obj: unknown;
    try {
      obj = JSON.parse(row);
    } catch {
      reject('invalid JSON', i + 1);
      continue;
    }
    const rec = obj as Record<string, unknown>;
    const id = typeof obj === 'object' && obj !== null ? rec._id ?? rec.id : undefined;
    if ((typeof id !== 'string' && typeof id !== 'number') || typeof rec.text !== 'string') {
      reject('expected {"_id" or "id", "title", "text"}', i + 1);
      continue;
    }
    const title = typeof rec.title === 'string' ? rec.title : '';
    // Provenance of a collection document is its line in the file, however its text wraps.
    const chunks = chunkLines(rec.text, options, i + 1).map((c) => ({ ...c, lineStart: i + 1, lineEnd: i + 1 }));
    docs.push({ title, externalId: String(id), chunks });
  }
  if (docs.length === 0) return lines(bytes, path, options);
  if (bad.size > 0) options.warn?.(`bad lines not indexed: ${[...bad].map(([why, nums]) => `${listLines(nums)} (${why})`).join('; ')}`);
  return docs;
};

/** "line 3", "lines 3, 7, 9", capped so a broken 1-million-line file does not make a 1-million-number report. */
function listLines(nums: number[]): string {
  const shown = nums.slice(0, 50).join(', ');
  return `${nums.length === 1 ? 'line' : 'lines'} ${shown}${nums.length > 50 ? ` and ${nums.length - 50} more` : ''}`;
}

/**
 * JSON, and JSON with comments and trailing commas (tsconfig.json, .vscode settings, .jsonc): indexed as written,
 * after checking it parses. Strict JSON first; JSONC only when that fails, so plain JSON errors stay exact.
 */
const json: Reader = async (bytes, path, options) => {
  const text = decodeUtf8(bytes);
  try {
    JSON.parse(text);
  } catch (err) {
    const errors: ParseError[] = [];
    parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
    if (errors.length > 0) {
      const first = errors[0]!;
      const line = text.slice(0, first.offset).split('\n').length;
      throw new FileError(`invalid JSON: ${(err as Error).message} (as JSON with comments: ${printParseErrorCode(first.error)} at line ${line})`);
    }
  }
  return [{ title: basename(path), externalId: null, chunks: chunkLines(text, options) }];
};

export const readers: Record<SourceType, Reader> = {
  markdown,
  text: plain,
  code,
  html,
  pdf,
  json,
  jsonl,
};
