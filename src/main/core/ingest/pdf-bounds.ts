// Memory bounds for a PDF, whose few hundred KB on disk may inflate to hundreds of MB. The extracted-text limit alone
// does not bound it: before any text reaches us, pdf.js builds a 20 MB string literal (from a 20 KB file) out of
// 20 million one-character strings, +698 MB RSS; a 20 MB hex string +455 MB; a `[(a) (a) …] TJ` array of 5 million
// elements +375 MB; and it keeps each stream's decoded bytes. So before pdf.js sees the file, the streams it would
// read are inflated once, counted and scanned, and thrown away (images and fonts aside: text extraction does not
// tokenize them). Refused, with the reason: more than `maxInflatedBytes` in all (decoded buffers and work), a string
// longer than MAX_STRING or an array of more than MAX_ARRAY elements (the memory pdf.js's tokens take). A worker with
// a capped heap was tried first: a fatal out-of-memory in a worker aborts the whole process in Node 22.
import { createInflate, constants as zlib } from 'node:zlib';
import type { PdfText } from './pdf-text.ts';

/** What a PDF's scanned streams may inflate to in all, at least (3× the extracted-text limit when that is larger). */
export const MIN_MAX_INFLATED = 64 * 1024 * 1024;
/** The longest string (literal or hex) a content stream may hold: real ones are a line of text. */
export const MAX_STRING = 1024 * 1024;
/** The most elements one array may hold (a TJ array is a line; a font's /W array some thousands). */
export const MAX_ARRAY = 256 * 1024;

/** A PDF refused for what its reading would take; the message says what. */
export class PdfBoundError extends Error {}

interface Scan {
  inflated: number;
  longestString: number;
  largestArray: number;
}

/**
 * Streams pdf.js tokenizes for text: page contents (a dictionary of only /Length, /Filter, /DecodeParms), forms,
 * object streams and CMaps. Images, fonts, ICC profiles, metadata and embedded files are decoded by other parsers,
 * if at all, and are binary: scanning them as tokens would find "strings" that are not there.
 */
