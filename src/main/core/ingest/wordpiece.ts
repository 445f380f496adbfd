import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Counts BERT (uncased) word pieces the way all-MiniLM-L6-v2's tokenizer does: basic tokenization (lowercase,
 * strip accents, split punctuation and CJK) then greedy longest-match WordPiece. Chunk sizes must respect the
 * model's 256-piece window, and counting them exactly here keeps the chunker independent of any model files.
 */
export interface WordPieceCounter {
  count(text: string): number;
}

const DEFAULT_VOCAB = fileURLToPath(new URL('../../../../resources/tokenizer/bert-base-uncased-vocab.txt', import.meta.url));
const MAX_WORD_CHARS = 100;

export function loadVocab(path: string = DEFAULT_VOCAB): Set<string> {
  return new Set(readFileSync(path, 'utf8').split('\n').map((l) => l.replace(/\r$/, '')).filter(Boolean));
}

// Control/format chars are dropped, CJK ideographs become single tokens, punctuation splits words.
const WORD_OR_PUNCT = /[\p{L}\p{M}\p{N}]+|[\p{P}\p{S}]|[\u4E00-\u9FFF\u3400-\u4DBF\uF900-\uFAFF]/gu;
const CJK = /[\u4E00-\u9FFF\u3400-\u4DBF\uF900-\uFAFF\u{20000}-\u{2FA1F}]/u;
const COMBINING = /\p{Mn}/gu;
const NON_ASCII = /[^\x00-\x7f]/;

export function createWordPieceCounter(vocab: Set<string> = loadVocab()): WordPieceCounter {
  const cache = new Map<string, number>();
  // Greedy longest match without a substring per try: the vocabulary's pieces (word-initial and "##" continuations
  // apart) sit in char tables, so one left-to-right pass over a word with a rolling hash finds the longest piece it
  // starts with. New words are mostly long and not in the vocabulary, and slicing every substring from the longest
  // down was where counting them spent its time.
  // Sized for the vocabulary (a table takes entries up to half full), whatever vocabulary is loaded.
  let suffixes = 0;
  for (const piece of vocab) if (piece.startsWith('##')) suffixes++;
  const sizeFor = (n: number) => Math.max(10, Math.ceil(Math.log2(2 * n + 2)));
  const initial = new CharTable(sizeFor(vocab.size - suffixes));
  const suffix = new CharTable(sizeFor(suffixes));
  let longestWord = 0;
  let longestSuffix = 0;
  for (const piece of vocab) {
    const isSuffix = piece.startsWith('##');
    const from = isSuffix ? 2 : 0;
    if (piece.length === from) continue; // "##" alone matches nothing
    if (!(isSuffix ? suffix : initial).insert(piece, from, piece.length, fnv1a(piece, from, piece.length), 1)) throw new Error('word piece table full');
    if (isSuffix) longestSuffix = Math.max(longestSuffix, piece.length - 2);
    else longestWord = Math.max(longestWord, piece.length);
  }
  function piecesOf(word: string): number {
    const cached = cache.get(word);
    if (cached !== undefined) return cached;
    const n = countPieces(word, 0, word.length);
    if (cache.size < 200_000) cache.set(word, n);
    return n;
  }
  /** Word pieces in text[from, to), one word. */
  function countPieces(text: string, from: number, to: number): number {
    if (to - from > MAX_WORD_CHARS) return 1;
    let n = 0;
    let start = from;
    while (start < to) {
      const pieces = start > from ? suffix : initial;
      const limit = Math.min(to, start + (start > from ? longestSuffix : longestWord));
      let end = -1;
      let h = FNV_OFFSET;
      for (let e = start; e < limit; e++) {
        h = Math.imul(h ^ text.charCodeAt(e), FNV_PRIME);
        if (pieces.find(text, start, e + 1, h) >= 0) end = e + 1;
      }
      if (end < 0) return 1; // the whole word becomes [UNK]
      n++;
      start = end;
    }
    return n;
  }
  /**
   * The same tokenization as WORD_OR_PUNCT for lowercase ASCII, without the regex: runs of [a-z0-9] are words,
   * every other printable character is punctuation or a symbol (one token each), spaces and controls are dropped.
   * Most code and much prose is ASCII, and this is where ingest spends its counting time.
   */
  // ASCII words by their characters in place, in a char table keyed by an FNV-1a hash of the char codes, so a word
  // seen before costs neither a substring nor a string hash (most of ingest's counting time), and a new word is
  // counted where it stands.
  const words = new CharTable(17);
  function wordAt(text: string, i: number, j: number, h: number): number {
    const known = words.find(text, i, j, h);
    if (known >= 0) return known;
    const n = countPieces(text, i, j);
    // Past half full, words go through piecesOf's own cache.
    if (!words.insert(text, i, j, h, n)) return piecesOf(text.slice(i, j));
    return n;
  }
  // Printable ASCII punctuation and symbols are one character each: their counts, by char code, looked up once.
  const asciiSymbol = new Uint8Array(128);
  for (let c = 33; c < 127; c++) asciiSymbol[c] = piecesOf(String.fromCharCode(c));
  function countAscii(text: string, from = 0, to = text.length): number {
    let total = 0;
    let i = from;
    while (i < to) {
      const c = text.charCodeAt(i);
      if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) {
        // The word's hash is taken on the way (fnv1a's arithmetic), not in a second pass.
        let h = Math.imul(FNV_OFFSET ^ c, FNV_PRIME);
        let j = i + 1;
        for (; j < to; j++) {
          const d = text.charCodeAt(j);
          if (!((d >= 97 && d <= 122) || (d >= 48 && d <= 57))) break;
          h = Math.imul(h ^ d, FNV_PRIME);
        }
        total += wordAt(text, i, j, h);
        i = j;
      } else {
        if (c > 32 && c < 127) total += asciiSymbol[c]!;
        i++;
      }
    }
    return total;
  }
  /** The Unicode path: NFD, combining marks dropped, WORD_OR_PUNCT, CJK ideographs one token each. */
  function countUnicode(lower: string): number {
    let total = 0;
    const normalized = lower.normalize('NFD').replace(COMBINING, '');
    for (const m of normalized.matchAll(WORD_OR_PUNCT)) {
      const w = m[0];
      if (w.length > 1 && CJK.test(w)) {
        for (const ch of w) total += CJK.test(ch) ? 1 : piecesOf(ch);
      } else total += piecesOf(w);
    }
    return total;
  }
  /**
   * Mixed text: no token spans a space or control character (≤ U+0020), and no decomposition or combining mark
   * crosses one, so each space-separated segment is counted on its own, on the ASCII path unless it has a
   * non-ASCII character (one `µ` in an abstract no longer sends the whole line down the regex path).
   */
  function countMixed(lower: string): number {
    let total = 0;
    const n = lower.length;
    let i = 0;
    while (i < n) {
      while (i < n && lower.charCodeAt(i) <= 32) i++;
      let j = i;
      let ascii = true;
      for (; j < n; j++) {
        const c = lower.charCodeAt(j);
        if (c <= 32) break;
        if (c >= 128) ascii = false;
      }
      if (j > i) total += ascii ? countAscii(lower, i, j) : countUnicode(lower.slice(i, j));
      i = j;
    }
    return total;
  }
  return {
    count(text: string): number {
      const lower = text.toLowerCase();
      return NON_ASCII.test(lower) ? countMixed(lower) : countAscii(lower);
    },
  };
}

