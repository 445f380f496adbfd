import { safeLabel, uniqueAnchor } from './anchors.ts';
import type { WordPieceCounter } from './wordpiece.ts';

/** Bump when chunk boundaries change: stored chunks (and vectors) of an older version get rebuilt. 2: symbol chunks for code. */
export const CHUNKER_VERSION = 2;

export interface ChunkDraft {
  text: string;
  headingPath: string[];
  anchor: string;
  lineStart: number;
  lineEnd: number;
  tokenCount: number;
}

export interface ChunkOptions {
  counter: WordPieceCounter;
  /** all-MiniLM-L6-v2 sees 256 pieces including [CLS] and [SEP]. */
  maxTokens?: number;
  overlapTokens?: number;
}

export interface Unit {
  text: string;
  line: number;
  tokens: number;
}

export interface SectionMeta {
  headingPath: string[];
  anchor: string;
}

export const DEFAULT_MAX_TOKENS = 254;
const DEFAULT_OVERLAP_TOKENS = 32;

/** Line-aware chunking for code, plain text and prose; a line too long for one chunk is split at sentences, then words. */
export function chunkLines(text: string, options: ChunkOptions, firstLine = 1, meta: SectionMeta = { headingPath: [], anchor: '' }): ChunkDraft[] {
  return packUnits(toUnits(splitLines(text), firstLine, options), options, meta);
}

/** `sections`: markdownSections(text) when the caller already has them (readers also need the H1), so text is split once. */
export function chunkMarkdown(text: string, options: ChunkOptions, sections: MarkdownSection[] = markdownSections(text)): ChunkDraft[] {
  const chunks: ChunkDraft[] = [];
  for (const section of sections) {
    chunks.push(...packUnits(toUnits(section.lines, section.startLine, options), options, section));
  }
  return chunks;
}

export interface MarkdownSection extends SectionMeta {
  level: number;
  startLine: number;
  lines: string[];
}

const ATX_HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Splits markdown at ATX headings outside fenced code; each section knows its heading path and GitHub-style anchor. */
export function markdownSections(text: string): MarkdownSection[] {
  const lines = text.split(/\r?\n/);
  const sections: MarkdownSection[] = [];
  const stack: { level: number; title: string }[] = [];
  const slugCounts = new Map<string, number>();
  let current: MarkdownSection = { headingPath: [], anchor: '', level: 0, startLine: 1, lines: [] };
  let fence: string | null = null;
  lines.forEach((line, i) => {
    const f = FENCE.exec(line);
    if (f) {
      const marker = f[1]!;
      if (fence === null) fence = marker[0]!.repeat(marker.length);
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = null;
    }
    const h = fence === null && !f ? ATX_HEADING.exec(line) : null;
    if (h) {
      if (current.lines.length > 0) sections.push(current);
      const level = h[1]!.length;
      const raw = h[2]!.trim();
      // The heading path and anchor are stored and shown on their own: both come from the gated heading.
      const title = safeLabel(raw);
      while (stack.length > 0 && stack[stack.length - 1]!.level >= level) stack.pop();
      stack.push({ level, title });
      current = { headingPath: stack.map((s) => s.title), anchor: uniqueAnchor(raw, slugCounts), level, startLine: i + 1, lines: [] };
    }
    current.lines.push(line);
  });
  if (current.lines.length > 0) sections.push(current);
  return sections;
}

export { slugify } from './anchors.ts';

/** `text.split(/\r?\n/)`, without the regex for the common text that has no line break at all. */
export function splitLines(text: string): string[] {
  return text.indexOf('\n') === -1 ? [text] : text.split(/\r?\n/);
}

const SENTENCE_BREAK = /[.!?;]\s+/g;

/**
 * `text.split(/(?<=[.!?;])\s+/)` (each sentence keeps its closing mark, the spaces after it are dropped), found
 * with a plain global regex: the look-behind split was three times slower, a tenth of ingest's chunking time.
 */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  let from = 0;
  SENTENCE_BREAK.lastIndex = 0;
  for (let m = SENTENCE_BREAK.exec(text); m !== null; m = SENTENCE_BREAK.exec(text)) {
    out.push(text.slice(from, m.index + 1));
    from = m.index + m[0].length;
  }
  out.push(text.slice(from));
  return out;
}

