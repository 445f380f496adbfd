// node bench/exclude-coverage.ts [-- --root src --exclude '*.test.ts' --exclude 'testing/']
// What test files cost a packet's evidence on a real code base (this repository's src/ by default): for a few task
// queries, packets with and without exclude globs; prints how many evidence items are test files and how many
// distinct non-test files the evidence cites. Not a timing; no ground truth is needed for these two counts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ingestPaths } from '../src/main/core/ingest/index.ts';
import { buildPacket, createStoreSources } from '../src/main/core/packet/index.ts';
import { openStore } from '../src/main/core/store/index.ts';

const { values } = parseArgs({ options: { root: { type: 'string', default: 'src' }, exclude: { type: 'string', multiple: true } } });
const excludes = values.exclude ?? ['*.test.ts', 'testing/'];
const QUERIES = ['redaction gate private key block', 'vector index sketch shortlist rescore', 'decision id allocation concurrent', 'packet budget trimming order', 'upload imports folder staging'];
const isTest = (p: string) => /\.test\.ts$|\/testing\//.test(p);

const tmp = mkdtempSync(join(tmpdir(), 'cp-bench-exclude-'));
const store = openStore(join(tmp, 'b.db'), { loadVec: false });
await ingestPaths(store.db, [resolve(values.root!)]);
const sources = createStoreSources(store.db);
const totals = { plain: { items: 0, tests: 0, files: 0 }, exclude: { items: 0, tests: 0, files: 0 } };
for (const query of QUERIES) {
  for (const mode of ['plain', 'exclude'] as const) {
    const p = await buildPacket({ query, filters: mode === 'exclude' ? { exclude: excludes } : undefined }, { sources, db: null });
    const ev = p.included.map((i) => i.source ?? '').filter((s) => s.startsWith('/')).map((s) => s.split('#')[0]!.split(':')[0]!);
    const tests = ev.filter(isTest).length;
    const files = new Set(ev.filter((s) => !isTest(s))).size;
    totals[mode].items += ev.length;
    totals[mode].tests += tests;
    totals[mode].files += files;
    console.log(`${query.padEnd(40)} ${mode.padEnd(8)} evidence ${String(ev.length).padStart(3)}  test files ${String(tests).padStart(3)}  distinct non-test files ${files}`);
  }
}
for (const [mode, t] of Object.entries(totals)) console.log(`total ${mode.padEnd(8)} evidence ${t.items}, of which test files ${t.tests} (${((100 * t.tests) / Math.max(1, t.items)).toFixed(0)} %), distinct non-test files cited ${t.files}`);
store.close();
rmSync(tmp, { recursive: true, force: true });
