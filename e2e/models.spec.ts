// The Models panel in serve mode: a real `contextpack serve` whose model downloads come from a local server in the
// Hugging Face layout (CONTEXTPACK_MODEL_BASE_URL), serving the tiny model. Download → progress → embedding → on.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import { startModelServer, type ModelServer } from '../src/main/core/embed/testing/model-server.ts';
import { buildTinyModel } from '../src/main/core/embed/testing/tiny-model.ts';
import { writeTree } from '../src/main/core/testing/tmp.ts';
import { startServe } from './serve.ts';

test.describe.configure({ mode: 'serial' });
const MODEL = 'Xenova/gte-small';
const repo = fileURLToPath(new URL('../', import.meta.url));
let dir: string;
let models: ModelServer;
let serve: Awaited<ReturnType<typeof startServe>>;
let page: Page;

test.beforeAll(async ({ browser }) => {
  dir = mkdtempSync(join(tmpdir(), 'cp-e2e-models-'));
  const tiny = await buildTinyModel({ root: join(dir, 'hub'), modelId: MODEL, dim: 32 });
  models = await startModelServer({ modelId: MODEL, modelDir: tiny.modelDir });
  writeTree(join(dir, 'docs'), { 'volcano.md': '# Volcano\n\nmagma and ash rise from the crater\n' });
  const home = join(dir, 'home');
  const env = { ...process.env, CONTEXTPACK_HOME: home, CONTEXTPACK_MODEL_BASE_URL: models.baseUrl, CONTEXTPACK_MODELS_DIR: '' };
  const ingest = spawn(process.execPath, [join(repo, 'src/main/cli/bin.mjs'), 'ingest', join(dir, 'docs')], { env, stdio: 'ignore' });
  await new Promise((r) => ingest.once('exit', r));
  serve = await startServe(dir, { db: null, env });
  page = await browser.newPage();
  await page.goto(serve.url);
});

test.afterAll(async () => {
  await page?.close();
  await serve?.close();
  await models?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('semantic search is one click away: download with progress and cancel, resume, then embedding turns it on', async () => {
  const panel = page.getByTestId('models-panel');
  await expect(panel.getByTestId('semantic-status')).toContainText('semantic search off');
  const row = panel.locator(`[data-testid="model-row"][data-model="${MODEL}"]`);
  await expect(row).toContainText('not installed');

  models.behaviour = { slowMs: 40 };
  await row.getByRole('button', { name: 'Download' }).click();
  // Cancel once the weights (the last, slowly served file) have begun to arrive, so there is a part file to resume.
  await expect(row.getByTestId('model-download-progress')).toContainText(/file (\d+) \/ \1: [1-9]/);
  await row.getByRole('button', { name: 'Cancel' }).click();
  await expect(row.getByTestId('model-download-error')).toContainText('cancelled');

  models.behaviour = {};
  await row.getByRole('button', { name: 'Resume' }).click();
  await expect(row).toContainText('installed', { timeout: 30_000 });
  await expect(row).toContainText('in use');
  await expect(panel.getByTestId('semantic-status')).toContainText(`On: ${MODEL} (32-d), 1 / 1 chunks embedded`, { timeout: 30_000 });
  expect(models.ranges.length).toBeGreaterThanOrEqual(1);
});
