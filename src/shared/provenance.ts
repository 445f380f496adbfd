// Where a hit came from, spelled one way everywhere (CLI, workbench, packets) so a label copied from one can be found
// in another.
import { escapeControls } from './text-escape.ts';

/** Enough of a search hit to say where it sits. */
export interface Located {
  path: string;
  /** Root-relative path (prefixed by the root's name when several roots are indexed); cited instead of path. */
  displayPath?: string | null;
  anchor?: string | null;
  lineStart: number;
  lineEnd: number;
}

/** What a hit is cited by: its root-relative display path when the index gave one, else its path. */
export function citePath(h: { path: string; displayPath?: string | null }): string {
  return h.displayPath ?? h.path;
}

/** path#anchor, or the bare path when there is no anchor. */
export function anchoredPath(path: string, anchor: string | null | undefined): string {
  return anchor ? `${path}#${anchor}` : path;
}

/** path#anchor:start-end, one line (control characters escaped, as packets print a label). */
export function provenance(h: Located): string {
  return escapeControls(`${anchoredPath(citePath(h), h.anchor)}:${h.lineStart}-${h.lineEnd}`);
}
