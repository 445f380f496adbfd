import { createHash } from 'node:crypto';
import type { SearchHit } from '../../../shared/types.ts';
import { parserFor } from '../ingest/code/grammars.ts';
import { symbolLanguage } from '../ingest/code/languages.ts';
import { topLevelSymbols, type CodeSymbol } from '../ingest/code/symbols.ts';
import { unitWindows, windowTerms } from './unit-windows.ts';
import type { TaskTerms } from '../search/task-terms.ts';

// Issue #23 item 2: a hit inside a function shows the whole function (capped), neighbouring hits of one file become
// one span, a file's spans are shown in line order, and the span is named after the definition it holds.

/** A definition's lines (1-based, inclusive) with its qualified name and nesting depth (0: top level). */
export interface Definition {
  name: string;
  start: number;
  end: number;
  depth: number;
}

/** A definition longer than this is not shown whole: its hit chunk stands instead. */
export const MAX_UNIT_LINES = 150;
/** At most this many over-cap definitions of a packet show windows (its most relevant ones). */
export const WINDOW_UNITS = 3;
/** A window's relevance: this share of the best hit in its unit. */
const WINDOW_FACTOR = 0.9;
/** Spans of one file this close (in lines) become one. */
const MERGE_GAP = 3;

// Parsing is most of a packet's cost for large files; a long-running server packs the same files again and again.
const DEFS_CACHE = 256;
const defsCache = new Map<string, Definition[]>();

/** Every definition of a source file, nested ones included, in source order; [] for other files or on a parse failure. */
export async function definitionsOf(path: string, text: string): Promise<Definition[]> {
  const lang = symbolLanguage(path);
  if (!lang) return [];
  const key = `${lang}\0${createHash('sha1').update(text).digest('hex')}`;
  const hit = defsCache.get(key);
  if (hit) {
    defsCache.delete(key);
    defsCache.set(key, hit);
    return hit;
  }
  const defs = await parseDefinitions(lang, text);
  defsCache.set(key, defs);
  if (defsCache.size > DEFS_CACHE) defsCache.delete(defsCache.keys().next().value!);
  return defs;
}

async function parseDefinitions(lang: NonNullable<ReturnType<typeof symbolLanguage>>, text: string): Promise<Definition[]> {
  const parser = await parserFor(lang);
  const tree = parser.parse(text);
  if (!tree) return [];
  const out: Definition[] = [];
  const walk = (syms: CodeSymbol[], depth: number) => {
    for (const s of syms) {
      out.push({ name: s.name, start: s.startRow + 1, end: s.endRow + 1, depth });
      // Only definitions that could hold a smaller unit are opened (a short function's inner helpers add nothing).
      if (depth < 3 && s.endRow - s.startRow + 1 > 8) walk(s.children(), depth + 1);
    }
  };
  try {
    walk(topLevelSymbols(tree.rootNode, lang), 0);
  } finally {
    tree.delete();
  }
  return out;
}

/**
 * The lines to show for a hit on [start, end]: the innermost definition that contains the hit and is at most
 * `cap` lines; the definitions the hit overlaps when it spans several (a chunk of small neighbours), if their union
 * fits the cap; else the hit itself. `name`: the main definition (the innermost holding the hit's first line).
 */
export function unitFor(defs: readonly Definition[], start: number, end: number, cap = MAX_UNIT_LINES): { start: number; end: number; names: string[] } {
  const containing = defs.filter((d) => d.start <= start && d.end >= end && d.end - d.start + 1 <= cap);
  if (containing.length > 0) {
    const inner = containing.reduce((a, b) => (b.depth > a.depth || (b.depth === a.depth && b.end - b.start < a.end - a.start) ? b : a));
    return { start: inner.start, end: inner.end, names: namesIn(defs, inner.start, inner.end, inner.name) };
  }
  // A chunk of small neighbours: the outermost definitions it overlaps, whole, if together they fit the cap.
  const partial = defs.filter((d) => d.start <= end && d.end >= start && !(d.start <= start && d.end >= end));
  if (partial.length > 0) {
    const top = Math.min(...partial.map((d) => d.depth));
    const outer = partial.filter((d) => d.depth === top);
    const s = Math.min(start, ...outer.map((d) => d.start));
    const e = Math.max(end, ...outer.map((d) => d.end));
    if (e - s + 1 <= cap) return { start: s, end: e, names: namesIn(defs, s, e, null) };
  }
  return { start, end, names: namesIn(defs, start, end, null) };
}

