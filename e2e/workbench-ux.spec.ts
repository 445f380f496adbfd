import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { writeTree } from '../src/main/core/testing/tmp.ts';
import { startServe } from './serve.ts';

// The workbench as a newcomer meets it (#18, #14 first run): its own server and a fresh database, so the empty
// states are really empty; then a repository-like folder upload, filters, keyboard, removal, export and axe.
test.describe.configure({ mode: 'serial' });

let dir: string;
let serve: { url: string; close: () => Promise<void> };
let page: Page;
const notFound: string[] = [];
const importRequests: number[] = [];

const WORDS = ['amber', 'basalt', 'cedar', 'delta', 'ember', 'fjord', 'garnet', 'harvest', 'indigo', 'juniper', 'kelp', 'lumen', 'meadow', 'nickel', 'onyx', 'prairie'];
const filler = (seed: number, words: number) => Array.from({ length: words }, (_, i) => WORDS[(seed * 7 + i * 3 + (i >> 4)) % WORDS.length]).join(' ');

/** 400 Markdown files of ~21 KB (so the upload needs more than one batch), plus what must never be uploaded. */
function writeRepo(root: string): void {
  const files: Record<string, string> = {
    '.git/HEAD': 'ref: refs/heads/main\n',
    '.git/config': '[core]\n\trepositoryformatversion = 0\n',
    '.git/objects/ab/cdef0123': 'x'.repeat(2000),
    'node_modules/left-pad/index.js': 'module.exports = (s) => s;\n',
    'node_modules/left-pad/package.json': '{"name":"left-pad"}\n',
    '.gitignore': 'dist/\n',
    'dist/bundle.js': 'console.log("built pelican harbor");\n',
    '.env': 'API_TOKEN=not-a-real-token-but-never-uploaded\n',
    'lib/harbor.md': '# Harbor\n\nThe pelican harbor keeps the ferry schedule.\n',
    'lib/harbor.js': '// pelican harbor: ferry schedule loader\nexport const ferries = 3;\n',
    'test/harbor.test.md': '# Harbor tests\n\nThe pelican harbor test checks the ferry schedule.\n',
  };
  const sections = Array.from({ length: 30 }, (_, i) => {
    const special = i === 24 ? ' The zebra quartz calibration lives here: zebra quartz, zebra quartz.' : i === 4 ? ' A first mention of zebra quartz.' : '';
    return `## Part ${i + 1}\n\n${filler(i, 220)}.${special}\n`;
  });
  files['guide/long-guide.md'] = `# Long guide\n\n${sections.join('\n')}`;
  for (let i = 0; i < 400; i++) files[`src/mod-${String(i).padStart(3, '0')}.md`] = `# Module ${i}\n\n${filler(i, 3400)}\n`;
  writeTree(root, files);
  // 25 MB: over the 20 MB upload limit, so it is skipped by name and everything else still goes in.
  writeFileSync(join(root, 'data-huge.txt'), Buffer.alloc(25 * 1024 * 1024, 'a'));
}

async function go(view: string) {
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: new RegExp(`^${view}`) }).click();
  await expect(page.getByRole('heading', { level: 1, name: view })).toBeVisible();
  await expect(page.getByRole('link', { name: new RegExp(`^${view}`) })).toHaveAttribute('aria-current', 'page');
}

/** axe-core over the page as it is: no critical or serious violation. */
async function axe(what: string) {
  const r = await new AxeBuilder({ page }).analyze();
  const bad = r.violations.filter((v) => v.impact === 'critical' || v.impact === 'serious');
  expect(bad.map((v) => `${what}: ${v.id} (${v.impact}) ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
}

/** getComputedStyle inside the page, typed here without the DOM library (the callbacks run in the browser). */
type WithStyle = { getComputedStyle(e: unknown): { lineHeight: string; outlineStyle: string } };

/** The API as the page itself calls it (the token lives in sessionStorage). */
async function call<T>(method: string, input: unknown): Promise<T> {
  return page.evaluate(
    async ([m, i]) => {
      const res = await fetch(`/api/${m}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-contextpack-token': sessionStorage.getItem('contextpack.token')! }, body: JSON.stringify(i) });
      const body = (await res.json()) as { ok: boolean; value?: unknown; error?: { message: string } };
      if (!body.ok) throw new Error(body.error!.message);
      return body.value;
    },
    [method, input] as const,
  ) as Promise<T>;
}

