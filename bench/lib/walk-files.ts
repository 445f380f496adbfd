import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Files under `dir` (sorted, recursively) whose names match `ext`, skipping dot folders, node_modules and minified or generated files. */
export function walkFiles(dir: string, ext: RegExp, out: string[] = [], maxBytes = 2_000_000): string[] {
  let st;
  try {
    st = statSync(dir);
  } catch {
    return out;
  }
  if (st.isFile()) {
    if (st.size < maxBytes) out.push(dir);
    return out;
  }
  let entries: string[];
  try {
    entries = readdirSync(dir).sort();
  } catch {
    return out;
  }
  for (const name of entries) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const p = join(dir, name);
    const s = statSync(p);
    if (s.isDirectory()) walkFiles(p, ext, out, maxBytes);
    else if (ext.test(name) && !/\.min\.|\.d\.ts$|\.map$/.test(name) && s.size < maxBytes) out.push(p);
  }
  return out;
}
