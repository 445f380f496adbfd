import Module, { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDirs, writeTree } from '../core/testing/tmp.ts';
import { API_METHODS, ipcChannel } from '../../shared/api/methods.ts';
import { checkElectronRe2, redirectRe2, STAMP_FILE } from './native-re2.ts';
import { devServerUrlFor, registerIpcApi, trustedUrlCheck } from './ipc.ts';

const tmp = tempDirs('cp-electron-');
afterAll(() => tmp.cleanup());

describe('re2 for Electron', () => {
  it('says what to run when the Electron build is missing or stale', () => {
    const app = tmp.make();
    expect(checkElectronRe2(app, '45.4.1')).toMatchObject({ ok: false, reason: expect.stringContaining('npm run native:electron') });
    writeTree(join(app, '.electron-native/re2'), { 'build/Release/re2.node': 'x', [STAMP_FILE]: '44.0.0\n' });
    expect(checkElectronRe2(app, '45.4.1')).toMatchObject({ ok: false, reason: expect.stringContaining('built for Electron 44.0.0') });
    writeTree(join(app, '.electron-native/re2'), { [STAMP_FILE]: '45.4.1\n' });
    expect(checkElectronRe2(app, '45.4.1')).toEqual({ ok: true, re2Dir: join(app, '.electron-native/re2') });
  });

  it('sends require("re2") to the Electron build and leaves other modules alone', () => {
    const dir = tmp.make();
    writeTree(dir, { 're2.js': "module.exports = 'electron build of re2';", 'lib/extra.js': "module.exports = 'subpath';" });
    const internals = Module as unknown as { _resolveFilename: (...a: unknown[]) => string };
    const original = internals._resolveFilename;
    try {
      redirectRe2(internals as Parameters<typeof redirectRe2>[0], dir);
      const req = createRequire(import.meta.url);
      expect(req('re2')).toBe('electron build of re2');
      expect(req('re2/lib/extra.js')).toBe('subpath');
      expect(typeof req('better-sqlite3')).toBe('function');
    } finally {
      internals._resolveFilename = original;
    }
  });
});

describe('IPC registration', () => {
  it('registers one handler per contract method and refuses frames other than our renderer', async () => {
    const handlers = new Map<string, (e: { senderFrame: { url: string } | null }, input: unknown) => unknown>();
    const calls: [string, unknown][] = [];
    const rendererUrl = 'file:///app/out/renderer/index.html';
    registerIpcApi({ handle: (ch, fn) => void handlers.set(ch, fn) }, async (m, input) => (calls.push([m, input]), { ok: true, value: m }), trustedUrlCheck(rendererUrl, undefined));
    expect([...handlers.keys()].sort()).toEqual(API_METHODS.map(ipcChannel).sort());
    const stats = handlers.get(ipcChannel('stats.get'))!;
    expect(await stats({ senderFrame: { url: `${rendererUrl}#x` } }, {})).toEqual({ ok: true, value: 'stats.get' });
    expect(await stats({ senderFrame: { url: 'https://evil.example/' } }, {})).toMatchObject({ ok: false });
    expect(await stats({ senderFrame: { url: 'file:///tmp/other.html' } }, {})).toMatchObject({ ok: false });
    expect(await stats({ senderFrame: null }, {})).toMatchObject({ ok: false });
    expect(calls).toEqual([['stats.get', {}]]);
    const dev = trustedUrlCheck(rendererUrl, 'http://localhost:5173');
    expect(dev('http://localhost:5173/index.html')).toBe(true);
    expect(dev('http://localhost:5174/')).toBe(false);
  });

  it('takes the dev server address from ELECTRON_RENDERER_URL only when the app is not packaged', () => {
    const env = { ELECTRON_RENDERER_URL: 'https://evil.example/' };
    expect(devServerUrlFor(true, env)).toBeUndefined();
    expect(devServerUrlFor(false, env)).toBe('https://evil.example/');
    expect(devServerUrlFor(false, {})).toBeUndefined();
    expect(devServerUrlFor(false, { ELECTRON_RENDERER_URL: '' })).toBeUndefined();
  });
});
