// The model download's read timeout against a real HTTP server on 127.0.0.1 that answers at once and then trickles
// one byte every 5 s: an idle timeout would never fire on it; the rate check cuts it, keeps the part, and the
// server sees its connection closed.
import { existsSync, statSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDirs } from '../testing/tmp.ts';
import { downloadModel, PINNED, stagingDir } from './download.ts';

const tmp = tempDirs('cp-download-stall-');
const MODEL = 'Xenova/all-MiniLM-L6-v2';
let server: Server;
let base: string;
let closedAfter: number | null = null;
const open = new Set<ServerResponse>();

beforeAll(async () => {
  server = createServer((req, res) => {
    // config.json is pinned (650 bytes, sha256), so the downloader goes on to read the body.
    if (!req.url?.endsWith('/resolve/main/config.json')) {
      res.writeHead(404).end();
      return;
    }
    const started = Date.now();
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(PINNED[MODEL]!['config.json']!.bytes) });
    res.write('{');
    open.add(res);
    const timer = setInterval(() => res.write(' '), 5000);
    res.on('close', () => {
      clearInterval(timer);
      open.delete(res);
      closedAfter = Date.now() - started;
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const res of open) res.destroy();
  await new Promise((r) => server.close(r));
  tmp.cleanup();
});

describe('model download read timeout', () => {
  it('a server trickling a byte every 5 s fails cleanly: a clear error, the part kept for a resume, the connection closed', async () => {
    const modelsDir = tmp.make();
    const t0 = Date.now();
    // A 6 s window sees one or two bytes (the gaps are 5 s, so an idle timeout of 6 s would never fire).
    await expect(downloadModel({ modelId: MODEL, modelsDir, baseUrl: base, stall: { windowMs: 6000, minBytes: 1024 } }, { fetch })).rejects.toThrow(
      /models: download of .*config\.json stalled after [12] bytes \(kept; it resumes next time\): too slow: [12] bytes in 6 s/,
    );
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(5900);
    expect(took).toBeLessThan(15_000);
    const part = join(stagingDir(modelsDir, MODEL), 'config.json.part');
    expect(existsSync(part)).toBe(true);
    expect(statSync(part).size).toBeGreaterThanOrEqual(1);
    // The client hung up: the server's response closed, not left open for ever.
    for (let i = 0; i < 50 && closedAfter === null; i++) await new Promise((r) => setTimeout(r, 20));
    expect(closedAfter).not.toBeNull();
    expect(existsSync(join(modelsDir, MODEL, 'config.json'))).toBe(false);
  }, 30_000);
});
