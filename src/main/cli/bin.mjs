#!/usr/bin/env node
// The CLI entry. It runs the bundle in out/cli/ (built by `npm run build:cli`, which `prepare` runs) when that bundle
// was built from exactly the current sources, and the TypeScript sources otherwise: Node ≥ 22.18 strips types by
// default, 22.12–22.17 need the flag. CONTEXTPACK_CLI_SOURCES=1 forces the sources.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freshBundle } from './fresh-bundle.mjs';

const bundle = freshBundle(fileURLToPath(new URL('../../../', import.meta.url)));
if (bundle) {
  await import(bundle);
} else {
  const entry = fileURLToPath(new URL('./contextpack.ts', import.meta.url));
  if (process.features.typescript) {
    await import(entry);
  } else {
    const r = spawnSync(process.execPath, ['--experimental-strip-types', '--disable-warning=ExperimentalWarning', entry, ...process.argv.slice(2)], { stdio: 'inherit' });
    process.exitCode = r.status ?? 1;
  }
}
