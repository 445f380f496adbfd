// nDCG@k and Recall@k as trec_eval / pytrec_eval compute them (graded gain = qrel score; unjudged = 0).

export type Qrels = Map<string, Map<string, number>>;
export type Run = Map<string, { docId: string; score: number }[]>;

export function parseQrels(tsv: string): Qrels {
  const qrels: Qrels = new Map();
  for (const line of tsv.split(/\r?\n/).slice(1)) {
    if (!line.trim()) continue;
    const [q, d, s] = line.split('\t');
    if (!q || !d || s === undefined) continue;
    if (!qrels.has(q)) qrels.set(q, new Map());
    qrels.get(q)!.set(d, Number(s));
  }
  return qrels;
}

/** trec_eval sorts by score descending, ties broken by docid descending; we do the same so ties score alike. */
function ranked(hits: { docId: string; score: number }[]): string[] {
  return [...hits].sort((a, b) => b.score - a.score || (a.docId < b.docId ? 1 : a.docId > b.docId ? -1 : 0)).map((h) => h.docId);
}

export function ndcgAt(k: number, rel: Map<string, number>, hits: { docId: string; score: number }[]): number {
  const docs = ranked(hits).slice(0, k);
  let dcg = 0;
  docs.forEach((d, i) => {
    dcg += (rel.get(d) ?? 0) / Math.log2(i + 2);
  });
  const ideal = [...rel.values()].filter((g) => g > 0).sort((a, b) => b - a).slice(0, k);
  let idcg = 0;
  ideal.forEach((g, i) => {
    idcg += g / Math.log2(i + 2);
  });
  return idcg === 0 ? 0 : dcg / idcg;
}

export function recallAt(k: number, rel: Map<string, number>, hits: { docId: string; score: number }[]): number {
  const relevant = [...rel.entries()].filter(([, g]) => g > 0).map(([d]) => d);
  if (relevant.length === 0) return 0;
  const top = new Set(ranked(hits).slice(0, k));
  return relevant.filter((d) => top.has(d)).length / relevant.length;
}

/** Mean over every judged query; a query with no results counts as 0. */
export function evaluate(qrels: Qrels, run: Run): { ndcg10: number; recall100: number; queries: number } {
  let ndcg = 0;
  let recall = 0;
  for (const [q, rel] of qrels) {
    const hits = run.get(q) ?? [];
    ndcg += ndcgAt(10, rel, hits);
    recall += recallAt(100, rel, hits);
  }
  return { ndcg10: ndcg / qrels.size, recall100: recall / qrels.size, queries: qrels.size };
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}
