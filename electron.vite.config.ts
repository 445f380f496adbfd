import { relative, resolve, sep } from 'node:path';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';
import react from '@vitejs/plugin-react';

// Main and preload are emitted as CommonJS (.cjs, since package.json says "type": "module"): a sandboxed preload
// must be CommonJS, and the main process redirects require('re2') to the Electron build before loading the engine.
const cjs = { format: 'cjs' as const, entryFileNames: '[name].cjs', chunkFileNames: '[name]-[hash].cjs' };

/**
 * The engine finds its data files (tokenizer vocabulary, protocol texts) relative to its own source file with
 * `new URL('../…', import.meta.url)`. Bundled into out/main that base would move; this keeps it at the source
 * file's place, expressed relative to the bundle so the checkout (or app.asar) can live anywhere. The helper is
 * imported under a private name rather than reached through `require`, which a module's own locals could shadow.
 */
function sourceRelativeImportMetaUrl(outDir: string): Plugin {
  const srcDir = resolve(__dirname, 'src') + sep;
  return {
    name: 'contextpack:source-relative-import-meta-url',
    transform(code, id) {
      if (!id.startsWith(srcDir) || !code.includes('import.meta.url')) return null;
      const rel = relative(outDir, id).split(sep).join('/');
      const body = code.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, __contextpackFileUrl(__filename)).href`);
      return `import { pathToFileURL as __contextpackFileUrl } from 'node:url';\n${body}`;
    },
  };
}

export default defineConfig({
  main: {
    plugins: [sourceRelativeImportMetaUrl(resolve(__dirname, 'out/main'))],
    build: {
      rollupOptions: {
        input: {
          index: resolve(__dirname, 'src/main/index.ts'),
          'embed-worker': resolve(__dirname, 'src/main/core/embed/embed-worker.ts'),
          'handoff-worker': resolve(__dirname, 'src/main/core/session/handoff-worker.ts'),
        },
        output: cjs,
      },
    },
  },
  preload: {
    build: {
      rollupOptions: {
        input: { index: resolve(__dirname, 'src/preload/index.ts') },
        output: cjs,
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'src/renderer'),
    build: {
      // Minified, one chunk per view (React.lazy in App.tsx): the first view paints from the shell and its own chunk.
      minify: true,
      rollupOptions: {
        input: { index: resolve(__dirname, 'src/renderer/index.html') },
      },
    },
    plugins: [react()],
  },
});