export function toUnits(lines: string[], firstLine: number, options: ChunkOptions): Unit[] {
  const max = options.maxTokens ?? DEFAULT_MAX_TOKENS;
  const units: Unit[] = [];
  lines.forEach((text, i) => {
    const line = firstLine + i;
    // A line that may be over the window is counted by sentences once: word pieces never span whitespace, so the
    // sentences' counts add up to the line's, and a line that needs splitting is not counted twice.
    const sentences = text.length > max ? splitSentences(text) : null;
    if (sentences && sentences.length > 1) {
      const counts = sentences.map((x) => options.counter.count(x));
      const tokens = counts.reduce((a, b) => a + b, 0);
      if (tokens <= max) units.push({ text, line, tokens });
      else for (const piece of splitLongLine(sentences, counts, max, options.counter)) units.push({ ...piece, line });
      return;
    }
    const tokens = options.counter.count(text);
    if (tokens <= max) units.push({ text, line, tokens });
    else for (const piece of splitLongLine([text], [tokens], max, options.counter)) units.push({ ...piece, line });
  });
  return units;
}

function splitLongLine(sentences: string[], counts: number[], max: number, counter: WordPieceCounter): { text: string; tokens: number }[] {
  const pieces: { text: string; tokens: number }[] = [];
  for (let si = 0; si < sentences.length; si++) {
    const sentence = sentences[si]!;
    const tokens = counts[si]!;
    if (tokens <= max) {
      pieces.push({ text: sentence, tokens });
      continue;
    }
    // A single sentence over the window: cut at whitespace into runs that fit.
    let run: string[] = [];
    let runTokens = 0;
    for (const word of sentence.split(/\s+/)) {
      const t = counter.count(word);
      if (run.length > 0 && runTokens + t > max) {
        pieces.push({ text: run.join(' '), tokens: runTokens });
        run = [];
        runTokens = 0;
      }
      if (t > max) {
        // One "word" longer than the window (minified code, base64): hard-cut by characters.
        const step = Math.max(16, Math.floor((word.length * max) / t));
        for (let i = 0; i < word.length; i += step) {
          const part = word.slice(i, i + step);
          pieces.push({ text: part, tokens: counter.count(part) });
        }
        continue;
      }
      run.push(word);
      runTokens += t;
    }
    if (run.length > 0) pieces.push({ text: run.join(' '), tokens: runTokens });
  }
  return pieces;
}

export function packUnits(units: Unit[], options: ChunkOptions, meta: SectionMeta): ChunkDraft[] {
  const max = options.maxTokens ?? DEFAULT_MAX_TOKENS;
  const overlap = options.overlapTokens ?? DEFAULT_OVERLAP_TOKENS;
  const chunks: ChunkDraft[] = [];
  let start = 0;
  while (start < units.length) {
    let end = start;
    let tokens = 0;
    while (end < units.length && (end === start || tokens + units[end]!.tokens <= max)) {
      tokens += units[end]!.tokens;
      end++;
    }
    const chunk = buildChunk(units.slice(start, end), meta);
    if (chunk) chunks.push(chunk);
    if (end >= units.length) break;
    // Carry the tail of this chunk into the next one, but always move forward.
    let next = end;
    let carried = 0;
    while (next - 1 > start && carried + units[next - 1]!.tokens <= overlap) {
      next--;
      carried += units[next]!.tokens;
    }
    start = next;
  }
  return chunks;
}

export function buildChunk(units: Unit[], meta: SectionMeta): ChunkDraft | null {
  let a = 0;
  let b = units.length;
  while (a < b && units[a]!.text.trim() === '') a++;
  while (b > a && units[b - 1]!.text.trim() === '') b--;
  if (a === b) return null;
  const kept = units.slice(a, b);
  let text = kept[0]!.text;
  let tokenCount = kept[0]!.tokens;
  for (let i = 1; i < kept.length; i++) {
    text += (kept[i]!.line === kept[i - 1]!.line ? ' ' : '\n') + kept[i]!.text;
    tokenCount += kept[i]!.tokens;
  }
  return { text, headingPath: meta.headingPath, anchor: meta.anchor, lineStart: kept[0]!.line, lineEnd: kept[kept.length - 1]!.line, tokenCount };
}
