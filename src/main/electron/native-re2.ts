import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * re2 is a V8 addon (not N-API): the copy `npm install` builds in node_modules only loads in Node. `npm start` runs
 * `build-native.mjs` first, which builds a second copy for Electron's ABI into `.electron-native/re2`; the desktop
 * main process sends every `require('re2')` there. better-sqlite3 and onnxruntime are N-API and load as they are.
 */
export const ELECTRON_NATIVE_DIR = '.electron-native';
export const STAMP_FILE = '.electron-version';

export type NativeCheck = { ok: true; re2Dir: string } | { ok: false; reason: string };

export function checkElectronRe2(appPath: string, electronVersion: string): NativeCheck {
  const re2Dir = join(appPath, ELECTRON_NATIVE_DIR, 're2');
  const fix = 'run `npm run native:electron` (npm start does this first); it needs python3, make, g++ and network access to electronjs.org for the headers';
  if (!existsSync(join(re2Dir, 'build', 'Release', 're2.node'))) return { ok: false, reason: `re2 has not been built for Electron: no ${join(re2Dir, 'build/Release/re2.node')}; ${fix}` };
  let built = '';
  try {
    built = readFileSync(join(re2Dir, STAMP_FILE), 'utf8').trim();
  } catch {
    // missing stamp: treat as a stale build
  }
  if (built !== electronVersion) return { ok: false, reason: `re2 in ${re2Dir} was built for Electron ${built || '(unknown)'}, this is Electron ${electronVersion}; ${fix}` };
  return { ok: true, re2Dir };
}

interface ModuleInternals {
  _resolveFilename(request: string, parent: unknown, isMain: boolean, options?: unknown): string;
}

/** Sends `require('re2')` (and its subpaths) to the Electron build. Must run before anything requires re2. */
export function redirectRe2(moduleApi: ModuleInternals, re2Dir: string): void {
  const original = moduleApi._resolveFilename;
  moduleApi._resolveFilename = function (request, parent, isMain, options) {
    if (request === 're2') return original.call(this, join(re2Dir, 're2.js'), parent, isMain, options);
    if (request.startsWith('re2/')) return original.call(this, join(re2Dir, request.slice(4)), parent, isMain, options);
    return original.call(this, request, parent, isMain, options);
  };
}
