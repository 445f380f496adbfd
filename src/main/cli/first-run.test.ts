// First-run paths (issue #34): an unknown project is an error naming the projects (CLI and the MCP server's start),
// binary content is skipped with a reason and ingest exits 0, and stats says which mode search "best" uses on code.
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDirs, writeTree } from '../core/testing/tmp.ts';
import { runCliCaptured } from './testing/run-cli.ts';

const tmp = tempDirs('cp-first-run-');
afterAll(() => tmp.cleanup());
const bin = fileURLToPath(new URL('./bin.mjs', import.meta.url));

describe('an unknown project', () => {
  it('is an error listing the projects and how to make one, for --project and CONTEXTPACK_PROJECT; nothing is created', async () => {
    const home = tmp.make();
    const env = { CONTEXTPACK_HOME: home };
    expect((await runCliCaptured(['projects', 'new', 'shop'], { env })).code).toBe(0);
    const typo = await runCliCaptured(['search', 'retries', '--project', 'shpo'], { env });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('--project: no project named "shpo"; the projects are: default, shop');
    expect(typo.stderr).toContain('`contextpack projects new shpo` creates it');
    expect(existsSync(join(home, 'projects', 'shpo'))).toBe(false);
    const fromEnv = await runCliCaptured(['stats'], { env: { ...env, CONTEXTPACK_PROJECT: 'shpo' } });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toContain('CONTEXTPACK_PROJECT: no project named "shpo"');
    // Known projects, the default one and --db are as before.
    expect((await runCliCaptured(['stats', '--project', 'shop'], { env })).code).toBe(0);
    expect((await runCliCaptured(['stats', '--project', 'default'], { env })).code).toBe(0);
    expect((await runCliCaptured(['stats', '--project', 'shpo', '--db', join(tmp.make(), 'x.db')], { env })).code).toBe(0);
  });

  it('the MCP server does not start on one, and says why on stderr (what an MCP client logs)', () => {
    const home = tmp.make();
    const r = spawnSync(process.execPath, [bin, 'mcp', '--project', 'nope'], { env: { ...process.env, CONTEXTPACK_HOME: home }, input: '', encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('no project named "nope"; the projects are: default');
  });

  it('ingest into a new project creates it, and says so', async () => {
    const env = { CONTEXTPACK_HOME: tmp.make() };
    const folder = tmp.make();
    writeFileSync(join(folder, 'notes.md'), '# Notes\n\nRetries: three.\n');
    const r = await runCliCaptured(['ingest', folder, '--project', 'fresh', '--no-embed'], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('new project fresh');
    expect((await runCliCaptured(['search', 'retries', '--project', 'fresh'], { env })).stdout).toContain('notes.md');
  });
});

describe('binary content', () => {
  it('is skipped with a reason, not failed, and ingest exits 0 when everything readable was indexed', async () => {
    const folder = tmp.make();
    // FITS: 2880-byte ASCII header blocks, then binary data (NUL bytes past the first 8 KiB).
    const header = 'SIMPLE  =                    T / conforms to FITS standard'.padEnd(80) + 'BITPIX  =                  -32'.padEnd(80) + 'END'.padEnd(80);
    const fits = Buffer.concat([Buffer.from(header.padEnd(2880 * 4)), Buffer.alloc(4096, 0), Buffer.from([1, 2, 3])]);
    // An Illustrator-like file: a text-looking start, then bytes that are neither text nor NUL.
    const noNul = Buffer.concat([Buffer.from('%!PS-Adobe-3.0\n%%Creator: Adobe Illustrator\n'), Buffer.from(Array.from({ length: 6000 }, (_, i) => 1 + ((i * 37) % 254)))]);
    writeTree(folder, { 'readme.md': '# Telescope\n\nImages are calibrated nightly.\n', 'data/frame.fits': fits, 'art/logo.ai': noNul });
    const db = join(tmp.make(), 'b.db');
    const r = await runCliCaptured(['ingest', folder, '--db', db, '--no-embed', '--json'], { env: {} });
    expect(r.code).toBe(0);
    const report = r.json();
    expect(report.failed).toEqual([]);
    expect(report.skipped).toEqual(
      expect.arrayContaining([
        { path: join(folder, 'data/frame.fits'), reason: 'binary content (NUL bytes)' },
        { path: join(folder, 'art/logo.ai'), reason: 'binary content (not text)' },
      ]),
    );
    // Text that is merely not UTF-8 is still a failure worth reporting (exit 1), not hidden as binary.
    writeFileSync(join(folder, 'latin1.txt'), Buffer.from('Caf\xe9 cr\xe8me: the calibration notes.\n', 'latin1'));
    const again = await runCliCaptured(['ingest', folder, '--db', db, '--no-embed', '--json'], { env: {} });
    expect(again.code).toBe(1);
    expect(again.json().failed).toEqual([{ path: join(folder, 'latin1.txt'), reason: expect.stringContaining('not valid UTF-8') }]);
  });
});

describe('search mode on a code-heavy project', () => {
  it('stats says that search "best" stays bm25, and why', async () => {
    const folder = tmp.make();
    writeTree(folder, { 'a.py': 'def retry(n):\n    return n - 1\n', 'b.py': 'def budget():\n    return 3\n' });
    const db = join(tmp.make(), 'c.db');
    expect((await runCliCaptured(['ingest', folder, '--db', db, '--no-embed'], { env: {} })).code).toBe(0);
    const stats = await runCliCaptured(['stats', '--db', db], { env: {} });
    expect(stats.stdout).toMatch(/search mode "best" is bm25 here, not hybrid: code-aware BM25: \d+ of \d+ chunks are source code/);
  });
});
