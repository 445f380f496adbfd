import { sep } from 'node:path';

/** Drops paths that lie under another path of the set: walking the folder covers them (a renamed folder's files). */
export function compactPaths(paths: string[]): string[] {
  const sorted = [...new Set(paths)].sort();
  const out: string[] = [];
  for (const p of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && (p === last || p.startsWith(last.endsWith(sep) ? last : last + sep))) continue;
    out.push(p);
  }
  return out;
}
