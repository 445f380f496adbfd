import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDirs, writeTree } from '../../core/testing/tmp.ts';
import { DEFAULT_HYBRID } from '../../core/search/hybrid.ts';
import { tinyModels, type TinyModelDir } from '../../core/vectors/testing/tiny-embedder.ts';
import { runCliCaptured } from '../testing/run-cli.ts';

const tmp = tempDirs('cp-cli-vec-');
let models: TinyModelDir;
beforeAll(async () => {
  models = await tinyModels(['Xenova/all-MiniLM-L6-v2', 'Xenova/gte-small']);
});
afterAll(async () => {
  await models.cleanup();
  tmp.cleanup();
});

const cli = (args: string[], env: NodeJS.ProcessEnv) => runCliCaptured(args, { env });

describe('ingest with a model present', () => {
  it('embeds the new chunks right away, and not with --no-embed', async () => {
    const root = tmp.make();
    writeTree(root, { 'a.md': '# Lions\n\nlions hunt zebras\n', 'b.md': '# Whales\n\nwhales sing\n' });
    const on = { CONTEXTPACK_MODELS_DIR: models.root };
    const skipDb = join(tmp.make(), 'skip.db');
    const skipped = await cli(['ingest', root, '--db', skipDb, '--no-embed', '--json'], on);
    expect(JSON.parse(skipped.stdout).embedding).toBeNull();
    const db = join(tmp.make(), 'auto.db');
    const r = await cli(['ingest', root, '--db', db, '--json'], on);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).embedding).toMatchObject({ embedded: 2, done: 2, total: 2, active: true });
    const hit = await cli(['search', 'whales', '--mode', 'vector', '--k', '1', '--db', db, '--json'], on);
    expect(JSON.parse(hit.stdout).hits[0].path).toBe(join(root, 'b.md'));
  });
});

