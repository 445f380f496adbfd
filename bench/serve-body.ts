// npm run bench:serve-body [-- --mib 250 --files 12]
// A large request to serve mode, under its body cap: one library.import of `--files` uploads whose JSON body totals
// `--mib` MiB (base64 of random bytes, streamed by the client as it is made, so only the server's memory grows). The
// server runs in a child process with the real API and a real store; its peak RSS is the kernel's high-water mark
// (VmHWM in /proc/<pid>/status), read after the answer, against its RSS just before the request.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { mib: { type: 'string', default: '250' }, files: { type: 'string', default: '12' }, child: { type: 'boolean', default: false } } });

if (values.child) {
  // The server: the real API over a real store, as `contextpack serve` wires it.
  const { createApi } = await import('../src/main/api/index.ts');
  const { openStore } = await import('../src/main/core/store/index.ts');
  const { startServer } = await import('../src/main/serve/server.ts');
  const { writeFileSync } = await import('node:fs');
  const dataDir = mkdtempSync(join(tmpdir(), 'cp-bench-serve-'));
  const renderer = join(dataDir, 'renderer');
  (await import('node:fs')).mkdirSync(renderer);
  writeFileSync(join(renderer, 'index.html'), '<!doctype html>');
  const store = openStore(join(dataDir, 'b.db'), { loadVec: false });
  const api = createApi({ store, dataDir, version: 'bench', transport: 'http', background: false, watch: false, ingestRoots: [] });
  const server = await startServer({ dispatch: api.dispatch, events: api.events, rendererDir: renderer, port: 0 });
  process.stdout.write(JSON.stringify({ port: server.port, token: server.token, dataDir }) + '\n');
  process.stdin.resume();
  process.stdin.on('end', async () => {
    await server.close();
    await api.close();
    store.close();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
} else {
  const mib = Number(values.mib);
  const nFiles = Number(values.files);
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--child'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const info = await new Promise<{ port: number; token: string }>((resolve) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d;
      if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]!));
    });
  });
  const status = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) * 1024;
  // Each file's base64 is a multiple of 4 characters; the files share the body evenly.
  const total = mib * 1024 * 1024;
  const overhead = (i: number) => `${i === 0 ? '{"files":[' : ','}{"path":"f${String(i).padStart(3, '0')}.bin","base64":"`.length + 2;
  let fixed = 2; // "]}"
  for (let i = 0; i < nFiles; i++) fixed += overhead(i);
  const perFile = Math.floor((total - fixed) / nFiles / 4) * 4;
  const length = fixed + perFile * nFiles;
  const rssBefore = status('VmRSS');
  const t0 = performance.now();
  const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: info.port, path: '/api/library.import', method: 'POST', headers: { 'content-type': 'application/json', 'content-length': length, 'x-contextpack-token': info.token } },
      (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      },
    );
    req.on('error', reject);
    (async () => {
      const write = (s: string) => (req.write(s) ? Promise.resolve() : new Promise<void>((r) => req.once('drain', () => r())));
      for (let i = 0; i < nFiles; i++) {
        await write(`${i === 0 ? '{"files":[' : ','}{"path":"f${String(i).padStart(3, '0')}.bin","base64":"`);
        for (let left = perFile; left > 0; ) {
          const n = Math.min(left, 256 * 1024);
          await write(randomBytes((n / 4) * 3).toString('base64'));
          left -= n;
        }
        await write('"}');
      }
      req.end(']}');
    })().catch(reject);
  });
  const ms = performance.now() - t0;
  const peak = status('VmHWM');
  const value = JSON.parse(answer.body);
  console.log(`body ${(length / 1024 / 1024).toFixed(1)} MiB in ${nFiles} files (${(perFile / 1024 / 1024).toFixed(1)} MiB of base64 each): HTTP ${answer.status}${value.ok ? `, ${value.value.skipped.length} skipped as binary/too big, ${value.value.added.length} added` : `, ${value.error?.message}`}`);
  console.log(`server RSS before ${Math.round(rssBefore / 1e6)} MB, peak ${Math.round(peak / 1e6)} MB (+${Math.round((peak - rssBefore) / 1e6)} MB), ${(ms / 1000).toFixed(1)} s`);
  child.stdin!.end();
}