/** The innermost definition holding [start, end] when every definition holding it is over `cap` lines; else null. */
export function overCapUnit(defs: readonly Definition[], start: number, end: number, cap = MAX_UNIT_LINES): Definition | null {
  const containing = defs.filter((d) => d.start <= start && d.end >= end);
  if (containing.length === 0 || containing.some((d) => d.end - d.start + 1 <= cap)) return null;
  return containing.reduce((a, b) => (b.end - b.start < a.end - a.start ? b : a));
}

/** Definitions fully inside [start, end], outermost first; `main` (when given) leads. */
function namesIn(defs: readonly Definition[], start: number, end: number, main: string | null): string[] {
  const inside = defs.filter((d) => d.start >= start && d.end <= end).sort((a, b) => a.depth - b.depth || a.start - b.start);
  const minDepth = inside.length > 0 ? inside[0]!.depth : 0;
  const names = inside.filter((d) => d.depth === minDepth).map((d) => d.name);
  if (main === null) {
    // No definition holds the whole span: name the one it is inside of.
    if (names.length === 0) {
      const around = defs.filter((d) => d.start <= start && d.end >= end).sort((a, b) => b.depth - a.depth)[0];
      return around ? [around.name] : [];
    }
    return names;
  }
  return [main, ...names.filter((n) => n !== main)];
}

/** A file's span to show: lines, the hits it covers, names for its anchor (its best hit's definition first). */
export interface Span {
  start: number;
  end: number;
  hits: SearchHit[];
  names: string[];
  /** Relevance of its best hit, 0..1. */
  best: number;
}

/** Merges spans of one file that overlap or lie within MERGE_GAP lines, in line order; names follow their spans' best hit. */
export function mergeSpans(spans: readonly Span[]): Span[] {
  const sorted = [...spans].sort((a, b) => a.start - b.start || a.end - b.end);
  const out: Span[] = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    // Overlapping spans always become one; neighbours only while the result stays a unit's size, so one file's many
    // small hits do not grow into one item the size of the packet, shown or compressed as a whole.
    if (last && (s.start <= last.end || (s.start <= last.end + MERGE_GAP && Math.max(last.end, s.end) - last.start < MAX_UNIT_LINES))) {
      last.end = Math.max(last.end, s.end);
      last.hits.push(...s.hits);
      const [lead, rest] = s.best > last.best ? [s.names, last.names] : [last.names, s.names];
      last.names = [...new Set([...lead, ...rest])];
      last.best = Math.max(last.best, s.best);
    } else out.push({ ...s, hits: [...s.hits], names: [...s.names] });
  }
  return out;
}

/** A hit with its relevance relative to the best hit (0..1). */
export interface RankedHit {
  hit: SearchHit;
  relative: number;
}

/** What the packet shows for one span: a hit-shaped record over the span's lines, named after its main definition. */
export interface UnitHit {
  hit: SearchHit;
  relative: number;
  /** The other definitions the span holds. */
  also: string[];
}

/**
 * Hits (in rank order) → spans to show: each code hit widened to its whole definition, spans of one file merged and
 * kept in line order, files in the order of their best hit. `documentText` gives a document's lines from the store
 * (null: the hits are shown as they are).
 */
