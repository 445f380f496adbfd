// What a browser folder upload leaves out before sending anything (serve mode): the same default skips as the
// ingest walk, files that commonly hold credentials, and the folder's own .gitignore / .contextpackignore rules.
import ignore, { type Ignore } from 'ignore';

/** As DEFAULT_IGNORES in core/ingest/walk.ts: never project content, and expensive to send. */
export const DEFAULT_UPLOAD_SKIPS = ['.git/', '.hg/', '.svn/', 'node_modules/', '.DS_Store'];
/** Files that usually hold secrets: never uploaded, named in the report so the user knows. */
export const SENSITIVE_FILES = ['.env', '.env.*', '*.pem', '*.key', '*.p12', '*.pfx', 'id_rsa*', 'id_dsa*', 'id_ecdsa*', 'id_ed25519*', '.netrc', '.npmrc', '.pypirc'];
export const IGNORE_FILES = ['.gitignore', '.contextpackignore'];

const defaults = ignore().add(DEFAULT_UPLOAD_SKIPS);
const sensitive = ignore().add(SENSITIVE_FILES);

/** Whether a folder (relative path, no trailing slash) is never worth walking. */
export function skipFolder(relPath: string): boolean {
  return defaults.ignores(`${relPath}/`);
}

export type UploadVerdict = { keep: true } | { keep: false; why: 'default' | 'sensitive' | 'ignored' };

export interface UploadFilter {
  verdict(relPath: string): UploadVerdict;
}

/**
 * `ignoreFiles` maps the relative path of each .gitignore / .contextpackignore in the selection to its text. Rules
 * apply below their own folder; deeper ones (with `!` negations) override shallower ones, as in the ingest walk.
 */
export function createUploadFilter(ignoreFiles: ReadonlyMap<string, string>): UploadFilter {
  const byBase = new Map<string, Ignore>();
  for (const [path, text] of ignoreFiles) {
    const base = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
    const ig = byBase.get(base) ?? ignore();
    ig.add(text);
    byBase.set(base, ig);
  }
  const bases = [...byBase.keys()].sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));
  return {
    verdict(relPath) {
      if (defaults.ignores(relPath)) return { keep: false, why: 'default' };
      if (sensitive.ignores(relPath)) return { keep: false, why: 'sensitive' };
      let ignored = false;
      for (const base of bases) {
        if (base !== '' && !relPath.startsWith(`${base}/`)) continue;
        const rel = base === '' ? relPath : relPath.slice(base.length + 1);
        const r = byBase.get(base)!.test(rel);
        if (r.ignored) ignored = true;
        else if (r.unignored) ignored = false;
      }
      return ignored ? { keep: false, why: 'ignored' } : { keep: true };
    },
  };
}
