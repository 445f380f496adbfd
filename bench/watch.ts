// npm run bench:watch [-- --files 5000 --edits 40 --burst 1000 --idle-s 60 --packets 1000 --no-embed]
//
// The watcher end to end on real file-system events (@parcel/watcher, inotify here), one process:
//  1. edit-to-searchable latency for one changed file in a library of --files files (BM25: until the new word is found
//     by the BM25 retriever), then the same with the tiny test model (until the edited file's chunks have vectors);
//  2. a burst of --burst changed files: time until all are indexed, batches used, against `ingest` of the same files;
//  3. idle watcher: CPU and RSS of this process over --idle-s seconds with nothing changing;
//  4. staleness of --packets stored packets (listPackets with staleness, and the staleness query alone).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ingestPaths } from '../src/main/core/ingest/index.ts';
import { openStore } from '../src/main/core/store/index.ts';
import { createBm25Retriever } from '../src/main/core/search/index.ts';
import { createWatcher, parcelSubscribe, type Watcher } from '../src/main/core/watch/index.ts';
import { assemble, createStoreSources, listPackets, packetStaleness } from '../src/main/core/packet/index.ts';
import { backfillVectors } from '../src/main/core/vectors/index.ts';
import { tinyModels } from '../src/main/core/vectors/testing/tiny-embedder.ts';
import { writeTree } from '../src/main/core/testing/tmp.ts';

const { values } = parseArgs({
  options: {
    files: { type: 'string', default: '5000' },
    edits: { type: 'string', default: '40' },
    burst: { type: 'string', default: '1000' },
    'idle-s': { type: 'string', default: '60' },
    packets: { type: 'string', default: '1000' },
    'no-embed': { type: 'boolean', default: false },
    only: { type: 'string' },
  },
});
const FILES = Number(values.files);
const EDITS = Number(values.edits);
const BURST = Number(values.burst);
const IDLE_S = Number(values['idle-s']);
const PACKETS = Number(values.packets);
// --only edit,embed,burst,idle,stale runs some parts (the library is always built).
const run = (part: string) => !values.only || values.only.split(',').includes(part);

const WORDS = 'ledger kestrel replica signing token rotation backoff queue worker cache index chunk anchor budget packet redaction snapshot heron osprey gateway'.split(' ');
const para = (i: number, salt = '') =>
  Array.from({ length: 12 }, (_, j) => `${WORDS[(i * 7 + j) % WORDS.length]} ${WORDS[(i + j * 3) % WORDS.length]} note ${i}-${j}${salt}`).join('. ') + '.';
const doc = (i: number, salt = '') => `# Document ${i}\n\n## Part A\n\n${para(i, salt)}\n\n## Part B\n\n${para(i + 1, salt)}\n`;
const rel = (i: number) => `area${i % 50}/sub${i % 7}/doc${i}.md`;
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const ms = (x: number) => `${x.toFixed(0)} ms`;
const sleep = (t: number) => new Promise((r) => setTimeout(r, t));

const work = mkdtempSync(join(tmpdir(), 'cp-bench-watch-'));
const root = join(work, 'lib');
const files: Record<string, string> = {};
for (let i = 0; i < FILES; i++) files[rel(i)] = doc(i);
writeTree(root, files);
const store = openStore(join(work, 'bench.db'));
let t0 = performance.now();
const initial = await ingestPaths(store.db, [root]);
console.log(`library    ${FILES} files, ${initial.chunks} chunks, ingest ${((performance.now() - t0) / 1000).toFixed(1)} s (BM25 only)`);

const bm25 = createBm25Retriever(store.db);
const found = async (word: string) => (await bm25.search({ text: word, k: 1 })).length > 0;

async function watch(afterBatch?: () => Promise<void>, onChange?: () => void): Promise<Watcher> {
  const w = createWatcher({ db: store.db, subscribe: parcelSubscribe, afterBatch, onChange });
  await w.start();
  return w;
}

// 1. Edit-to-searchable, BM25 path.
if (run('edit')) {
  const w = await watch();
  const lat: number[] = [];
  for (let e = 0; e < EDITS; e++) {
    const i = (e * 997) % FILES;
    const word = `zqx${e}marker`;
    const t = performance.now();
    writeFileSync(join(root, rel(i)), doc(i, ` ${word}`));
    while (!(await found(word))) await sleep(2);
    lat.push(performance.now() - t);
    await sleep(50);
  }
  console.log(`edit→searchable (BM25, ${EDITS} edits, debounce 150 ms): p50 ${ms(pct(lat, 50))}, p95 ${ms(pct(lat, 95))}, max ${ms(Math.max(...lat))}  (target p50 ≤ 1000, p95 ≤ 2000)`);
  await w.close();
}

