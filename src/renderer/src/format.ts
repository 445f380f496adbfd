import { provenance } from '../../shared/provenance.ts';

export const fmtBytes = (n: number): string =>
  n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`;

export const where = provenance;

export const shortHash = (h: string): string => h.slice(0, 12);

/** "a/b/c/file.md" → folder "a/b/c/" and file "file.md"; prefers a root-relative path when the hit carries one. */
export function splitPath(path: string): { folder: string; file: string } {
  const p = path.replace(/\\/g, '/');
  const i = p.lastIndexOf('/');
  return i < 0 ? { folder: '', file: p } : { folder: p.slice(0, i + 1), file: p.slice(i + 1) };
}

/** Keeps the start and the end of a long folder path and drops its middle: "/home/…/docs/Reference/". */
export function middleEllipsis(s: string, max = 48): string {
  if (s.length <= max) return s;
  const tail = Math.ceil((max - 1) * 0.65);
  const head = max - 1 - tail;
  return `${s.slice(0, head)}…${s.slice(s.length - tail)}`;
}

/** The path a hit should show: a root-relative one when the engine gives it, else the stored path. */
export function hitPath(h: { path: string; relPath?: string | null }): string {
  return h.relPath ?? h.path;
}
