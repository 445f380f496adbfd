// The package as a user gets it (issue #34): `npm pack` (prepack builds the CLI bundle and the renderer), then
// `npm install -g` of that tarball into a temporary prefix with a clean HOME, then everything from a folder outside
// the checkout, through `sh -c` with a small environment: the README's quick start, `setup claude-code --yes`, the
// hooks and the MCP server it registered (run exactly as written, with the agent's minimal environment), `serve`.
//
// One pack and one install serve every test here (they are the slow part). The install uses the npm cache `npm ci`
// filled (--prefer-offline: the registry only for metadata); onnxruntime-node's optional CUDA download is skipped with
// its own variable; re2's native addon comes from the checkout's build of the same version through re2's documented
// download mirror (RE2_DOWNLOAD_MIRROR, a folder here) instead of a minute of compiling on every run.
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { brotliCompressSync, constants as zlib } from 'node:zlib';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDirs } from '../core/testing/tmp.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const NODE_DIR = dirname(process.execPath);
const tmp = tempDirs('cp-packed-');
afterAll(() => tmp.cleanup());

let work = '';
let prefix = '';
let home = '';
let tarball = '';
/** The user's shell: the npm prefix's bin and this Node on PATH, a clean HOME. */
let userEnv: NodeJS.ProcessEnv = {};
/** What an agent gives a hook or an MCP server: HOME and the system PATH (no Node 22, no npm prefix). */
let agentEnv: Record<string, string> = {};
const timings: Record<string, number> = {};

function timed<T>(label: string, f: () => T): T {
  const t0 = performance.now();
  try {
    return f();
  } finally {
    timings[label] = Math.round(performance.now() - t0);
  }
}

function sh(line: string, options: { cwd: string; env: NodeJS.ProcessEnv; input?: string; timeout?: number }): SpawnSyncReturns<string> {
  return spawnSync('/bin/sh', ['-c', line], { cwd: options.cwd, env: options.env, input: options.input ?? '', encoding: 'utf8', timeout: options.timeout ?? 120_000 });
}

const adkVersion = (): string => (JSON.parse(readFileSync(join(ROOT, 'node_modules/@google/adk/package.json'), 'utf8')) as { version: string }).version;
const npmCache = (): string => spawnSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8', cwd: ROOT }).stdout.trim();

/** install-artifact-from-github's file name for this platform's prebuilt re2 (see its bin/install-from-cache.js). */
function re2Mirror(dir: string): void {
  const musl = process.platform === 'linux' && !(process.report?.getReport() as { header?: { glibcVersionRuntime?: string } })?.header?.glibcVersionRuntime;
  const name = `${process.platform}${musl ? '-musl' : ''}-${process.arch}-${process.versions.modules}.br`;
  // The fastest brotli level: the default (11) takes over a minute on this 21 MB file.
  writeFileSync(join(dir, name), brotliCompressSync(readFileSync(join(ROOT, 'node_modules/re2/build/Release/re2.node')), { params: { [zlib.BROTLI_PARAM_QUALITY]: 1 } }));
}

beforeAll(() => {
  const t0 = performance.now();
  work = tmp.make();
  prefix = join(work, 'prefix');
  home = join(work, 'home');
  const mirror = join(work, 're2-mirror');
  for (const d of [prefix, home, mirror]) mkdirSync(d);
  re2Mirror(mirror);
  const packed = timed('npm pack', () => spawnSync('npm', ['pack', '--pack-destination', work, '--json'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } }));
  if (packed.status !== 0) throw new Error(`npm pack failed:\n${packed.stderr}`);
  const info = JSON.parse(packed.stdout)[0] as { filename: string; size: number; entryCount: number };
  tarball = join(work, info.filename);
  timings['tarball bytes'] = info.size;
  timings['tarball files'] = info.entryCount;
  const installEnv: NodeJS.ProcessEnv = {
    PATH: `${NODE_DIR}:/usr/bin:/bin`,
    HOME: home,
    npm_config_cache: npmCache(),
    npm_config_update_notifier: 'false',
    ONNXRUNTIME_NODE_INSTALL: 'skip',
    RE2_DOWNLOAD_MIRROR: mirror,
    RE2_DOWNLOAD_SKIP_PATH: '1',
    RE2_DOWNLOAD_SKIP_VER: '1',
    ...(process.env.npm_config_nodedir ? { npm_config_nodedir: process.env.npm_config_nodedir } : {}),
  };
  const installed = timed('npm install -g', () =>
    // @google/adk beside it, as an ADK app has it (contextpack/adk's optional peer), at the version the checkout tests.
    spawnSync('npm', ['install', '-g', tarball, `@google/adk@${adkVersion()}`, '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund'], { cwd: work, env: installEnv, encoding: 'utf8', timeout: 540_000 }),
  );
  if (installed.status !== 0) throw new Error(`npm install -g failed:\n${installed.stdout}\n${installed.stderr}`);
  userEnv = { PATH: `${prefix}/bin:${NODE_DIR}:/usr/bin:/bin`, HOME: home, LANG: 'C.UTF-8' };
  agentEnv = { PATH: '/usr/bin:/bin', HOME: home };
  timings['pack and install in all'] = Math.round(performance.now() - t0);
}, 600_000);

