import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../store/index.ts';
import { tempDirs, writeTree } from '../testing/tmp.ts';

const tmp = tempDirs('cp-crash-');
afterAll(() => tmp.cleanup());
const child = fileURLToPath(new URL('./testing/ingest-child.ts', import.meta.url));

function runChild(dbPath: string, root: string, killAfterFiles: number | null): Promise<{ output: string; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [child, dbPath, root], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    p.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      const done = output.split('\n').filter((l) => /^\d+$/.test(l)).length;
      if (killAfterFiles !== null && done >= killAfterFiles) p.kill('SIGKILL');
    });
    p.on('error', reject);
    p.on('close', (_code, signal) => resolve({ output, signal }));
  });
}

describe('crash safety', () => {
  it('survives SIGKILL mid-ingest: integrity ok, no half-indexed document, rerun completes', async () => {
    const root = tmp.make();
    const files: Record<string, string> = {};
    // Big enough files that the kill lands while a file is being written, not only between files.
    for (let i = 0; i < 120; i++) {
      files[`f${String(i).padStart(3, '0')}.md`] = Array.from({ length: 400 }, (_, j) => `## S${j}\nfile ${i} section ${j} lorem ipsum dolor sit amet`).join('\n');
    }
    writeTree(root, files);
    const dbPath = join(tmp.make(), 'crash.db');

    const killed = await runChild(dbPath, root, 15);
    expect(killed.signal).toBe('SIGKILL');
    expect(killed.output).not.toContain('finished');

    const store = openStore(dbPath);
    expect(store.db.pragma('integrity_check', { simple: true })).toBe('ok');
    store.db.exec("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)");
    const indexed = store.db.prepare("SELECT count(*) AS n FROM sources WHERE status = 'indexed'").get() as { n: number };
    expect(indexed.n).toBeGreaterThanOrEqual(15);
    expect(indexed.n).toBeLessThan(120);
    // Every indexed source has its whole document: the chunk count a fresh chunking would give.
    const partial = store.db.prepare(`
      SELECT s.path FROM sources s JOIN documents d ON d.source_id = s.id
      GROUP BY s.id HAVING (SELECT count(*) FROM chunks c WHERE c.document_id = d.id) <> (SELECT max(ordinal) + 1 FROM chunks c WHERE c.document_id = d.id)
         OR (SELECT max(line_end) FROM chunks c WHERE c.document_id = d.id) <> 800`).all();
    expect(partial).toEqual([]);
    const ftsRows = store.db.prepare("SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH 'lorem'").get() as { n: number };
    const chunkRows = store.db.prepare('SELECT count(*) AS n FROM chunks').get() as { n: number };
    expect(ftsRows.n).toBe(chunkRows.n);
    store.close();

    const rerun = await runChild(dbPath, root, null);
    expect(rerun.output).toContain('finished');
    const after = openStore(dbPath);
    expect(after.db.prepare("SELECT count(*) AS n FROM sources WHERE status = 'indexed'").get()).toEqual({ n: 120 });
    after.close();
  });
});