function tokenized(dict: string): boolean {
  if (/\/Subtype\s*\/Form\b/.test(dict) || /\/Type\s*\/(?:ObjStm|CMap)\b/.test(dict)) return true;
  const keys = dict.match(/\/[A-Za-z0-9]+(?=\s|\/|\[|<|\(|\d)/g) ?? [];
  return !/\/(?:Type|Subtype|Length[123]|N|Width|Height)\b/.test(dict) && keys.length > 0;
}

/** Tokens of one stream (or the file's own objects), fed in pieces: the longest string and largest array so far. */
function tokenScanner() {
  let state: 'code' | 'literal' | 'hex' | 'comment' | 'inline' = 'code';
  // The regular token being read (its first 3 bytes): `ID` starts an inline image's binary data, skipped to `EI`.
  let token = '';
  let tail = 0;
  let depth = 0;
  let escaped = false;
  let length = 0;
  let inToken = false;
  let afterLt = false;
  const arrays: number[] = [];
  const result = { longestString: 0, largestArray: 0 };
  const element = () => {
    const top = arrays.length - 1;
    if (top >= 0 && ++arrays[top]! > result.largestArray) result.largestArray = arrays[top]!;
  };
  const feed = (buf: Buffer) => {
    for (let i = 0; i < buf.length; i++) {
      const c = buf[i]!;
      if (state === 'literal') {
        length++;
        if (escaped) escaped = false;
        else if (c === 0x5c) escaped = true;
        else if (c === 0x28) depth++;
        else if (c === 0x29 && --depth === 0) {
          state = 'code';
          if (length > result.longestString) result.longestString = length;
        }
        continue;
      }
      if (state === 'hex') {
        if (c === 0x3e) {
          state = 'code';
          if (length > result.longestString) result.longestString = length;
        } else length++;
        continue;
      }
      if (state === 'inline') {
        // Binary image data up to whitespace, `EI` and whitespace (or the stream's end).
        tail = c === 0x45 && (tail === 1 || tail === 0) ? 2 : c === 0x49 && tail === 2 ? 3 : (c === 0x20 || c === 0x0a || c === 0x0d) ? (tail === 3 ? 4 : 1) : 0;
        if (tail === 4) {
          state = 'code';
          tail = 0;
        }
        continue;
      }
      if (state === 'comment') {
        if (c === 0x0a || c === 0x0d) state = 'code';
        continue;
      }
      if (afterLt) {
        afterLt = false;
        if (c !== 0x3c) {
          state = 'hex';
          length = 1;
          continue;
        }
        continue; // `<<`: a dictionary's start
      }
      const space = c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0c || c === 0x00;
      const delim = c === 0x28 || c === 0x29 || c === 0x3c || c === 0x3e || c === 0x5b || c === 0x5d || c === 0x7b || c === 0x7d || c === 0x2f || c === 0x25;
      if (space || delim) {
        if (inToken && token === 'ID' && space) {
          state = 'inline';
          tail = 1;
          inToken = false;
          token = '';
          continue;
        }
        inToken = false;
        token = '';
      } else if (inToken && token.length < 3) token += String.fromCharCode(c);
      if (c === 0x28) {
        element();
        state = 'literal';
        depth = 1;
        length = 0;
      } else if (c === 0x3c) {
        element();
        afterLt = true;
      } else if (c === 0x5b) {
        element();
        arrays.push(0);
      } else if (c === 0x5d) arrays.pop();
      else if (c === 0x25) state = 'comment';
      else if (c === 0x2f) {
        element();
        inToken = true;
      } else if (!space && !delim && !inToken) {
        inToken = true;
        token = String.fromCharCode(c);
        element();
      }
    }
    // A string still open counts as far as it got (a stream cut inside one).
    if ((state === 'literal' || state === 'hex') && length > result.longestString) result.longestString = length;
  };
  return { feed, result };
}

/**
 * Inflates and scans what pdf.js would tokenize: the file's own bytes outside streams, and its content-like streams
 * (Flate-compressed or not), stopping once the inflated total passes `cap`. A damaged stream counts what inflated
 * before the damage (pdf.js would read no more of it either).
 */
export async function scanPdf(bytes: Uint8Array, cap: number): Promise<Scan> {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const scan: Scan = { inflated: 0, longestString: 0, largestArray: 0 };
  const take = (r: { longestString: number; largestArray: number }) => {
    scan.longestString = Math.max(scan.longestString, r.longestString);
    scan.largestArray = Math.max(scan.largestArray, r.largestArray);
  };
  const outside = tokenScanner();
  let from = 0;
  for (let at = buf.indexOf('stream', 0); at >= 0 && scan.inflated <= cap; at = buf.indexOf('stream', at + 6)) {
    // The keyword itself: not `endstream`, followed by an end of line, after a dictionary's `>>`.
    if (buf.toString('latin1', Math.max(0, at - 3), at) === 'end') continue;
    const eol = buf[at + 6] === 0x0d ? (buf[at + 7] === 0x0a ? 2 : 1) : buf[at + 6] === 0x0a ? 1 : 0;
    if (eol === 0) continue;
    const head = buf.toString('latin1', Math.max(0, at - 4096), at);
    const dict = head.slice(head.lastIndexOf(' obj') + 1);
    if (!/>>\s*$/.test(dict)) continue;
    const start = at + 6 + eol;
    const endAt = buf.indexOf('endstream', start);
    const end = endAt < 0 ? buf.length : endAt;
    outside.feed(buf.subarray(from, at));
    from = end + 9;
    if (!tokenized(dict)) continue;
    const data = buf.subarray(start, end);
    const filter = /\/Filter\s*(?:\[\s*)?\/([A-Za-z0-9]+)/.exec(dict)?.[1];
    const tokens = tokenScanner();
    if (filter === undefined) {
      tokens.feed(data);
      scan.inflated += data.length;
    } else if (filter === 'FlateDecode' || filter === 'Fl') {
      scan.inflated += await inflateInto(data, cap - scan.inflated + 1, tokens.feed);
    }
    take(tokens.result);
    at = Math.max(at, end);
  }
  if (from < buf.length) outside.feed(buf.subarray(from));
  take(outside.result);
  return scan;
}

/** Inflates one zlib stream into `sink` piece by piece, stopping once it passed `cap`; returns the bytes it made. */
function inflateInto(data: Buffer, cap: number, sink: (piece: Buffer) => void): Promise<number> {
  return new Promise((resolve) => {
    const inflate = createInflate({ finishFlush: zlib.Z_SYNC_FLUSH });
    let n = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      resolve(n);
    };
    inflate.on('data', (c: Buffer) => {
      if (done) return;
      n += c.length;
      sink(c);
      if (n > cap) {
        inflate.destroy();
        finish();
      }
    });
    inflate.on('end', finish);
    inflate.on('error', finish);
    inflate.on('close', finish);
    inflate.end(data);
  });
}

/**
 * The PDF's text, after the file passed the bounds above; throws PdfBoundError naming the bound it does not keep,
 * and pdf.js's own error for a malformed file.
 */
export async function boundedPdfText(bytes: Uint8Array, limit: number, options: { maxInflatedBytes?: number } = {}): Promise<PdfText> {
  const maxInflated = options.maxInflatedBytes ?? Math.max(MIN_MAX_INFLATED, 3 * limit);
  const scan = await scanPdf(bytes, maxInflated);
  const file = `a ${bytes.length}-byte file`;
  if (scan.inflated > maxInflated) throw new PdfBoundError(`compressed streams inflate to more than ${mib(maxInflated)} (${file}): not read, as a bound on the memory and time its reading takes`);
  if (scan.longestString > MAX_STRING) throw new PdfBoundError(`a string of ${scan.longestString} bytes (${file}; at most ${MAX_STRING}): not read, as a bound on the memory its reading takes`);
  if (scan.largestArray > MAX_ARRAY) throw new PdfBoundError(`an array of ${scan.largestArray} elements (${file}; at most ${MAX_ARRAY}): not read, as a bound on the memory its reading takes`);
  // pdf.js is loaded on first use: most commands never read a PDF.
  const { extractPdfText } = await import('./pdf-text.ts');
  return extractPdfText(new Uint8Array(bytes), limit);
}

const mib = (n: number) => `${Math.round(n / 1024 / 1024)} MiB`;