afterAll(() => {
  // The figures the README and the closing note quote (ms, bytes, files).
  process.stderr.write(`packed install: ${JSON.stringify(timings)}\n`);
});

const pkgDir = () => join(prefix, 'lib', 'node_modules', 'contextpack');

describe('the packed package, installed with npm install -g', () => {
  it('ships what runs and no tests, benchmarks, fixtures or TypeScript sources', () => {
    const listing = spawnSync('tar', ['tzf', tarball], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
    expect(listing).toContain('package/out/cli/contextpack.mjs');
    expect(listing).toContain('package/out/cli/embed-worker.mjs');
    expect(listing).toContain('package/out/renderer/index.html');
    expect(listing).toContain('package/LICENSE');
    expect(listing.filter((f) => /\.test\.|\/bench\/|\/e2e\/|test-fixtures|\.ts$/.test(f))).toEqual([]);
    expect(readdirSync(join(pkgDir(), 'src', 'main', 'cli')).sort()).toEqual(['bin.mjs', 'fresh-bundle.mjs']);
  });

  it('runs from any folder: --help and --version', () => {
    const elsewhere = tmp.make();
    const help = timed('contextpack --help', () => sh('contextpack --help', { cwd: elsewhere, env: userEnv }));
    expect(help.stderr).toBe('');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('setup');
    const v = sh('contextpack --version', { cwd: elsewhere, env: userEnv });
    expect(v.stdout).toMatch(/^contextpack \d+\.\d+\.\d+ \(node v22/);
  });

  it('looks for a model in the user-data folder first, then what the package ships, and says how to fill the first', () => {
    const r = sh('contextpack models', { cwd: tmp.make(), env: userEnv });
    expect(r.status).toBe(0);
    const places = [...r.stdout.matchAll(/^\s+\d\. (\S+)/gm)].map((m) => m[1]);
    expect(places).toEqual([join(home, '.config', 'ContextPack', 'models'), join(pkgDir(), 'resources', 'models') + '/']);
    expect(r.stdout).toContain(`\`contextpack models fetch\` puts it in ${join(home, '.config', 'ContextPack', 'models')}`);
  });

  it("the README's quick start: the install command, the main job on a folder (ingest and a packet), the tests", () => {
    const readme = readFileSync(join(pkgDir(), 'README.md'), 'utf8');
    const block = /## Quick start[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const lines = block.split('\n').map((l) => l.replace(/\s+#.*$/, '').trim()).filter(Boolean);
    expect(lines).toHaveLength(3);
    const [install, main, tests] = lines as [string, string, string];
    // What beforeAll ran, with the registry's name for the tarball.
    expect(install).toMatch(/^(ONNXRUNTIME_NODE_INSTALL=skip )?npm install -g contextpack$/);
    expect(tests).toBe('npm test');
    expect(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.test).toBeTruthy();
    const folder = tmp.make();
    writeFileSync(join(folder, 'retry.py'), 'def retry_budget(attempt):\n    """How many times a failed upload is retried."""\n    return 3 - attempt\n');
    writeFileSync(join(folder, 'README.md'), '# Uploads\n\nA failed upload is retried up to three times, with back-off.\n');
    writeFileSync(join(folder, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1]));
    const r = timed('quick start: ingest and pack', () => sh(main, { cwd: folder, env: userEnv }));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('# CONTEXT PACKET');
    expect(r.stdout).toContain('retry.py');
  });

  it('setup claude-code --yes, then the hooks and the MCP server it wrote run through sh -c with the agent\'s minimal environment', async () => {
    const projectDir = tmp.make();
    writeFileSync(join(projectDir, 'notes.md'), '# Notes\n\nThe upload retry budget is three attempts.\n');
    expect(sh('contextpack ingest .', { cwd: projectDir, env: userEnv }).status).toBe(0);
    const setup = timed('setup claude-code --yes', () => sh('contextpack setup claude-code --yes', { cwd: projectDir, env: userEnv }));
    expect(setup.status, setup.stderr).toBe(0);
    expect(setup.stdout).toContain('written:');

    const settings = JSON.parse(readFileSync(join(projectDir, '.claude', 'settings.json'), 'utf8'));
    const commandOf = (event: string): string => settings.hooks[event][0].hooks[0].command;
    const transcript = join(projectDir, 'session.jsonl');
    writeFileSync(
      transcript,
      [
        { type: 'user', message: { role: 'user', content: 'Make the upload retry budget configurable.' }, timestamp: '2026-11-01T10:00:00Z' },
        { type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'Added a retries setting in retry.py; tests pass.' }] }, timestamp: '2026-11-01T10:05:00Z' },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n') + '\n',
    );
    const payload = (event: string, extra: object) => JSON.stringify({ session_id: 'packed-1', transcript_path: transcript, cwd: projectDir, hook_event_name: event, ...extra });
    const start = timed('hook SessionStart (sh -c, agent env)', () => sh(commandOf('SessionStart'), { cwd: projectDir, env: agentEnv, input: payload('SessionStart', { source: 'startup' }) }));
    expect(start.status, start.stderr).toBe(0);
    expect(start.stderr).toBe('');
    const pre = timed('hook PreCompact (sh -c, agent env)', () => sh(commandOf('PreCompact'), { cwd: projectDir, env: agentEnv, input: payload('PreCompact', { trigger: 'manual' }) }));
    expect(pre.status, pre.stderr).toBe(0);
    expect(pre.stderr).toBe('');
    const end = timed('hook SessionEnd (sh -c, agent env)', () => sh(commandOf('SessionEnd'), { cwd: projectDir, env: agentEnv, input: payload('SessionEnd', { reason: 'exit' }) }));
    expect(end.status, end.stderr).toBe(0);
    expect(end.stderr).toBe('');

    const server = JSON.parse(readFileSync(join(projectDir, '.mcp.json'), 'utf8')).mcpServers.contextpack as { command: string; args: string[] };
    const t0 = performance.now();
    const client = new Client({ name: 'packed-install-test', version: '1' });
    await client.connect(new StdioClientTransport({ command: server.command, args: server.args, env: agentEnv, cwd: projectDir, stderr: 'pipe' }));
    try {
      const { tools } = await client.listTools();
      timings['MCP connect + tools/list (agent env)'] = Math.round(performance.now() - t0);
      expect(tools.map((t) => t.name)).toContain('search');
      const found = await client.callTool({ name: 'search', arguments: { query: 'upload retry budget' } });
      expect(JSON.stringify(found.content)).toContain('notes.md');
    } finally {
      await client.close();
    }
  });

  it('serve works after the install: the workbench page and its token', async () => {
    const child = spawn(join(prefix, 'bin', 'contextpack'), ['serve', '--port', '0'], { cwd: tmp.make(), env: userEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /open (http:\/\/\S+)/.exec(out);
          if (m) resolve(m[1]!);
        });
        child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)));
      });
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<div id="root">');
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('hooks install checks that its command starts the way the agent runs it', () => {
    const dir = tmp.make();
    const r = sh('contextpack hooks install claude-code --yes --command contextpack', { cwd: dir, env: userEnv });
    // Found on the user's PATH, not on the agent's: refused, and nothing written.
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('does not start ContextPack the way an agent runs it');
    expect(existsSync(join(dir, '.claude'))).toBe(false);
  });

  it('the ADK example runs with node from the installed package: contextpack/adk beside @google/adk, a pack per model call, replayable', () => {
    const listing = spawnSync('tar', ['tzf', tarball], { encoding: 'utf8' }).stdout.split('\n');
    expect(listing).toContain('package/out/cli/adk.mjs');
    expect(listing).toContain('package/examples/adk/agent.mjs');
    const folder = tmp.make();
    writeFileSync(join(folder, 'README.md'), '# Uploads\n\nA failed upload is retried three times, with back-off.\n');
    const example = join(pkgDir(), 'examples', 'adk', 'agent.mjs');
    const r = timed('ADK example (node, installed)', () => sh(`node ${example} . "How often is an upload retried?"`, { cwd: folder, env: userEnv }));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('project_guide → read_file({"path":"README.md"})');
    expect(r.stdout).toMatch(/\[pack pack_[0-9a-f]{16}: \d+ tokens of a \d+-token share; tools sent: read_file\]/);
    const [, hash, db] = /contextpack replay ([0-9a-f]{64}) --db (\S+)/.exec(r.stdout) ?? [];
    const replayed = sh(`contextpack replay ${hash} --db ${db}`, { cwd: folder, env: userEnv });
    expect(replayed.status, replayed.stderr).toBe(0);
    expect(replayed.stdout).toContain(`context_snapshot_hash=${hash} -->\n# CONTEXT PACK`);
    // The example's throwaway project (it keeps it for the replay line it prints).
    rmSync(dirname(db!), { recursive: true, force: true });
  });
});
