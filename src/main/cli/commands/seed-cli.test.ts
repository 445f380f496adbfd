import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDirs, writeTree } from '../../core/testing/tmp.ts';
import { runCliCaptured } from '../testing/run-cli.ts';
import { commands, loadCommand } from './index.ts';

// Issue #17 through the CLI: goals, pack --tools-file / --conversation-file, hierarchy check limits, usage texts.

const tmp = tempDirs('cp-seed-cli-');
afterAll(() => tmp.cleanup());

const cli = (args: string[], stdin = '') => runCliCaptured(args, { stdin });

describe('contextpack goals', () => {
  const root = tmp.make();
  writeTree(root, {
    'GOALS.md': '# GOALS\n\n## Gates\n- doc-coverage: Docs cover the public API (threshold 80%)\n- build: The build succeeds\n\n## Directives\n- Keep releases small\n',
    'docs/a.md': '# A\n\nSigning keys rotate.\n',
  });
  const db = join(tmp.make(), 'g.db');

  it('shows the spec, records results, and feeds GOALS in the next packet', async () => {
    expect((await cli(['ingest', root, '--db', db])).code).toBe(0);
    const show = await cli(['goals', '--db', db]);
    expect(show.stdout).toMatch(/GOALS\.md: 0\/2 gates passing, 0 failing, 2 not measured\n---- {2}doc-coverage {2}Docs cover the public API \(threshold 80%\)\n/);
    const rec = await cli(['goals', 'record', 'doc-coverage', 'fail', '--value', '72%', '--db', db, '--json']);
    expect(rec.json()).toMatchObject({ gate_id: 'doc-coverage', status: 'fail', value: '72%' });
    expect((await cli(['goals', 'record', 'build', 'pass', '--db', db])).stdout).toMatch(/^build: PASS recorded at /);
    expect((await cli(['goals', '--json', '--db', db])).json()).toMatchObject({ passing: 1, failing: 1, unmeasured: 0, directives: ['Keep releases small'] });
    const bad = await cli(['goals', 'record', 'nope', 'pass', '--db', db]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/gate "nope" is not in .*GOALS\.md \(gates: doc-coverage, build\)/);
    const pack = await cli(['pack', '--query', 'signing keys', '--db', db]);
    expect(pack.stdout).toMatch(/## GOALS\nFitness spec for this repository\. Your work must not regress these gates\.\n\n### Passing \(1\/2\)\n- build: PASS — The build succeeds\n\n### Failing \(1\/2\)\n- doc-coverage: FAIL \(72%, threshold 80%\) — Docs cover the public API ← priority target\n\n### Directives\n- "Keep releases small"/);
  });

  it('says so when there is no spec, and init writes a template', async () => {
    const empty = join(tmp.make(), 'e.db');
    expect((await cli(['goals', '--db', empty])).stdout).toMatch(/^No fitness goals defined: no GOALS\.md or GOALS\.yaml at an indexed root/);
    const dir = tmp.make();
    expect((await cli(['goals', 'init', '--dir', dir])).code).toBe(0);
    expect(existsSync(join(dir, 'GOALS.md'))).toBe(true);
    expect((await cli(['goals', 'init', '--dir', dir])).stderr).toMatch(/already exists/);
  });
});

describe('pack --tools-file / --conversation-file', () => {
  const root = tmp.make();
  writeTree(root, { 'docs/a.md': '# A\n\nSigning keys rotate weekly.\n' });
  const dir = tmp.make();
  const db = join(dir, 'p.db');
  const tools = join(dir, 'tools.json');
  const conv = join(dir, 'conv.jsonl');
  writeFileSync(tools, JSON.stringify({ tools: [{ name: 'read_file', description: 'Read a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }, approval_mode: 'read_only' }] }));
  writeFileSync(conv, '{"role":"user","content":"Rotate the keys."}\n{"role":"assistant","content":"Which ones?"}\n{"role":"user","content":"The signing keys."}\n');

  it('fills TOOLS and CONVERSATION of layered-v1 and keeps the last N turns', async () => {
    expect((await cli(['ingest', root, '--db', db])).code).toBe(0);
    const r = await cli(['pack', '-q', 'signing keys', '--template', 'layered-v1', '--tools-file', tools, '--conversation-file', conv, '--keep-turns', '2', '--session', 'ses-1', '--db', db]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('## TOOLS\n- read_file(path: string): Read a file (read_only)');
    expect(r.stdout).toContain('## CONVERSATION\n- Earlier conversation (1 turn, summarized):\n  - user: Rotate the keys.\n- assistant:\n  Which ones?\n- user:\n  The signing keys.');
  });

  it('names the file and the field when a file is bad', async () => {
    const badTools = join(dir, 'bad-tools.json');
    writeFileSync(badTools, '[{"name":"x","description":"y","capability_class":"teleport"}]');
    const a = await cli(['pack', '-q', 'x', '--tools-file', badTools, '--db', db]);
    expect([a.code, a.stderr.trim()]).toEqual([2, `contextpack: ${badTools}: [0]: capability_class: must be one of observe, recall, think_support, verify, act`]);
    const badConv = join(dir, 'bad.jsonl');
    writeFileSync(badConv, '{"role":"user","content":"ok"}\nnot json\n');
    const b = await cli(['pack', '-q', 'x', '--conversation-file', badConv, '--db', db]);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(new RegExp(`^contextpack: ${badConv.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: json: not valid JSON`));
    const missing = await cli(['pack', '-q', 'x', '--tools-file', join(dir, 'nope.json'), '--db', db]);
    expect(missing.stderr).toMatch(/--tools-file .*nope\.json: ENOENT/);
  });
});

describe('hierarchy check: per-level token limits', () => {
  it('fails on a level over its limit and warns (stderr) under its range', async () => {
    const db = join(tmp.make(), 'h.db');
    await cli(['hierarchy', 'summary', '--db', db, '--goal', 'Ship', '--status', '40']);
    await cli(['hierarchy', 'add', '--db', db, '--level', '2', '--title', 'Small', '--body', 'PG.', '--status', '40']);
    await cli(['hierarchy', 'add', '--db', db, '--level', '3', '--parent', '§2.1', '--title', 'Details', '--body', 'x']);
    const ok = await cli(['hierarchy', 'check', '--db', db]);
    expect(ok).toMatchObject({ code: 0, stdout: 'hierarchy consistent\n' });
    expect(ok.stderr).toMatch(/warning: L2 §2\.1 is \d+ tokens, under the 200–500-token range/);
    await cli(['hierarchy', 'edit', '§2.1', '--db', db, '--body', 'alpha beta gamma '.repeat(300)]);
    const over = await cli(['hierarchy', 'check', '--db', db, '--json']);
    expect(over.code).toBe(1);
    expect(over.json().limits).toEqual(expect.arrayContaining([expect.objectContaining({ marker: '§2.1', severity: 'over', max: 500 })]));
  });
});

describe('usage texts', () => {
  it('list every flag of every command', async () => {
    const loaded = await Promise.all(commands.map(loadCommand));
    expect(loaded.length).toBeGreaterThan(10);
    const missing = loaded.flatMap((c) => Object.keys(c.options).filter((o) => !c.usage.includes(`--${o}`)).map((o) => `${c.name} --${o}`));
    expect(missing).toEqual([]);
  });
});
