#!/usr/bin/env node
// Builds the CLI into out/cli/ (npm's `prepare` runs it): the TypeScript sources bundled into a few ES modules, one
// chunk per lazily loaded command, every package left external. Node then starts the CLI without type-stripping
// dozens of files, which is most of its start-up time (see `npm run bench:cli`). bin.mjs uses the bundle only while
// manifest.json matches every source file it was built from, and runs the sources otherwise, so an edit never runs
// stale code. Plain JavaScript, so it runs on any Node the package supports.
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const outDir = join(root, 'out', 'cli');
const srcDir = join(root, 'src') + sep;

/**
 * The engine finds its data files (protocol texts, the tokenizer vocabulary, the embedding worker) relative to its
 * own source file with `new URL('…', import.meta.url)`; in the bundle that base keeps pointing at the source file,
 * expressed relative to out/cli so the checkout can live anywhere (as electron.vite.config.ts does for the app).
 */
const sourceRelativeImportMetaUrl = {
  name: 'contextpack:source-relative-import-meta-url',
  transform(code, id) {
    if (!id.startsWith(srcDir) || !code.includes('import.meta.url')) return null;
    const rel = relative(outDir, id).split(sep).join('/');
    // The embedding worker is bundled too (an installed package ships no sources, and Node strips no types under
    // node_modules): the URL that spawns it points at the bundle's own entry, beside the chunk that spawns it.
    // The handoff worker (a large handoff built off a server's event loop) the same way.
    let out = code;
    for (const [name, placeholder] of Object.entries(WORKERS)) out = out.replaceAll(`new URL('./${name}.ts', import.meta.url)`, placeholder);
    out = out.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, import.meta.url).href`);
    for (const [name, placeholder] of Object.entries(WORKERS)) out = out.replaceAll(placeholder, `new URL("./${name}.mjs", import.meta.url)`);
    return out;
  },
};
const WORKERS = { 'embed-worker': '__contextpackEmbedWorkerUrl__', 'handoff-worker': '__contextpackHandoffWorkerUrl__' };

// zod is plain JavaScript in ~95 ES modules: loading them one by one is most of its cost on a command that validates
// through the API (npm run bench:cli); one chunk loads several times faster. Its package.json joins the manifest so
// that an upgrade makes the bundle stale.
const BUNDLED_PACKAGES = /^zod(\/|$)/;

let rolldown;
try {
  ({ rolldown } = await import('rolldown'));
} catch (err) {
  // A production install without the bundler still has a working CLI: bin.mjs runs the sources.
  process.stderr.write(`build-bundle: rolldown not available (${err.message}); the CLI will run from its sources\n`);
  process.exit(0);
}

rmSync(outDir, { recursive: true, force: true });
const bundle = await rolldown({
  input: {
    contextpack: join(root, 'src/main/cli/contextpack.ts'),
    'embed-worker': join(root, 'src/main/core/embed/embed-worker.ts'),
    'handoff-worker': join(root, 'src/main/core/session/handoff-worker.ts'),
    // The library entry `contextpack/adk` (package.json exports): an installed package ships no sources to import.
    adk: join(root, 'src/main/adk/index.ts'),
  },
  platform: 'node',
  // Packages and Node built-ins stay imports: native addons, wasm and data files load from node_modules as usual.
  external: (id) => !BUNDLED_PACKAGES.test(id) && !id.startsWith('.') && !id.startsWith('/') && !id.startsWith('\0') && !/^[A-Za-z]:[\\/]/.test(id),
  plugins: [sourceRelativeImportMetaUrl],
  logLevel: 'warn',
});
const { output } = await bundle.write({ dir: outDir, format: 'esm', entryFileNames: '[name].mjs', chunkFileNames: '[name]-[hash].mjs' });
await bundle.close();

const inputs = new Set();
for (const chunk of output) if (chunk.type === 'chunk') for (const id of chunk.moduleIds) if (id.startsWith(srcDir)) inputs.add(id);
const files = [...inputs].sort().map((id) => {
  const s = statSync(id);
  return { path: relative(root, id).split(sep).join('/'), size: s.size, mtimeMs: s.mtimeMs };
});
for (const pkg of ['zod']) {
  const path = `node_modules/${pkg}/package.json`;
  const s = statSync(join(root, path));
  files.push({ path, size: s.size, mtimeMs: s.mtimeMs });
}
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, 'manifest.json'), JSON.stringify({ entry: 'contextpack.mjs', files }, null, 1) + '\n');
process.stderr.write(`build-bundle: ${files.length} source files → ${output.length} modules in ${relative(root, outDir)}/\n`);
