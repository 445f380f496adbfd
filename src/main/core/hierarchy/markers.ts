import { basename, relative, sep } from 'node:path';
import type { L4Node } from '../../../shared/memory.ts';

/** § markers (Navigation System): §1.0, §2.N, §3.N and §3.N.M for the user's text; §4.<path> for raw files. */
const SECTION_MARKER = /^(1\.0|2\.[1-9]\d*|3\.[1-9]\d*(\.[1-9]\d*)?)$/;

/** '§2.1' or '2.1' → '2.1'; null if it is not an L1–L3 marker. */
export function parseSectionMarker(input: string): string | null {
  const m = input.trim().replace(/^§/, '');
  return SECTION_MARKER.test(m) ? m : null;
}

export function markerLevel(marker: string): 1 | 2 | 3 | 4 {
  return Number(marker[0]) as 1 | 2 | 3 | 4;
}

/** Numeric order: 2.2 before 2.10, 3.1 before 3.1.1 before 3.2. */
export function compareMarkers(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? -1) - (pb[i] ?? -1);
    if (d !== 0) return d;
  }
  return 0;
}

/** The L2 section an L3 marker details: 3.4 and 3.4.2 → 2.4. */
export const l2For = (l3Marker: string): string => `2.${l3Marker.split('.')[1]}`;

/** GitHub-style heading anchor for '§2.1 Architecture' → '21-architecture' (as the seed's index links). */
export function anchorFor(marker: string, title: string): string {
  return `${marker} ${title}`
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s+/g, '-');
}

export const DECISION_REF = /\bDEC-\d{4}-\d{2}-\d{2}-\d{3,}\b/g;

export function decisionRefs(text: string): string[] {
  return [...new Set(text.match(DECISION_REF) ?? [])];
}

/** '§4.<path>' references in text, path part only; stops at whitespace, brackets, quotes and trailing punctuation. */
export function l4Refs(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/§4\.([^\s()[\]<>"'`,;]+)/g)) {
    const ref = m[1]!.replace(/\*\*$/, '').replace(/[.:!?]+$/, '');
    if (ref !== '') out.add(ref);
  }
  return [...out];
}

/** Path relative to the ingest root, with '/' separators; a file ingested on its own is its base name. */
export function relPathOf(path: string, root: string): string {
  const rel = relative(root, path);
  return (rel === '' || rel.startsWith('..') ? basename(path) : rel).split(sep).join('/');
}

/** The seed writes §4.services.auth.jwt_handler for services/auth/jwt_handler.py: a dotted, extension-less form. */
export function dottedForm(relPath: string): string {
  return relPath.replace(/\.[^./]+$/, '').split('/').join('.');
}

/**
 * The L4 files a §4 reference names: an exact relative path, a dotted path (whole trailing segments, so
 * `auth.jwt_handler` finds src/services/auth/jwt_handler.py), or either form ending in `*` for a folder.
 */
export function resolveL4Ref(ref: string, nodes: readonly L4Node[]): L4Node[] {
  if (ref.endsWith('*')) {
    const prefix = ref.slice(0, -1);
    if (prefix === '') return [...nodes];
    return nodes.filter((n) => n.rel_path.startsWith(prefix) || dottedForm(n.rel_path).startsWith(prefix) || ('.' + dottedForm(n.rel_path)).includes('.' + prefix));
  }
  const exact = nodes.filter((n) => n.rel_path === ref);
  if (exact.length > 0) return exact;
  return nodes.filter((n) => {
    const d = dottedForm(n.rel_path);
    return d === ref || d.endsWith('.' + ref);
  });
}
