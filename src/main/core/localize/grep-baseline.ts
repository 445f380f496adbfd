import { queryTerms } from '../search/fts-query.ts';

export interface GrepFile {
  path: string;
  text: string;
}

/**
 * The baseline an agent gets without an index: grep every query word over whole files and rank files by the summed
 * BM25-style idf of the words they contain (a rare word says more than a common one); more occurrences break ties.
 */
export function createGrepBaseline(files: GrepFile[]) {
  const lower = files.map((f) => ({ path: f.path, text: f.text.toLowerCase() }));
  const n = lower.length;
  return {
    top(query: string, k: number): string[] {
      const terms = queryTerms(query);
      const scores = new Map<string, number>();
      for (const t of terms) {
        const counts: [string, number][] = [];
        for (const f of lower) {
          const c = countOf(f.text, t);
          if (c > 0) counts.push([f.path, c]);
        }
        if (counts.length === 0) continue;
        const idf = Math.log(1 + (n - counts.length + 0.5) / (counts.length + 0.5));
        for (const [path, c] of counts) scores.set(path, (scores.get(path) ?? 0) + idf * (1 + 0.01 * Math.log(c)));
      }
      return [...scores].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, k).map(([p]) => p);
    },
  };
}

function countOf(text: string, term: string): number {
  let c = 0;
  for (let i = text.indexOf(term); i >= 0; i = text.indexOf(term, i + term.length)) c++;
  return c;
}

/** Hit (≥ 1 gold file among the found ones) and file recall (share of the gold files found) for one task. */
export function scoreFiles(found: Iterable<string>, gold: readonly string[]): { hit: number; recall: number } {
  const set = new Set(found);
  const got = gold.filter((g) => set.has(g)).length;
  return { hit: got > 0 ? 1 : 0, recall: gold.length === 0 ? 0 : got / gold.length };
}
