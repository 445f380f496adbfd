import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../core/store/index.ts';
import { tempDirs, writeTree } from '../../core/testing/tmp.ts';
import { runCli } from '../run.ts';

const tmp = tempDirs('cp-watch-cli-');
afterAll(() => tmp.cleanup());
const bin = fileURLToPath(new URL('../bin.mjs', import.meta.url));

describe('contextpack watch', () => {
  it('ingests a new root, follows an edit, prints it, and stops cleanly on SIGINT', async () => {
    const root = tmp.make();
    writeTree(root, { 'docs/a.md': '# A\n\nalpha\n' });
    const db = join(tmp.make(), 'w.db');
    const child = spawn(process.execPath, [bin, 'watch', root, '--db', db, '--json', '--no-embed', '--debounce-ms', '50'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const waitFor = async (re: RegExp, ms = 15_000) => {
      const end = Date.now() + ms;
      while (!re.test(out)) {
        if (Date.now() > end) throw new Error(`timed out waiting for ${re} in ${JSON.stringify(out)} / ${err}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    };
    await waitFor(/"event":"watch.status"/);
    writeFileSync(join(root, 'docs', 'b.md'), '# B\n\nbravo capybara\n');
    await waitFor(/"added":\["docs\/b.md"\]/);
    child.kill('SIGINT');
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    expect(code).toBe(0);
    const lines = out.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ event: 'library.changed', added: ['docs/a.md'] }); // the reconcile on start
    expect(lines.some((l) => l.event === 'library.changed' && l.added.includes('docs/b.md'))).toBe(true);
    // Search output cites the path relative to the root, never the absolute one.
    let text = '';
    const rc = await runCli(['search', 'capybara', '--db', db], { stdout: (s) => void (text += s), stderr: () => {}, env: {}, readStdin: async () => '' });
    expect(rc).toBe(0);
    expect(text).toContain('docs/b.md#');
    expect(text).not.toContain(root);
    const store = openStore(db, { loadVec: false });
    expect(store.db.prepare("SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH 'capybara'").get()).toEqual({ n: 1 });
    store.close();
  }, 30_000);
});
