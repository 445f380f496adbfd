import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDirs, writeTree } from '../core/testing/tmp.ts';
import { runCliCaptured } from './testing/run-cli.ts';

const tmp = tempDirs('cp-cli-');
afterAll(() => tmp.cleanup());
const bin = fileURLToPath(new URL('./bin.mjs', import.meta.url));

const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => runCliCaptured(args, { env });

describe('contextpack CLI', () => {
  const root = tmp.make();
  writeTree(root, {
    'corpus.jsonl': ['{"_id":"d1","title":"Lions","text":"lions hunt on the savanna"}', '{"_id":"d2","title":"Whales","text":"whales sing in the deep ocean"}'].join('\n'),
    'notes.md': '# Notes\n\nwhales migrate every year\n',
  });
  const db = join(tmp.make(), 'cli.db');

  it('ingests and reports counts', async () => {
    const r = await cli(['ingest', root, '--db', db]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^added 2, updated 0, unchanged 0, removed 0, skipped 0, failed 0/);
    const again = await cli(['ingest', root, '--db', db, '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ unchanged: 2, added: [] });
  });

  it('searches with --json as one JSON document', async () => {
    const r = await cli(['search', 'whales ocean', '--db', db, '--k', '1', '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.hits).toHaveLength(1);
    expect(out.hits[0].externalId).toBe('d2');
  });

  it('prints a TREC run in batch mode, with external ids', async () => {
    const q = join(tmp.make(), 'q.jsonl');
    writeFileSync(q, '{"_id":"q1","text":"lions savanna"}\n{"_id":"q2","text":"whales"}\n');
    const r = await cli(['search', '--queries', q, '--k', '100', '--format', 'trec', '--db', db]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => l.split(' '));
    expect(lines[0]!.slice(0, 4)).toEqual(['q1', 'Q0', 'd1', '1']);
    expect(lines[0]![5]).toBe('contextpack');
    expect(lines.filter((l) => l[0] === 'q2').map((l) => l[2])).toContain('d2');
  });

  it('honours CONTEXTPACK_DB and reports stats', async () => {
    const r = await cli(['stats', '--json'], { CONTEXTPACK_DB: db });
    expect(JSON.parse(r.stdout)).toMatchObject({ dbPath: db, documents: 3, sources: { indexed: 2 } });
  });

  it('sends errors to stderr with a non-zero exit', async () => {
    expect(await cli(['nope'])).toMatchObject({ code: 2, stdout: '' });
    const bad = await cli(['search', 'x', '--k', 'zero', '--db', db]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--k must be an integer/);
    const missing = await cli(['search', '--queries', '/no/such.jsonl', '--db', db]);
    expect(missing.stderr).toMatch(/no\/such.jsonl: ENOENT/);
  });

  it('runs as a real executable', () => {
    const r = spawnSync(process.execPath, [bin, 'search', 'lions', '--db', db, '--json'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).hits[0].externalId).toBe('d1');
    const bad = spawnSync(process.execPath, [bin, 'ingest', '--db', db], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/give at least one path/);
  });
});
