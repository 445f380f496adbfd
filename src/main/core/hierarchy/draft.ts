import type { Database } from 'better-sqlite3';
import type { SectionDraft } from '../../../shared/memory.ts';
import { STOPWORDS, buildFtsQuery } from '../search/fts-query.ts';
import { relPathOf } from './markers.ts';

export interface DraftOptions {
  level: 2 | 3;
  title: string;
  /** Restrict to L4 files under this path relative to the ingest root (e.g. 'src/auth/'). */
  pathPrefix?: string;
  /** Or pick the candidate chunks by BM25 for this text. */
  query?: string;
  /** L2: sentences in the summary (default 4). L3: chunks excerpted (default 4). */
  size?: number;
  /** Candidate chunks considered (default 200). */
  candidates?: number;
}

interface Chunk {
  id: number;
  text: string;
  path: string;
  root: string;
  line_start: number;
  line_end: number;
}

const TOKEN = /[\p{L}\p{N}]+/gu;
const terms = (text: string): string[] => (text.normalize('NFKC').toLowerCase().match(TOKEN) ?? []).filter((t) => t.length > 1 && !STOPWORDS.has(t) && !/^\d+$/.test(t));

/**
 * Scores each unit by its summed cosine similarity (TF-IDF over terms) to every other unit: the units that share
 * the most vocabulary with the rest are the most representative (degree centrality, LexRank without the walk).
 */
export function centrality(units: readonly string[]): number[] {
  const tfs = units.map((u) => {
    const tf = new Map<string, number>();
    for (const t of terms(u)) tf.set(t, (tf.get(t) ?? 0) + 1);
    return tf;
  });
  const df = new Map<string, number>();
  for (const tf of tfs) for (const t of tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const n = units.length;
  const vecs = tfs.map((tf) => {
    const v = new Map<string, number>();
    let norm = 0;
    for (const [t, f] of tf) {
      const w = (1 + Math.log(f)) * Math.log(1 + n / df.get(t)!);
      v.set(t, w);
      norm += w * w;
    }
    norm = Math.sqrt(norm);
    if (norm > 0) for (const [t, w] of v) v.set(t, w / norm);
    return v;
  });
  const scores = new Array<number>(n).fill(0);
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const [small, large] = vecs[i]!.size <= vecs[j]!.size ? [vecs[i]!, vecs[j]!] : [vecs[j]!, vecs[i]!];
      let dot = 0;
      for (const [t, w] of small) dot += w * (large.get(t) ?? 0);
      scores[i]! += dot;
      scores[j]! += dot;
    }
  }
  return scores;
}

/**
 * An extractive draft for an L2 or L3 section from the L4 chunks: never the user's text, always marked as a draft
 * with the § references it was drawn from, for the user to edit.
 */
export function draftSection(db: Database, options: DraftOptions): SectionDraft {
  const size = options.size ?? 4;
  const chunks = candidateChunks(db, options);
  const banner = (what: string) => `> **DRAFT** — extractive (term-overlap centrality over ${chunks.length} chunk${chunks.length === 1 ? '' : 's'}${what}); not reviewed. Edit it before saving it as an L${options.level} section.`;
  const ref = (c: Chunk) => `§4.${relPathOf(c.path, c.root)}`;
  const lines = (c: Chunk) => `${c.line_start}-${c.line_end}`;
  if (chunks.length === 0) {
    return { draft: true, level: options.level, title: options.title, text: `${banner('')}\n\n(no indexed text matched)\n`, method: 'term-overlap-centrality', sources: [] };
  }
  const scores = centrality(chunks.map((c) => c.text));
  const ranked = chunks.map((c, i) => ({ c, score: scores[i]! })).sort((a, b) => b.score - a.score || a.c.id - b.c.id);

  if (options.level === 3) {
    const picked = ranked.slice(0, size);
    const body = picked.map(({ c }) => `From ${ref(c)}, lines ${lines(c)}:\n\n${excerpt(c.text, 1200)}`).join('\n\n');
    return {
      draft: true,
      level: 3,
      title: options.title,
      text: `${banner('')}\n\n${body}\n`,
      method: 'term-overlap-centrality',
      sources: picked.map(({ c, score }) => ({ chunk_id: c.id, marker: ref(c), lines: lines(c), score })),
    };
  }

  // L2: sentences from the most central chunks, ranked by their own centrality, shown in reading order.
  const pool = ranked.slice(0, Math.max(size * 3, 10));
  const sentences = pool.flatMap(({ c }) => splitSentences(c.text).map((s, k) => ({ s, c, order: c.id * 10_000 + k })));
  const sScores = centrality(sentences.map((x) => x.s));
  const best = sentences
    .map((x, i) => ({ ...x, score: sScores[i]! }))
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, size)
    .sort((a, b) => a.order - b.order);
  const refs = [...new Set(best.map((b) => ref(b.c)))];
  const text = `${banner(', top sentences')}\n\n${best.map((b) => b.s).join(' ')}\n\nSources: ${refs.join(', ')}\n`;
  const seen = new Set<number>();
  const sources = best.filter((b) => !seen.has(b.c.id) && seen.add(b.c.id)).map((b) => ({ chunk_id: b.c.id, marker: ref(b.c), lines: lines(b.c), score: b.score }));
  return { draft: true, level: 2, title: options.title, text, method: 'term-overlap-centrality', sources };
}

function candidateChunks(db: Database, options: DraftOptions): Chunk[] {
  const limit = options.candidates ?? 200;
  const base = `SELECT c.id, c.text, s.path, s.root, c.line_start, c.line_end FROM chunks c JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id`;
  let rows: Chunk[];
  if (options.query !== undefined && options.query.trim() !== '') {
    const match = buildFtsQuery(options.query);
    if (match === null) return [];
    rows = db
      .prepare(`${base} JOIN (SELECT rowid, rank FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank, rowid LIMIT ?) f ON f.rowid = c.id ORDER BY f.rank, c.id`)
      .all(match, limit * 4) as Chunk[];
  } else {
    rows = db.prepare(`${base} WHERE s.status = 'indexed' ORDER BY s.path, c.ordinal LIMIT ?`).all(options.pathPrefix ? 1_000_000 : limit) as Chunk[];
  }
  if (options.pathPrefix) rows = rows.filter((r) => relPathOf(r.path, r.root).startsWith(options.pathPrefix!));
  return rows.slice(0, limit);
}

function splitSentences(text: string): string[] {
  return text
    .replace(/^#+\s.*$/gm, '')
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/\s+/g, ' ')
    .split(/(?<=[.!?])\s+(?=[A-Z0-9"'(])/)
    .map((s) => s.trim())
    .filter((s) => s.length >= 20 && s.length <= 400 && terms(s).length >= 3);
}

function excerpt(text: string, max: number): string {
  const t = text.trim();
  return t.length <= max ? t : `${t.slice(0, max).replace(/\s+\S*$/, '')} …`;
}
