import { sep } from 'node:path';

// How roots are named and how a source path reads relative to its root; shared by migration 040 and ingest.

export function rootBaseName(path: string): string {
  const trimmed = path.replace(/[\\/]+$/, '');
  const base = trimmed.split(/[\\/]/).pop() ?? '';
  return base === '' ? 'root' : base;
}

export function uniqueName(base: string, taken: Set<string>): string {
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}-${i}`;
  taken.add(name);
  return name;
}

/** Forward slashes, so a citation reads the same on every platform; a file root's own path is its name. */
export function relativeTo(root: string, path: string): string {
  if (path === root) return rootBaseName(path);
  const prefix = root.endsWith(sep) ? root : root + sep;
  return path.slice(prefix.length).split(sep).join('/');
}
