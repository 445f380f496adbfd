import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDirs, writeTree } from '../../core/testing/tmp.ts';
import { runCliCaptured } from '../testing/run-cli.ts';

const tmp = tempDirs('cp-memcli-');
afterAll(() => tmp.cleanup());

const cli = (args: string[], stdin = '') => runCliCaptured(args, { env: { CONTEXTPACK_AGENT: 'cli-test' }, stdin });

describe('decision, memory and hierarchy commands', () => {
  const db = join(tmp.make(), 'cli.db');
  const root = tmp.make();
  writeTree(root, { 'src/auth.ts': 'export const token = 1; // auth\n', 'README.md': '# Shop\n\nOrders live in PostgreSQL.\n' });

  it('decision new / list / show / supersede, with --json', async () => {
    const a = await cli(['decision', 'new', '--db', db, '--json', '--title', 'Adopt PostgreSQL', '--decision', 'Use PG.', '--rationale', 'ACID.', '--importance', '9', '--alt', 'MongoDB: no ACID', '--tags', 'db,arch', '--timestamp', '2025-11-04T10:00:00Z']);
    expect(a.code).toBe(0);
    expect(a.json()).toMatchObject({ decision_id: 'DEC-2025-11-04-001', agent_id: 'cli-test', tags: ['db', 'arch'], content: { alternatives_considered: [{ name: 'MongoDB', reason: 'no ACID' }] } });
    const b = await cli(['decision', 'new', '--db', db, '--title', 'PG 17', '--decision', 'Pin.', '--rationale', 'LTS.', '--importance', '7', '--timestamp', '2025-11-04T11:00:00Z', '--supersedes', 'DEC-2025-11-04-001']);
    expect(b.stdout).toBe('DEC-2025-11-04-002  PG 17  (supersedes DEC-2025-11-04-001, now archived)\n');
    expect((await cli(['decision', 'list', '--db', db, '--json'])).json().decisions.map((d: { decision_id: string }) => d.decision_id)).toEqual(['DEC-2025-11-04-002']);
    expect((await cli(['decision', 'list', '--db', db, '--all'])).stdout).toContain('(archived → DEC-2025-11-04-002)');
    const show = await cli(['decision', 'show', 'DEC-2025-11-04-001', '--db', db]);
    expect(show.stdout.startsWith('## DECISION: Adopt PostgreSQL\n\n**Decision ID**: DEC-2025-11-04-001\n')).toBe(true);
    expect((await cli(['decision', 'show', 'DEC-2025-11-04-002', '--chain', '--db', db, '--json'])).json().chain.map((d: { title: string }) => d.title)).toEqual(['Adopt PostgreSQL', 'PG 17']);
  });

  it('reports validation errors per field: lines on stderr, or JSON issues with --json', async () => {
    const text = await cli(['decision', 'new', '--db', db, '--title', '', '--decision', 'x', '--rationale', 'y', '--importance', '0']);
    expect(text.code).toBe(2);
    expect(text.stderr).toBe('contextpack: decision new: --title: is required; --importance: must be an integer from 1 to 10\n');
    const json = await cli(['decision', 'new', '--db', db, '--json', '--title', 'T', '--decision', '', '--rationale', 'y', '--importance', '3']);
    expect(json.code).toBe(2);
    expect(json.json().issues).toEqual([{ field: 'decision', message: 'is required' }]);
  });

  it('decision export then import is a no-op; an edit updates; a malformed file names its line', async () => {
    const out = join(tmp.make(), 'decisions');
    expect((await cli(['decision', 'export', '--out', out, '--db', db])).stdout).toMatch(/2 written, 0 unchanged/);
    expect((await cli(['decision', 'import', out, '--db', db])).stdout).toBe('created 0, updated 0, unchanged 2, skipped 0\n');
    const f = join(out, 'DEC-2025-11-04-002.md');
    writeFileSync(f, readFileSync(f, 'utf8').replace('LTS.', 'LTS until 2029.'));
    expect((await cli(['decision', 'import', f, '--db', db, '--json'])).json().results[0].action).toBe('updated');
    writeTree(out, { 'new.md': '## DECISION: Use pnpm\n**Importance**: x\n### Decision\nd\n### Rationale\nr\n' });
    const bad = await cli(['decision', 'import', out, '--db', db]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(`contextpack: ${join(out, 'new.md')}:2: Importance must be an integer 1–10, got "x"\n`);
    writeTree(out, { 'new.md': '## DECISION: Use pnpm\n**Importance**: 4\n### Decision\nd\n### Rationale\nr\n' });
    const ok = await cli(['decision', 'import', out, '--db', db]);
    expect(ok.stdout).toMatch(/^created  DEC-\d{4}-\d{2}-\d{2}-\d{3}  .*new\.md  \(id written into file\)$/m);
    expect(readFileSync(join(out, 'new.md'), 'utf8')).toMatch(/^## DECISION: Use pnpm\n\*\*Decision ID\*\*: DEC-/);
  });

  it('decision export masks a secret typed into a decision and warns, unless --include-secrets', async () => {
    const key = 'AKIAQ7ZK4RT2MWX9HB3N';
    const secretDb = join(tmp.make(), 'secret.db');
    const made = await cli(['decision', 'new', '--db', secretDb, '--json', '--title', 'Deploy from CI', '--decision', `CI deploys with ${key} for now.`, '--rationale', 'Quick.', '--importance', '5']);
    const id = made.json().decision_id as string;
    const out = join(tmp.make(), 'decisions');
    const masked = await cli(['decision', 'export', '--out', out, '--db', secretDb]);
    expect(masked.code).toBe(0);
    expect(masked.stderr).toBe(`decision export: warning: ${id} holds what looks like a secret (1 field); masked in ${join(out, `${id}.md`)}. Pass --include-secrets to write it as typed\n`);
    const file = readFileSync(join(out, `${id}.md`), 'utf8');
    expect(file).not.toContain(key);
    expect(file).toMatch(/\[REDACTED: aws_key\]/);
    expect(file).toContain('Quick.');
    const typed = await cli(['decision', 'export', '--out', out, '--db', secretDb, '--include-secrets']);
    expect(typed.stderr).toMatch(/written as typed into .*--include-secrets/);
    expect(readFileSync(join(out, `${id}.md`), 'utf8')).toContain(key);
  });

  it('memory add / search / show / archive / maintain', async () => {
    const issue = await cli(['memory', 'add', '--db', db, '--json', '--type', 'issue', '--title', 'Login fails', '--set', 'description=Cookie dropped', '--set', 'severity=critical', '--set', 'attempted_fixes[]=SameSite=None']);
    expect(issue.json().content).toMatchObject({ severity: 'critical', attempted_fixes: ['SameSite=None'], status: 'open' });
    const bad = await cli(['memory', 'add', '--db', db, '--json', '--type', 'state', '--title', 'S', '--set', 'task_description=x', '--set', 'completion_percentage=140']);
    expect([bad.code, bad.json().issues]).toEqual([2, [{ field: 'content.completion_percentage', message: 'must be an integer from 0 to 100' }]]);
    await cli(['memory', 'add', '--db', db, '--type', 'learning', '--title', 'Cookies', '--content', '{"lesson":"Safari drops third-party cookies"}']);
    const hits = (await cli(['memory', 'search', 'cookie', '--db', db, '--json'])).json().hits;
    expect(hits.map((h: { memory: { title: string } }) => h.memory.title).sort()).toEqual(['Cookies', 'Login fails']);
    const id = issue.json().memory_id;
    expect((await cli(['memory', 'show', id, '--db', db, '--json'])).json().access_count).toBe(1);
    expect((await cli(['memory', 'archive', id, '--db', db])).stdout).toBe(`${id}  archived\n`);
    expect((await cli(['memory', 'search', '--type', 'issue', '--db', db])).stdout).toBe('no memories\n');
    expect((await cli(['memory', 'archive', id, '--restore', '--db', db])).stdout).toBe(`${id}  restored\n`);
    expect((await cli(['memory', 'maintain', '--dry-run', '--db', db, '--json'])).json()).toMatchObject({ dry_run: true, archived: [], deleted: [] });
    expect((await cli(['memory', 'delete', id, '--db', db])).code).toBe(2);
    expect((await cli(['memory', 'audit', id, '--db', db, '--json'])).json().entries.map((e: { action: string }) => e.action)).toEqual(['RESTORED', 'ARCHIVED', 'CREATED']);
  });

  it('stored text leaves memory and decision output through the redaction gate, text and --json', async () => {
    const key = 'AKIA' + 'QW7R2T9Y4U6I8O0P';
    const gdb = join(tmp.make(), 'gate.db');
    const learning = await cli(['memory', 'add', '--db', gdb, '--json', '--type', 'learning', '--title', `Deploy key ${key}`, '--set', `lesson=rotate ${key} monthly`]);
    expect(learning.code).toBe(0);
    // The record keeps what was written (the store is the user's); what is printed is gated, and --json stays JSON.
    const id = learning.json().memory_id as string;
    expect(learning.json().title).toMatch(/REDACTED/);
    await cli(['decision', 'new', '--db', gdb, '--title', 'Key storage', '--decision', `Keep ${key} in the vault.`, '--rationale', 'Audit.', '--importance', '5']);
    const outputs = [
      await cli(['memory', 'show', id, '--db', gdb]),
      await cli(['memory', 'show', id, '--db', gdb, '--json']),
      await cli(['memory', 'search', 'deploy key', '--db', gdb]),
      await cli(['memory', 'search', 'deploy key', '--db', gdb, '--json']),
      await cli(['memory', 'rehydrate', '--db', gdb]),
      await cli(['memory', 'audit', id, '--db', gdb]),
      await cli(['decision', 'list', '--db', gdb, '--json']),
      await cli(['decision', 'list', '--db', gdb]),
    ];
    for (const out of outputs) {
      expect(out.stdout, out.stdout).not.toContain(key);
      if (out.stdout.trimStart().startsWith('{')) expect(() => JSON.parse(out.stdout)).not.toThrow();
    }
    expect(outputs.some((o) => /REDACTED/.test(o.stdout))).toBe(true);
  });

  it('hierarchy show and check (exit 1 on findings, 0 when consistent)', async () => {
    expect((await cli(['ingest', root, '--db', db])).code).toBe(0);
    await cli(['hierarchy', 'summary', '--db', db, '--goal', 'Ship the shop', '--status', '40', '--priority', 'Payments', '--decision', 'DEC-2025-11-04-002']);
    await cli(['hierarchy', 'add', '--db', db, '--level', '2', '--title', 'Architecture', '--body', 'PG.', '--status', '50']);
    const l3 = await cli(['hierarchy', 'add', '--db', db, '--level', '3', '--parent', '§2.1', '--title', 'Details', '--body', 'See §4.src/auth.ts and §4.src/gone.ts'], '');
    expect(l3.stdout).toBe('§3.1  Details\n');
    const check = await cli(['hierarchy', 'check', '--db', db, '--json']);
    expect(check.code).toBe(1);
    expect(check.json().findings.map((f: { check: string }) => f.check)).toEqual(['broken-l4-reference', 'status-mismatch']);
    await cli(['hierarchy', 'edit', '§3.1', '--db', db, '--body-file', '-'], 'See §4.src/auth.ts');
    await cli(['hierarchy', 'edit', '2.1', '--db', db, '--status', '42']);
    expect(await cli(['hierarchy', 'check', '--db', db])).toMatchObject({ code: 0, stdout: 'hierarchy consistent\n' });
    const show = await cli(['hierarchy', 'show', '--db', db]);
    expect(show.stdout).toContain('[§2.1 - Architecture](#21-architecture) - PG. [IN PROGRESS 42%]');
    expect(show.stdout).toContain('- [DEC-2025-11-04-002] PG 17');
    const tree = (await cli(['hierarchy', 'show', '--json', '--db', db])).json().tree;
    expect(tree.l4.map((n: { marker: string }) => n.marker)).toEqual(['4.README.md', '4.src/auth.ts']);
    expect((await cli(['hierarchy', 'show', '§3.1', '--db', db])).stdout).toBe('## 3.1 Details\n\nSee §4.src/auth.ts\n');
  });
});
