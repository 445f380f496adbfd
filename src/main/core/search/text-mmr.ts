// MMR for stores without vectors: chunk similarity from the chunks' own words, so a BM25 packet is not eight
// overlapping chunks of one file. Each candidate becomes a hashed term vector (sublinear tf × idf over the
// candidate pool, L2-normalized); cosine between two of them is high for neighbouring chunks of one document (they
// overlap by design) and low for chunks that merely share the query's words, whose idf within the pool is small.
import type { SearchHit } from '../../../shared/types.ts';
import { STOPWORDS } from './fts-query.ts';
import { DEFAULT_MMR_LAMBDA, mmrSelect } from './mmr.ts';
import type { RetrievalQuery, Retriever, RetrieverParams } from './retriever.ts';
import { DEFAULT_FETCH_K } from './vector.ts';

/** Dimensions of the hashed term space: collisions among a few hundred words of two chunks stay rare. */
export const TEXT_VECTOR_DIMS = 1024;

const WORD = /[\p{L}\p{N}]+/gu;

function words(text: string): string[] {
  return (text.toLowerCase().match(WORD) ?? []).filter((w) => w.length > 1 && !STOPWORDS.has(w));
}

/** FNV-1a, 32 bits: deterministic across platforms and runs. */
function hash(word: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) {
    h ^= word.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Unit-length hashed tf-idf vectors of `texts`, idf taken over the texts themselves. */
export function textVectors(texts: readonly string[], dims = TEXT_VECTOR_DIMS): Float32Array[] {
  const counts = texts.map((t) => {
    const m = new Map<string, number>();
    for (const w of words(t)) m.set(w, (m.get(w) ?? 0) + 1);
    return m;
  });
  const df = new Map<string, number>();
  for (const m of counts) for (const w of m.keys()) df.set(w, (df.get(w) ?? 0) + 1);
  const n = texts.length;
  return counts.map((m) => {
    const v = new Float32Array(dims);
    for (const [w, tf] of m) {
      const idf = Math.log(1 + n / df.get(w)!);
      v[hash(w) % dims]! += (1 + Math.log(tf)) * idf;
    }
    let norm = 0;
    for (let i = 0; i < dims; i++) norm += v[i]! * v[i]!;
    norm = Math.sqrt(norm);
    if (norm > 0) for (let i = 0; i < dims; i++) v[i]! /= norm;
    return v;
  });
}

export interface TextMmrOptions {
  /** 1 keeps the base order; lower trades relevance for diversity. Default 0.5, as for hybrid. */
  mmrLambda?: number;
  /** Candidates taken from the base retriever (at least k). */
  fetchK?: number;
}

/** Re-ranks a retriever's top fetchK hits by MMR with text similarity; the hits keep their rows, scores become MMR's. */
export function createTextMmrRetriever(base: Retriever, options: TextMmrOptions = {}): Retriever {
  const lambda = options.mmrLambda ?? DEFAULT_MMR_LAMBDA;
  const fetchK = options.fetchK ?? DEFAULT_FETCH_K;
  if (!(lambda >= 0 && lambda <= 1)) throw new Error(`mmrLambda must be in [0, 1], got ${lambda}`);
  if (!Number.isInteger(fetchK) || fetchK < 1) throw new Error(`fetchK must be a positive integer, got ${fetchK}`);
  const params: RetrieverParams = {
    ...(base.params ?? {}),
    mmr: { lambda, fetch_k: fetchK, similarity: 'text' },
  };
  return {
    mode: base.mode,
    params,
    async search(query: RetrievalQuery): Promise<SearchHit[]> {
      if (query.k <= 0) return [];
      const pool = await base.search({ ...query, k: Math.max(query.k, fetchK) });
      const vectors = textVectors(pool.map((h) => `${h.title} ${h.headingPath} ${h.text}`));
      const byId = new Map(pool.map((h, i) => [h.chunkId, i]));
      const picks = mmrSelect(pool.map((h) => ({ chunkId: h.chunkId, relevance: h.score })), new Map(pool.map((h, i) => [h.chunkId, vectors[i]!])), query.k, lambda);
      // `relevance` keeps the base score: a packet's relevance floor is relative to it, not to MMR's trade-off.
      return picks.map((p) => {
        const h = pool[byId.get(p.chunkId)!]!;
        return { ...h, score: p.score, relevance: h.score };
      });
    },
  };
}
