import { execFileSync } from 'node:child_process';
import { linkSync, symlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../store/index.ts';
import { tempDirs, writeTree } from '../testing/tmp.ts';
import { containmentReason, sensitiveReason, SYMLINK_OUTSIDE_ROOT } from './containment.ts';
import { ingestPaths } from './ingest.ts';

const tmp = tempDirs('cp-contain-');
afterAll(() => tmp.cleanup());

/** Everything the index holds, as one string: what a packet could ever quote. */
function indexedText(store: Store): string {
  return (store.db.prepare('SELECT text FROM chunks ORDER BY id').all() as { text: string }[]).map((r) => r.text).join('\n');
}

/** A project folder and, beside it, a home folder full of things that must never be read through the project. */
function projectWithLinks(): { root: string; outside: string } {
  const base = tmp.make();
  const root = join(base, 'project');
  const outside = join(base, 'home');
  writeTree(outside, {
    '.pgpass': 'db.example.com:5432:*:admin:pgpass-hunter2-outside\n',
    'notes.md': '# Notes\n\noutside-notes-marker\n',
    'private/diary.txt': 'outside-folder-marker\n',
  });
  writeTree(root, {
    'README.md': '# Project\n\ninside-readme-marker\n',
    'docs/guide.md': '# Guide\n\ninside-guide-marker\n',
    'a/b/c/deep.txt': 'inside-deep-marker\n',
  });
  // Out of the root: absolute, relative and nested links, a link to a folder, and a chain that hops inside first.
  symlinkSync(join(outside, '.pgpass'), join(root, 'pgpass-link.txt'));
  symlinkSync('../../../../home/notes.md', join(root, 'a', 'b', 'c', 'rel-notes.md'));
  symlinkSync(join(outside, 'private'), join(root, 'docs', 'private'));
  symlinkSync(join(outside, 'notes.md'), join(root, 'a', 'hop-target.md'));
  symlinkSync(join(root, 'a', 'hop-target.md'), join(root, 'hop.md'));
  // Inside the root: fine, followed.
  symlinkSync('../README.md', join(root, 'docs', 'readme-alias.md'));
  symlinkSync(join(root, 'a', 'b'), join(root, 'b-alias'));
  return { root, outside };
}

describe('containment at ingest: symlinks', () => {
  it('follows links that stay inside the root and skips every link that leaves it', async () => {
    const { root } = projectWithLinks();
    const store = openStore(':memory:');
    const report = await ingestPaths(store.db, [root]);
    const rel = (p: string) => relative(root, p);
    expect(Object.fromEntries(report.skipped.map((s) => [rel(s.path), s.reason]))).toEqual({
      'pgpass-link.txt': SYMLINK_OUTSIDE_ROOT,
      'a/b/c/rel-notes.md': SYMLINK_OUTSIDE_ROOT,
      // The same relative link reached again through the inside alias of its folder: resolved from where it really is.
      'b-alias/c/rel-notes.md': SYMLINK_OUTSIDE_ROOT,
      'docs/private': SYMLINK_OUTSIDE_ROOT,
      'a/hop-target.md': SYMLINK_OUTSIDE_ROOT,
      'hop.md': SYMLINK_OUTSIDE_ROOT,
    });
    expect(report.added.map(rel).sort()).toEqual(['README.md', 'a/b/c/deep.txt', 'b-alias/c/deep.txt', 'docs/guide.md', 'docs/readme-alias.md']);
    expect(report.failed).toEqual([]);
    const text = indexedText(store);
    expect(text).toContain('inside-readme-marker');
    for (const marker of ['pgpass-hunter2-outside', 'outside-notes-marker', 'outside-folder-marker']) expect(text).not.toContain(marker);
    // Recorded like other skips, so the Library view and `stats` show them.
    const row = store.db.prepare('SELECT status, error FROM sources WHERE path = ?').get(join(root, 'pgpass-link.txt'));
    expect(row).toEqual({ status: 'skipped', error: SYMLINK_OUTSIDE_ROOT });
    store.close();
  });

  it('--follow-symlinks reads them, and dropping the flag takes what they brought out of the index', async () => {
    const { root } = projectWithLinks();
    const store = openStore(':memory:');
    const followed = await ingestPaths(store.db, [root], { followSymlinks: true });
    expect(followed.skipped.map((s) => s.reason)).not.toContain(SYMLINK_OUTSIDE_ROOT);
    expect(indexedText(store)).toContain('outside-folder-marker');
    expect(indexedText(store)).toContain('outside-notes-marker');
    // .pgpass is a credential file by its target's name, even behind a harmless-looking link name.
    expect(followed.skipped.find((s) => s.path === join(root, 'pgpass-link.txt'))?.reason).toMatch(/^sensitive file \(login file\)/);

    const again = await ingestPaths(store.db, [root]);
    expect(again.skipped.filter((s) => s.reason === SYMLINK_OUTSIDE_ROOT)).toHaveLength(6);
    const text = indexedText(store);
    expect(text).not.toContain('outside-folder-marker');
    expect(text).not.toContain('outside-notes-marker');
    // The folder link's files are gone from the index, not left behind as stale sources.
    const under = store.db.prepare("SELECT count(*) AS n FROM sources WHERE path LIKE ? AND status = 'indexed'").get(join(root, 'docs', 'private') + '%');
    expect(under).toEqual({ n: 0 });
    store.close();
  });

  it('treats the real path of a linked root as the root', async () => {
    const { root } = projectWithLinks();
    const viaLink = join(tmp.make(), 'project-link');
    symlinkSync(root, viaLink);
    const store = openStore(':memory:');
    const report = await ingestPaths(store.db, [viaLink]);
    expect(report.added.map((p) => relative(viaLink, p))).toContain('docs/readme-alias.md');
    expect(report.skipped.filter((s) => s.reason === SYMLINK_OUTSIDE_ROOT)).toHaveLength(6);
    expect(indexedText(store)).not.toContain('outside-notes-marker');
    store.close();
  });

  it('containmentReason decides a single path the same way (for the watcher)', () => {
    const { root } = projectWithLinks();
    expect(containmentReason(join(root, 'pgpass-link.txt'), root)).toBe(SYMLINK_OUTSIDE_ROOT);
    expect(containmentReason(join(root, 'docs', 'private', 'diary.txt'), root)).toBe(SYMLINK_OUTSIDE_ROOT);
    expect(containmentReason(join(root, 'hop.md'), root)).toBe(SYMLINK_OUTSIDE_ROOT);
    expect(containmentReason(join(root, 'docs', 'readme-alias.md'), root)).toBeNull();
    expect(containmentReason(join(root, 'b-alias', 'c', 'deep.txt'), root)).toBeNull();
    expect(containmentReason(join(root, 'a', 'hop-target.md'), root, { followSymlinks: true })).toBeNull();
    expect(containmentReason(join(root, 'pgpass-link.txt'), root, { followSymlinks: true })).toMatch(/^sensitive file/);
  });
});

describe('containment at ingest: sensitive files', () => {
  const sensitive = {
    '.env': 'API_TOKEN=env-marker-1\n',
    '.env.local': 'env-marker-2\n',
    'config/.env.production': 'env-marker-3\n',
    'keys/id_rsa': 'key-marker-rsa\n',
    'keys/id_ed25519': 'key-marker-ed\n',
    'keys/id_ecdsa': 'key-marker-ec\n',
    'keys/id_rsa_deploy': 'key-marker-rsa-deploy\n',
    'tls/server.pem': 'key-marker-pem\n',
    'tls/server.key': 'key-marker-key\n',
    'tls/client.p12': 'key-marker-p12\n',
    'tls/client.pfx': 'key-marker-pfx\n',
    '.npmrc': '//registry.npmjs.org/:_authToken=npmrc-marker\n',
    '.pypirc': 'pypirc-marker\n',
    '.netrc': 'netrc-marker\n',
    '.pgpass': 'pgpass-marker\n',
    'home/.aws/credentials': 'aws-marker\n',
    'home/.docker/config.json': '{"auths": {"docker-marker": {}}}\n',
    'home/.config/gcloud/credentials.db': 'gcloud-marker\n',
    'vault/passwords.kdbx': 'kdbx-marker\n',
  };
  const ordinary = {
    '.env.example': 'API_TOKEN=\nexample-marker\n',
    '.env.sample': 'sample-marker\n',
    'keys/id_rsa.pub': 'ssh-rsa AAAA public-key-marker\n',
    'docs/credentials.md': '# Credentials\n\nhow-we-handle-credentials-marker\n',
    'app/config.json': '{"port": 8080}\n',
    'environment.md': '# Environment\n\nenvironment-marker\n',
  };

  it('skips credential files with a reason and reads look-alikes', async () => {
    const root = tmp.make();
    writeTree(root, { ...sensitive, ...ordinary });
    const store = openStore(':memory:');
    const report = await ingestPaths(store.db, [root]);
    const skipped = Object.fromEntries(report.skipped.map((s) => [relative(root, s.path), s.reason]));
    expect(Object.keys(skipped).sort()).toEqual(Object.keys(sensitive).sort());
    expect(skipped['.env']).toBe('sensitive file (environment file); re-include with "!.env" in .contextpackignore');
    expect(skipped['keys/id_rsa']).toMatch(/^sensitive file \(private key\)/);
    expect(skipped['home/.aws/credentials']).toMatch(/^sensitive file \(cloud credentials\)/);
    expect(report.added.map((p) => relative(root, p)).sort()).toEqual(Object.keys(ordinary).sort());
    const text = indexedText(store);
    for (const content of Object.values(sensitive)) expect(text).not.toContain(content.trim());
    expect(text).toContain('example-marker');
    store.close();
  });

  it('.contextpackignore re-includes with `!`, at any level; .gitignore does not need to mention them', async () => {
    const root = tmp.make();
    writeTree(root, {
      '.contextpackignore': '!.env.test\n!fixtures/**/*.pem\n',
      '.env.test': 'reincluded-env-marker\n',
      '.env': 'still-skipped-marker\n',
      'fixtures/certs/test.pem': 'reincluded-pem-marker\n',
      'other/test.pem': 'other-pem-marker\n',
      'sub/.contextpackignore': '!.npmrc\n',
      'sub/.npmrc': 'reincluded-npmrc-marker\n',
      '.npmrc': 'root-npmrc-marker\n',
      '.gitignore': '.env.ignored\n',
      '.env.ignored': 'ignored-marker\n',
    });
    const store = openStore(':memory:');
    const report = await ingestPaths(store.db, [root]);
    expect(report.skipped.map((s) => relative(root, s.path)).sort()).toEqual(['.env', '.npmrc', 'other/test.pem']);
    const text = indexedText(store);
    for (const m of ['reincluded-env-marker', 'reincluded-pem-marker', 'reincluded-npmrc-marker']) expect(text).toContain(m);
    for (const m of ['still-skipped-marker', 'other-pem-marker', 'root-npmrc-marker', 'ignored-marker']) expect(text).not.toContain(m);
    store.close();
  });

  it('a file named directly: a link is followed, a credential file is still skipped, re-include works beside it', async () => {
    const { root, outside } = projectWithLinks();
    const store = openStore(':memory:');
    const direct = join(tmp.make(), 'linked-notes.md');
    symlinkSync(join(outside, 'notes.md'), direct);
    const report = await ingestPaths(store.db, [direct, join(root, 'pgpass-link.txt'), join(outside, '.pgpass')]);
    expect(report.added).toEqual([direct]);
    expect(report.skipped.map((s) => s.reason)).toEqual([expect.stringMatching(/^sensitive file/), expect.stringMatching(/^sensitive file/)]);
    expect(indexedText(store)).not.toContain('pgpass-hunter2-outside');

    const dir = tmp.make();
    writeTree(dir, { '.env.ci': 'ci-env-marker\n', '.contextpackignore': '!.env.ci\n' });
    expect((await ingestPaths(store.db, [join(dir, '.env.ci')])).added).toEqual([join(dir, '.env.ci')]);
    store.close();
  });

  it('sensitiveReason checks names and credential folders only', () => {
    expect(sensitiveReason('/x/.env.staging')).toMatch(/environment file/);
    expect(sensitiveReason('/x/.ENV')).toMatch(/environment file/);
    expect(sensitiveReason('/x/.envrc')).toMatch(/environment file/);
    expect(sensitiveReason('/x/.env.local.example')).toBeNull();
    expect(sensitiveReason('/x/.env.production.sample')).toBeNull();
    expect(sensitiveReason('/x/env.ts')).toBeNull();
    expect(sensitiveReason('/x/id_rsa_work')).toMatch(/private key/);
    expect(sensitiveReason('/x/id_rsa.pub')).toBeNull();
    expect(sensitiveReason('/home/u/.docker/config.json')).toMatch(/cloud credentials/);
    expect(sensitiveReason('/home/u/gcloud/legacy_credentials/me/adc.json')).toMatch(/cloud credentials/);
    expect(sensitiveReason('/home/u/gcloud/configurations/config_default')).toBeNull();
    expect(sensitiveReason('/home/u/gcloud/application_default_credentials.json')).toMatch(/cloud credentials/);
    expect(sensitiveReason('/src/credentials.ts')).toBeNull();
  });
});

describe('containment at ingest: hard links and special files', () => {
  it('skips a file with more than one name (a hard link to ~/.pgpass) with a reason, and reads it with --follow-symlinks', async () => {
    const { root, outside } = projectWithLinks();
    linkSync(join(outside, '.pgpass'), join(root, 'db-notes.txt'));
    const store = openStore(':memory:');
    const report = await ingestPaths(store.db, [root]);
    expect(report.skipped.find((s) => s.path === join(root, 'db-notes.txt'))?.reason).toMatch(/^hard link \(2 names for this file; .*--follow-symlinks/);
    expect(indexedText(store)).not.toContain('pgpass-hunter2-outside');
    expect(indexedText(store)).toContain('inside-readme-marker');
    expect(containmentReason(join(root, 'db-notes.txt'), root)).toMatch(/^hard link/);
    expect(containmentReason(join(root, 'db-notes.txt'), root, { followSymlinks: true })).toBeNull();
    const followed = await ingestPaths(store.db, [root], { followSymlinks: true });
    expect(followed.added.map((p) => relative(root, p))).toContain('db-notes.txt');
    store.close();
  });

  it('reports FIFOs and device files as skipped with a reason instead of hanging or staying silent', async () => {
    const root = tmp.make();
    writeTree(root, { 'README.md': '# Readme\n\nfifo-neighbour-marker\n' });
    execFileSync('mkfifo', [join(root, 'pipe.md')]);
    const store = openStore(':memory:');
    const report = await ingestPaths(store.db, [root, '/dev/null']);
    expect(Object.fromEntries(report.skipped.map((s) => [s.path, s.reason]))).toEqual({
      [join(root, 'pipe.md')]: 'not a regular file: FIFO (named pipe)',
      '/dev/null': 'not a regular file: character device',
    });
    expect(indexedText(store)).toContain('fifo-neighbour-marker');
    expect(containmentReason(join(root, 'pipe.md'), root)).toBe('not a regular file: FIFO (named pipe)');
    store.close();
  });
});


describe('a path named below a known root is judged where it leads (CLI, reindex, the watcher\'s batches)', () => {
  it('docs/link/private.md with docs/link -> ../../outside, and docs/rootlink/etc/hostname, are skipped, not read', async () => {
    const base = tmp.make();
    const root = join(base, 'repo');
    writeTree(base, { 'repo/docs/a.md': '# A\n\ninside-a-marker\n', 'outside/private.md': 'outside-private-marker\n' });
    const store = openStore(join(tmp.make(), 'c.db'), { loadVec: false });
    await ingestPaths(store.db, [root]);
    symlinkSync('../../outside', join(root, 'docs', 'link'));
    symlinkSync('/', join(root, 'docs', 'rootlink'));
    const r = await ingestPaths(store.db, [join(root, 'docs/link/private.md'), join(root, 'docs/rootlink/etc/hostname')]);
    expect(r.added).toEqual([]);
    expect(r.skipped.map((s) => [relative(root, s.path), s.reason])).toEqual([
      ['docs/link/private.md', SYMLINK_OUTSIDE_ROOT],
      ['docs/rootlink/etc/hostname', SYMLINK_OUTSIDE_ROOT],
    ]);
    expect(indexedText(store)).not.toContain('outside-private-marker');
    // --follow-symlinks reads what the user asked for; a serve-mode bound holds even then.
    const bounded = await ingestPaths(store.db, [join(root, 'docs/link/private.md')], { followSymlinks: true, allowedRoots: [root] });
    expect(bounded.skipped.map((s) => s.reason)).toEqual([SYMLINK_OUTSIDE_ROOT]);
    const followed = await ingestPaths(store.db, [join(root, 'docs/link/private.md')], { followSymlinks: true });
    expect(followed.added).toHaveLength(1);
    store.close();
  });
});
