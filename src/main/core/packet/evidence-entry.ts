import type { SearchHit } from '../../../shared/types.ts';
import { anchoredPath, citePath } from '../../../shared/provenance.ts';
import type { PathRole } from '../search/code-paths.ts';
import type { LineContext } from './sources.ts';

// What gathering hands to rendering: a leaf of its own so gather.ts and items.ts need not import each other.

/** `also`: other definitions the span holds besides its anchor's; `role`: its file's; `pointer`: shown as one line. */
export type EvidenceEntry = SearchHit & { norm: number; context: LineContext | null; also: string[]; role: PathRole; pointer: boolean };

/** root-relative path#anchor (the part of an evidence source that comes from the indexed content); gated by gatedEvidence. */
export function evidenceLabel(h: SearchHit): string {
  return anchoredPath(citePath(h), h.anchor || h.externalId);
}