describe('embed, search --mode and stats on the CLI', () => {
  const root = tmp.make();
  writeTree(root, {
    'corpus.jsonl': [
      '{"_id":"d1","title":"Lions","text":"lions hunt zebras on the savanna"}',
      '{"_id":"d2","title":"Whales","text":"whales sing songs in the deep ocean"}',
      '{"_id":"d3","title":"Volcanoes","text":"magma erupts from volcanoes as lava"}',
    ].join('\n'),
  });
  const db = join(tmp.make(), 'cli.db');
  const noModels = tmp.make();

  it('works BM25-only without a model and says why', async () => {
    const off = { CONTEXTPACK_MODELS_DIR: noModels };
    const ingest = await cli(['ingest', root, '--db', db], off);
    expect(ingest.code).toBe(0);
    expect(ingest.stderr).toContain('semantic search off: no model at');
    const stats = await cli(['stats', '--db', db], off);
    expect(stats.stdout).toContain(`semantic search off: no model at ${join(noModels, 'Xenova/all-MiniLM-L6-v2')}`);
    const vector = await cli(['search', 'whales', '--mode', 'vector', '--db', db], off);
    expect(vector.code).toBe(2);
    expect(vector.stderr).toContain('search --mode vector: semantic search off: no model at');
    const hybrid = await cli(['search', 'whales', '--mode', 'hybrid', '--db', db, '--json'], off);
    expect(hybrid.code).toBe(0);
    expect(hybrid.stderr).toMatch(/search --mode hybrid: semantic search off: .*; using bm25/);
    expect(JSON.parse(hybrid.stdout)).toMatchObject({ mode: 'bm25', hits: [{ externalId: 'd2' }] });
    const embed = await cli(['embed', '--db', db], off);
    expect(embed.code).toBe(1);
    expect(embed.stderr).toContain('embed: semantic search off: no model at');
  });

  it('embeds, then searches in vector and hybrid mode, also in TREC batch mode', async () => {
    const on = { CONTEXTPACK_MODELS_DIR: models.root };
    const before = await cli(['stats', '--db', db], on);
    expect(before.stdout).toContain('semantic search off: no vectors yet for Xenova/all-MiniLM-L6-v2; run `contextpack embed`');
    const embed = await cli(['embed', '--db', db, '--json'], on);
    expect(embed.code).toBe(0);
    expect(JSON.parse(embed.stdout)).toMatchObject({ modelId: 'Xenova/all-MiniLM-L6-v2', embedded: 3, done: 3, total: 3, active: true });
    expect((await cli(['stats', '--db', db], on)).stdout).toMatch(/vectors +Xenova\/all-MiniLM-L6-v2 \(64-d, chunker v\d+\): 3\/3 chunks/);
    for (const mode of ['vector', 'hybrid']) {
      const r = await cli(['search', 'magma lava volcanoes', '--mode', mode, '--k', '2', '--db', db, '--json'], on);
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out.mode).toBe(mode);
      expect(out.hits[0].externalId).toBe('d3');
      expect(out.hits.length).toBeLessThanOrEqual(2);
    }
    // No --mode: best available, which is hybrid now that every chunk has a vector; pack retrieves the same way.
    const best = JSON.parse((await cli(['search', 'magma lava volcanoes', '--k', '2', '--db', db, '--json'], on)).stdout);
    expect(best).toMatchObject({ mode: 'hybrid', retrieval: { fusion: { method: 'normalized', weights: DEFAULT_HYBRID.weights }, mmr: null, fallback_reason: null } });
    const packed = JSON.parse((await cli(['pack', '-q', 'magma lava volcanoes', '--format', 'json', '--db', db], on)).stdout);
    expect(packed.manifest.retrieval).toMatchObject({ mode: 'hybrid', fusion: { method: 'normalized', weights: DEFAULT_HYBRID.weights }, mmr: null, fallback_reason: null });
    expect(packed.manifest.models.embedder).toBe('Xenova/all-MiniLM-L6-v2');
    // The same store without the model: BM25 (+ text MMR for the packet) and the reason.
    const off = { CONTEXTPACK_MODELS_DIR: tmp.make(), CONTEXTPACK_HOME: tmp.make() };
    const bm25 = JSON.parse((await cli(['pack', '-q', 'magma lava volcanoes', '--format', 'json', '--db', db], off)).stdout);
    expect(bm25.manifest.retrieval).toMatchObject({ mode: 'bm25', mmr: { similarity: 'text' }, fallback_reason: expect.stringContaining('no model at') });
    const mmr = await cli(['search', 'whales ocean', '--mode', 'hybrid', '--mmr-lambda', '0.3', '--fetch-k', '10', '--fusion', 'normalized', '--db', db, '--json'], on);
    expect(JSON.parse(mmr.stdout).hits[0].externalId).toBe('d2');
    const q = join(tmp.make(), 'q.jsonl');
    writeFileSync(q, '{"_id":"q1","text":"lions zebras savanna"}\n{"_id":"q2","text":"whales songs"}\n');
    const trec = await cli(['search', '--queries', q, '--mode', 'hybrid', '--format', 'trec', '--db', db], on);
    const lines = trec.stdout.trim().split('\n').map((l) => l.split(' '));
    expect(lines.find((l) => l[0] === 'q1')!.slice(0, 4)).toEqual(['q1', 'Q0', 'd1', '1']);
    expect(lines.find((l) => l[0] === 'q2')!.slice(0, 4)).toEqual(['q2', 'Q0', 'd2', '1']);
  });

  it('rejects bad search options with the option named', async () => {
    const on = { CONTEXTPACK_MODELS_DIR: models.root };
    expect((await cli(['search', 'x', '--mode', 'fuzzy', '--db', db], on)).stderr).toMatch(/--mode must be one of best, bm25, vector, hybrid/);
    expect((await cli(['search', 'x', '--mode', 'hybrid', '--mmr-lambda', '2', '--db', db], on)).stderr).toMatch(/--mmr-lambda must be a number in \[0, 1\]/);
    expect((await cli(['search', 'x', '--mode', 'bm25', '--fusion', 'rrf', '--db', db], on)).stderr).toMatch(/--fusion needs --mode hybrid/);
    // bm25 with a λ is MMR over the chunks' own words.
    const mmr = JSON.parse((await cli(['search', 'x', '--mode', 'bm25', '--mmr-lambda', '0.5', '--json', '--db', db], on)).stdout);
    expect(mmr).toMatchObject({ mode: 'bm25', retrieval: { mmr: { lambda: 0.5, similarity: 'text' } } });
    expect((await cli(['search', 'x', '--mode', 'hybrid', '--fusion', 'max', '--db', db], on)).stderr).toMatch(/--fusion must be one of rrf, normalized/);
  });

  it('switches model with --model: searches keep the old vectors until the new ones are complete', async () => {
    const on = { CONTEXTPACK_MODELS_DIR: models.root };
    const r = await cli(['embed', '--model', 'Xenova/gte-small', '--db', db, '--json'], on);
    expect(JSON.parse(r.stdout)).toMatchObject({ modelId: 'Xenova/gte-small', embedded: 3, swapped: true, dropped: [1] });
    const stats = await cli(['stats', '--db', db], on);
    expect(stats.stdout).toMatch(/vectors +Xenova\/gte-small/);
    expect(stats.stdout).not.toMatch(/all-MiniLM/);
    const s = await cli(['search', 'magma lava', '--mode', 'vector', '--db', db, '--json'], on);
    expect(JSON.parse(s.stdout).hits[0].externalId).toBe('d3');
  });
});
