import { getDefaultRedactor, type Redactor } from '../../redact/index.ts';
import { buildChunk, chunkLines, DEFAULT_MAX_TOKENS, packUnits, toUnits, type ChunkDraft, type ChunkOptions, type Unit } from '../chunker.ts';
import { parserFor, type CodeLanguage } from './grammars.ts';
import { topLevelSymbols, type CodeSymbol } from './symbols.ts';

/**
 * A run of whole lines (0-based rows, inclusive) that chunks as one piece: a definition, or the lines between
 * definitions (imports, top-level statements). `name` is the definition; `inherited` marks the lines of a split
 * definition outside its nested ones (its header, closing brace), which carry the definition's name but do not
 * claim an anchor over a real one.
 */
interface Segment {
  startRow: number;
  endRow: number;
  name: string | null;
  inherited: boolean;
  tokens: number;
  /** Already chunked (a definition too big for one chunk, with no nested definitions to split at). */
  chunks?: ChunkDraft[];
}

export interface CodeChunkOptions extends ChunkOptions {
  /** Symbol names pass the gate before they become anchors (default: the process-wide redactor). */
  redactor?: Redactor;
  /** The file the code came from, for the redaction log. */
  source?: string;
}

/**
 * Chunks source code at definition boundaries: each function, class or method is a chunk anchored by its name
 * (`hookRunnerGenerator`, `Router.handle`), small neighbours share a chunk, a definition over the word-piece
 * budget is split at its nested definitions or, with none, by lines with the usual overlap. Every chunk keeps the
 * exact budget of the line chunker. A file the parser cannot read falls back to the line chunker.
 */
export async function chunkCode(text: string, lang: CodeLanguage, options: CodeChunkOptions): Promise<ChunkDraft[]> {
  const parser = await parserFor(lang);
  const tree = parser.parse(text);
  if (!tree) return chunkLines(text, options);
  let segments: Segment[];
  const lines = text.split(/\r?\n/);
  const units = toUnits(lines, 1, options);
  const ix = indexUnits(units, lines.length);
  try {
    segments = layout(topLevelSymbols(tree.rootNode, lang), 0, lines.length - 1, null, ix, units, options);
  } finally {
    tree.delete();
  }
  const chunks = merge(segments, ix, units, options);
  return gateNames(chunks, options);
}

interface UnitIndex {
  /** firstUnit[row]: index of the row's first unit; firstUnit[rows] = units.length. */
  firstUnit: Int32Array;
  /** prefix[i]: tokens of units [0, i). */
  prefix: Float64Array;
}

function indexUnits(units: Unit[], rows: number): UnitIndex {
  const firstUnit = new Int32Array(rows + 1).fill(-1);
  const prefix = new Float64Array(units.length + 1);
  for (let i = 0; i < units.length; i++) {
    const row = units[i]!.line - 1;
    if (firstUnit[row] === -1) firstUnit[row] = i;
    prefix[i + 1] = prefix[i]! + units[i]!.tokens;
  }
  firstUnit[rows] = units.length;
  for (let r = rows - 1; r >= 0; r--) if (firstUnit[r] === -1) firstUnit[r] = firstUnit[r + 1]!;
  return { firstUnit, prefix };
}

const unitRange = (ix: UnitIndex, a: number, b: number): [number, number] => [ix.firstUnit[a]!, ix.firstUnit[b + 1]!];
const tokensOf = (ix: UnitIndex, a: number, b: number): number => {
  const [u, v] = unitRange(ix, a, b);
  return ix.prefix[v]! - ix.prefix[u]!;
};

