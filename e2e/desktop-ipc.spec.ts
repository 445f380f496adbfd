// The desktop path end to end, without the Electron binary: the *built* renderer (out/renderer) runs in Chromium,
// `window.contextpack` is the *built* preload's bridge, and its IPC calls reach the *built* main bundle's handlers,
// loaded in this test process under a recording electron stand-in. This is the IPC transport's e2e, beside the
// HTTP one in workbench.spec.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import { writeTree } from '../src/main/core/testing/tmp.ts';
import { loadBuiltMain, loadBuiltPreload, type DesktopRecord } from '../src/main/electron/testing/electron-standin.ts';

test.describe.configure({ mode: 'serial' });
// Electron serves the renderer from file://, where Chromium only runs module scripts with this switch.
test.use({ launchOptions: { executablePath: process.env.CONTEXTPACK_CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--allow-file-access-from-files'] } });

let dir: string;
let desktop: DesktopRecord;
let page: Page;

type Bridge = { invoke(method: string, input: unknown): Promise<unknown>; onEvent(l: (e: unknown) => void): () => void };

test.beforeAll(async ({ browser }) => {
  dir = mkdtempSync(join(tmpdir(), 'cp-e2e-ipc-'));
  writeTree(join(dir, 'project'), {
    'architecture.md': '# Architecture\n\n## Storage\n\nThe heron ledger keeps every record in one SQLite file with write-ahead logging.\n',
    'runbook.md': '# Runbook\n\n## Restarts\n\nRestart the heron sync worker when the queue depth exceeds five hundred.\n',
    // Code goes through tree-sitter (a WebAssembly grammar) inside the built main bundle.
    'lib/retry.js': 'export function retryWithBackoff(task, attempts) {\n  // heron retries double the pause each time\n  return task().catch(() => (attempts > 0 ? retryWithBackoff(task, attempts - 1) : null));\n}\n',
  });
  desktop = await loadBuiltMain({ appPath: join(dir, 'app'), home: join(dir, 'home'), pickPaths: [join(dir, 'project')] });
  expect(desktop.errors).toEqual([]);
  const win = desktop.windows[0]!;
  const rendererUrl = pathToFileURL(win.loaded.file!).href;

  page = await browser.newPage();
  // ipcRenderer.invoke → the main process's ipcMain handler, with the page's real frame URL as the sender.
  const preload = loadBuiltPreload((channel, input) => Promise.resolve(desktop.handlers.get(channel)!({ senderFrame: { url: page.mainFrame().url() } }, input)));
  const bridge = preload.exposed.get('contextpack') as Bridge;
  // Main → renderer events: webContents.send reaches the preload's ipcRenderer listeners, which filter and forward.
  desktop.onSend = (channel, args) => preload.emit(channel, args[0]);
  bridge.onEvent((e) => void page.evaluate((ev) => (globalThis as unknown as { __contextpackEmit?: (e: unknown) => void }).__contextpackEmit?.(ev), e).catch(() => {}));
  await page.exposeBinding('__contextpackInvoke', (_source, method: string, input: unknown) => bridge.invoke(method, input));
  await page.addInitScript(() => {
    const listeners = new Set<(e: unknown) => void>();
    const w = globalThis as unknown as Record<string, unknown>;
    w.__contextpackEmit = (e: unknown) => listeners.forEach((l) => l(e));
    w.contextpack = {
      invoke: (method: string, input: unknown) => (w.__contextpackInvoke as (m: string, i: unknown) => Promise<unknown>)(method, input),
      onEvent: (l: (e: unknown) => void) => (listeners.add(l), () => void listeners.delete(l)),
      pathForFile: () => '',
    };
  });
  await page.goto(rendererUrl);
  await expect(page.getByRole('heading', { name: 'Library' })).toBeVisible();
});

test.afterAll(async () => {
  await page?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function go(view: string) {
  await page.getByRole('tab', { name: new RegExp(`^${view}`) }).or(page.getByRole('link', { name: new RegExp(`^${view}`) })).click();
  await expect(page.getByRole('heading', { level: 1, name: view })).toBeVisible();
}

test('the renderer talks over IPC', async () => {
  const info = await page.evaluate(() => (globalThis as unknown as { contextpack: Bridge }).contextpack.invoke('app.info', {}));
  expect(info).toMatchObject({ ok: true, value: { transport: 'ipc' } });
});

test('a folder chosen in the native picker is indexed where it is', async () => {
  await page.getByRole('button', { name: 'Choose folder…' }).click();
  await expect(page.getByTestId('ingest-report')).toContainText('3 added');
  await expect(page.getByTestId('source-row')).toHaveCount(3);
  await expect(page.getByTestId('source-row').filter({ hasText: 'architecture.md' })).toContainText('indexed');
});

test('search finds the passage', async () => {
  await go('Search');
  await page.locator('#search-query').fill('heron ledger write-ahead');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('hit').first()).toContainText('write-ahead logging');
  await page.locator('#search-query').fill('heron retries double the pause');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('hit').first()).toContainText('retry.js#retryWithBackoff');
});

test('a decision is recorded', async () => {
  await go('Decisions');
  const form = page.locator('#decision-form');
  await form.getByLabel('Title').fill('Keep the heron ledger in SQLite');
  await form.getByLabel('Decision', { exact: true }).fill('One SQLite file with WAL holds the ledger.');
  await form.getByLabel('Rationale').fill('Local-first: one file to back up.');
  await form.getByRole('button', { name: 'Save decision' }).click();
  await expect(page.getByTestId('decision-row').filter({ hasText: 'Keep the heron ledger in SQLite' })).toContainText(/DEC-\d{4}-\d{2}-\d{2}-\d{3}/);
});

test('a packet is built and copied through the desktop clipboard', async () => {
  await go('Packets');
  await page.getByLabel('Query').fill('heron ledger storage');
  await page.getByLabel('Task and acceptance criteria').fill('Explain where the heron ledger keeps its records.\n- [ ] names the file');
  await page.getByRole('button', { name: 'Build packet' }).click();
  const text = page.getByTestId('packet-text');
  await expect(text).toContainText('heron ledger');
  await page.getByTestId('packet-preview').getByRole('button', { name: 'Copy to clipboard' }).click();
  await expect(page.getByTestId('copy-confirmation')).toContainText('Copied');
  expect(desktop.clipboard).toHaveLength(1);
  expect(desktop.clipboard[0]).toBe(await text.innerText());
  expect(desktop.clipboard[0]).toContain('Keep the heron ledger in SQLite');
});

test('projects: the title names the open one; a new project starts empty and keeps the others apart', async () => {
  await go('Library');
  await expect(page).toHaveTitle('default — ContextPack');
  const switcher = page.getByTestId('project-switcher');
  await switcher.getByRole('button', { name: 'New project…' }).click();
  await switcher.getByLabel('New project name').fill('side-project');
  await switcher.getByRole('button', { name: 'Create' }).click();
  await expect(page).toHaveTitle('side-project — ContextPack');
  await expect(page.getByRole('heading', { name: 'Library' })).toBeVisible();
  await expect(page.getByTestId('source-row')).toHaveCount(0);
  await page.getByLabel('Project').selectOption('default');
  await expect(page).toHaveTitle('default — ContextPack');
  await expect(page.getByTestId('source-row')).toHaveCount(3);
});
