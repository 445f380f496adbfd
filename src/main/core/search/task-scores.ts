import type { Database, Statement } from 'better-sqlite3';
import { ftsMatchOf } from './fts-query.ts';
import { ftsScorer } from './fts-scorer.ts';
import type { TaskTerms, WeightedTerm } from './task-terms.ts';

/** FTS5 column weights (title, headings, body) every chunk score of a task uses (bm25.ts DEFAULT_BM25_WEIGHTS). */
const COLUMN_WEIGHTS = [1.25, 1.25, 1];

/**
 * A task's BM25 score (its weighted terms, task-terms.ts) of the given chunks, 0 for a chunk none of its terms is
 * in: from the postings the search just read when it can (fts-scorer.ts), else each term's bm25() from FTS5, which
 * is exactly that term's part of the sum. The packet's focus files score a file's other chunks with it, so they are
 * measured as the search measured the file's best one.
 */
export function taskScores(db: Database, task: Pick<TaskTerms, 'terms'>, chunkIds: readonly number[], columnWeights: readonly number[] = COLUMN_WEIGHTS): Map<number, number> {
  const terms = task.terms.map((t) => t.term);
  const weights = task.terms.map((t) => t.weight);
  const uniform = weights.every((w) => w === 1);
  if (chunkIds.length === 0 || terms.length === 0) return new Map(chunkIds.map((id) => [id, 0]));
  const fast = ftsScorer(db, 'chunks_fts').scoreRows(terms, columnWeights, chunkIds, { termWeights: uniform ? undefined : weights });
  if (fast) return fast;
  const out = new Map<number, number>(chunkIds.map((id) => [id, 0]));
  const ids = JSON.stringify(chunkIds);
  const st = statement(db);
  if (uniform) {
    for (const r of st.all(...columnWeights, ftsMatchOf(terms)!, ids) as { rowid: number; score: number }[]) out.set(r.rowid, r.score);
    return out;
  }
  for (const [i, term] of terms.entries()) {
    for (const r of st.all(...columnWeights, ftsMatchOf([term])!, ids) as { rowid: number; score: number }[]) out.set(r.rowid, out.get(r.rowid)! + (weights[i] === 1 ? r.score : r.score * weights[i]!));
  }
  return out;
}

const statements = new WeakMap<Database, Statement>();
function statement(db: Database) {
  let st = statements.get(db);
  if (!st) statements.set(db, (st = db.prepare('SELECT rowid, -bm25(chunks_fts, ?, ?, ?) AS score FROM chunks_fts WHERE chunks_fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))')));
  return st;
}

/** Words of a long task looked up for their indexed forms (the strongest, at most this many), and their weight share. */
const FORM_WORDS = 24;
const FORM_WEIGHT = 0.5;
const forms = new WeakMap<Database, { stamp: string; text: string; task: TaskTerms }>();

/**
 * The task as this index reads it: a long task's words gain the shorter forms the index holds ("concatenating" →
 * `concat`, "serialization" → `serializ…`), at half the word's weight (fts-scorer.ts indexedPrefixes). A short
 * query is returned as it is (the commit-subject benchmarks measure it unchanged). Kept per connection until a write.
 */
export function indexedTask(db: Database, task: TaskTerms): TaskTerms {
  if (!task.long) return task;
  const stamp = `${db.pragma('data_version', { simple: true })}:${db.prepare('SELECT total_changes()').pluck().get()}`;
  const kept = forms.get(db);
  if (kept && kept.stamp === stamp && kept.text === task.text) return kept.task;
  const have = new Set(task.terms.map((t) => t.term));
  const words = task.terms.filter((t) => t.weight >= 1 && t.term.length >= 7 && /^\p{L}+$/u.test(t.term)).slice(0, FORM_WORDS);
  const prefixes = ftsScorer(db, 'chunks_fts').indexedPrefixes(words.map((w) => w.term)) ?? [];
  const extra: WeightedTerm[] = [];
  prefixes.forEach((p, i) => {
    if (p && !have.has(p)) {
      have.add(p);
      extra.push({ term: p, weight: Math.round(words[i]!.weight * FORM_WEIGHT * 1000) / 1000 });
    }
  });
  const out = extra.length === 0 ? task : { ...task, terms: [...task.terms, ...extra] };
  forms.set(db, { stamp, text: task.text, task: out });
  return out;
}