/** Rows [lo, hi] as segments: the definitions in them and the lines between; oversized definitions are split. */
function layout(symbols: CodeSymbol[], lo: number, hi: number, parent: string | null, ix: UnitIndex, units: Unit[], options: ChunkOptions): Segment[] {
  const max = options.maxTokens ?? DEFAULT_MAX_TOKENS;
  const out: Segment[] = [];
  const gap = (a: number, b: number) => {
    if (a <= b) out.push({ startRow: a, endRow: b, name: parent, inherited: true, tokens: tokensOf(ix, a, b) });
  };
  let cursor = lo;
  for (const s of symbols) {
    const start = Math.max(s.startRow, cursor);
    const end = Math.min(s.endRow, hi);
    if (end < start) continue; // shares a row with the previous definition: it already holds it
    gap(cursor, start - 1);
    const tokens = tokensOf(ix, start, end);
    if (tokens <= max) out.push({ startRow: start, endRow: end, name: s.name, inherited: false, tokens });
    else {
      const kids = s.children();
      if (kids.length > 0) out.push(...layout(kids, start, end, s.name, ix, units, options));
      else {
        const [u, v] = unitRange(ix, start, end);
        const chunks = packUnits(units.slice(u, v), options, { headingPath: [s.name], anchor: s.name });
        out.push({ startRow: start, endRow: end, name: s.name, inherited: false, tokens, chunks });
      }
    }
    cursor = end + 1;
  }
  gap(cursor, hi);
  // Lines between definitions that are too big for a chunk (long top-level scripts) are split by lines.
  return out.map((seg) => {
    if (seg.chunks || seg.tokens <= max) return seg;
    const [u, v] = unitRange(ix, seg.startRow, seg.endRow);
    const meta = seg.name ? { headingPath: [seg.name], anchor: seg.name } : { headingPath: [], anchor: '' };
    return { ...seg, chunks: packUnits(units.slice(u, v), options, meta) };
  });
}

/**
 * Neighbouring segments share a chunk while they fit the budget, except that two definitions of half a chunk or
 * more each keep their own: a chunk then names one definition, which is what its anchor says.
 */
function merge(segments: Segment[], ix: UnitIndex, units: Unit[], options: ChunkOptions): ChunkDraft[] {
  const max = options.maxTokens ?? DEFAULT_MAX_TOKENS;
  const big = (s: Segment) => !s.inherited && s.name !== null && s.tokens >= max / 2;
  const out: ChunkDraft[] = [];
  let group: Segment[] = [];
  let groupTokens = 0;
  const flush = () => {
    if (group.length === 0) return;
    const [u, v] = unitRange(ix, group[0]!.startRow, group[group.length - 1]!.endRow);
    const own = [...new Set(group.filter((s) => !s.inherited && s.name).map((s) => s.name!))];
    const inherited = [...new Set(group.filter((s) => s.inherited && s.name).map((s) => s.name!))];
    const anchor = own[0] ?? inherited[0] ?? '';
    const chunk = buildChunk(units.slice(u, v), { headingPath: [...inherited.filter((n) => !own.includes(n)), ...own], anchor });
    if (chunk) out.push(chunk);
    group = [];
    groupTokens = 0;
  };
  const strong = (s: Segment) => !s.inherited && s.name !== null;
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    if (seg.chunks) {
      flush();
      out.push(...seg.chunks);
      continue;
    }
    // Lines between definitions (a class header, a comment, blank lines) go with the next definition rather than
    // after a big one, when they fit with it.
    if (!strong(seg) && group.some(big)) {
      let j = i;
      let ahead = 0;
      while (j < segments.length && !segments[j]!.chunks && !strong(segments[j]!)) ahead += segments[j++]!.tokens;
      const next = segments[j];
      if (next && !next.chunks && ahead + next.tokens <= max) flush();
    }
    const clash = (big(seg) && group.some((g) => !g.inherited && g.name !== null)) || (!seg.inherited && seg.name !== null && group.some(big));
    if (group.length > 0 && (groupTokens + seg.tokens > max || clash)) flush();
    group.push(seg);
    groupTokens += seg.tokens;
  }
  flush();
  return out;
}

/**
 * Symbol names are file content that becomes provenance (anchors, heading paths): each passes the redaction gate
 * first, all of a file's names in one call, and a name the gate flags is replaced by `redacted`.
 */
function gateNames(chunks: ChunkDraft[], options: CodeChunkOptions): ChunkDraft[] {
  const names = [...new Set(chunks.flatMap((c) => [c.anchor, ...c.headingPath]).filter((n) => n !== ''))];
  if (names.length === 0) return chunks;
  const redactor = options.redactor ?? getDefaultRedactor();
  const r = redactor.redactText(names.join('\n'), { source: options.source ?? 'code symbols', section: 'ANCHOR' });
  if (r.redactions.length === 0) return chunks;
  const flagged = new Set(r.redactions.map((e) => names[e.line - 1]));
  const safe = (n: string) => (flagged.has(n) ? 'redacted' : n);
  return chunks.map((c) => ({ ...c, anchor: safe(c.anchor), headingPath: c.headingPath.map(safe) }));
}
