import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDirs, writeTree } from '../../core/testing/tmp.ts';
import { runCliCaptured } from '../testing/run-cli.ts';

const tmp = tempDirs('cp-projects-cli-');
afterAll(() => tmp.cleanup());
const bin = fileURLToPath(new URL('../bin.mjs', import.meta.url));

const cli = (args: string[], env: NodeJS.ProcessEnv, confirm?: (q: string) => Promise<boolean>) => runCliCaptured(args, { env, confirm });

function corpus() {
  const root = tmp.make();
  writeTree(root, {
    'alpha/notes.md': '# Alpha\n\nThe pelican protocol retries every request three times.\n',
    'beta/notes.md': '# Beta\n\nThe cormorant scheduler runs nightly batch jobs.\n',
  });
  return root;
}

describe('contextpack --project', () => {
  it('keeps projects apart: a document of one never appears in the search or packets of another', async () => {
    const env = { CONTEXTPACK_HOME: tmp.make() };
    const root = corpus();
    expect((await cli(['projects', 'new', 'alpha'], env)).code).toBe(0);
    expect((await cli(['ingest', join(root, 'alpha'), '--project', 'alpha'], env)).code).toBe(0);
    // CONTEXTPACK_PROJECT names the default project for commands without --project.
    expect((await cli(['projects', 'new', 'beta'], env)).code).toBe(0);
    expect((await cli(['ingest', join(root, 'beta')], { ...env, CONTEXTPACK_PROJECT: 'beta' })).code).toBe(0);

    const inAlpha = await cli(['search', 'pelican', '--project', 'alpha', '--json'], env);
    expect(JSON.stringify(JSON.parse(inAlpha.stdout))).toContain('pelican');
    const alphaForCormorant = JSON.parse((await cli(['search', 'cormorant scheduler', '--project', 'alpha', '--json'], env)).stdout);
    expect(JSON.stringify(alphaForCormorant.hits)).not.toContain('cormorant');
    expect(alphaForCormorant.hits).toEqual([]);
    const betaPacket = await cli(['pack', 'pelican protocol retries', '--project', 'beta'], env);
    expect(betaPacket.code).toBe(0);
    expect(betaPacket.stdout).not.toContain('pelican protocol retries every');
    const alphaPacket = await cli(['pack', 'pelican protocol retries', '--project', 'alpha'], env);
    expect(alphaPacket.stdout).toContain('pelican protocol retries every');

    const list = JSON.parse((await cli(['projects', '--json'], env)).stdout);
    expect(list.projects.map((p: { name: string; sources: number }) => [p.name, p.sources])).toEqual([['default', 0], ['alpha', 1], ['beta', 1]]);
    expect((await cli(['projects'], env)).stdout).toMatch(/\* default/);
  });

  it('adopts an existing single database as the default project', async () => {
    const env = { CONTEXTPACK_HOME: tmp.make() };
    const root = corpus();
    expect((await cli(['ingest', join(root, 'alpha'), '--db', join(env.CONTEXTPACK_HOME, 'contextpack.db')], env)).code).toBe(0);
    expect(JSON.stringify(JSON.parse((await cli(['search', 'pelican', '--json'], env)).stdout))).toContain('pelican');
    expect(JSON.stringify(JSON.parse((await cli(['search', 'pelican', '--project', 'default', '--json'], env)).stdout))).toContain('pelican');
  });

  it('--db wins over --project; bad names and unknown actions are clear errors', async () => {
    const env = { CONTEXTPACK_HOME: tmp.make() };
    const db = join(tmp.make(), 'x.db');
    expect((await cli(['stats', '--db', db, '--project', 'other', '--json'], env)).stdout).toContain(db);
    expect((await cli(['stats', '--project', '../up'], env)).stderr).toMatch(/--project: project name "..\/up" is not valid/);
    expect((await cli(['projects', 'fly'], env)).stderr).toMatch(/unknown action "fly"/);
    expect((await cli(['projects', 'new'], env)).stderr).toMatch(/give a project name/);
  });

  it('rename and delete: delete asks, or needs --yes where there is no terminal', async () => {
    const env = { CONTEXTPACK_HOME: tmp.make() };
    await cli(['projects', 'new', 'scratch'], env);
    expect((await cli(['projects', 'rename', 'scratch', 'drafts'], env)).stdout).toContain('renamed project scratch to drafts');
    const refused = await cli(['projects', 'delete', 'drafts'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/without --yes/);
    const questions: string[] = [];
    const no = await cli(['projects', 'delete', 'drafts'], env, async (q) => (questions.push(q), false));
    expect(no.code).toBe(1);
    expect(questions[0]).toMatch(/^Delete project drafts \(0 sources/);
    expect(existsSync(join(env.CONTEXTPACK_HOME, 'projects', 'drafts'))).toBe(true);
    expect((await cli(['projects', 'delete', 'drafts'], env, async () => true)).stdout).toContain('deleted project drafts');
    expect((await cli(['projects', 'delete', 'default', '--yes'], env)).stderr).toMatch(/default project cannot be deleted/);
    expect(existsSync(join(env.CONTEXTPACK_HOME, 'projects', 'drafts'))).toBe(false);
  });
});

describe('contextpack serve --project', () => {
  it('serves the named project and switches to another over HTTP', async () => {
    const home = tmp.make();
    const env = { CONTEXTPACK_HOME: home };
    const root = corpus();
    await cli(['projects', 'new', 'alpha'], env);
    await cli(['projects', 'new', 'beta'], env);
    await cli(['ingest', join(root, 'alpha'), '--project', 'alpha'], env);
    await cli(['ingest', join(root, 'beta'), '--project', 'beta'], env);
    const server = spawn(process.execPath, [bin, 'serve', '--port', '0', '--project', 'alpha'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        server.stdout.on('data', (c) => {
          out += c;
          const m = /open (http:\/\/127\.0\.0\.1:\d+)\/#token=([A-Za-z0-9_-]+)/.exec(out);
          if (m) resolve(`${m[1]}|${m[2]}`);
        });
        server.on('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)));
      });
      const [base, token] = url.split('|');
      const call = async (method: string, input: unknown) => {
        const res = await fetch(`${base}/api/${method}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-contextpack-token': token! }, body: JSON.stringify(input) });
        return (await res.json()) as { ok: boolean; value?: unknown; error?: unknown };
      };
      expect(await call('projects.list', {})).toMatchObject({ ok: true, value: { current: 'alpha', switchable: true } });
      expect(JSON.stringify(await call('search.query', { query: 'pelican' }))).toContain('pelican');
      expect(await call('projects.switch', { name: 'beta' })).toEqual({ ok: true, value: { current: 'beta' } });
      expect(JSON.stringify(await call('search.query', { query: 'pelican' }))).not.toContain('pelican protocol');
      expect(JSON.stringify(await call('search.query', { query: 'cormorant' }))).toContain('cormorant');
      expect(await call('projects.switch', { name: 'nope' })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    } finally {
      // A server that failed to start has exited already; waiting for 'exit' again would hang.
      if (server.exitCode === null && server.signalCode === null) {
        server.kill('SIGTERM');
        await new Promise((r) => server.once('exit', r));
      }
    }
  });
});
