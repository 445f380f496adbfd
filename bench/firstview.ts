// npm run bench:firstview [-- --chunks 100000 --runs 5]
// Opening a big project in the workbench: a synthetic store (bench:packet's builder, 10 chunks per file), the real
// `contextpack serve` on it, and Debian Chromium through Playwright. Times from navigation to the first view being
// interactive (Library heading, its source list rendered and the Rescan button enabled), cold page each run.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from '@playwright/test';
import { percentile } from './lib/trec-eval.ts';

const { values } = parseArgs({ options: { chunks: { type: 'string', default: '100000' }, runs: { type: 'string', default: '5' } } });
const repo = fileURLToPath(new URL('../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'cp-bench-firstview-'));
const db = join(dir, 'big.db');

try {
  const t0 = performance.now();
  const built = spawnSync(process.execPath, [join(repo, 'bench/packet.ts'), '--chunks', values.chunks!, '--runs', '2', '--keep-db', db], { encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`building the store failed:\n${built.stderr}`);
  console.log(`store: ${Number(values.chunks).toLocaleString()} chunks in ${(Number(values.chunks) / 10).toLocaleString()} files, built in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const server = spawn(process.execPath, [join(repo, 'src/main/cli/bin.mjs'), 'serve', '--port', '0', '--db', db], { cwd: repo, env: { ...process.env, CONTEXTPACK_HOME: join(dir, 'home') }, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    server.stdout!.on('data', (c) => {
      out += c;
      const m = /open (http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    server.once('exit', (code) => reject(new Error(`serve exited ${code}`)));
  });
  const browser = await chromium.launch({ executablePath: process.env.CONTEXTPACK_CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
  const times: number[] = [];
  try {
    for (let i = 0; i < Number(values.runs); i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      const start = performance.now();
      await page.goto(url);
      await page.getByRole('heading', { level: 1, name: 'Library' }).waitFor();
      await page.getByTestId('source-row').first().waitFor();
      await page.getByRole('button', { name: 'Rescan' }).and(page.locator(':enabled')).waitFor();
      times.push(performance.now() - start);
      await context.close();
    }
  } finally {
    await browser.close();
    server.kill('SIGTERM');
  }
  console.log(`first view interactive (navigation → Library with its source list): p50 ${percentile([...times].sort((a, b) => a - b), 50).toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms over ${times.length} cold loads (target ≤ 1000 ms)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
