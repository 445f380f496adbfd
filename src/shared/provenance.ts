// Where a hit came from, spelled one way everywhere (CLI, workbench, packets) so a label copied from one can be found
// in another.

/** Enough of a search hit to say where it sits. */
export interface Located {
  path: string;
  anchor?: string | null;
  lineStart: number;
  lineEnd: number;
}

/** path#anchor, or the bare path when there is no anchor. */
export function anchoredPath(path: string, anchor: string | null | undefined): string {
  return anchor ? `${path}#${anchor}` : path;
}

/** path#anchor:start-end. */
export function provenance(h: Located): string {
  return `${anchoredPath(h.path, h.anchor)}:${h.lineStart}-${h.lineEnd}`;
}
