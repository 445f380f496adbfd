import type { SearchHit } from '../../../shared/types.ts';
import { citePath } from '../../../shared/provenance.ts';
import { DEFAULT_RANK_SIGNALS } from '../search/code-rank.ts';
import { roleWeigher } from '../search/code-task.ts';
import type { PathRole } from '../search/code-paths.ts';
import { taskTerms, type TaskTerms } from '../search/task-terms.ts';

/**
 * Issue #23: evidence stops when hits fall below this share of the best hit's relevance, leaving budget unused
 * rather than filling it with chunks that merely share a common word. Measured on bench:localize (see docs/packets.md).
 */
export const RELEVANCE_FLOOR = 0.25;

/**
 * Source files have a lower floor: a packet for a code task that found its subject in a few files has budget left,
 * and the next source files are where the fix may be (bench:localize: file hit up on fd 0.90 → 0.93, tokens still
 * under budget), while docs and tests below the floor stay out.
 */
export const SOURCE_FLOOR = 0.1;

/** Tests are pointers, and only the best few: a task not about tests wants the code they test. */
export const MAX_TEST_POINTERS = 1;

export interface SelectedHit {
  hit: SearchHit;
  role: PathRole;
  /** Relevance (the base retriever's score) over the best hit's, 0..1. */
  relative: number;
}

export interface Selection {
  kept: SelectedHit[];
  /** One manifest line: how many hits were kept and why the rest were not. */
  stop: string | null;
}

/**
 * Hits in the retriever's order, without changelogs, lock files, generated files and images (unless the query
 * names them), and without those under the relevance floor. Relevance is the base score when MMR re-ranked.
 */
export function selectEvidence(hits: readonly SearchHit[], query: string | TaskTerms, floor = RELEVANCE_FLOOR, sourceFloor = SOURCE_FLOOR): Selection {
  if (hits.length === 0) return { kept: [], stop: null };
  const task = typeof query === 'string' ? taskTerms(query) : query;
  const weigh = roleWeigher(task, DEFAULT_RANK_SIGNALS);
  const rel = (h: SearchHit) => Math.max(0, h.relevance ?? h.score);
  const roles = hits.map((h) => weigh(citePath(h)));
  const eligible = hits.filter((_, i) => roles[i]!.factor > 0);
  const best = eligible.reduce((m, h) => Math.max(m, rel(h)), 0);
  const kept: SelectedHit[] = [];
  const aboutTests = task.aboutTests;
  let below = 0;
  let tests = 0;
  let extraTests = 0;
  hits.forEach((h, i) => {
    if (roles[i]!.factor === 0) return;
    // Without any relevance signal (all scores 0) every hit counts as the best.
    const relative = best > 0 ? rel(h) / best : 1;
    if (relative < (roles[i]!.role === 'source' ? Math.min(floor, sourceFloor) : floor)) below++;
    else if (roles[i]!.role === 'test' && !aboutTests && ++tests > MAX_TEST_POINTERS) extraTests++;
    else kept.push({ hit: h, role: roles[i]!.role, relative });
  });
  const excluded = hits.length - eligible.length;
  const why: string[] = [];
  if (below > 0) why.push(`${below} scored below ${floor} of the best hit's relevance${sourceFloor < floor ? ` (source files ${sourceFloor})` : ''}`);
  if (extraTests > 0) why.push(`${extraTests} more tests past the first ${MAX_TEST_POINTERS}`);
  if (excluded > 0) why.push(`${excluded} were changelogs, lock files, generated files or images the query does not name`);
  const stop = why.length === 0 ? null : `evidence: ${kept.length} of ${hits.length} hits kept; ${why.join('; ')}`;
  return { kept, stop };
}
