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
  function piecesOf(word: string): number {
    const cached = cache.get(word);
    if (cached !== undefined) return cached;
    let n: number;
    if (word.length > MAX_WORD_CHARS) n = 1;
    else {
      n = 0;
      let start = 0;
      while (start < word.length) {
        let end = word.length;
        let found = false;
        while (start < end) {
          const piece = (start > 0 ? '##' : '') + word.slice(start, end);
          if (vocab.has(piece)) {
            found = true;
            break;
          }
          end--;
        }
        if (!found) {
          n = 1; // the whole word becomes [UNK]
          break;
        }
        n++;
        start = end;
      }
    }
    if (cache.size < 200_000) cache.set(word, n);
    return n;
  }
  /**
   * The same tokenization as WORD_OR_PUNCT for lowercase ASCII, without the regex: runs of [a-z0-9] are words,
   * every other printable character is punctuation or a symbol (one token each), spaces and controls are dropped.
   * Most code and much prose is ASCII, and this is where ingest spends its counting time.
   */
  // ASCII words by their characters in place: an open-addressing table keyed by an FNV-1a hash of the char codes,
  // checked char by char, so a word seen before costs neither a substring nor a string hash (most of ingest's
  // counting time). A new word is sliced once and counted by piecesOf.
  const SLOTS = 1 << 18;
  const slotWords: (string | undefined)[] = new Array(SLOTS);
  const slotCounts = new Int32Array(SLOTS);
  let used = 0;
  function wordAt(text: string, i: number, j: number): number {
    let h = 0x811c9dc5;
    for (let k = i; k < j; k++) h = Math.imul(h ^ text.charCodeAt(k), 0x01000193);
    let slot = (h >>> 0) & (SLOTS - 1);
    const len = j - i;
    for (;;) {
      const w = slotWords[slot];
      if (w === undefined) break;
      if (w.length === len) {
        let k = 0;
        while (k < len && w.charCodeAt(k) === text.charCodeAt(i + k)) k++;
        if (k === len) return slotCounts[slot]!;
      }
      slot = (slot + 1) & (SLOTS - 1);
    }
    const word = text.slice(i, j);
    const n = piecesOf(word);
    // Half full at most, so probes stay short; past that, words go through piecesOf's own cache.
    if (used < SLOTS / 2) {
      slotWords[slot] = word;
      slotCounts[slot] = n;
      used++;
    }
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
        let j = i + 1;
        for (; j < to; j++) {
          const d = text.charCodeAt(j);
          if (!((d >= 97 && d <= 122) || (d >= 48 && d <= 57))) break;
        }
        total += wordAt(text, i, j);
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
