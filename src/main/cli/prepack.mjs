#!/usr/bin/env node
// `npm pack`'s prepack: builds what the package ships and runs (the CLI bundle with its embedding worker, the
// renderer `serve` sends to the browser) and ships the lockfile as npm-shrinkwrap.json, so an install gets the
// dependency tree the tests ran on. A part already built from the current sources is left as it is: the packed-install
// test packs while other tests run the CLI from out/cli, which a rebuild would swap under them.
import { spawnSync } from 'node:child_process';
import { copyFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freshBundle } from './fresh-bundle.mjs';

const root = fileURLToPath(new URL('../../../', import.meta.url));

function run(args) {
  // Their output goes to stderr: `npm pack --json` prints its report on stdout.
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: ['ignore', 2, 2] });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

/** The newest mtime under a folder (or of a file). */
function newest(path) {
  const s = statSync(path, { throwIfNoEntry: false });
  if (!s) return 0;
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((n) => newest(join(path, n))));
}

if (freshBundle(root)) process.stderr.write('prepack: out/cli is built from the current sources\n');
else run([join(root, 'src/main/cli/build-bundle.mjs')]);

const renderer = newest(join(root, 'out/renderer/index.html'));
const inputs = Math.max(...['src/renderer', 'src/shared', 'electron.vite.config.ts', 'package-lock.json'].map((p) => newest(join(root, p))));
if (renderer > inputs) process.stderr.write('prepack: out/renderer is built from the current sources\n');
else run([join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'build']);

copyFileSync(join(root, 'package-lock.json'), join(root, 'npm-shrinkwrap.json'));