export async function wholeUnits(hits: readonly RankedHit[], documentText: ((documentId: number) => string[] | null) | null, query: string | TaskTerms = ''): Promise<UnitHit[]> {
  const terms = query ? windowTerms(query) : [];
  const byDoc = new Map<number, RankedHit[]>();
  for (const h of hits) {
    const list = byDoc.get(h.hit.documentId);
    if (list) list.push(h);
    else byDoc.set(h.hit.documentId, [h]);
  }
  type Raw = { start: number; end: number; hits: SearchHit[]; names: string[]; best: number };
  const docs: { list: RankedHit[]; lines: string[] | null; raw: Raw[]; big: Map<Definition, number> }[] = [];
  for (const [doc, list] of byDoc) {
    const path = list[0]!.hit.relPath ?? list[0]!.hit.path;
    // Whole files only (a JSONL record's lines are not its document's).
    // Only a code file (whole definitions) or a file with several hits (merging) needs its text.
    const lines = documentText && list[0]!.hit.externalId == null && (list.length > 1 || symbolLanguage(path)) ? documentText(doc) : null;
    const defs = lines && symbolLanguage(path) ? await definitionsOf(path, lines.join('\n')) : [];
    const raw: Raw[] = list.map(({ hit, relative }) => {
      const u = defs.length > 0 ? unitFor(defs, hit.lineStart, hit.lineEnd) : { start: hit.lineStart, end: hit.lineEnd, names: [] };
      return { start: u.start, end: u.end, hits: [hit], names: u.names, best: relative };
    });
    const big = new Map<Definition, number>();
    if (lines && terms.length > 0) {
      for (const { hit, relative } of list) {
        const d = overCapUnit(defs, hit.lineStart, hit.lineEnd);
        if (d) big.set(d, Math.max(big.get(d) ?? 0, relative));
      }
    }
    docs.push({ list, lines, raw, big });
  }
  // A hit inside a definition over the cap: that definition's lines matching the query best (unit-windows.ts), for
  // the WINDOW_UNITS most relevant such definitions of the packet.
  // Keyed by document too: files with the same text share their cached definitions.
  const windowed = new Set(
    docs
      .flatMap((d, i) => [...d.big].map(([def, relative]) => ({ def, relative, i })))
      .sort((a, b) => b.relative - a.relative || a.i - b.i || a.def.start - b.def.start)
      .slice(0, WINDOW_UNITS)
      .map((x) => `${x.i}:${x.def.start}:${x.def.end}`),
  );
  const out: UnitHit[] = [];
  for (const [i, { list, lines, raw, big }] of docs.entries()) {
    if (lines) {
      for (const [d, relative] of big) {
        if (!windowed.has(`${i}:${d.start}:${d.end}`)) continue;
        for (const w of unitWindows(lines, d, terms, raw)) {
          const hit = list.find((h) => h.relative === relative)!.hit;
          raw.push({ start: w.start, end: w.end, hits: [{ ...hit, lineStart: w.start, lineEnd: w.end, text: lines.slice(w.start - 1, w.end).join('\n'), anchor: '' }], names: [d.name], best: relative * WINDOW_FACTOR });
        }
      }
    }
    const spans = lines ? mergeSpans(raw) : raw;
    const rel = new Map(list.map((h) => [h.hit, h.relative]));
    for (const s of spans) {
      const lead = s.hits.reduce((a, b) => ((rel.get(b) ?? 0) > (rel.get(a) ?? 0) ? b : a));
      const single = s.hits.length === 1 && s.start === lead.lineStart && s.end === lead.lineEnd;
      const text = single || !lines ? lead.text : lines.slice(s.start - 1, s.end).join('\n');
      const [main, ...also] = s.names.length > 0 ? s.names : [lead.anchor];
      out.push({
        hit: { ...lead, lineStart: s.start, lineEnd: s.end, text, anchor: single && s.names.length === 0 ? lead.anchor : (main ?? lead.anchor) },
        relative: s.best,
        also,
      });
    }
  }
  return out;
}
