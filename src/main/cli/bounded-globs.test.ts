// Issue #22 item 1: path globs are matched in linear time wherever they are given (search --path / --exclude, packet
// filters, the project's saved default excludes), and a glob that cannot be matched as written is refused by name.
// Before, `*L*L*L*L*L*L*z` against a 250-character file name backtracked for minutes; the speed is bench:globs' to
// measure, this checks the commands come back with the right answer.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDirs, writeTree } from '../core/testing/tmp.ts';
import { runCliCaptured } from './testing/run-cli.ts';

const tmp = tempDirs('cp-bounded-globs-');
afterAll(() => tmp.cleanup());
const cli = (args: string[]) => runCliCaptured(args);

describe('path globs on a 250-character file name', () => {
  const root = tmp.make();
  const db = join(tmp.make(), 'g.db');
  const long = `${'L'.repeat(247)}.md`;
  writeTree(root, { [`docs/${long}`]: '# Petrel\n\nThe petrel nests on cliffs.\n', 'docs/short.md': '# Short\n\nA petrel note.\n' });

  beforeAll(async () => {
    expect((await cli(['ingest', root, '--db', db, '--no-embed'])).code).toBe(0);
  });

  it('search --path and --exclude with a backtracking pattern answer, and correctly', async () => {
    const none = await cli(['search', 'petrel', '--path', '*L*L*L*L*L*L*z', '--json', '--db', db]);
    expect(none.code, none.stderr).toBe(0);
    expect(none.json().hits).toEqual([]);
    const hit = await cli(['search', 'petrel', '--path', '*L*L*L*L*L*L*.md', '--json', '--db', db]);
    expect(hit.json().hits.map((h: { path: string }) => h.path)).toEqual([join(root, 'docs', long)]);
    const excluded = await cli(['search', 'petrel', '--exclude', '*L*L*L*L*L*L*.md', '--json', '--db', db]);
    expect(excluded.json().hits.map((h: { path: string }) => h.path)).toEqual([join(root, 'docs', 'short.md')]);
  });

  it('a saved default exclude with that pattern does not hang pack', async () => {
    expect((await cli(['settings', '--evidence-exclude', '*L*L*L*L*L*L*z', '--evidence-exclude', '*L*L*L*L*L*L*.md', '--db', db])).code).toBe(0);
    const pack = await cli(['pack', '--query', 'petrel cliffs', '--format', 'json', '--db', db]);
    expect(pack.code, pack.stderr).toBe(0);
    const evidence = JSON.parse(pack.stdout).manifest.included.filter((i: { kind: string }) => i.kind === 'evidence');
    expect(evidence.map((i: { source: string }) => i.source)).toEqual(['docs/short.md#short:1-3']);
  });

  it('MCP search with the pattern as an include glob answers (it used to wedge the server)', async () => {
    const bin = fileURLToPath(new URL('./bin.mjs', import.meta.url));
    const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', '--db', db], env: process.env as Record<string, string>, stderr: 'pipe' });
    const client = new Client({ name: 'globs-test', version: '0.0.0' });
    await client.connect(transport);
    try {
      const call = (include: string[]) => client.callTool({ name: 'search', arguments: { query: 'petrel', filters: { include } } }) as Promise<{ isError?: boolean; content: { text?: string }[] }>;
      const none = await call(['*L*L*L*L*L*L*z']);
      expect(none.isError, JSON.stringify(none.content)).toBeFalsy();
      expect(none.content.map((c) => c.text).join('\n')).not.toContain(long);
      const hit = await call(['*L*L*L*L*L*L*.md']);
      expect(hit.content.map((c) => c.text).join('\n')).toContain('LLLL');
    } finally {
      await client.close();
    }
  });

  it('refuses a glob it cannot match as written, naming the flag and the fault', async () => {
    const r = await cli(['search', 'petrel', '--path', 'docs/[z-a]*.md', '--db', db]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('--path: glob "docs/[z-a]*.md": character range z-a is out of order');
    const s = await cli(['settings', '--evidence-exclude', '[z-a]', '--db', db]);
    expect(s.code).not.toBe(0);
    expect(s.stderr).toContain('--evidence-exclude: glob "[z-a]": character range z-a is out of order');
  });
});
