import { describe, expect, it } from 'vitest';
import { openStore } from '../store/index.ts';
import { createBm25Retriever } from './bm25.ts';
import { createTextMmrRetriever } from './text-mmr.ts';
import { buildFtsQuery, queryTerms } from './fts-query.ts';
import { HOSTILE_QUERIES, retrieverContract } from './retriever-contract.ts';
import { bestPerDocument } from './retriever.ts';

retrieverContract('bm25', (store) => createBm25Retriever(store.db));
retrieverContract('bm25 + text MMR (packets without vectors)', (store) => createTextMmrRetriever(createBm25Retriever(store.db)));

describe('FTS query building', () => {
  it('quotes every term and ORs them, dropping stopwords', () => {
    expect(buildFtsQuery('The cat AND "dog" NEAR fish')).toBe('"cat" OR "dog" OR "near" OR "fish"');
    expect(queryTerms('the of and')).toEqual(['the', 'of', 'and']);
    expect(buildFtsQuery('')).toBeNull();
    expect(buildFtsQuery('"()*:^')).toBeNull();
    expect(buildFtsQuery('Ünïcode 日本語')).toBe('"ünïcode" OR "日本語"');
  });

  it('builds expressions FTS5 accepts for hostile input', () => {
    const store = openStore(':memory:');
    const stmt = store.db.prepare('SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH ?');
    for (const q of HOSTILE_QUERIES) {
      const match = buildFtsQuery(q);
      if (match !== null) expect(() => stmt.get(match), q).not.toThrow();
    }
    store.close();
  });

  it('keeps the best chunk per document', () => {
    const hit = (chunkId: number, documentId: number) => ({ chunkId, documentId, score: 10 - chunkId }) as never;
    expect(bestPerDocument([hit(1, 1), hit(2, 1), hit(3, 2), hit(4, 3)], 2).map((h: { chunkId: number }) => h.chunkId)).toEqual([1, 3]);
  });
});
