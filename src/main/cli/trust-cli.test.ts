import { readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { logPath } from '../core/packet/index.ts';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore, migrations } from '../core/store/index.ts';
import { tempDirs, writeTree } from '../core/testing/tmp.ts';
import { runCliCaptured } from './testing/run-cli.ts';

const tmp = tempDirs('cp-trust-cli-');
afterAll(() => tmp.cleanup());

const cli = (args: string[]) => runCliCaptured(args);
const mode = (p: string) => statSync(p).mode & 0o777;

describe('the CLI on a store it cannot trust', () => {
  it('refuses a newer schema with a non-zero exit and leaves the file untouched', async () => {
    const db = join(tmp.make(), 'newer.db');
    const s = openStore(db, { loadVec: false });
    s.db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, ?, ?)').run('future', 'x');
    s.close();
    const bytes = readFileSync(db);
    const mtime = statSync(db).mtimeMs;
    const files = readdirSync(join(db, '..')).sort();
    const newest = Math.max(...migrations.map((m) => m.version));
    for (const args of [['stats'], ['ingest', tmp.make()], ['search', 'anything']]) {
      const r = await cli([...args, '--db', db]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain(`written by a newer ContextPack (schema 9999, this build knows up to ${newest})`);
    }
    expect(readFileSync(db).equals(bytes)).toBe(true);
    expect(statSync(db).mtimeMs).toBe(mtime);
    expect(readdirSync(join(db, '..')).sort()).toEqual(files);
    expect(files.filter((f) => /-(wal|shm)$/.test(f))).toEqual([]);
  });

  it('warns about a damaged store, still reads it, and refuses changes with the reason', async () => {
    const dir = tmp.make();
    const db = join(dir, 'damaged.db');
    const s = openStore(db, { loadVec: false });
    s.db.transaction(() => {
      for (let i = 0; i < 3000; i++) s.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run(`k${i}`, 'v'.repeat(80));
    })();
    s.close();
    const bytes = readFileSync(db);
    bytes.fill(0xff, bytes.length - 4096 + 8, bytes.length - 4096 + 40);
    writeFileSync(db, bytes);

    const stats = await cli(['stats', '--db', db]);
    expect(stats.code).toBe(0);
    expect(stats.stderr).toMatch(/^contextpack: warning: database .*damaged\.db is damaged \(PRAGMA quick_check: .*\); it is open read-only/);
    expect(stats.stdout).toMatch(/sources +0 indexed/);
    expect(stats.stdout).toMatch(/^integrity +damaged: open read-only$/m);

    const root = tmp.make();
    writeTree(root, { 'a.md': '# A\n\ntext\n' });
    const ingest = await cli(['ingest', root, '--db', db]);
    expect(ingest.code).not.toBe(0);
    expect(ingest.stderr).toMatch(/contextpack ingest: database .* is damaged .* changes are refused/);
    expect(ingest.stderr).not.toMatch(/attempt to write a readonly database/);
  });
});

