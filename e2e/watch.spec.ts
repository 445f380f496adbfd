import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import { writeTree } from '../src/main/core/testing/tmp.ts';
import { startServe } from './serve.ts';

// Its own `contextpack serve` on its own database (the shared one of global-setup belongs to workbench.spec): a
// folder indexed in place by the CLI, then followed by the server's watcher while the Library view is open (serve
// re-reads only folders under --root, and uploads).
test.describe.configure({ mode: 'serial' });

const repo = fileURLToPath(new URL('../', import.meta.url));
const bin = join(repo, 'src/main/cli/bin.mjs');
let dir: string;
let project: string;
let server: Awaited<ReturnType<typeof startServe>>;
let page: Page;

test.beforeAll(async ({ browser }) => {
  dir = mkdtempSync(join(tmpdir(), 'cp-e2e-watch-'));
  project = join(dir, 'heron');
  writeTree(project, { 'docs/start.md': '# Start\n\nThe heron index begins here.\n' });
  const db = join(dir, 'w.db');
  const r = spawnSync(process.execPath, [bin, 'ingest', project, '--db', db, '--no-embed'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  server = await startServe(dir, { db, args: ['--root', project] });
  page = await browser.newPage();
  await page.goto(server.url);
  await expect(page.getByRole('heading', { name: 'Library', level: 1 })).toBeVisible();
});

test.afterAll(async () => {
  await page?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('the Library lists the root with its watch switch and a live status line', async () => {
  const row = page.getByTestId('root-row');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('heron');
  await expect(row).toContainText('online');
  await expect(page.getByRole('switch', { name: 'Watch heron' })).toBeChecked();
  await expect(page.getByTestId('watch-status')).toContainText('Watching 1 root');
  await expect(page.getByTestId('source-row')).toHaveCount(1);
});

test('a file written on disk appears without a reload (library.changed)', async () => {
  writeFileSync(join(project, 'docs', 'nest.md'), '# Nest\n\nHerons nest in colonies.\n');
  await expect(page.getByTestId('source-row')).toHaveCount(2);
  await expect(page.getByTestId('source-row').filter({ hasText: 'nest.md' })).toContainText('indexed');
  await expect(page.getByTestId('watch-status')).not.toContainText('last change none yet');
});

test('switching a root off stops following it; switching it on catches up', async () => {
  const sw = page.getByRole('switch', { name: 'Watch heron' });
  await sw.click();
  await expect(sw).not.toBeChecked();
  await expect(page.getByTestId('watch-status')).toContainText('Watching 0 roots');
  writeFileSync(join(project, 'docs', 'flight.md'), '# Flight\n\nHerons fly with necks folded.\n');
  await page.waitForTimeout(1500);
  await expect(page.getByTestId('source-row')).toHaveCount(2);

  // The switch is kept in the store: a reload shows it off.
  await page.reload();
  await expect(page.getByRole('switch', { name: 'Watch heron' })).not.toBeChecked();

  await page.getByRole('switch', { name: 'Watch heron' }).click();
  await expect(page.getByRole('switch', { name: 'Watch heron' })).toBeChecked();
  await expect(page.getByTestId('watch-status')).toContainText('Watching 1 root');
  await expect(page.getByTestId('source-row')).toHaveCount(3);
});

test('a packet whose cited file changes on disk is marked stale and rebuilds with its diff', async () => {
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: /^Packets/ }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Packets' })).toBeVisible();
  await page.getByLabel('Query').fill('herons nest colonies');
  await page.getByRole('button', { name: 'Build packet' }).click();
  await expect(page.getByTestId('packet-preview')).toBeVisible();
  await expect(page.getByTestId('packet-text')).toContainText('docs/nest.md#');
  await expect(page.getByTestId('packet-text')).not.toContainText(project);
  const hash = await page.getByTestId('packet-hash').getAttribute('title');
  const row = page.locator(`[data-testid="packet-row"][data-hash="${hash}"]`);
  await expect(row.getByTestId('stale-badge')).toHaveCount(0);

  writeFileSync(join(project, 'docs', 'nest.md'), '# Nest\n\nHerons nest in large colonies near water.\n');
  // The watcher re-indexes it; library.changed makes the history refresh, with no reload.
  await expect(row.getByTestId('stale-badge')).toBeVisible();
  await expect(row.getByTestId('stale-badge')).toHaveAttribute('title', /docs\/nest\.md \(changed\)/);
  await row.getByRole('button', { name: 'Rebuild' }).click();
  await expect(page.getByTestId('replay-result')).toContainText('Replay differs');
});
