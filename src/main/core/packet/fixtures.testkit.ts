// Test-only: a real store (all migrations, real FTS5), real ingest of a small project tree, and memory written
// through the memory module itself, with fixed clocks and ids so two builds of the same fixture are identical.
import { join } from 'node:path';
import { setExecutiveSummary } from '../hierarchy/index.ts';
import { ingestPaths } from '../ingest/index.ts';
import { addMemory, createDecision } from '../memory/index.ts';
import { openStore, type Store } from '../store/index.ts';
import { writeTree } from '../testing/tmp.ts';
import { createStoreSources } from './store-sources.ts';

export const PROJECT_FILES: Record<string, string> = {
  'docs/auth.md': '# Auth\n\n## Tokens\n\nAccess tokens are signed JWTs; refresh tokens use a separate signing key.\nRotate the signing key every 90 days.\n\n## Sessions\n\nSessions expire after 30 minutes of inactivity.\n',
  'docs/search.md': '# Search\n\nBM25 ranks chunks with title and heading weights of 1.25.\nHybrid search fuses BM25 and vectors with reciprocal rank fusion.\n',
  'src/retry.ts': 'export async function retry<T>(fn: () => Promise<T>, attempts = 3): Promise<T> {\n  // exponential backoff between attempts\n  for (let i = 0; ; i++) {\n    try {\n      return await fn();\n    } catch (err) {\n      if (i + 1 >= attempts) throw err;\n      await new Promise((r) => setTimeout(r, 2 ** i * 100));\n    }\n  }\n}\n',
  'notes/tokens.md': '# Token notes\n\nThe token cache keeps signed tokens for five minutes.\nToken refresh happens in the background.\n',
};

export interface SeedCounts {
  states?: number;
  decisions?: number;
  learnings?: number;
  issues?: number;
  goals?: boolean;
  /** Characters of filler per memory text, to push sections over their budgets. */
  filler?: number;
}

const BASE = Date.parse('2026-01-01T00:00:00Z');
const dayIso = (d: number) => new Date(BASE + d * 86_400_000).toISOString();

/** Writes memory through the memory module with a fixed clock and sequential ids. */
export function seedMemory(store: Store, counts: SeedCounts): void {
  let n = 0;
  let t = BASE;
  const deps = { now: () => new Date(t), newId: () => `mem-${String(++n).padStart(4, '0')}`, actor: 'test' };
  const fill = (i: number) => (counts.filler ? ' ' + `detail ${i} about tokens and retry backoff. `.repeat(Math.ceil(counts.filler / 40)).slice(0, counts.filler) : '');
  const decisionIds: string[] = [];
  for (let i = 0; i < (counts.decisions ?? 0); i++) {
    t = BASE + i * 86_400_000;
    const d = createDecision(
      store.db,
      { title: `Decision ${i + 1} on token signing`, decision: `Use key scheme ${i + 1} for tokens.${fill(i)}`, rationale: `Rationale ${i + 1}: separate keys limit blast radius.`, importance: 1 + (i % 10), timestamp: dayIso(i) },
      deps,
    );
    decisionIds.push(d.decision_id!);
  }
  for (let i = 0; i < (counts.learnings ?? 0); i++) {
    t = BASE + i * 86_400_000;
    addMemory(store.db, { memory_type: 'learning', title: `Learning ${i + 1} about retry`, content: { lesson: `Retry lesson ${i + 1}: back off exponentially.${fill(i)}`, context: 'retry', applicability: 'network calls', evidence: 'incident' }, importance: 1 + (i % 10), timestamp: dayIso(i) }, deps);
  }
  for (let i = 0; i < (counts.issues ?? 0); i++) {
    t = BASE + i * 86_400_000;
    addMemory(store.db, { memory_type: 'issue', title: `Issue ${i + 1} token expiry`, content: { description: `Tokens expire early in case ${i + 1}.${fill(i)}`, severity: (['critical', 'high', 'medium', 'low'] as const)[i % 4], status: 'open' }, importance: 5, timestamp: dayIso(i) }, deps);
  }
  for (let i = 0; i < (counts.states ?? 0); i++) {
    t = BASE + i * 86_400_000;
    addMemory(store.db, { memory_type: 'state', title: `State ${i + 1}: working on tokens`, content: { task_description: `Step ${i + 1} of the token work.${fill(i)}`, completion_percentage: Math.min(100, i * 10), next_actions: [`next ${i + 1}`] }, importance: 5, timestamp: dayIso(i) }, deps);
  }
  if (counts.goals) {
    setExecutiveSummary(
      store.db,
      { goal: 'Ship token rotation without downtime', status_pct: 40, status_text: 'signing done', priorities: ['Rotate keys', 'Document the flow', 'Add metrics'], blockers: ['Key store lacks versioning'], key_decisions: decisionIds.slice(0, 2) },
      { now: () => new Date(BASE), actor: 'test' },
    );
  }
}

/** A store with the project tree ingested (and optional memory), plus packet sources over it. */
export async function packetStore(dir: string, opts: { files?: Record<string, string>; seed?: SeedCounts; name?: string } = {}) {
  const root = join(dir, 'project');
  writeTree(root, opts.files ?? PROJECT_FILES);
  const store = openStore(join(dir, opts.name ?? 'packet.db'), { loadVec: false });
  await ingestPaths(store.db, [root], { now: () => new Date(BASE) });
  if (opts.seed) seedMemory(store, opts.seed);
  return { store, root, sources: createStoreSources(store.db) };
}
