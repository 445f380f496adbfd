// The desktop app as users receive it: the *built* main bundle and preload (npm run build), loaded under Node with a
// recording stand-in for `electron`. Nothing here imports the TypeScript sources of the shell.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_METHODS, ipcChannel } from '../../shared/api/methods.ts';
import { tempDirs } from '../core/testing/tmp.ts';
import { BUILT_MAIN, BUILT_PRELOAD, loadBuiltMain, loadBuiltPreload, type DesktopRecord } from './testing/electron-standin.ts';

const tmp = tempDirs('cp-desktop-');
afterAll(() => tmp.cleanup());

// Modules that must load only in the embedding worker: Electron's Linux binaries may not load sharp, and
// transformers.js + onnxruntime cost start-up time the window should not wait for.
const WORKER_ONLY = ['@huggingface/transformers', 'onnxruntime-node', 'onnxruntime-common', 'sharp'];

let desktop: DesktopRecord;
let rendererUrl: string;
const call = (method: string, input: unknown, url = rendererUrl) => desktop.handlers.get(ipcChannel(method as never))!({ senderFrame: { url } }, input);

beforeAll(async () => {
  if (!existsSync(BUILT_MAIN)) throw new Error(`${BUILT_MAIN} is missing: run \`npm run build\` first (npm test does)`);
  desktop = await loadBuiltMain({ appPath: tmp.make(), home: tmp.make() });
  rendererUrl = desktop.windows[0] ? pathToFileURL(desktop.windows[0].loaded.file ?? '').href : '';
});

describe('the built desktop main process', () => {
  it('starts without an error dialog and opens one hardened window', () => {
    expect(desktop.errors).toEqual([]);
    expect(desktop.quit).toBe(false);
    expect(desktop.windows).toHaveLength(1);
    const prefs = desktop.windows[0]!.options.webPreferences!;
    expect(prefs).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false });
    expect(existsSync(String(prefs.preload))).toBe(true);
    expect(existsSync(desktop.windows[0]!.loaded.file!)).toBe(true);
    expect(desktop.menus).toBe(1);
    console.log(`[desktop smoke] main start-up to first window: ${(desktop.firstWindowAt! - desktop.loadStartedAt).toFixed(0)} ms`);
  });

  it('keeps transformers.js, onnxruntime and sharp out of the main process', () => {
    const loaded = Object.keys(createRequire(import.meta.url).cache);
    for (const name of WORKER_ONLY) expect(loaded.filter((p) => p.includes(`/node_modules/${name}/`)), name).toEqual([]);
  });

  it('registers one IPC handler per contract method', () => {
    expect([...desktop.handlers.keys()].sort()).toEqual(API_METHODS.map(ipcChannel).sort());
  });

  it('answers calls from its renderer and refuses a foreign frame', async () => {
    expect(await call('app.info', {})).toMatchObject({ ok: true, value: { transport: 'ipc' } });
    expect(await call('stats.get', {})).toMatchObject({ ok: true, value: { chunks: 0, sources: { indexed: 0 } } });
    expect(await call('app.info', {}, 'https://evil.example/')).toMatchObject({ ok: false, error: { message: expect.stringContaining('refused') } });
    expect(await call('search.query', { query: '' })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
  });
});

describe('the built preload', () => {
  it('exposes exactly the contract, routed to the main process', async () => {
    const preload = loadBuiltPreload((channel, input) => Promise.resolve(desktop.handlers.get(channel)!({ senderFrame: { url: rendererUrl } }, input)));
    expect([...preload.exposed.keys()]).toEqual(['contextpack']);
    const bridge = preload.exposed.get('contextpack') as Record<string, (...a: unknown[]) => Promise<unknown>>;
    expect(Object.keys(bridge).sort()).toEqual(['invoke', 'onEvent', 'pathForFile']);
    expect(await bridge.invoke!('app.info', {})).toMatchObject({ ok: true, value: { transport: 'ipc' } });
    expect(await bridge.invoke!('fs.readFile', { path: '/etc/passwd' })).toMatchObject({ ok: false, error: { code: 'unknown_method' } });
    expect(preload.invoked.map((c) => c.channel)).toEqual([ipcChannel('app.info')]);
    const seen: unknown[] = [];
    const off = (bridge.onEvent as unknown as (l: (e: unknown) => void) => () => void)((e) => seen.push(e));
    preload.emit('api:event', { name: 'ingest.progress', data: { done: 1 } });
    preload.emit('api:event', { name: 'not.an.event' });
    off();
    preload.emit('api:event', { name: 'ingest.progress', data: { done: 2 } });
    expect(seen).toEqual([{ name: 'ingest.progress', data: { done: 1 } }]);
    expect(BUILT_PRELOAD.endsWith('.cjs')).toBe(true);
  });
});

describe('sources bundled into the main process', () => {
  // The bundler renames a module-level `require` local and then its own generated require calls hit it (the bug
  // that kept the app from starting). CommonJS's other module-scope names are just as fragile.
  it('declare no local that shadows a CommonJS module-scope name', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const root = join(import.meta.dirname, '..');
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.tsx?$/.test(e.name) && !/\.test\.ts$/.test(e.name)) {
          const text = readFileSync(p, 'utf8');
          for (const m of text.matchAll(/\b(?:const|let|var|function|class)\s+(require|module|exports|__filename|__dirname)\b/g)) offenders.push(`${p}: ${m[0]}`);
        }
      }
    };
    walk(root);
    expect(offenders).toEqual([]);
  });
});