test.beforeAll(async ({ browser }) => {
  dir = mkdtempSync(join(tmpdir(), 'cp-e2e-ux-'));
  writeRepo(join(dir, 'acme'));
  serve = await startServe(dir);
  // axe-core needs a page of an explicit context.
  const context = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'], viewport: { width: 1280, height: 860 } });
  page = await context.newPage();
  page.on('response', (r) => {
    if (r.status() === 404) notFound.push(r.url());
  });
  page.on('request', (r) => {
    if (r.url().endsWith('/api/library.import')) importRequests.push(r.postDataBuffer()?.length ?? 0);
  });
  await page.goto(serve.url);
  await expect(page.getByRole('heading', { name: 'Library' })).toBeVisible();
});
test.afterAll(async () => {
  await page?.context().close();
  await serve?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('first run: every empty view says what to do next, with the button to do it; axe finds nothing serious', async () => {
  const empty = page.getByTestId('empty-library');
  await expect(empty).toContainText('Nothing indexed yet');
  await expect(empty.getByText('Add a folder…')).toBeVisible();
  await axe('Library (empty)');

  await go('Search');
  await axe('Search (empty)');
  await go('Decisions');
  await expect(page.getByTestId('empty-decisions')).toContainText('No decisions yet');
  await axe('Decisions (empty)');
  await go('Packets');
  await expect(page.getByTestId('empty-packets')).toContainText('context packet');
  await expect(page.getByTestId('empty-packets')).toContainText('Index a folder in the Library first');
  await axe('Packets (empty)');

  await go('Hierarchy');
  const form = page.getByTestId('summary-form');
  await expect(form).toContainText('No executive summary yet');
  await axe('Hierarchy (empty)');
  await form.getByRole('button', { name: 'Save summary' }).click();
  await expect(form.getByText('goal is required')).toBeVisible();
  await form.getByLabel('Goal').fill('Run the ferries on time');
  await form.getByLabel('Status (%)').fill('30');
  await form.getByLabel(/Top priorities/).fill('Publish the schedule\nFix the loader');
  await form.getByRole('button', { name: 'Save summary' }).click();
  await expect(page.getByTestId('toast').filter({ hasText: 'Executive summary saved' })).toBeVisible();
  await expect(page.getByText('Run the ferries on time')).toBeVisible();
  await expect(page.getByText('Priorities: Publish the schedule · Fix the loader')).toBeVisible();
});

test('a repository folder uploads in batches without .git/, node_modules/, ignored or secret files; the oversize file is named and skipped', async () => {
  await go('Library');
  // Record every text the upload progress bar shows (it may be on screen for a moment only).
  await page.evaluate(() => {
    const g = globalThis as unknown as { __uploadTexts: string[]; document: { querySelector(s: string): { textContent: string | null } | null; body: unknown }; MutationObserver: new (cb: () => void) => { observe(n: unknown, o: object): void } };
    g.__uploadTexts = [];
    new g.MutationObserver(() => {
      const t = g.document.querySelector('[data-testid="upload-progress"]')?.textContent;
      if (t && g.__uploadTexts.at(-1) !== t) g.__uploadTexts.push(t);
    }).observe(g.document.body, { subtree: true, childList: true, characterData: true });
  });
  await page.getByTestId('empty-add-folder').setInputFiles(join(dir, 'acme'));
  const report = page.getByTestId('ingest-report');
  await expect(report).toBeVisible({ timeout: 120_000 });
  await expect(report).toContainText('data-huge.txt');
  await expect(report).toContainText('too big to upload');
  await expect(report).toContainText('acme/.env');
  // .git (3) + node_modules (2) + dist (1) were walked and left out before upload.
  await expect(page.getByTestId('ignored-count')).toContainText('6 files left out');
  // No single request held the folder: at least two batches, each well under the folder's ~8.6 MB as base64.
  expect(importRequests.length).toBeGreaterThanOrEqual(2);
  const shown = await page.evaluate(() => (globalThis as unknown as { __uploadTexts: string[] }).__uploadTexts);
  expect(shown.some((t) => /^Uploading0 \/ 405 files .* batch 1 of [2-9]$/.test(t)), shown.join(' | ')).toBe(true);
  expect(shown.some((t) => /batch [2-9] of [2-9]/.test(t)), shown.join(' | ')).toBe(true);
  for (const n of importRequests) expect(n).toBeLessThan(12 * 1024 * 1024);

  const sources = await call<{ path: string; status: string }[]>('sources.list', {});
  const paths = sources.map((s) => s.path);
  expect(paths.filter((p) => /\/acme\/src\/mod-\d{3}\.md$/.test(p) && sources.find((s) => s.path === p)!.status === 'indexed')).toHaveLength(400);
  for (const bad of ['/.git/', '/node_modules/', '/dist/', '/.env', 'data-huge.txt']) expect(paths.filter((p) => p.includes(bad))).toEqual([]);
  // L4 markers keep the dropped folder's name.
  const tree = await call<{ tree: { l4: { marker: string }[] } }>('hierarchy.tree', {});
  expect(tree.tree.l4.map((n) => n.marker)).toContain('4.acme/lib/harbor.md');
  await axe('Library (populated)');
});

test('filters: exclude and include chips, file type, remembered per project across a reload', async () => {
  await go('Search');
  await page.locator('#search-query').fill('pelican harbor');
  await page.keyboard.press('Enter');
  const hits = page.getByTestId('hit');
  await expect(page.getByTestId('result-count')).toContainText('3 results');
  const titles = async () => Promise.all((await hits.all()).map((h) => h.getAttribute('title')));
  expect((await titles()).some((t) => t!.includes('/acme/test/'))).toBe(true);

  const bar = page.getByRole('group', { name: 'Search filters' });
  await bar.getByLabel('Path glob').fill('test/**');
  await bar.getByRole('button', { name: 'Exclude' }).click();
  await expect(bar.getByTestId('chip-exclude')).toContainText('test/**');
  await expect(page.getByTestId('result-count')).toContainText('2 results');
  expect((await titles()).some((t) => t!.includes('/acme/test/'))).toBe(false);

  await bar.getByLabel('File type').selectOption('code');
  await expect(page.getByTestId('result-count')).toContainText('1 results');
  await expect(hits.first().locator('.hit-file')).toHaveText('harbor.js');
  await bar.getByLabel('File type').selectOption('');
  await bar.getByLabel('Path glob').fill('lib/*.md');
  await bar.getByRole('button', { name: 'Only these' }).click();
  await expect(page.getByTestId('result-count')).toContainText('1 results');
  await expect(hits.first().locator('.hit-file')).toHaveText('harbor.md');
  await axe('Search (filtered)');

  // Remembered for this project: after a reload the chips are back.
  await page.reload();
  await go('Search');
  await expect(bar.getByTestId('chip-exclude')).toContainText('test/**');
  await expect(bar.getByTestId('chip-include')).toContainText('lib/*.md');
  await bar.getByRole('button', { name: 'Remove include lib/*.md' }).click();
  await bar.getByRole('button', { name: 'Remove exclude test/**' }).click();
  await expect(bar.getByTestId('chip-exclude')).toHaveCount(0);
});

test('hits: file name and anchor visible, keyboard moves through them, the opened hit is scrolled into view, Escape closes', async () => {
  const input = page.locator('#search-query');
  await input.fill('zebra quartz');
  await page.keyboard.press('Enter');
  const hits = page.getByTestId('hit');
  await expect(hits).toHaveCount(2);
  await expect(hits.first().locator('.hit-file')).toHaveText('long-guide.md');
  await expect(hits.first().locator('.hit-anchor')).toContainText('#part-25');
  const score = hits.first().locator('.score');
  const box = await score.boundingBox();
  const lineHeight = await score.evaluate((el) => parseFloat((globalThis as unknown as WithStyle).getComputedStyle(el).lineHeight) || 20);
  expect(box!.height).toBeLessThan(lineHeight * 1.6);

  await input.focus();
  await page.keyboard.press('ArrowDown');
  await expect(hits.nth(0)).toBeFocused();
  await expect(hits.nth(0)).toHaveAttribute('aria-current', 'true');
  const pane = page.getByTestId('chunk-context');
  await expect(pane).toBeVisible();
  const focus = pane.getByTestId('chunk-focus');
  await expect(focus).toContainText('zebra quartz calibration');
  await expect(focus).toBeInViewport();
  await page.keyboard.press('ArrowDown');
  await expect(hits.nth(1)).toBeFocused();
  await expect(hits.nth(1)).toHaveAttribute('aria-current', 'true');
  await expect(pane.getByTestId('chunk-focus')).toContainText('A first mention of zebra quartz');
  await expect(pane.getByTestId('chunk-focus')).toBeInViewport();
  await page.keyboard.press('ArrowUp');
  await expect(hits.nth(0)).toBeFocused();
  await axe('Search (hit open)');
  await page.keyboard.press('Escape');
  await expect(pane).toHaveCount(0);
  await expect(hits.nth(0)).toBeFocused();
});

test('a source is removed from the index (and from search), and one is re-indexed', async () => {
  await go('Library');
  const row = page.locator('[data-testid="source-row"]', { hasText: '/acme/lib/harbor.md' });
  await row.getByRole('button', { name: 'Re-index harbor.md' }).click();
  await expect(page.getByTestId('ingest-report')).toContainText('1 updated');
  await row.getByRole('button', { name: 'Remove harbor.md' }).click();
  await row.getByRole('group', { name: 'Remove harbor.md?' }).getByRole('button', { name: 'Remove' }).click();
  await expect(page.getByTestId('toast').filter({ hasText: 'Removed harbor.md' })).toBeVisible();
  await expect(page.locator('[data-testid="source-row"]', { hasText: '/acme/lib/harbor.md' })).toHaveCount(0);
  const hits = await call<{ hits: { path: string }[] }>('search.query', { query: 'pelican harbor ferry', k: 10 });
  expect(hits.hits.map((h) => h.path).filter((p) => p.endsWith('/lib/harbor.md'))).toEqual([]);
  expect(hits.hits.length).toBeGreaterThan(0);
});

test('decisions: the export downloads the Markdown with a toast; the L1 key decision links to it; L4 entries open their chunks', async () => {
  const dec = await call<{ decision_id: string }>('decisions.create', { title: 'Ferries leave on the hour', decision: 'Every ferry leaves at :00.', rationale: 'Easy to remember.', importance: 8 });
  await go('Decisions');
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export to Markdown' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe('decisions.md');
  expect(readFileSync((await file.path())!, 'utf8')).toContain('Ferries leave on the hour');
  await expect(page.getByTestId('toast').filter({ hasText: 'Downloaded decisions.md (1 decision)' })).toBeVisible();
  await axe('Decisions (populated)');

  await call('hierarchy.summary', { goal: 'Run the ferries on time', status_pct: 35, key_decisions: [dec.decision_id] });
  await go('Hierarchy');
  const link = page.getByRole('list', { name: 'Key decisions' }).getByRole('link', { name: new RegExp(dec.decision_id) });
  await expect(link).toContainText('Ferries leave on the hour');
  const entry = page.getByRole('button', { name: /^Open §4\.acme\/lib\/harbor\.js/ });
  await entry.click();
  await expect(page.getByRole('complementary', { name: 'File chunks' })).toContainText('pelican harbor: ferry schedule loader');
  await axe('Hierarchy (populated, file open)');
  await page.keyboard.press('Escape');
  await expect(page.getByRole('complementary', { name: 'File chunks' })).toHaveCount(0);
  await link.click();
  await expect(page.getByRole('heading', { level: 1, name: 'Decisions' })).toBeVisible();
  await expect(page.getByTestId('decision-focus')).toContainText(dec.decision_id);
  await expect(page.getByTestId('decision-row')).toHaveCount(1);
});

test('packets: a sample query on first run, project default excludes honoured and recorded, one char count', async () => {
  await go('Packets');
  const first = page.getByTestId('empty-packets');
  await expect(first).toContainText('Try a query from your files');
  await first.getByRole('button', { name: 'Use this query' }).click();
  await expect(page.getByLabel('Query')).not.toHaveValue('');
  await axe('Packets (first run)');

  const defaults = page.getByTestId('default-excludes');
  await defaults.locator('summary').click();
  await defaults.getByLabel(/Exclude from evidence by default/).fill('test/** **/fixtures/**');
  await defaults.getByRole('button', { name: 'Save for this project' }).click();
  await expect(page.getByTestId('toast').filter({ hasText: 'Project default excludes: test/** **/fixtures/**' })).toBeVisible();

  await page.getByLabel('Query').fill('pelican harbor ferry schedule');
  await page.getByRole('button', { name: 'Build packet' }).click();
  const preview = page.getByTestId('packet-preview');
  await expect(preview).toBeVisible();
  await expect(page.getByTestId('applied-filters')).toContainText('not test/** (project default)');
  const text = page.getByTestId('packet-text');
  await expect(text).toContainText('acme/lib/harbor.js');
  await expect(text).not.toContainText('acme/test/');

  const total = Number(await page.getByTestId('budget-total').getByRole('progressbar').getAttribute('aria-valuenow'));
  await preview.getByRole('button', { name: 'Copy to clipboard' }).click();
  await expect(page.getByTestId('copy-confirmation')).toContainText(`${total.toLocaleString('en-US')} section chars`);
  await expect(page.getByTestId('budget-total')).toContainText(`${total.toLocaleString('en-US')} / `);
  await axe('Packets (populated)');
});

test('every action is reachable by keyboard with a visible focus ring; no 404 on any load (favicon included)', async () => {
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Library' })).toBeVisible();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Skip to content' })).toBeFocused();
  await page.keyboard.press('Tab');
  const firstNav = page.getByRole('navigation', { name: 'Views' }).getByRole('link').first();
  await expect(firstNav).toBeFocused();
  const outline = await firstNav.evaluate((el) => (globalThis as unknown as WithStyle).getComputedStyle(el).outlineStyle);
  expect(outline).not.toBe('none');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'Search' })).toBeVisible();
  // Dark scheme too: contrast is judged per scheme.
  await page.emulateMedia({ colorScheme: 'dark' });
  for (const view of ['Library', 'Search', 'Decisions', 'Hierarchy', 'Packets']) {
    await go(view);
    await axe(`${view} (dark)`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  expect(notFound).toEqual([]);
  const icon = await page.evaluate(async () => (await fetch('/favicon.svg')).status);
  expect(icon).toBe(200);
});
