#!/usr/bin/env node
// Builds the re2 addon for the installed Electron's ABI into .electron-native/re2 (git-ignored), leaving the
// node_modules copy built for Node (tests, CLI, serve). Runs before `npm start`; a no-op when already current.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const require = createRequire(join(root, 'package.json'));
const electronVersion = JSON.parse(readFileSync(require.resolve('electron/package.json'), 'utf8')).version;
const source = dirname(require.resolve('re2/package.json'));
const target = join(root, '.electron-native', 're2');
const stamp = join(target, '.electron-version');

if (existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === electronVersion && existsSync(join(target, 'build/Release/re2.node'))) {
  console.log(`re2 for Electron ${electronVersion} is up to date in ${target}`);
  process.exit(0);
}

console.log(`building re2 for Electron ${electronVersion} in ${target} (about a minute)…`);
rmSync(target, { recursive: true, force: true });
mkdirSync(target, { recursive: true });
cpSync(source, target, { recursive: true, filter: (p) => !p.startsWith(join(source, 'build')) });

const env = { ...process.env };
// The Node 22 headers set up for `npm install` would give an addon for Node's ABI again.
delete env.npm_config_nodedir;
delete env.NPM_CONFIG_NODEDIR;
const gyp = join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'node-gyp.cmd' : 'node-gyp');
const r = spawnSync(gyp, ['rebuild', '-j', 'max', `--target=${electronVersion}`, '--runtime=electron', '--dist-url=https://electronjs.org/headers'], {
  cwd: target,
  env,
  stdio: 'inherit',
  shell: process.platform === 'win32',
});
if (r.status !== 0) {
  console.error(
    [
      '',
      `Could not build re2 for Electron ${electronVersion}.`,
      'It needs python3, make and a C++ compiler, and downloads Electron headers from https://electronjs.org/headers.',
      'Without it the desktop app cannot start (the redaction gate needs RE2). Everything else runs under Node:',
      '  contextpack serve   # the same workbench in a browser',
    ].join('\n'),
  );
  process.exit(r.status ?? 1);
}
writeFileSync(stamp, electronVersion + '\n');
console.log(`re2 built for Electron ${electronVersion}`);
