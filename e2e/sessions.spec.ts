import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { generateLongTranscript } from '../src/main/core/session/testing/long-transcript.ts';

// The Sessions and Memory views and hierarchy editing, against the real `contextpack serve` of global-setup.
test.describe.configure({ mode: 'serial' });

const url = () => process.env.CP_E2E_URL!;
const secret = () => process.env.CP_E2E_SECRET!;
const shots = fileURLToPath(new URL('./screenshots/', import.meta.url));

let page: Page;

/** axe-core over the page as it is: no critical or serious violation. */
async function axe(what: string) {
  const r = await new AxeBuilder({ page }).analyze();
  const bad = r.violations.filter((v) => v.impact === 'critical' || v.impact === 'serious');
  expect(bad.map((v) => `${what}: ${v.id} (${v.impact}) ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
}

test.beforeAll(async ({ browser }) => {
  // axe-core needs a page of an explicit context.
  const context = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'], viewport: { width: 1280, height: 860 } });
  page = await context.newPage();
  await page.goto(url());
  await expect(page.getByRole('heading', { name: 'Library' })).toBeVisible();
});
test.afterAll(async () => {
  await page.context().close();
});

async function go(view: string) {
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: new RegExp(`^${view}`) }).click();
  await expect(page.getByRole('heading', { level: 1, name: view })).toBeVisible();
}

/** The page's own API door (token from its sessionStorage), for set-up the views do not offer. */
async function call(method: string, input: unknown): Promise<unknown> {
  return page.evaluate(
    async ([m, i]) => {
      const token = sessionStorage.getItem('contextpack.token')!;
      const res = await fetch(`/api/${m}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-contextpack-token': token }, body: JSON.stringify(i) });
      return res.json();
    },
    [method, input] as const,
  );
}

