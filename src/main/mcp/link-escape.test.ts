// MCP `ingest` and links that lead out of a root: the SDK's own client spawns `contextpack mcp` over stdio (the real
// CLI entry, a real SQLite file) and asks it to index paths that reach outside the project through a symbolic link.
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestPaths } from '../core/ingest/index.ts';
import { openStore } from '../core/store/index.ts';
import { tempDirs, writeTree } from '../core/testing/tmp.ts';

const bin = fileURLToPath(new URL('../cli/bin.mjs', import.meta.url));
const tmp = tempDirs('cp-mcp-links-');

type ToolResult = { isError?: boolean; content: { type: string; text?: string }[] };
const text = (r: ToolResult) => r.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');

describe('MCP ingest: a path through a symbolic link out of the root is refused', () => {
  let client: Client;
  let db: string;
  let root: string;
  beforeAll(async () => {
    const base = tmp.make();
    root = join(base, 'project', 'repo');
    writeTree(base, {
      'project/repo/docs/readme.md': '# Readme\n\nThe osprey gateway.\n',
      'project/repo/src/inside.md': '# Inside\n\nThe kestrel relay, inside the root.\n',
      'outside/private.md': '# Private\n\nplatypus diary entry, never to be indexed\n',
    });
    db = join(tmp.make(), 'p.db');
    const store = openStore(db, { loadVec: false });
    await ingestPaths(store.db, [root]);
    store.close();
    // Made after the first ingest, as an agent's edits would be.
    symlinkSync('../../../outside', join(root, 'docs', 'link'));
    symlinkSync('/', join(root, 'docs', 'rootlink'));
    symlinkSync('../src', join(root, 'docs', 'srclink'));
    const env = { ...(process.env as Record<string, string>), CONTEXTPACK_MODELS_DIR: tmp.make(), CONTEXTPACK_HOME: tmp.make() };
    const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', '--db', db, '--tools', 'all'], env, stderr: 'pipe' });
    client = new Client({ name: 'contextpack-links-test', version: '0.0.0' });
    await client.connect(transport);
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    tmp.cleanup();
  });

  const ingest = async (paths: string[]) => (await client.callTool({ name: 'ingest', arguments: { paths } })) as ToolResult;
  const search = async (query: string) => text((await client.callTool({ name: 'search', arguments: { query } })) as ToolResult);

  it('docs/link/private.md (docs/link -> ../../outside) and docs/rootlink/etc/hostname (a link to /)', async () => {
    for (const path of ['docs/link/private.md', 'docs/rootlink/etc/hostname', 'docs/link', join(root, 'docs/link/private.md')]) {
      const r = await ingest([path]);
      expect(r.isError, `${path}: ${text(r)}`).toBe(true);
      expect(text(r)).toMatch(/forbidden/);
      expect(text(r)).toMatch(/outside the project's roots/);
    }
    expect(await search('platypus diary')).not.toMatch(/private\.md/);
  });

  it('a link that stays inside the root is still followed; a refresh of the whole root skips the links that lead out', async () => {
    const r = await ingest(['docs/srclink/inside.md']);
    expect(r.isError, text(r)).toBeFalsy();
    const all = await ingest([]);
    expect(all.isError, text(all)).toBeFalsy();
    expect(text(all)).toMatch(/docs\/link .*symlink outside root|docs\/link: symlink outside root|symlink outside root/);
    expect(await search('platypus diary')).not.toMatch(/private\.md/);
    expect(await search('kestrel relay')).toMatch(/inside\.md/);
  });
});
