/**
 * Builds an FTS5 MATCH expression from arbitrary user text. Every term is emitted as a quoted FTS5 string, so
 * quotes, operators (AND/OR/NOT/NEAR), column filters, parentheses and `*` in the input are just words.
 * Terms are OR-ed: ranking is BM25's job, and requiring every word would drop relevant chunks.
 */

// Lucene's classic English stop set plus a few very common function words; dropping them keeps OR queries from
// matching nearly every chunk (slow) while their IDF would be near zero anyway.
export const STOPWORDS = new Set([
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'but', 'by', 'for', 'if', 'in', 'into', 'is', 'it', 'no', 'not', 'of',
  'on', 'or', 'such', 'that', 'the', 'their', 'then', 'there', 'these', 'they', 'this', 'to', 'was', 'will', 'with',
  'from', 'has', 'have', 'had', 'were', 'been', 'its', 'than', 'which', 'can', 'do', 'does', 'we', 'our', 'you',
]);

// The same token classes as FTS5's unicode61 tokenizer: letters, numbers and private-use characters.
const TOKEN = /[\p{L}\p{N}\p{Co}\p{M}]+/gu;

export function queryTerms(text: string): string[] {
  const all = (text.normalize('NFKC').toLowerCase().match(TOKEN) ?? []).filter((t) => !/^\p{M}+$/u.test(t));
  const content = all.filter((t) => !STOPWORDS.has(t));
  const chosen = content.length > 0 ? content : all;
  return [...new Set(chosen)];
}

/** Returns null when the text has no searchable term (empty, punctuation only). */
export function buildFtsQuery(text: string): string | null {
  return ftsMatchOf(queryTerms(text));
}

/** The MATCH expression OR-ing the given terms; null for none. */
export function ftsMatchOf(terms: readonly string[]): string | null {
  if (terms.length === 0) return null;
  const parts = terms.map((t) => `"${t.replaceAll('"', '""')}"`);
  return parts.join(' OR ');
}
