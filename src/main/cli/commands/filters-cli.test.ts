import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDirs, writeTree } from '../../core/testing/tmp.ts';
import { runCliCaptured } from '../testing/run-cli.ts';

const tmp = tempDirs('cp-filters-cli-');
afterAll(() => tmp.cleanup());

const cli = (args: string[]) => runCliCaptured(args);

describe('--path / --exclude / --type on search and pack; project default excludes; hierarchy show §4', () => {
  const root = join(tmp.make(), 'osprey');
  writeTree(root, {
    'docs/guide.md': '# Guide\n\nThe osprey nest is checked every morning.\n',
    'lib/nest.js': '// osprey nest counter\nexport const nests = 2;\n',
    'test/nest.test.md': '# Nest test\n\nThe osprey nest test counts eggs.\n',
    'test/fixtures/sample.json': '{"note": "osprey nest fixture"}\n',
    'notes.txt': 'osprey nest notes\n',
  });
  const db = join(tmp.make(), 'f.db');
  const rel = (p: string) => p.slice(root.length + 1);
  const search = async (...flags: string[]) => {
    const r = await cli(['search', 'osprey nest', '--k', '20', '--json', '--db', db, ...flags]);
    expect(r.code, r.stderr).toBe(0);
    return (JSON.parse(r.stdout).hits as { path: string }[]).map((h) => rel(h.path)).sort();
  };

  it('search narrows by globs over root-relative paths and by type words', async () => {
    expect((await cli(['ingest', root, '--db', db])).code).toBe(0);
    expect(await search()).toEqual(['docs/guide.md', 'lib/nest.js', 'notes.txt', 'test/fixtures/sample.json', 'test/nest.test.md']);
    expect(await search('--exclude', 'test/**')).toEqual(['docs/guide.md', 'lib/nest.js', 'notes.txt']);
    expect(await search('--exclude', '**/fixtures/**', '--exclude', '*.txt')).toEqual(['docs/guide.md', 'lib/nest.js', 'test/nest.test.md']);
    expect(await search('--path', 'docs/**', '--path', 'lib/')).toEqual(['docs/guide.md', 'lib/nest.js']);
    expect(await search('--type', 'md')).toEqual(['docs/guide.md', 'test/nest.test.md']);
    expect(await search('--type', 'code,json')).toEqual(['lib/nest.js', 'test/fixtures/sample.json']);
    expect(await search('--type', 'md', '--exclude', 'test')).toEqual(['docs/guide.md']);
    const json = JSON.parse((await cli(['search', 'osprey', '--json', '--exclude', 'test/**', '--db', db])).stdout);
    expect(json.filters).toEqual({ exclude: ['test/**'] });
    const text = await cli(['search', 'osprey nest', '--path', 'lib/**', '--db', db]);
    expect(text.stdout).toContain('lib/nest.js');
    expect(text.stdout).not.toContain('guide.md');
    const bad = await cli(['search', 'osprey', '--type', 'docx', '--db', db]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--type must be one of md, code, html, pdf, json, text, got "docx"/);
  });

  it('pack takes the same flags and honours the project default excludes, recorded in the manifest', async () => {
    const pack = async (...flags: string[]) => {
      const r = await cli(['pack', '--query', 'osprey nest', '--format', 'json', '--max-tokens', '2000', '--db', db, ...flags]);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout);
    };
    // Evidence cites paths relative to the root (#11).
    const evidence = (doc: { manifest: { included: { kind: string; source: string | null }[] } }) =>
      doc.manifest.included.filter((i) => i.kind === 'evidence' && i.source !== null).map((i) => i.source!.split('#')[0]!.split(':')[0]!).sort();
    const plain = await pack();
    expect(evidence(plain)).toContain('test/nest.test.md');
    const flagged = await pack('--exclude', 'test/**', '--type', 'md');
    expect(flagged.manifest.retrieval.filters).toEqual({ exclude: ['test/**'], types: ['markdown'] });
    expect(evidence(flagged)).toEqual(['docs/guide.md']);

    const set = await cli(['settings', '--evidence-exclude', 'test/**', '--evidence-exclude', '**/fixtures/**', '--json', '--db', db]);
    expect(JSON.parse(set.stdout)).toEqual({ evidenceExclude: ['test/**', '**/fixtures/**'], sessionStartTokens: 1500 });
    expect((await cli(['settings', '--db', db])).stdout).toContain('test/**  **/fixtures/**');
    const withDefaults = await pack();
    expect(withDefaults.manifest.retrieval.filters).toEqual({ excludeDefault: ['test/**', '**/fixtures/**'] });
    expect(evidence(withDefaults).filter((p) => p.startsWith('test/'))).toEqual([]);
    const without = await pack('--no-default-excludes');
    expect(without.manifest.retrieval.filters).toBeNull();
    expect(evidence(without)).toContain('test/nest.test.md');
    // The defaults take out only what they match (the rest is what the relevance floor keeps either way).
    expect(evidence(withDefaults)).toEqual(evidence(without).filter((p) => !p.startsWith('test/')));
    expect(evidence(withDefaults)).toContain('lib/nest.js');
    expect((await cli(['settings', '--clear-evidence-exclude', '--json', '--db', db])).stdout).toContain('"evidenceExclude": []');
    expect((await cli(['settings', '--evidence-exclude', 'x', '--clear-evidence-exclude', '--db', db])).code).toBe(2);
  });

  it('hierarchy show prints every § marker that --tree lists, L4 files included', async () => {
    const tree = await cli(['hierarchy', 'show', '--tree', '--db', db]);
    const markers = [...tree.stdout.matchAll(/(§4\.\S+)/g)].map((m) => m[1]!);
    expect(markers).toEqual(expect.arrayContaining(['§4.docs/guide.md', '§4.lib/nest.js', '§4.test/fixtures/sample.json']));
    for (const m of markers) {
      const r = await cli(['hierarchy', 'show', m, '--db', db]);
      expect(r.code, `${m}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toContain(`## ${m}`);
      expect(r.stdout).toContain('osprey');
    }
    const json = JSON.parse((await cli(['hierarchy', 'show', '§4.lib.nest', '--json', '--db', db])).stdout);
    expect(json).toMatchObject({ rel_path: 'lib/nest.js', chunk_list: [{ text: expect.stringContaining('osprey nest counter') }] });
    expect((await cli(['hierarchy', 'show', '§4.test/*', '--db', db])).stdout).toContain('§4.test/nest.test.md');
    const missing = await cli(['hierarchy', 'show', '§4.nope/gone.md', '--db', db]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/section §4\.nope\/gone\.md not found/);
  });
});
