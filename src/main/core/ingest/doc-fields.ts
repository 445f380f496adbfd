/**
 * `hookRunnerGenerator` → `hook Runner Generator`, `HTTPServer` → `HTTP Server`, `bash_completionsV2` →
 * `bash completions V 2`: the words inside an identifier, so a query in plain words finds it.
 */
export function identifierWords(id: string): string {
  return id
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/([A-Za-z])([0-9])/g, '$1 $2')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** Text of a document's `path` and `symbols` fields: each name as written plus its words when they differ. */
export function docFieldsText(relPath: string, symbols: readonly string[]): { path: string; symbols: string } {
  const withWords = (s: string) => {
    const words = identifierWords(s);
    return words.toLowerCase() === s.replace(/[^\p{L}\p{N}]+/gu, ' ').trim().toLowerCase() ? s : `${s} ${words}`;
  };
  const path = relPath.split(/[\\/]/).filter(Boolean).map(withWords).join(' / ');
  return { path, symbols: [...new Set(symbols)].map(withWords).join('\n') };
}
