import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../cli/run.ts';
import { tempDirs, writeTree } from '../../testing/tmp.ts';

const script = fileURLToPath(new URL('./models-tiny.ts', import.meta.url));
const tmp = tempDirs('cp-models-tiny-');
afterAll(() => tmp.cleanup());

describe('npm run models:tiny -- DIR', () => {
  it('writes the tiny model, prints its id last, and `CONTEXTPACK_MODELS_DIR=DIR contextpack embed --model <id>` uses it', async () => {
    const dir = join(tmp.make(), 'models');
    const r = spawnSync(process.execPath, [script, dir], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const id = r.stdout.trim().split('\n').at(-1)!;
    expect(id).toBe('Xenova/all-MiniLM-L6-v2');
    expect(r.stderr).toContain(`CONTEXTPACK_MODELS_DIR=${dir} contextpack embed --model ${id}`);

    const root = tmp.make();
    writeTree(root, { 'a.md': '# Volcanoes\n\nmagma and ash\n', 'b.md': '# Oceans\n\ncoral reefs\n' });
    const db = join(tmp.make(), 't.db');
    let out = '';
    const io = { stdout: (s: string) => void (out += s), stderr: () => {}, env: { CONTEXTPACK_MODELS_DIR: dir, CONTEXTPACK_HOME: tmp.make() }, readStdin: async () => '' };
    expect(await runCli(['ingest', root, '--no-embed', '--db', db], io)).toBe(0);
    out = '';
    expect(await runCli(['embed', '--model', id, '--db', db, '--json'], io)).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ modelId: id, embedded: 2, active: true });
    out = '';
    expect(await runCli(['search', 'magma', '--json', '--db', db], io)).toBe(0);
    expect(JSON.parse(out).mode).toBe('hybrid');
  });

  it('refuses to run without a folder', () => {
    const r = spawnSync(process.execPath, [script], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('usage: npm run models:tiny -- DIR');
  });
});
