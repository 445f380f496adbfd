// `library.refresh`: bring the index up to date with the files under the project's remembered roots, and nothing
// else. An agent (MCP `ingest`) names what it edited, relative to a root; a path outside every root is refused by
// name, so the tool can never be used to read an arbitrary folder into the index.
import { existsSync } from 'node:fs';
import { isAbsolute, join, normalize, resolve, sep } from 'node:path';
import type { Database } from 'better-sqlite3';
import { isUnder, listRoots, relativeTo } from '../core/ingest/index.ts';
import { ROOTS_IN_USE_SQL } from '../core/search/hits.ts';
import type { IngestReport, RootRecord } from '../../shared/types.ts';
import type { RefreshReport } from '../../shared/api/contract.ts';
import { ApiFailure } from './failure.ts';
import { isContained } from '../core/store/containment.ts';


const inside = (path: string, root: RootRecord): boolean => (root.kind === 'file' ? path === root.path : isUnder(path, root.path));

/**
 * Inside the root as spelled and where it really leads: every link on the way resolved, so `docs/link/private.md`
 * with `docs/link -> ../../outside` is outside. A file root is the file the user named (its own link is theirs).
 */
const contained = (path: string, root: RootRecord): boolean => inside(path, root) && (root.kind === 'file' || isContained(path, [root.path]));

/** Whether the index holds a source at or under `path` (a deleted file is refreshed by removing it). */
function indexedUnder(db: Database, path: string): boolean {
  return db.prepare(`SELECT 1 FROM sources WHERE path = ? OR substr(path, 1, length(?)) = ? LIMIT 1`).get(path, path + sep, path + sep) !== undefined;
}

/**
 * The absolute paths the caller's paths name. A relative path is looked up under every folder root (and, prefixed by
 * a root's name, under that root, as citations spell it when several roots are indexed); an absolute one must lie
 * inside a root, symbolic links resolved.
 */
export function resolveUnderRoots(db: Database, paths: readonly string[]): { roots: RootRecord[]; absolute: string[] } {
  const roots = listRoots(db);
  if (roots.length === 0) throw new ApiFailure('not_found', 'this project has no roots yet: nothing has been ingested, so there is nothing to refresh');
  const absolute: string[] = [];
  const issues: { field: string; message: string }[] = [];
  paths.forEach((given, i) => {
    const field = `paths.${i}`;
    if (isAbsolute(given)) {
      const p = resolve(given);
      if (roots.some((r) => contained(p, r))) absolute.push(p);
      else issues.push({ field, message: `${given} is outside the project's roots` });
      return;
    }
    const rel = normalize(given).split(sep).join('/');
    if (rel === '..' || rel.startsWith('../')) {
      issues.push({ field, message: `${given} leads outside the project's roots` });
      return;
    }
    const candidates = roots.flatMap((r) => {
      if (r.kind === 'file') return rel === r.name ? [r.path] : [];
      const named = rel === r.name ? r.path : rel.startsWith(`${r.name}/`) ? join(r.path, rel.slice(r.name.length + 1)) : null;
      return [join(r.path, rel), ...(named ? [named] : [])];
    });
    const found = [...new Set(candidates)].filter((c) => existsSync(c) || indexedUnder(db, c));
    const kept = found.filter((c) => roots.some((r) => contained(c, r)));
    if (found.length > 0 && kept.length === 0) issues.push({ field, message: `${given} leads outside the project's roots through a symbolic link` });
    else if (found.length === 0) issues.push({ field, message: `${given} is under none of the project's roots (${roots.map((r) => r.name).join(', ')})` });
    absolute.push(...kept);
  });
  if (issues.length > 0) {
    const forbidden = issues.some((x) => /outside/.test(x.message));
    throw new ApiFailure(forbidden ? 'forbidden' : 'not_found', issues.map((x) => `${x.field}: ${x.message}`).join('; '), issues);
  }
  return { roots, absolute: [...new Set(absolute)] };
}

/**
 * The report with every path as the index cites it: root-relative, prefixed by the root's name when several roots
 * hold sources (a remembered root whose files are all gone does not count, as in search hits' displayPath).
 */
export function citedReport(db: Database, report: IngestReport, roots: readonly RootRecord[]): RefreshReport {
  const inUse = (db.prepare(`SELECT ${ROOTS_IN_USE_SQL} AS n`).get() as { n: number }).n;
  const cite = (p: string): string => {
    const root = roots.filter((r) => inside(p, r)).sort((a, b) => b.path.length - a.path.length)[0];
    if (!root) return p;
    const rel = root.kind === 'file' ? root.name : relativeTo(root.path, p);
    return inUse > 1 && root.kind === 'folder' ? `${root.name}/${rel}` : rel;
  };
  return {
    roots: roots.map((r) => r.name),
    added: report.added.map(cite),
    updated: report.updated.map(cite),
    removed: report.removed.map(cite),
    unchanged: report.unchanged,
    skipped: report.skipped.map((s) => ({ path: cite(s.path), reason: s.reason })),
    failed: report.failed.map((s) => ({ path: cite(s.path), reason: s.reason })),
    files: report.files,
    chunks: report.chunks,
    durationMs: report.durationMs,
  };
}
