// `contextpack decision export` / `import` and links: a DEC-….md that is a link is replaced, never written through;
// a file named to import through a link gets its id where the link led, and nothing else is touched.
import { lstatSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDirs } from '../../core/testing/tmp.ts';
import { runCliCaptured } from '../testing/run-cli.ts';

const tmp = tempDirs('cp-declinks-');
afterAll(() => tmp.cleanup());

const cli = (args: string[]) => runCliCaptured(args, { env: { CONTEXTPACK_AGENT: 'cli-test' } });

describe('decision export / import through symbolic links', () => {
  it('export replaces a DEC-….md that links to a file outside the folder; the link target keeps its bytes', async () => {
    const db = join(tmp.make(), 'd.db');
    const made = await cli(['decision', 'new', '--db', db, '--json', '--title', 'Adopt SQLite', '--decision', 'One file.', '--rationale', 'Local.', '--importance', '5', '--timestamp', '2026-01-02T10:00:00Z']);
    expect(made.code).toBe(0);
    const base = tmp.make();
    const out = join(base, 'repo', 'docs', 'decisions');
    mkdirSync(out, { recursive: true });
    const victim = join(base, 'outside.txt');
    writeFileSync(victim, 'victim-bytes\n');
    symlinkSync(victim, join(out, 'DEC-2026-01-02-001.md'));
    const r = await cli(['decision', 'export', '--out', out, '--db', db]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/1 written, 0 unchanged/);
    expect(readFileSync(victim, 'utf8')).toBe('victim-bytes\n');
    expect(lstatSync(join(out, 'DEC-2026-01-02-001.md')).isFile()).toBe(true);
    expect(readFileSync(join(out, 'DEC-2026-01-02-001.md'), 'utf8')).toContain('## DECISION: Adopt SQLite');
    // Again: the file now holds exactly the rendered bytes and is left alone.
    expect((await cli(['decision', 'export', '--out', out, '--db', db])).stdout).toMatch(/0 written, 1 unchanged/);
    expect(readdirSync(out)).toEqual(['DEC-2026-01-02-001.md']);
  });

  it('import of a file named through a link writes the new id into the file the link led to', async () => {
    const db = join(tmp.make(), 'i.db');
    const base = tmp.make();
    const real = join(base, 'real.md');
    writeFileSync(real, '## DECISION: Keep a changelog\n\n**Importance**: 4\n\n### Decision\n\nYes.\n\n### Rationale\n\nReaders.\n');
    symlinkSync(real, join(base, 'alias.md'));
    const r = await cli(['decision', 'import', join(base, 'alias.md'), '--db', db, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(lstatSync(join(base, 'alias.md')).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8')).toMatch(/\*\*Decision ID\*\*: DEC-/);
  });
});
