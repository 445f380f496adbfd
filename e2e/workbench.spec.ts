import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from '@playwright/test';

// One real server and database for the whole file (global-setup): the steps build on each other like a session.
test.describe.configure({ mode: 'serial' });

const url = () => process.env.CP_E2E_URL!;
const fixtures = () => join(process.env.CP_E2E_DIR!, 'fixtures');
const dropFile = () => join(process.env.CP_E2E_DIR!, 'drop', 'gateway-config.md');
const secret = () => process.env.CP_E2E_SECRET!;
const shots = fileURLToPath(new URL('./screenshots/', import.meta.url));

let page: Page;

test.beforeAll(async ({ browser }) => {
  page = await browser.newPage();
  await page.goto(url());
  await expect(page.getByRole('heading', { name: 'Library' })).toBeVisible();
});
test.afterAll(async () => {
  await page.close();
});

async function go(view: string) {
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: new RegExp(`^${view}`) }).click();
  await expect(page.getByRole('heading', { level: 1, name: view })).toBeVisible();
}

test('the token leaves the address bar; a page without it cannot reach the API', async ({ browser }) => {
  expect(page.url()).not.toContain('token=');
  const stranger = await browser.newPage();
  await stranger.goto(url().split('#')[0]!);
  await expect(stranger.getByRole('alert')).toContainText('No API token');
  const status = await stranger.evaluate(async () => (await fetch('/api/stats.get', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status);
  expect(status).toBe(401);
  await stranger.close();
});

test('a folder of fixture files: progress, then the sources are listed', async () => {
  await page.getByTestId('pick-folder').setInputFiles(fixtures());
  const progress = page.getByTestId('ingest-progress');
  await expect(progress).toContainText('Done');
  await expect(progress).toContainText('3 / 3 files');
  await expect(page.getByTestId('ingest-report')).toContainText('3 added');
  const rows = page.getByTestId('source-row');
  await expect(rows).toHaveCount(3);
  await expect(rows.filter({ hasText: 'fixtures/architecture.md' })).toContainText('indexed');
});

test('a file dropped on the drop zone is indexed', async () => {
  await page.getByTestId('dropzone').drop({ files: dropFile() });
  await expect(page.getByTestId('ingest-report')).toContainText('1 added');
  await expect(page.getByTestId('source-row')).toHaveCount(4);
  await expect(page.getByTestId('source-row').filter({ hasText: 'gateway-config.md' })).toContainText('indexed');
});

test('search finds a known passage and opens it in its context (Ctrl+K)', async () => {
  await page.keyboard.press('Control+k');
  await expect(page.locator('#search-query')).toBeFocused();
  await page.keyboard.type('kestrel ledger write-ahead');
  await page.keyboard.press('Enter');
  const first = page.getByTestId('hit').first();
  // The file name and anchor lead the hit; its folder (shortened in the middle) is on the next line.
  await expect(first.locator('.hit-file')).toHaveText('architecture.md');
  await expect(first).toContainText('#storage');
  await expect(first.getByTestId('hit-folder')).toContainText('fixtures/');
  await expect(first).toContainText('write-ahead logging');
  await expect(first).toContainText(/\d+\.\d{3}/);
  await first.click();
  const context = page.getByTestId('chunk-context');
  await expect(context).toContainText('The kestrel ledger keeps every record in one SQLite file');
  await expect(context).toContainText('lines');
});

test('a decision shows a validation error, is fixed and saved', async () => {
  await go('Decisions');
  const form = page.locator('#decision-form');
  await form.getByLabel('Title').fill('Keep the ledger in SQLite');
  await form.getByLabel('Decision', { exact: true }).fill('One SQLite file with WAL holds the ledger.');
  await form.getByRole('button', { name: 'Save decision' }).click();
  await expect(form.getByText('is required', { exact: true })).toBeVisible();
  await expect(form.getByLabel('Rationale')).toHaveAttribute('aria-invalid', 'true');
  await form.getByLabel('Rationale').fill('Local-first: one file to back up, no server.');
  await form.getByLabel('Tags').fill('storage, ledger');
  await form.getByRole('button', { name: 'Save decision' }).click();
  await expect(form.getByText('is required', { exact: true })).toHaveCount(0);
  const row = page.getByTestId('decision-row').filter({ hasText: 'Keep the ledger in SQLite' });
  await expect(row).toContainText(/DEC-\d{4}-\d{2}-\d{2}-\d{3}/);
  await expect(row).toContainText('#storage');
});

test('a packet is built within budget, copied (clipboard read back), listed, and replays identical; the secret never shows', async () => {
  await go('Packets');
  await page.getByLabel('Query').fill('osprey gateway session tokens');
  await page.getByLabel('Task and acceptance criteria').fill('Document how the osprey gateway signs tokens.\n- [ ] names the ledger\n- [ ] no secrets');
  await page.getByLabel('Token budget').fill('2000');
  await page.getByRole('button', { name: 'Build packet' }).click();
  const preview = page.getByTestId('packet-preview');
  await expect(preview).toBeVisible();

  const total = page.getByTestId('budget-total').getByRole('progressbar');
  const used = Number(await total.getAttribute('aria-valuenow'));
  const budget = Number(await total.getAttribute('aria-valuemax'));
  expect(used).toBeGreaterThan(0);
  expect(used).toBeLessThanOrEqual(budget);
  expect(await page.getByTestId('budget-section').count()).toBeGreaterThan(1);

  const text = page.getByTestId('packet-text');
  await expect(text).toContainText('osprey gateway');
  await expect(text.locator('mark.redacted').first()).toContainText('[REDACTED:');
  await expect(page.getByTestId('redaction-summary')).toBeVisible();
  await expect(page.locator('body')).not.toContainText(secret());

  await preview.getByRole('button', { name: 'Copy to clipboard' }).click();
  await expect(page.getByTestId('copy-confirmation')).toContainText('Copied');
  const clip = await page.evaluate<string>('navigator.clipboard.readText()');
  expect(clip).toBe(await text.innerText());
  expect(clip).toContain('osprey gateway');
  expect(clip).not.toContain(secret());

  const hashTitle = await page.getByTestId('packet-hash').getAttribute('title');
  expect(hashTitle).toMatch(/^[0-9a-f]{64}$/);
  const row = page.locator(`[data-testid="packet-row"][data-hash="${hashTitle}"]`);
  await expect(row).toBeVisible();
  await row.getByRole('button', { name: 'Replay' }).click();
  await expect(page.getByTestId('replay-result')).toContainText('Replay identical');
});

test('the hierarchy shows L1–L4 with § markers, navigates, and shows findings inline', async () => {
  await go('Hierarchy');
  await expect(page.getByText('Ship the kestrel ledger')).toBeVisible();
  const nav = page.getByRole('navigation', { name: 'Sections' });
  await nav.getByRole('button', { name: /§2\.\d+ Storage layer/ }).click();
  const section = page.locator('article:focus');
  await expect(section).toContainText('Storage layer');
  await expect(section.getByRole('list', { name: 'Consistency findings' })).toContainText('l2-without-l3');
  // A short L2 section says so against seed 002's 200–500-token range.
  await expect(section.getByTestId('level-limit')).toContainText('L2 sections take 200–500');
  await expect(page.locator('article', { hasText: 'Executive summary' }).getByRole('list', { name: 'Consistency findings' })).toContainText('DEC-2020-01-01-001');
  await expect(page.getByRole('list', { name: 'L4 files' })).toContainText('§4.fixtures/architecture.md');
});

test('screenshots of every view, light and dark', async () => {
  mkdirSync(shots, { recursive: true });
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const view of ['Library', 'Search', 'Decisions', 'Hierarchy', 'Packets']) {
      await go(view);
      await page.waitForTimeout(150);
      await page.screenshot({ path: join(shots, `${view.toLowerCase()}-${scheme}.png`) });
    }
    // The packet preview sits below the fold of the Packets view: its text with the redaction marker, too.
    await page.getByTestId('packet-text').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(shots, `packets-preview-${scheme}.png`) });
  }
});
