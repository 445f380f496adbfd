#!/usr/bin/env node
// The CLI entry. It runs the bundle in out/cli/ (built by `npm run build:cli`, which `prepare` and `prepack` run) when
// that bundle was built from exactly the current sources, and the TypeScript sources otherwise: Node ≥ 22.18 strips
// types by default, 22.12–22.17 need the flag. An installed package ships the bundle and no sources (Node strips no
// types under node_modules), so there the bundle is what runs. CONTEXTPACK_CLI_SOURCES=1 forces the sources.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freshBundle, installedBundle } from './fresh-bundle.mjs';

// Plain JavaScript up to here, so an older Node (an agent's PATH may find one) says what is wrong instead of failing
// on syntax it does not know.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(`contextpack: needs Node.js 22.12 or newer; this is ${process.version} at ${process.execPath}\n`);
  process.exit(1);
}

const root = fileURLToPath(new URL('../../../', import.meta.url));
const bundle = installedBundle(root) ?? freshBundle(root);
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
