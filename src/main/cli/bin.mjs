#!/usr/bin/env node
// The CLI runs its TypeScript sources directly. Node ≥ 22.18 strips types by default; 22.12–22.17 need the flag.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const entry = fileURLToPath(new URL('./contextpack.ts', import.meta.url));
if (process.features.typescript) {
  await import(entry);
} else {
  const r = spawnSync(process.execPath, ['--experimental-strip-types', '--disable-warning=ExperimentalWarning', entry, ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exitCode = r.status ?? 1;
}
