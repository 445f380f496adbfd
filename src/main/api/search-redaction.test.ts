import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../core/store/index.ts';
import { tempDirs, writeTree } from '../core/testing/tmp.ts';
import { runCliCaptured } from '../cli/testing/run-cli.ts';
import type { ChunkContext } from '../../shared/api/index.ts';
import type { SearchResponse } from '../../shared/api/index.ts';
import { createApi } from './index.ts';

/*
 * Issue #10 item 5: search results pass the gate. The CLI (`search`, `search --json`, TREC batch) prints only gated
 * fields; the API keeps the raw fields for the workbench's explicit per-hit reveal and adds the gated ones (`gated`),
 * which the Search view shows by default. Tokens are built at run time.
 */

const tmp = tempDirs('cp-search-redact-');
afterAll(() => tmp.cleanup());

const B62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
let seed = 9;
const chars = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % alphabet.length]).join('');
const aws = 'AKIA' + chars('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16);
const gh = 'ghp_' + chars(B62, 36);

function project() {
  const root = tmp.make();
  writeTree(root, {
    'docs/deploy.md': `# Deploy\n\n## Deploy with ${aws}\n\nThe rollout token is ${gh} for the canary.\nRollout happens on Tuesdays.\n`,
    [`notes/${gh}.md`]: '# Canary notes\n\nThe canary rollout waits for the smoke tests.\n',
  });
  return root;
}

const cli = (args: string[]) => runCliCaptured(args);

describe('search results through the redaction gate', () => {
  it('CLI: text, --json and TREC output hold no secret, in any case', async () => {
    const root = project();
    const db = join(tmp.make(), 'cli.db');
    expect((await cli(['ingest', root, '--db', db, '--no-embed'])).code).toBe(0);
    for (const args of [['search', 'rollout canary', '--db', db], ['search', 'rollout canary', '--db', db, '--json']]) {
      const r = await cli(args);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('REDACTED');
      for (const s of [aws, gh]) expect(r.stdout.toLowerCase()).not.toContain(s.toLowerCase());
    }
    const queries = join(tmp.make(), 'q.jsonl');
    writeTree(join(queries, '..'), { 'q.jsonl': JSON.stringify({ _id: 'q1', text: 'rollout canary' }) + '\n' });
    const trec = await cli(['search', '--queries', queries, '--k', '5', '--format', 'trec', '--db', db]);
    expect(trec.code).toBe(0);
    for (const s of [aws, gh]) expect(trec.stdout.toLowerCase()).not.toContain(s.toLowerCase());
  });

  it('API: each hit and context chunk carries its gated fields; the raw ones stay for an explicit reveal', async () => {
    const root = project();
    const dataDir = tmp.make();
    const store = openStore(join(dataDir, 'api.db'));
    try {
      const api = createApi({ store, dataDir, version: '0.0.0-test', transport: 'http', background: false });
      const ingest = await api.dispatch('library.ingest', { paths: [root] });
      expect(ingest.ok).toBe(true);
      const r = await api.dispatch('search.query', { query: 'rollout canary' });
      if (!r.ok) throw new Error(r.error.message);
      const hits = (r.value as SearchResponse).hits;
      const hit = hits.find((h) => h.text.includes(gh))!;
      expect(hit).toBeDefined();
      expect(hit.gated!.redactedLines).toBeGreaterThan(0);
      expect(JSON.stringify(hit.gated)).not.toContain(gh);
      // The heading's anchor was gated at ingest: not even the raw anchor holds the key.
      expect(hit.anchor.toLowerCase()).not.toContain(aws.toLowerCase());
      const c = await api.dispatch('chunks.context', { chunkId: hit.chunkId });
      if (!c.ok) throw new Error(c.error.message);
      const ctx = c.value as ChunkContext;
      for (const chunk of ctx.chunks) expect(JSON.stringify(chunk.gated)).not.toContain(gh);
      expect(ctx.chunks.some((chunk) => chunk.text.includes(gh))).toBe(true);
      // A file's chunks (the Hierarchy view's L4 pane) carry the same gated forms.
      const f = await api.dispatch('sources.chunks', { path: hit.path });
      if (!f.ok) throw new Error(f.error.message);
      const file = f.value as ChunkContext;
      expect(file.chunks.length).toBeGreaterThan(0);
      expect(file.chunks.every((chunk) => chunk.gated !== undefined)).toBe(true);
      for (const chunk of file.chunks) expect(JSON.stringify(chunk.gated)).not.toContain(gh);
      expect(file.gatedPath).toBeDefined();
    } finally {
      store.close();
    }
  });
});
