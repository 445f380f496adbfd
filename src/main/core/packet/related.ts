import type { SearchHit } from '../../../shared/types.ts';
import { citePath } from '../../../shared/provenance.ts';
import { pathRole } from '../search/code-paths.ts';
import type { SelectedHit } from './evidence-select.ts';

// Issue #23 item 3: from the best hits, follow the code: other definitions of the same name (an override, the
// sync/async twin) and the definitions of the functions the hit calls. Scored below the hit that led to them, and
// few: they are what a fix may also touch, not a second search.

/** At most this many related definitions join the evidence. */
export const RELATED_MAX = 3;
/** A related definition's relevance: this share of its seed's. */
export const RELATED_FACTOR = 0.5;
/** At most this many callers of the best hit's definition join (besides RELATED_MAX). */
export const CALLERS_MAX = 2;
/** Seeds: the best source hits, at most this many. */
const SEEDS = 2;

const KEYWORDS = new Set(['if', 'for', 'while', 'switch', 'return', 'function', 'catch', 'new', 'typeof', 'await', 'async', 'yield', 'super', 'self', 'this', 'print', 'len', 'str', 'int', 'isinstance', 'make', 'func', 'fn', 'match', 'elif', 'with', 'assert', 'require', 'import', 'not', 'and', 'or', 'in', 'is', 'def', 'class', 'var', 'let', 'const', 'Some', 'Ok', 'Err', 'vec', 'format', 'println', 'append', 'push', 'get', 'set', 'map', 'filter', 'join', 'split', 'string', 'String']);

/** Names a hit leads to: its own definition's last name segment, then the functions it calls, first seen first. */
export function namesFrom(hit: SearchHit): string[] {
  const own = hit.anchor ? hit.anchor.slice(hit.anchor.lastIndexOf('.') + 1) : '';
  const names = own.length >= 3 ? [own] : [];
  for (const m of hit.text.matchAll(/\b([A-Za-z_][A-Za-z0-9_]*)\s*\(/g)) {
    const n = m[1]!;
    if (n.length >= 3 && !KEYWORDS.has(n) && !names.includes(n)) names.push(n);
    if (names.length >= 12) break;
  }
  return names;
}

export function relatedHits(
  kept: readonly SelectedHit[],
  definitionsNamed: ((names: string[], limit: number) => SearchHit[]) | null,
  floor: number,
  max = RELATED_MAX,
  callersOf: ((names: string[], limit: number) => SearchHit[]) | null = null,
  callersMax = CALLERS_MAX,
): SelectedHit[] {
  if (!definitionsNamed || max <= 0) return [];
  const seeds = [...kept].filter((k) => k.role === 'source' && k.relative * RELATED_FACTOR >= floor).sort((a, b) => b.relative - a.relative).slice(0, SEEDS);
  if (seeds.length === 0) return [];
  const names = [...new Set(seeds.flatMap((s) => namesFrom(s.hit)))];
  const shown = (h: SearchHit) => kept.some((k) => k.hit.documentId === h.documentId && k.hit.lineStart <= h.lineEnd && k.hit.lineEnd >= h.lineStart);
  const out: SelectedHit[] = [];
  for (const h of definitionsNamed(names, 30)) {
    if (out.length >= max) break;
    const role = pathRole(citePath(h));
    if (role !== 'source' || shown(h) || out.some((o) => o.hit.chunkId === h.chunkId)) continue;
    out.push({ hit: h, role, relative: seeds[0]!.relative * RELATED_FACTOR });
  }
  // Callers of the best hit's own definition: a fix to a function often changes how it is called.
  const own = namesFrom({ ...seeds[0]!.hit, text: '' });
  if (callersOf && callersMax > 0 && own.length > 0) {
    let n = 0;
    for (const h of callersOf(own, 20)) {
      if (n >= callersMax) break;
      if (pathRole(citePath(h)) !== 'source' || shown(h) || out.some((o) => o.hit.chunkId === h.chunkId)) continue;
      out.push({ hit: h, role: 'source', relative: seeds[0]!.relative * RELATED_FACTOR });
      n++;
    }
  }
  return out;
}
