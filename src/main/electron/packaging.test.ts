// What `npm run dist` would pack, checked without building an installer: electron-builder's `files`, `asarUnpack` and
// `extraResources` (package.json "build") against the built tree, and every file the built main bundle reaches for.
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, matchesGlob, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './testing/electron-standin.ts';

type BuildConfig = {
  files: string[];
  asarUnpack: string[];
  extraResources: Array<{ from: string; to: string; filter?: string[] }>;
};
const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { build: BuildConfig; dependencies: Record<string, string>; scripts: Record<string, string> };
const build = pkg.build;
const posix = (p: string) => p.split(sep).join('/');

/** electron-builder's rule: a path is in when the last pattern that matches it is not a negation. */
function selected(path: string, patterns: string[]): boolean {
  let inside = false;
  for (const p of patterns) {
    if (p.startsWith('!')) {
      if (matchesGlob(path, p.slice(1))) inside = false;
    } else if (matchesGlob(path, p)) inside = true;
  }
  return inside;
}

function listFiles(dir: string, base = dir, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) listFiles(p, base, out);
    else out.push(posix(relative(base, p)));
  }
  return out;
}

/** Production dependencies and theirs, as electron-builder copies them into the app's node_modules. */
function productionPackages(): Set<string> {
  const seen = new Set<string>();
  const visit = (name: string, from: string) => {
    // Node's own lookup, by hand: a package's "exports" may hide its package.json from require.resolve.
    let manifest: string | undefined;
    for (let dir = from; !manifest; dir = dirname(dir)) {
      const candidate = join(dir, 'node_modules', name, 'package.json');
      if (existsSync(candidate)) manifest = candidate;
      else if (dirname(dir) === dir) return; // an optional dependency for another platform
    }
    const key = posix(relative(REPO_ROOT, dirname(manifest)));
    if (seen.has(key)) return;
    seen.add(key);
    const m = JSON.parse(readFileSync(manifest, 'utf8')) as { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> };
    for (const dep of Object.keys({ ...m.dependencies, ...m.optionalDependencies })) visit(dep, dirname(manifest));
  };
  for (const dep of Object.keys(pkg.dependencies)) visit(dep, REPO_ROOT);
  return seen;
}

const packages = productionPackages();
const appFiles = listFiles(join(REPO_ROOT, 'out'), REPO_ROOT)
  .concat(listFiles(join(REPO_ROOT, 'resources'), REPO_ROOT), ['package.json'])
  .filter((f) => selected(f, build.files));
const inApp = (rel: string) => appFiles.some((f) => f === rel || f.startsWith(rel.endsWith('/') ? rel : `${rel}/`));
const inNodeModules = (rel: string) => {
  const owner = [...packages].filter((p) => rel === p || rel.startsWith(`${p}/`)).sort((a, b) => b.length - a.length)[0];
  return owner !== undefined && selected(rel, ['**/*', ...build.files.filter((p) => p.startsWith('!node_modules'))]);
};
const unpacked = (rel: string) => build.asarUnpack.some((p) => matchesGlob(rel, p));
const extra = (from: string) => build.extraResources.find((r) => r.from === from);

const bundles = readdirSync(join(REPO_ROOT, 'out/main')).filter((f) => f.endsWith('.cjs'));
const bundleText = bundles.map((f) => ({ file: f, text: readFileSync(join(REPO_ROOT, 'out/main', f), 'utf8') }));

// Source-relative data paths the build rewrote (electron.vite.config.ts): new URL(target, new URL(source, file)).
function dataReferences(): Array<{ bundle: string; target: string }> {
  const out: Array<{ bundle: string; target: string }> = [];
  for (const { file, text } of bundleText) {
    for (const m of text.matchAll(/new URL\("([^"]+)", new URL\("([^"]+)", \(0, node_url\.pathToFileURL\)\(__filename\)\)\.href\)/g)) {
      const source = resolve(REPO_ROOT, 'out/main', m[2]!);
      out.push({ bundle: file, target: posix(relative(REPO_ROOT, resolve(dirname(source), m[1]!))) + (m[1]!.endsWith('/') ? '/' : '') });
    }
  }
  return out;
}

