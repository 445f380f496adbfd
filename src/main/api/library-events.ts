import type { Database } from 'better-sqlite3';
import { listRoots, relativeTo } from '../core/ingest/index.ts';
import type { ApiEvent } from '../../shared/api/events.ts';
import type { IngestReport } from '../../shared/types.ts';

/** An ingest job's changes as `library.changed` events, one per root, like a watcher batch. */
export function emitIngestChanges(db: Database, r: IngestReport, emit: (e: ApiEvent) => void): void {
  if (r.added.length + r.updated.length + r.removed.length === 0) return;
  const roots = listRoots(db).sort((a, b) => b.path.length - a.path.length);
  const at = new Date().toISOString();
  const byRoot = new Map<number, { added: string[]; updated: string[]; removed: string[] }>();
  const file = (kind: 'added' | 'updated' | 'removed', p: string) => {
    const root = roots.find((x) => x.path === p || p.startsWith(x.path + '/') || p.startsWith(x.path + '\\'));
    if (!root) return;
    const e = byRoot.get(root.id) ?? { added: [], updated: [], removed: [] };
    e[kind].push(relativeTo(root.path, p));
    byRoot.set(root.id, e);
  };
  r.added.forEach((p) => file('added', p));
  r.updated.forEach((p) => file('updated', p));
  r.removed.forEach((p) => file('removed', p));
  for (const [rootId, e] of byRoot) emit({ name: 'library.changed', payload: { rootId, root: roots.find((x) => x.id === rootId)!.name, ...e, at } });
}
