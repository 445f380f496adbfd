import { describe, expect, it } from 'vitest';
import type { PacketItemRef, PacketManifest } from '../../shared/packet.ts';
import { packetStructure, TOOL_OUTPUTS } from './outputs.ts';

const ref = (source: string, extra: Partial<PacketItemRef> = {}): PacketItemRef => ({ id: source, section: 'INTEL', kind: 'evidence', source, score: 0.5, chars: 10, digest: '0'.repeat(16), redacted_lines: 0, ...extra });

describe('pack structuredContent', () => {
  it('says which items are compressed and which lines an excerpt still shows', () => {
    const manifest = {
      template: 'ao-v1',
      retrieval: { mode: 'bm25' },
      budgets: { total_tokens: 100, max_tokens: 200 },
      redactions: { count: 0 },
      included: [ref('src/a.py#run:10-60'), ref('src/b.py#load:1-40', { compressed: true, shown: '3-7,20-24' }), ref('src/c.py#c:5-9', { compressed: true })],
      dropped: [],
    } as unknown as PacketManifest;
    const out = TOOL_OUTPUTS.pack.parse(packetStructure({ hash: 'h', format: 'markdown', manifest }, 'contextpack://packet/h'));
    expect(out.items.map((i) => [i.compressed ?? false, i.shown ?? null])).toEqual([
      [false, null],
      [true, [{ start: 3, end: 7 }, { start: 20, end: 24 }]],
      [true, null],
    ]);
    expect(out.items[1]!.lines).toEqual({ start: 1, end: 40 });
  });
});