// 1b. Embed path with the tiny test model: until the edited file's chunks have vectors.
if (run('embed') && !values['no-embed'] && store.vec.loaded) {
  const tiny = await tinyModels(undefined, 384);
  const embedder = await tiny.open();
  t0 = performance.now();
  const fill = await backfillVectors(store.db, embedder);
  console.log(`embed      ${fill.embedded} chunks with the tiny test model in ${((performance.now() - t0) / 1000).toFixed(1)} s (not a quality figure)`);
  let embeddedAt = 0;
  const w = await watch(async () => {
    await backfillVectors(store.db, embedder);
    embeddedAt = performance.now();
  });
  const lat: number[] = [];
  const bmLat: number[] = [];
  for (let e = 0; e < Math.min(EDITS, 20); e++) {
    const i = (e * 389 + 11) % FILES;
    const word = `vqx${e}marker`;
    embeddedAt = 0;
    const t = performance.now();
    writeFileSync(join(root, rel(i)), doc(i, ` ${word}`));
    while (!(await found(word))) await sleep(2);
    bmLat.push(performance.now() - t);
    while (embeddedAt === 0) await sleep(2);
    lat.push(embeddedAt - t);
    await sleep(50);
  }
  console.log(`edit→embedded (tiny model, ${lat.length} edits): p50 ${ms(pct(lat, 50))}, p95 ${ms(pct(lat, 95))}; BM25-searchable in the same runs p50 ${ms(pct(bmLat, 50))}`);
  await w.close();
  await embedder.close();
  await tiny.cleanup();
}

// 2. Burst: BURST files rewritten at once (a git checkout), against `ingest` of the same files. The end is the
// batch's own change event (the index is committed by then), so polling the index does not compete with it.
if (run('burst')) {
  let changedAt = 0;
  const w = await watch(undefined, () => (changedAt = performance.now()));
  const before = w.status().batches;
  const word = 'burstmarkerqq';
  const t = performance.now();
  for (let i = 0; i < BURST; i++) writeFileSync(join(root, rel(i)), doc(i, ` ${word}`));
  const written = performance.now();
  const count = () => (store.db.prepare("SELECT count(DISTINCT d.source_id) AS n FROM chunks_fts f JOIN chunks c ON c.id = f.rowid JOIN documents d ON d.id = c.document_id WHERE chunks_fts MATCH ?").get(word) as { n: number }).n;
  while (count() < BURST) await sleep(100);
  const done = changedAt;
  await w.idle();
  const batches = w.status().batches - before;
  await w.close();
  // The same BURST files changed again and given to `ingest` (same store, same state: vectors and all).
  const word2 = 'burstmarkerzz';
  const paths: string[] = [];
  for (let i = 0; i < BURST; i++) {
    paths.push(join(root, rel(i)));
    writeFileSync(paths[i]!, doc(i, ` ${word2}`));
  }
  const ti = performance.now();
  const r = await ingestPaths(store.db, paths);
  const ingestMs = performance.now() - ti;
  console.log(`burst      ${BURST} files: written in ${ms(written - t)}, all indexed ${ms(done - written)} after the last write (${ms(done - t)} from the first, incl. the 150 ms debounce), ${batches} batch${batches === 1 ? '' : 'es'}; ingest of the same ${r.updated.length} changed files ${ms(ingestMs)} → ratio ${((done - written) / ingestMs).toFixed(2)} (target ≤ 2)`);
}

// 3. Idle watcher.
if (run('idle')) {
  const w = await watch();
  await sleep(2000);
  global.gc?.();
  const rss0 = process.memoryUsage().rss;
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  await sleep(IDLE_S * 1000);
  const cpu = process.cpuUsage(cpu0);
  const wall = performance.now() - wall0;
  global.gc?.();
  const rss1 = process.memoryUsage().rss;
  const busy = (cpu.user + cpu.system) / 1000 / wall;
  console.log(`idle       ${IDLE_S} s watching ${FILES} files (${w.status().watching} root): CPU ${(busy * 100).toFixed(3)} % of one core, RSS ${(rss0 / 2 ** 20).toFixed(1)} → ${(rss1 / 2 ** 20).toFixed(1)} MB (${((rss1 - rss0) / 2 ** 20).toFixed(2)} MB; × ${(600 / IDLE_S).toFixed(0)} for 10 min if linear)`);
  await w.close();
}

// 4. Staleness of PACKETS stored packets.
if (run('stale')) {
  const sources = createStoreSources(store.db);
  t0 = performance.now();
  for (let p = 0; p < PACKETS; p++) await assemble({ query: `${WORDS[p % WORDS.length]} note ${p % 300}-${p % 12}`, k: 8, maxTokens: 2000 }, { db: store.db, sources }, 'md');
  const built = performance.now() - t0;
  // Change 100 of the files the packets cite (every k-th distinct cited file), so some packets really go stale.
  const cited = (store.db.prepare('SELECT DISTINCT rel_path AS p FROM packet_sources ORDER BY rel_path').all() as { p: string }[]).map((r) => r.p);
  const step = Math.max(1, Math.floor(cited.length / 100));
  const changed = cited.filter((_, i) => i % step === 0).slice(0, 100);
  for (const p of changed) writeFileSync(join(root, p), `# Changed\n\nstalemarker ${p}\n`);
  await ingestPaths(store.db, [root]);
  const list: number[] = [];
  const query: number[] = [];
  let stale = 0;
  for (let r = 0; r < 20; r++) {
    let t = performance.now();
    const l = listPackets(store.db, { limit: PACKETS });
    list.push(performance.now() - t);
    stale = l.filter((x) => x.stale).length;
    t = performance.now();
    packetStaleness(store.db, l.map((x) => x.hash));
    query.push(performance.now() - t);
  }
  console.log(`staleness  ${PACKETS} packets (built in ${(built / 1000).toFixed(1)} s), ${stale} stale after ${changed.length} of ${cited.length} cited files changed: listPackets p50 ${list.length ? pct(list, 50).toFixed(1) : '-'} ms, staleness query alone p50 ${pct(query, 50).toFixed(1)} ms (target ≤ 100)`);
}

store.close();
rmSync(work, { recursive: true, force: true });
