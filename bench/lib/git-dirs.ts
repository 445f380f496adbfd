import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The git directory of `owner/name` under root: `<owner>+<name>/repo` (as the `fetch` tool leaves a snapshot),
 * `<owner>+<name>`, `<owner>__<name>` or `<name>`, a bare directory or a clone; null when there is none.
 */
export function findGitDir(root: string, repo: string): string | null {
  if (!existsSync(root)) return null;
  const [owner, name] = repo.split('/') as [string, string];
  const names = new Set([`${owner}+${name}`, `${owner}__${name}`, name].map((n) => n.toLowerCase()));
  for (const entry of readdirSync(root).sort()) {
    if (!names.has(entry.toLowerCase())) continue;
    for (const candidate of [join(root, entry, 'repo'), join(root, entry)]) if (existsSync(join(candidate, 'HEAD')) || existsSync(join(candidate, '.git'))) return candidate;
  }
  return null;
}
