// Whether out/cli/ may run: the bundle is used only while every source file it was built from still has the size and
// mtime its manifest recorded, so an edit (or a checkout) falls back to the sources until `npm run build:cli`.
import { existsSync, readFileSync, statSync } from 'node:fs';

/** The bundle's entry (absolute path) under `root` when it is fresh; otherwise null. `root` ends with a slash. */
export function freshBundle(root, env = process.env) {
  if (env.CONTEXTPACK_CLI_SOURCES === '1') return null;
  try {
    const manifest = JSON.parse(readFileSync(`${root}out/cli/manifest.json`, 'utf8'));
    if (!Array.isArray(manifest.files) || manifest.files.length === 0) return null;
    for (const f of manifest.files) {
      const s = statSync(root + f.path);
      if (s.size !== f.size || s.mtimeMs !== f.mtimeMs) return null;
    }
    return `${root}out/cli/${manifest.entry}`;
  } catch {
    return null;
  }
}

/** The bundle's entry under `root` when the sources are not there at all (an installed package); otherwise null. */
export function installedBundle(root) {
  if (existsSync(`${root}src/main/cli/contextpack.ts`)) return null;
  try {
    const manifest = JSON.parse(readFileSync(`${root}out/cli/manifest.json`, 'utf8'));
    return `${root}out/cli/${manifest.entry}`;
  } catch {
    return null;
  }
}
