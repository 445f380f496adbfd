// What a packet's evidence shows of each file, as bench:localize and bench:issues count it.
import type { PacketItemRef } from '../../src/shared/packet.ts';
import type { ShownSpan } from '../../src/main/core/localize/line-tasks.ts';

/** `path#anchor:1-20` or `path#anchor:1-20,40-52` → spans, paths relative to the extracted tree. */
export function spansOf(source: string, rel: (p: string) => string): ShownSpan[] {
  const m = /:((?:\d+-\d+)(?:,\d+-\d+)*)$/.exec(source);
  const noLines = m ? source.slice(0, m.index) : source;
  const hash = noLines.lastIndexOf('#');
  const file = rel(hash >= 0 ? noLines.slice(0, hash) : noLines);
  if (!m) return [{ file, start: 1, end: Number.MAX_SAFE_INTEGER }];
  return m[1]!.split(',').map((r) => {
    const [a, b] = r.split('-').map(Number);
    return { file, start: a!, end: b! };
  });
}

/**
 * The lines the evidence items show: an excerpt counts the lines it shows (`shown`); a compressed item (a pointer or
 * key sentences, 003's compress before drop) cites its file with no line shown (start = end = -1); any other item
 * shows its label's range.
 */
export function evidenceSpans(items: readonly PacketItemRef[], rel: (p: string) => string): ShownSpan[] {
  return items
    .filter((i) => i.kind === 'evidence')
    .flatMap((i) =>
      i.shown
        ? spansOf(`${i.source.replace(/:[\d,-]+$/, '')}:${i.shown}`, rel)
        : i.compressed
          ? spansOf(i.source, rel).slice(0, 1).map((sp) => ({ ...sp, start: -1, end: -1 }))
          : spansOf(i.source, rel),
    );
}