describe('ingest and search output', () => {
  it('reports skipped links and credential files, and --follow-symlinks reads links out of the root', async () => {
    const outside = tmp.make();
    writeTree(outside, { 'shared.md': '# Shared\n\nshared-outside-marker\n' });
    const root = tmp.make();
    writeTree(root, { 'README.md': '# R\n\nreadme\n', '.env': 'TOKEN=x\n' });
    symlinkSync(join(outside, 'shared.md'), join(root, 'shared.md'));
    const db = join(tmp.make(), 's.db');
    const r = await cli(['ingest', root, '--db', db, '--no-embed']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`  skipped ${join(root, 'shared.md')}: symlink outside root\n`);
    expect(r.stdout).toContain(`  skipped ${join(root, '.env')}: sensitive file (environment file); re-include with "!.env" in .contextpackignore\n`);
    const json = JSON.parse((await cli(['ingest', root, '--db', db, '--no-embed', '--json'])).stdout);
    expect(json.skipped).toContainEqual({ path: join(root, 'shared.md'), reason: 'symlink outside root' });
    const followed = JSON.parse((await cli(['ingest', root, '--db', db, '--no-embed', '--json', '--follow-symlinks'])).stdout);
    expect(followed.added).toEqual([join(root, 'shared.md')]);
  });

  it('a JSONL file with bad lines: good lines indexed, bad line numbers in the report (text and --json)', async () => {
    const root = tmp.make();
    writeTree(root, {
      'c.jsonl': ['{"_id":"a","text":"alpha okapi"}', '{"_id":"b","text":', '{"_id":"c","text":"gamma okapi"}'].join('\n'),
    });
    const db = join(tmp.make(), 'j.db');
    const r = await cli(['ingest', root, '--db', db, '--no-embed']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`  warning ${join(root, 'c.jsonl')}: bad lines not indexed: line 2 (invalid JSON)\n`);
    const hits = JSON.parse((await cli(['search', 'okapi', '--db', db, '--json'])).stdout).hits;
    expect(hits.map((h: { externalId: string }) => h.externalId).sort()).toEqual(['a', 'c']);
    const root2 = tmp.make();
    writeTree(root2, { 'd.jsonl': '{"_id":"x","text":"xi"}\nnot json\n' });
    const json = JSON.parse((await cli(['ingest', root2, '--db', db, '--no-embed', '--json'])).stdout);
    expect(json.warnings).toEqual([{ path: join(root2, 'd.jsonl'), reason: 'bad lines not indexed: line 2 (invalid JSON)' }]);
  });

  it('a newline in a file name does not break the text output of search', async () => {
    const root = tmp.make();
    writeTree(root, { 'two\nlines.md': '# Title\n\nthe capybara swims\n', 'plain.md': '# Plain\n\nthe capybara naps\n' });
    const db = join(tmp.make(), 'n.db');
    expect((await cli(['ingest', root, '--db', db, '--no-embed'])).code).toBe(0);
    const r = await cli(['search', 'capybara', '--db', db]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(4); // two hits, two lines each
    // Cited relative to the root (#11): the escaped name, no absolute path.
    expect(r.stdout).toContain('two\\nlines.md#title:1-3');
    expect(r.stdout).not.toContain(root);
    for (const hitLine of [lines[0], lines[2]]) expect(hitLine).toMatch(/^ ?\d+\. \d+\.\d{3} {2}\S/);
    // --json keeps the real name.
    const json = JSON.parse((await cli(['search', 'capybara swims', '--db', db, '--json', '--k', '1'])).stdout);
    expect(json.hits[0].path).toBe(join(root, 'two\nlines.md'));
  });

  it('writes the packet logs 0600 in a 0700 folder', async () => {
    const root = tmp.make();
    // A fake token, so the redaction log has a line to write too.
    writeTree(root, { 'a.md': '# A\n\nretry with backoff\n\nGITHUB_TOKEN=ghp_Zq3vT8kLm2Xw9Rb4Np7Yc1Hd6Fs0Gj5Ua8Ke\n' });
    const dir = tmp.make();
    const db = join(dir, 'p.db');
    expect((await cli(['ingest', root, '--db', db, '--no-embed'])).code).toBe(0);
    expect((await cli(['pack', '--query', 'retry backoff', '--db', db])).code).toBe(0);
    const logs = dirname(logPath(db, 'redaction'));
    expect(mode(logs)).toBe(0o700);
    expect(mode(dirname(logs))).toBe(0o700); // the database's data folder (FILE-data/), made for the logs
    for (const f of readdirSync(logs)) expect([f, mode(join(logs, f))]).toEqual([f, 0o600]);
    expect(readdirSync(logs).sort()).toEqual(['injection-log.jsonl', 'redaction.jsonl']);
    for (const f of ['p.db', 'p.db-wal', 'p.db-shm']) expect(readdirSync(dir).includes(f) ? mode(join(dir, f)) : 0o600).toBe(0o600);
    expect(mode(db)).toBe(0o600);
  });
});
