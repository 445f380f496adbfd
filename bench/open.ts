// npm run bench:open [-- --mb 200 --rounds 5]
// What the integrity check costs when a store opens: builds a store of about --mb MB of chunk text (FTS5 index
// included; text generated from a seeded PRNG, never real data), closes it, then times openStore on it (schema check +
// PRAGMA quick_check + migrations) when the file changed elsewhere and when it is as this build left it, against a
// plain open. Prints the file size and medians.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { openStore } from '../src/main/core/store/index.ts';

const { values } = parseArgs({ options: { mb: { type: 'string', default: '200' }, rounds: { type: 'string', default: '5' } } });
const targetBytes = Number(values.mb) * 1024 * 1024;
const rounds = Number(values.rounds);

let seed = 7;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const SYL = ['ka', 'lo', 'mi', 'ne', 'su', 'ta', 'ri', 'po', 've', 'da', 'gu', 'ze'];
const word = () => Array.from({ length: 2 + Math.floor(rand() * 3) }, () => SYL[Math.floor(rand() * 12)]).join('');
const paragraph = (chars: number) => {
  let s = '';
  while (s.length < chars) s += word() + ' ';
  return s;
};

const dir = mkdtempSync(join(tmpdir(), 'cp-bench-open-'));
const path = join(dir, 'bench.db');
try {
  const t0 = performance.now();
  const store = openStore(path, { loadVec: false });
  const db = store.db;
  const src = db.prepare("INSERT INTO sources (path, root, size, type, status, indexed_at) VALUES (?, '/bench', 0, 'text', 'indexed', '2026-01-01') RETURNING id");
  const doc = db.prepare('INSERT INTO documents (source_id, ordinal, title) VALUES (?, 0, ?) RETURNING id');
  const chunk = db.prepare('INSERT INTO chunks (document_id, ordinal, text, line_start, line_end, token_count, chunker_version) VALUES (?, ?, ?, 1, 1, 200, 1)');
  let written = 0;
  let file = 0;
  while (written < targetBytes) {
    db.transaction(() => {
      for (let f = 0; f < 200; f++, file++) {
        const sid = (src.get(`/bench/f${file}.txt`) as { id: number }).id;
        const did = (doc.get(sid, `file ${file}`) as { id: number }).id;
        for (let c = 0; c < 10; c++) {
          const text = paragraph(1000);
          chunk.run(did, c, text);
          written += text.length;
        }
      }
    })();
  }
  store.close();
  const size = statSync(path).size;
  console.log(`store: ${(size / 1024 / 1024).toFixed(1)} MB on disk, ${file} files, ${(written / 1024 / 1024).toFixed(1)} MB of chunk text (built in ${((performance.now() - t0) / 1000).toFixed(1)} s)`);

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const withCheck: number[] = [];
  const unchanged: number[] = [];
  const plain: number[] = [];
  const quick: number[] = [];
  for (let i = 0; i < rounds; i++) {
    // A file changed behind our back (no stamp): the full scan.
    rmSync(`${path}.verified`, { force: true });
    let t = performance.now();
    const checked = openStore(path, { loadVec: false });
    withCheck.push(performance.now() - t);
    if (checked.integrity !== 'ran') throw new Error(`expected a scan, got ${checked.integrity}`);
    checked.close();
    // The file as this build left it: the stamp matches, no scan.
    t = performance.now();
    const again = openStore(path, { loadVec: false });
    unchanged.push(performance.now() - t);
    if (again.integrity !== 'unchanged') throw new Error(`expected no scan, got ${again.integrity}`);
    again.close();
    t = performance.now();
    const raw = new BetterSqlite3(path);
    raw.pragma('journal_mode = WAL');
    raw.close();
    plain.push(performance.now() - t);
    const probe = new BetterSqlite3(path, { readonly: true });
    t = performance.now();
    probe.pragma('quick_check');
    quick.push(performance.now() - t);
    probe.close();
  }
  console.log(`openStore, file changed elsewhere (schema check + quick_check): median ${median(withCheck).toFixed(0)} ms over ${rounds} opens (warm page cache)`);
  console.log(`openStore, file as this build left it (stamp matches):   median ${median(unchanged).toFixed(1)} ms`);
  console.log(`plain open, no checks:                              median ${median(plain).toFixed(1)} ms`);
  console.log(`PRAGMA quick_check alone:                           median ${median(quick).toFixed(0)} ms → ${(size / 1024 / 1024 / (median(quick) / 1000)).toFixed(0)} MB/s`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