test('Sessions: a dropped transcript gets its capacity gauge, compaction and a handoff to copy', async () => {
  await go('Sessions');
  // ~115k rendered tokens with a fake secret inside: YELLOW in a 128k window, GREEN in 200k.
  const long = generateLongTranscript({ tokens: 135_000, seed: 3 }).text.replace('Cycle 1:', `Cycle 1 (token ${secret()}):`);
  await page.getByTestId('window-select').selectOption('128000');
  await page.getByTestId('transcript-input').setInputFiles({ name: 'session.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(long) });
  const analysis = page.getByTestId('session-analysis');
  await expect(analysis).toContainText('claude-code');
  await expect(page.getByTestId('capacity-level')).toHaveText(/YELLOW|ORANGE|RED/);
  await expect(page.getByTestId('compaction-summary')).toContainText('preservation_validation true');
  await page.getByTestId('window-select').selectOption('200000');
  await expect(page.getByTestId('capacity-level')).toHaveText('GREEN');
  await page.getByRole('button', { name: /^dropped/ }).click();
  await expect(page.getByTestId('elements')).toContainText('duplicate tool output');

  await page.getByTestId('handoff-type').selectOption('continuation');
  await page.getByLabel('From agent').fill('impl-1');
  await page.getByLabel('To agent').fill('impl-2');
  await page.getByText('also save the decisions, issues and lessons found').click();
  // Building is a preview: the project's memory and packet history do not change until "Save handoff".
  const counts = async () => {
    const states = (await call('memory.search', { types: ['state'] })) as { value?: { hits: unknown[] } };
    const packets = (await call('packets.list', {})) as { value?: unknown[] };
    return [states.value?.hits.length, packets.value?.length];
  };
  const before = await counts();
  expect(before.every((n) => typeof n === 'number')).toBe(true);
  await page.getByTestId('build-handoff').click();
  const result = page.getByTestId('handoff-result');
  await expect(result).toContainText('handoff-continuation');
  await expect(result).toContainText('preservation_validation true');
  await expect(page.getByTestId('handoff-budget')).toContainText('/ 40,000 tokens');
  await expect(page.getByTestId('handoff-saved')).toHaveText('Preview: nothing is saved until "Save handoff".');
  expect(await counts()).toEqual(before);
  await result.getByTestId('save-handoff').click();
  await expect(page.getByTestId('handoff-saved')).toContainText(/^Saved: stored as [0-9a-f]+; its task state recorded as \S+ \(the project's current state\); \d+ memor(y|ies) saved, \d+ already known\.$/);
  await result.getByRole('button', { name: 'Copy to clipboard' }).click();
  await expect(page.getByTestId('handoff-copied')).toContainText('Copied the continuation handoff');
  const clip = await page.evaluate<string>('navigator.clipboard.readText()');
  expect(clip).toContain('# HANDOFF PACKAGE (continuation)');
  expect(clip).toContain('## compacted_context');
  expect(clip).not.toContain(secret());
  expect(await page.content()).not.toContain(secret());

  await page.getByTestId('end-session').getByLabel('Agent').fill('impl-1');
  await page.getByRole('button', { name: 'Record session end' }).click();
  await expect(page.getByTestId('session-recorded')).toContainText('impl-1: ');
  await axe('Sessions (transcript, handoff)');

  // The stored package is in the packet history, sized against a window in the same colours.
  await go('Packets');
  const row = page.getByTestId('packet-row').filter({ hasText: 'handoff-continuation' });
  await expect(row).toHaveCount(1);
  await expect(row.getByTestId('capacity-level')).toHaveText('GREEN');
});

test('Memory: create, edit, resolve, archive, delete and search issues; a decision edited by supersede', async () => {
  await go('Memory');
  const create = page.getByTestId('memory-create');
  await create.getByRole('button', { name: 'Create issue' }).click();
  await expect(create.getByText('title is required')).toBeVisible();
  await create.getByLabel('Title').fill('Checkout double charge');
  await create.getByLabel('description').fill('A retried payment charges the card twice.');
  await create.getByLabel('Severity').selectOption('critical');
  await create.getByRole('button', { name: 'Create issue' }).click();
  const detail = page.getByTestId('memory-detail');
  await expect(detail.getByLabel('Title')).toHaveValue('Checkout double charge');
  await detail.getByLabel('Importance').fill('9');
  await detail.getByLabel('next actions').fill('Add idempotency keys');
  await detail.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByTestId('memory-row').filter({ hasText: 'Checkout double charge' })).toContainText('[9]');
  await page.getByTestId('memory-search').fill('double charge');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page.getByTestId('memory-row')).toHaveCount(1);
  await page.getByTestId('resolve').click();
  await expect(page.getByTestId('memory-row').first()).toContainText('resolved');
  await page.getByTestId('memory-detail').getByRole('button', { name: 'Archive' }).click();
  await expect(page.getByTestId('memory-list')).toContainText('No issues');
  await page.getByLabel('archived').check();
  await page.getByTestId('memory-row').filter({ hasText: 'Checkout double charge' }).click();
  await page.getByRole('button', { name: 'Delete…' }).click();
  await page.getByTestId('confirm-delete').click();
  await expect(page.getByTestId('memory-list')).toContainText('No archived issues');
  await page.getByLabel('archived').uncheck();
  await axe('Memory');

  // The handoff with "save" stored the transcript's decisions: edit one by supersede.
  await page.getByRole('button', { name: 'decision', exact: true }).click();
  await page.getByTestId('memory-search').fill('');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByTestId('memory-row').first().click();
  const dec = page.getByTestId('decision-detail');
  const oldId = ((await dec.locator('h2').textContent()) ?? '').match(/DEC-\d{4}-\d{2}-\d{2}-\d{3,}/)![0];
  await dec.getByRole('button', { name: 'Edit (supersede)' }).click();
  await dec.getByLabel('Rationale').fill('Measured: retries without keys double-charge 0.4 % of orders.');
  await dec.getByRole('button', { name: 'Save as superseding decision' }).click();
  await expect(page.getByTestId('decision-detail')).toContainText(`supersedes ${oldId}`);
});

test('Hierarchy: L1 and L2 edits, and a refusal naming the owner of an exclusive section', async () => {
  await go('Hierarchy');
  await page.getByTestId('edit-summary').click();
  await page.getByTestId('summary-form').getByLabel('Status %').fill('55');
  await page.getByTestId('summary-form').getByRole('button', { name: 'Save summary' }).click();
  await expect(page.getByText('status 55%')).toBeVisible();
  await page.getByText('Add an L2 / L3 section').click();
  const add = page.getByTestId('add-section');
  await add.getByLabel('Title').fill('Payments');
  await add.getByLabel('Body').fill('Stripe, with idempotency keys.');
  await add.getByRole('button', { name: 'Add section' }).click();
  await expect(page.getByRole('heading', { name: /§2\.2 Payments/ })).toBeVisible();

  expect(await call('hierarchy.own', { section: '§2.2', agent: 'pay-1', action: 'acquire' })).toMatchObject({ ok: true });
  await page.getByTestId('acting-agent').fill('impl-9');
  await page.getByRole('button', { name: 'Edit §2.2' }).click();
  await page.getByTestId('section-form').getByLabel('Body').fill('PayPal instead.');
  await page.getByTestId('section-form').getByRole('button', { name: 'Save §2.2' }).click();
  await expect(page.getByTestId('section-error')).toContainText('§2.2 is owned by pay-1');
  await page.getByTestId('acting-agent').fill('pay-1');
  await page.getByTestId('section-form').getByRole('button', { name: 'Save §2.2' }).click();
  await expect(page.getByText('PayPal instead.')).toBeVisible();
  // The owner, shown on the section, releases it from the view; another agent takes it.
  const card = page.locator('article', { has: page.getByRole('heading', { name: /§2\.2 Payments/ }) });
  await expect(card.getByTestId('owner')).toHaveText('owned by pay-1 (exclusive)');
  await card.getByRole('button', { name: 'Release' }).click();
  await expect(card.getByTestId('owner')).toHaveCount(0);
  await page.getByTestId('acting-agent').fill('impl-9');
  await card.getByRole('button', { name: 'Take ownership as impl-9' }).click();
  await expect(card.getByTestId('owner')).toHaveText('owned by impl-9 (exclusive)');
  await axe('Hierarchy (editing)');
});

test('screenshots of the Sessions and Memory views, light and dark', async () => {
  mkdirSync(shots, { recursive: true });
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const view of ['Sessions', 'Memory']) {
      await go(view);
      await page.waitForTimeout(150);
      await page.screenshot({ path: join(shots, `${view.toLowerCase()}-${scheme}.png`), fullPage: true });
    }
  }
});
