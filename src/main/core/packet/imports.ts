import type { SelectedHit } from './evidence-select.ts';

// Issue #23 item 3 (imported names): a fix that calls something new imports it, and what a file imports is what
// the code shown can use. The best source files also show their import block, compact and scored below their hits.

/** How many of the best source files show their imports. */
export const IMPORT_FILES = 2;
/** At most this many lines of one file's imports. */
export const IMPORT_LINES = 40;
/** An import block's relevance: this share of its file's best hit. */
export const IMPORT_FACTOR = 0.5;
/** Imports are looked for in a file's first lines only. */
const HEAD_LINES = 150;
/** A longer line (minified, generated) is not an import line. */
const MAX_LINE = 400;

// import / from … import (Python, JS, TS, Java), use / extern crate / mod x; (Rust), package / import (Go),
// #include, CommonJS require; top level only (a function's own `import json` is not the file's).
const IMPORT_LINE = /^(?:import\b|from\s+[\w.]+\s+import\b|use\s+[\w:{]|pub\s+use\s|extern\s+crate\b|mod\s+\w+\s*;|#include\b|(?:const|let|var)\s[\w{}\s,:]*=\s*require\s*\()/;

// The first top-level definition ends the file's head.
const DEFINITION_LINE = /^(?:export\s+)?(?:pub(?:\([\w:]+\))?\s+)?(?:async\s+)?(?:def|class|func|fn|function|impl|struct|enum|trait|interface)\b/;

/**
 * A file's import block (1-based, inclusive): from its first to its last top-level import line before its first
 * definition (within its first lines),
 * extended to close a parenthesised or braced group (`import (` in Go, `from x import (` in Python), capped at
 * `max` lines; null when it has none.
 */
export function importBlock(lines: readonly string[], max = IMPORT_LINES): { start: number; end: number } | null {
  let first = 0;
  let last = 0;
  const head = Math.min(lines.length, HEAD_LINES);
  for (let n = 1; n <= head; n++) {
    const line = lines[n - 1]!;
    if (line.length > MAX_LINE) continue;
    if (DEFINITION_LINE.test(line)) break;
    if (!IMPORT_LINE.test(line)) continue;
    if (first === 0) first = n;
    last = n;
  }
  if (first === 0) return null;
  // An open group on the last import line closes below it.
  let depth = 0;
  for (let n = first; n <= last; n++) depth += balance(lines[n - 1]!);
  while (depth > 0 && last < lines.length && last - first + 1 < max) {
    last++;
    depth += balance(lines[last - 1]!);
  }
  return { start: first, end: Math.min(last, first + max - 1) };
}

function balance(line: string): number {
  if (line.length > MAX_LINE) return 0;
  let d = 0;
  for (const ch of line.replace(/(["'`]).*?\1/g, '')) {
    if (ch === '(' || ch === '{') d++;
    else if (ch === ')' || ch === '}') d--;
  }
  return d;
}

/** The import blocks of the IMPORT_FILES best source files of `kept`, not where a hit already shows them. */
export function importHits(
  kept: readonly SelectedHit[],
  documentText: ((documentId: number) => string[] | null) | null,
  files = IMPORT_FILES,
): SelectedHit[] {
  if (!documentText || files <= 0) return [];
  const best = new Map<number, SelectedHit>();
  for (const k of [...kept].sort((a, b) => b.relative - a.relative)) {
    if (k.role !== 'source' || k.hit.externalId != null || best.has(k.hit.documentId)) continue;
    if (best.size >= files) break;
    best.set(k.hit.documentId, k);
  }
  const out: SelectedHit[] = [];
  for (const [doc, base] of best) {
    const lines = documentText(doc);
    const block = lines ? importBlock(lines) : null;
    if (!lines || !block) continue;
    if (kept.some((k) => k.hit.documentId === doc && k.hit.lineStart <= block.start && k.hit.lineEnd >= block.end)) continue;
    const text = lines.slice(block.start - 1, block.end).join('\n');
    out.push({ hit: { ...base.hit, anchor: 'imports', headingPath: '', lineStart: block.start, lineEnd: block.end, text, score: 0 }, role: base.role, relative: base.relative * IMPORT_FACTOR });
  }
  return out;
}
