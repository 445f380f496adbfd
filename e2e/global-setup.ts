import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRng, fakeJwt } from '../src/main/core/redact/fake-secrets.testkit.ts';
import { writeTree } from '../src/main/core/testing/tmp.ts';
import { startServe } from './serve.ts';

const repo = fileURLToPath(new URL('../', import.meta.url));

/**
 * Starts the real `contextpack serve` on a throwaway database and reads the URL (with its per-run token) from its
 * output, exactly as a user would. Fixture files are written here; the fake secret is generated at run time so no
 * secret-shaped literal is ever committed.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const dir = mkdtempSync(join(tmpdir(), 'cp-e2e-'));
  const secret = fakeJwt(createRng(20261121));
  writeTree(join(dir, 'fixtures'), {
    'architecture.md': '# Architecture\n\n## Storage\n\nThe kestrel ledger keeps every record in one SQLite file with write-ahead logging.\n\n## Sync\n\nReplicas pull changes every ten minutes.\n',
    'runbook.md': '# Runbook\n\n## Restarts\n\nRestart the ingest worker when the queue depth exceeds five hundred.\n',
    'notes/ideas.txt': 'Consider a bloom filter for duplicate detection.\n',
  });
  writeTree(join(dir, 'drop'), {
    'gateway-config.md': `# Gateway config\n\nThe osprey gateway signs session tokens for the kestrel ledger.\n\nsession_token = ${secret}\n\nRotate the osprey gateway keys monthly.\n`,
  });

  // The hierarchy has no editor in the workbench (the CLI edits it); seed an L1 and an L2 so the view has § sections
  // and findings to show: the summary cites a decision that does not exist, and the L2 has no L3 under it.
  const db = join(dir, 'e2e.db');
  const cli = (...args: string[]) => {
    const r = spawnSync(process.execPath, [join(repo, 'src/main/cli/bin.mjs'), ...args, '--db', db], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`contextpack ${args.join(' ')} failed:\n${r.stderr}`);
  };
  cli('hierarchy', 'summary', '--goal', 'Ship the kestrel ledger', '--status', '40', '--decision', 'DEC-2020-01-01-001');
  cli('hierarchy', 'add', '--level', '2', '--title', 'Storage layer', '--body', 'The ledger lives in SQLite.', '--status', '50');

  const server = await startServe(dir, { db });
  const url = server.url;
  process.env.CP_E2E_URL = url;
  process.env.CP_E2E_DIR = dir;
  process.env.CP_E2E_SECRET = secret;
  return async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  };
}