const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

/** FNV-1a over the UTF-16 code units text[from, to), as a signed 32-bit integer. */
function fnv1a(text: string, from: number, to: number): number {
  let h = FNV_OFFSET;
  for (let k = from; k < to; k++) h = Math.imul(h ^ text.charCodeAt(k), FNV_PRIME);
  return h;
}

/**
 * Strings (runs of UTF-16 code units) to non-negative integers, found by the caller's hash and the string's chars
 * where they stand, without making a string: open addressing over one Int32Array (hash, offset, length, value)
 * and one flat copy of the chars. It stops taking entries at half full, so probes stay short.
 */
class CharTable {
  private readonly mask: number;
  private readonly entries: Int32Array;
  private chars = new Uint16Array(1 << 16);
  private charsUsed = 0;
  private size = 0;

  constructor(slotsLog2: number) {
    this.mask = (1 << slotsLog2) - 1;
    this.entries = new Int32Array((1 << slotsLog2) * 4);
  }

  /** The value stored for text[from, to) (whose hash is h), or -1. */
  find(text: string, from: number, to: number, h: number): number {
    const len = to - from;
    const { entries, chars, mask } = this;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const at = slot * 4;
      const l = entries[at + 2]!;
      if (l === 0) return -1;
      if (l === len && entries[at] === h) {
        const off = entries[at + 1]!;
        let k = 0;
        while (k < len && chars[off + k] === text.charCodeAt(from + k)) k++;
        if (k === len) return entries[at + 3]!;
      }
    }
  }

  /** Stores text[from, to) (not yet in the table, non-empty) with its value; false when the table is half full. */
  insert(text: string, from: number, to: number, h: number, value: number): boolean {
    if (this.size * 2 >= this.mask + 1) return false;
    const len = to - from;
    if (this.charsUsed + len > this.chars.length) {
      const grown = new Uint16Array(Math.max(this.chars.length * 2, this.charsUsed + len));
      grown.set(this.chars);
      this.chars = grown;
    }
    for (let k = 0; k < len; k++) this.chars[this.charsUsed + k] = text.charCodeAt(from + k);
    let slot = h & this.mask;
    while (this.entries[slot * 4 + 2] !== 0) slot = (slot + 1) & this.mask;
    const at = slot * 4;
    this.entries[at] = h;
    this.entries[at + 1] = this.charsUsed;
    this.entries[at + 2] = len;
    this.entries[at + 3] = value;
    this.charsUsed += len;
    this.size++;
    return true;
  }
}