describe('the packaged app (electron-builder config against the built tree)', () => {
  it('packs the main bundle, the embed worker, the preload and the renderer', () => {
    expect(bundles.length).toBeGreaterThan(0);
    for (const f of bundles) expect(inApp(`out/main/${f}`), f).toBe(true);
    for (const { text } of bundleText) {
      for (const m of text.matchAll(/__dirname, "([^"]+)"/g)) {
        const rel = posix(join('out/main', m[1]!));
        expect(existsSync(join(REPO_ROOT, rel)), rel).toBe(true);
        expect(inApp(rel), rel).toBe(true);
      }
      // Chunks the bundles load from each other.
      for (const m of text.matchAll(/require\("\.\/([^"]+\.cjs)"\)/g)) expect(inApp(`out/main/${m[1]}`), m[1]).toBe(true);
    }
    expect(inApp('out/main/embed-worker.cjs')).toBe(true);
    expect(inApp('out/main/handoff-worker.cjs')).toBe(true);
    expect(inApp('out/preload/index.cjs')).toBe(true);
    expect(inApp('out/renderer/index.html')).toBe(true);
  });

  it('packs every data file the engine reads (protocol texts, tokenizer vocabulary)', () => {
    const refs = dataReferences();
    const targets = refs.map((r) => r.target);
    expect(targets).toContain('resources/protocol/');
    expect(targets).toContain('resources/tokenizer/bert-base-uncased-vocab.txt');
    // Paths a packaged app does not use, each with the packaged alternative checked below.
    const packagedElsewhere: Record<string, string> = {
      'src/main/core/embed/embed-worker.ts': 'the desktop passes out/main/embed-worker.cjs',
      'src/main/core/session/handoff-worker.ts': 'the desktop passes out/main/handoff-worker.cjs',
      'resources/models/': 'packaged models are an extra resource (resources/models → models)',
      'package.json': 'packed at the app root',
    };
    for (const { bundle, target } of refs) {
      if (packagedElsewhere[target]) continue;
      expect(existsSync(join(REPO_ROOT, target)), `${bundle} → ${target}`).toBe(true);
      expect(inApp(target), `${bundle} → ${target} is not in build.files`).toBe(true);
    }
    expect(extra('resources/models')?.to).toBe('models');
  });

  it('lays the default model into resources/models before packing, so semantic search works offline from the first run', () => {
    const steps = pkg.scripts.dist!.split('&&').map((s) => s.trim());
    expect(steps[0]).toBe('npm run models:real -- --dir resources/models');
    expect(steps.at(-1)).toBe('electron-builder');
    expect(pkg.scripts['models:real']).toMatch(/bin\.mjs models fetch$/);
  });

  it('requires only production dependencies, never a devDependency', () => {
    const bare = new Set<string>();
    for (const { text } of bundleText) for (const m of text.matchAll(/require\("([^".][^"]*)"\)/g)) if (!m[1]!.startsWith('node:') && m[1] !== 'electron') bare.add(m[1]!.startsWith('@') ? m[1]!.split('/').slice(0, 2).join('/') : m[1]!.split('/')[0]!);
    expect(bare.size).toBeGreaterThan(3);
    for (const name of bare) expect(Object.keys(pkg.dependencies), name).toContain(name);
  });

  it('unpacks the native parts the OS must open (SQLite extension, addons) and ships re2 built for Electron', () => {
    // Relative to node_modules' real location, so a checkout whose node_modules is a link reads the same.
    const modules = realpathSync(join(REPO_ROOT, 'node_modules'));
    const vec0 = `node_modules/${posix(relative(modules, (createRequire(import.meta.url)('sqlite-vec') as { getLoadablePath(): string }).getLoadablePath()))}`;
    expect(inNodeModules(vec0), vec0).toBe(true);
    expect(unpacked(vec0), `${vec0} must be in asarUnpack: SQLite loads it with the OS`).toBe(true);
    for (const pkgName of ['better-sqlite3', 'onnxruntime-node']) {
      const addons = listFiles(join(REPO_ROOT, 'node_modules', pkgName), REPO_ROOT).filter((f) => f.endsWith('.node'));
      expect(addons.length, pkgName).toBeGreaterThan(0);
      for (const a of addons) expect(unpacked(a), a).toBe(true);
    }
    // The Node build of re2 is left out; the Electron build (npm run native:electron) ships as an extra resource
    // and index.ts looks for it in process.resourcesPath.
    expect(selected('node_modules/re2/re2.js', ['**/*', ...build.files.filter((p) => p.startsWith('!node_modules'))])).toBe(false);
    expect(extra('.electron-native')?.to).toBe('.electron-native');
    const main = readFileSync(join(REPO_ROOT, 'out/main/index.cjs'), 'utf8');
    expect(main).toContain('process.resourcesPath');
    expect(statSync(join(REPO_ROOT, 'out/main/index.cjs')).size).toBeGreaterThan(0);
  });
});
