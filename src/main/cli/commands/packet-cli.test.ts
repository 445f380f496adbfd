import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../core/store/index.ts';
import { tempDirs, writeTree } from '../../core/testing/tmp.ts';
import { runCliCaptured } from '../testing/run-cli.ts';

const tmp = tempDirs('cp-pack-cli-');
afterAll(() => tmp.cleanup());
const bin = fileURLToPath(new URL('../bin.mjs', import.meta.url));

const cli = (args: string[], stdin = '') => runCliCaptured(args, { stdin });

describe('packet CLI: pack, packets, replay, redact', () => {
  const root = tmp.make();
  writeTree(root, {
    'docs/auth.md': '# Auth\n\nRefresh tokens use a separate signing key.\nDATABASE_URL=postgres://admin:hunter2@10.0.0.5:5432/app\n',
    'src/retry.ts': 'export const retries = 3; // retry with exponential backoff\n',
  });
  const dir = tmp.make();
  const db = join(dir, 'cli.db');
  const taskFile = join(dir, 'task.md');
  writeFileSync(taskFile, 'Rotate the signing key.\n- [ ] no downtime\n');

  it('packs to stdout (md) with the hash, and to --out with a summary on stderr', async () => {
    expect((await cli(['ingest', root, '--db', db])).code).toBe(0);
    const r = await cli(['pack', '--query', 'signing key database', '--task-file', taskFile, '--db', db]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^<!-- contextpack schema_version=1 template=ao-v1 pack_id=pack_[0-9a-f]{16} context_snapshot_hash=[0-9a-f]{64} -->\n# CONTEXT PACKET/);
    expect(r.stdout).toContain('## TASK\n### Assignment\nRotate the signing key.');
    expect(r.stdout).toContain('[REDACTED: connection_string]');
    expect(r.stdout).not.toContain('hunter2');
    const out = join(dir, 'p.md');
    const w = await cli(['pack', '--query', 'signing key database', '--task-file', taskFile, '--db', db, '--out', out]);
    expect(w.stdout).toBe('');
    expect(w.stderr).toMatch(/^wrote .*p\.md: \d+ section chars, \d+ tokens \(o200k_base\), \d+ lines redacted, hash [0-9a-f]{64}\n$/);
    expect(readFileSync(out, 'utf8')).toBe(r.stdout);
    const log = readFileSync(join(dir, 'cli-data', 'logs', 'redaction.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(log[0]).toMatchObject({ pattern: expect.any(String), section: 'INTEL', line: 4 });
    expect(readFileSync(join(dir, 'cli-data', 'logs', 'injection-log.jsonl'), 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it('puts the manifest and its context_snapshot_hash in --format json, and replays the exact bytes', async () => {
    const r = await cli(['pack', '--query', 'retry backoff', '--format', 'json', '--max-tokens', '3000', '--db', db]);
    const doc = JSON.parse(r.stdout);
    expect(doc.manifest.budgets.total_budget).toBe(12_000);
    const hash: string = doc.manifest.context_snapshot_hash;
    expect(doc.context_snapshot_hash).toBe(hash);
    const list = JSON.parse((await cli(['packets', '--json', '--db', db])).stdout).packets;
    expect(list.map((p: { hash: string }) => p.hash)).toContain(hash);
    const raw = await cli(['replay', hash, '--raw', '--db', db]);
    expect(createHash('sha256').update(raw.stdout).digest('hex')).toBe(hash);
    // Markdown by default, like pack; --json is the json format.
    const md = await cli(['replay', hash.slice(0, 10), '--db', db]);
    expect(md.stdout).toMatch(/^<!-- contextpack schema_version=1 /);
    expect(md.stdout).toContain(`context_snapshot_hash=${hash}`);
    expect((await cli(['replay', hash, '--format', 'md', '--db', db])).stdout).toBe(md.stdout);
    expect(JSON.parse((await cli(['replay', hash, '--json', '--db', db])).stdout).context_snapshot_hash).toBe(hash);
    expect((await cli(['replay', hash, '--raw', '--format', 'md', '--db', db])).code).toBe(2);
    const same = await cli(['replay', hash, '--reassemble', '--db', db]);
    expect(same.stdout).toBe(`identical: ${hash}\n0 added, 0 removed, 0 changed\n`);
    const os = JSON.parse((await cli(['pack', '--query', 'retry', '--template', 'layered-v1', '--format', 'contextos', '--db', db])).stdout);
    expect(os.pack_meta.template).toBe('layered-v1');
  });

  it('reports a tampered snapshot clearly with exit code 3, and bad flags with 2', async () => {
    const r = await cli(['pack', '--query', 'auth tokens', '--format', 'json', '--db', db]);
    const hash = JSON.parse(r.stdout).context_snapshot_hash as string;
    const s = openStore(db);
    s.db.exec('DROP TRIGGER packet_snapshots_immutable');
    s.db.prepare("UPDATE packet_snapshots SET bytes = CAST(replace(CAST(bytes AS TEXT), 'auth', 'AUTH') AS BLOB) WHERE hash = ?").run(hash);
    s.close();
    const t = await cli(['replay', hash, '--raw', '--db', db]);
    expect(t.code).toBe(3);
    expect((await cli(['replay', hash, '--db', db])).code).toBe(3);
    expect(t.stderr).toMatch(/has been tampered with: its bytes now hash to [0-9a-f]{64}; refusing to replay it/);
    expect((await cli(['pack', '--query', 'x', '--template', 'v9', '--db', db])).stderr).toMatch(/--template must be one of ao-v1, layered-v1/);
    expect((await cli(['pack', '--query', 'x', '--max-tokens', '10', '--db', db])).stderr).toMatch(/--max-tokens must be an integer ≥ 250/);
    expect((await cli(['pack', '--db', db])).code).toBe(2);
    expect((await cli(['replay', '--db', db])).stderr).toMatch(/give a snapshot hash/);
  });

  it('redacts a file or stdin; --json reports by type; a pattern RE2 cannot take is refused', async () => {
    const r = await cli(['redact', '-'], 'hello\nsecret_key = "q8Zr3kV9xT2mN7pL4wY6bC1dF5gH0jKs"\nbye\n');
    expect(r.stdout).toMatch(/^hello\n\[REDACTED: [a-z_]+\]\nbye\n$/);
    const j = JSON.parse((await cli(['redact', '--json', join(root, 'docs/auth.md')])).stdout);
    expect(j).toMatchObject({ redactedLines: 1, byType: { connection_string: { count: 1, lines: [4] } } });
    const refused = await cli(['redact', '--pattern', 'neg:custom:foo(?!bar)', '-'], 'x');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/Redaction pattern "neg" .* refused: RE2 cannot compile it/);
    const custom = await cli(['redact', '--pattern', 'ticket:ticket:TICKET-\\d+', '-'], 'see TICKET-42\nok\n');
    expect(custom.stdout).toBe('[REDACTED: ticket]\nok\n');
  });

  it('runs as a real executable', () => {
    const r = spawnSync(process.execPath, [bin, 'pack', '--query', 'retry', '--db', db], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/## PROTOCOL/);
  });
});
