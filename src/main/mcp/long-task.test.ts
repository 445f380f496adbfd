// Issue #32: the whole issue is the task. An issue-length text (a traceback, a code block, an environment dump, well
// over the old 2,000-character cap) is taken whole by MCP `pack` and `search` (the official SDK client against the
// real server), by the CLI's `pack --task-file` without a query and `search`, and by the API; each finds the file the
// issue is about, and the same task gives the same packet hash at every door.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../api/index.ts';
import { runCliCaptured } from '../cli/testing/run-cli.ts';
import { ingestPaths } from '../core/ingest/index.ts';
import { openStore } from '../core/store/index.ts';
import { tempDirs, writeTree } from '../core/testing/tmp.ts';

const bin = fileURLToPath(new URL('../cli/bin.mjs', import.meta.url));
const tmp = tempDirs('cp-long-task-');
afterAll(() => tmp.cleanup());

const base = readFileSync(new URL('../../../test-fixtures/issues/traceback.md', import.meta.url), 'utf8');
// Over the old cap: the report, then the reporter's full environment dump (noise) and more of the session.
const ISSUE = `${base}\n<details><summary>Output of pip freeze</summary>\n\n\`\`\`\n${Array.from({ length: 180 }, (_, i) => `package-${i}==1.${i}.0`).join('\n')}\n\`\`\`\n</details>\n`;

const TREE: Record<string, string> = {
  'inventory/catalog.py': 'class Catalog:\n    def merge_entries(self, other, prefer="newer"):\n        for key, theirs in other.items():\n            self._apply_preference(key, theirs, prefer)\n        return self\n',
  'inventory/_resolve.py': 'def _apply_preference(self, key, theirs, prefer):\n    """Keep the newer entry when two catalogs share a key."""\n    del self._index[key]\n',
  'inventory/export.py': 'def export_rows(catalog):\n    """Write the catalog rows as CSV."""\n    return "\\n".join(str(r) for r in catalog)\n',
  'requirements.txt': Array.from({ length: 30 }, (_, i) => `package-${i}==1.${i}.0`).join('\n'),
  'README.md': '# Inventory\n\nCatalogs of entries keyed by SKU.\n',
};

describe('an issue-length task at every door', () => {
  let db: string;
  beforeAll(async () => {
    expect(ISSUE.length).toBeGreaterThan(4000);
    const dir = tmp.make();
    writeTree(join(dir, 'proj'), TREE);
    db = join(dir, 'p.db');
    const store = openStore(db);
    await ingestPaths(store.db, [join(dir, 'proj')]);
    store.close();
  });

  it('API, CLI and MCP take the whole issue, find the file it is about, and agree on the packet', async () => {
    const store = openStore(db);
    const api = createApi({ store, dataDir: join(tmp.make(), 'data'), version: 'test', transport: 'mcp', background: false, watch: false });
    const s = await api.dispatch('search.query', { query: ISSUE, k: 5 });
    expect(s.ok).toBe(true);
    const top = (s as { value: { hits: { relPath: string }[] } }).value.hits.map((h) => h.relPath);
    expect(['inventory/catalog.py', 'inventory/_resolve.py']).toContain(top[0]);
    // The pip freeze dump weighs little: the requirements file it matches word for word ranks below both.
    expect(top.indexOf('requirements.txt') === -1 || top.indexOf('requirements.txt') > 1).toBe(true);
    const p = await api.dispatch('packets.build', { query: ISSUE, maxTokens: 4000 });
    expect(p.ok).toBe(true);
    const apiHash = (p as { value: { hash: string } }).value.hash;
    const title = ISSUE.split('\n')[0]!;
    const withTask = await api.dispatch('packets.build', { query: title, task: ISSUE, maxTokens: 4000 });
    expect(withTask.ok).toBe(true);
    store.close();

    // CLI: search with the issue as its argument; pack with the issue as --task-file and no query.
    const cs = await runCliCaptured(['search', ISSUE, '--db', db, '--json']);
    expect(cs.code).toBe(0);
    const issueFile = join(tmp.make(), 'issue.md');
    writeFileSync(issueFile, ISSUE);
    const cp = await runCliCaptured(['pack', '--task-file', issueFile, '--db', db, '--max-tokens', '4000', '--format', 'json']);
    expect(cp.code).toBe(0);
    const packet = JSON.parse(cp.stdout) as { query: string; context_snapshot_hash: string; sections: { items: { kind: string; source: string }[] }[] };
    const included = packet.sections.flatMap((sec) => sec.items);
    expect(included.some((i) => i.kind === 'evidence' && /inventory\/(catalog|_resolve)\.py/.test(i.source))).toBe(true);
    // No query given: the issue's title is the query the packet records, and the packet is the API's for the same.
    expect(packet.query).toBe(title);
    expect(packet.context_snapshot_hash).toBe((withTask as { value: { hash: string } }).value.hash);

    // MCP: the official SDK client against the real server.
    const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', '--db', db], env: { ...(process.env as Record<string, string>), CONTEXTPACK_HOME: tmp.make() }, stderr: 'pipe' });
    const client = new Client({ name: 'contextpack-test', version: '0.0.0' });
    await client.connect(transport);
    try {
      const ms = (await client.callTool({ name: 'search', arguments: { query: ISSUE, k: 5 } })) as { isError?: boolean; content: { type: string; text?: string }[] };
      expect(ms.isError ?? false).toBe(false);
      expect(ms.content.map((c) => c.text ?? '').join('\n')).toMatch(/inventory\/(catalog|_resolve)\.py/);
      const mp = (await client.callTool({ name: 'pack', arguments: { query: ISSUE, max_tokens: 4000 } })) as { isError?: boolean; structuredContent?: { context_snapshot_hash?: string; hash?: string } };
      expect(mp.isError ?? false).toBe(false);
      const mcpHash = mp.structuredContent?.context_snapshot_hash ?? mp.structuredContent?.hash;
      expect(mcpHash).toBe(apiHash);
    } finally {
      await client.close();
    }
  }, 60_000);
});
