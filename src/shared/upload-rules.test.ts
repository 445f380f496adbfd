import { describe, expect, it } from 'vitest';
import { createUploadFilter, skipFolder } from './upload-rules.ts';

describe('browser upload filter', () => {
  const f = createUploadFilter(
    new Map([
      ['repo/.gitignore', 'dist/\n*.log\n'],
      ['repo/docs/.contextpackignore', 'drafts/\n!drafts/keep.md\n'],
    ]),
  );
  it('skips .git, node_modules and sensitive files by default', () => {
    expect(f.verdict('repo/.git/HEAD')).toEqual({ keep: false, why: 'default' });
    expect(f.verdict('repo/node_modules/x/index.js')).toEqual({ keep: false, why: 'default' });
    expect(f.verdict('repo/.env')).toEqual({ keep: false, why: 'sensitive' });
    expect(f.verdict('repo/config/.env.production')).toEqual({ keep: false, why: 'sensitive' });
    expect(f.verdict('repo/certs/server.pem')).toEqual({ keep: false, why: 'sensitive' });
    expect(f.verdict('repo/.ssh/id_rsa.pub')).toEqual({ keep: false, why: 'sensitive' });
    expect(skipFolder('repo/node_modules')).toBe(true);
    expect(skipFolder('repo/src')).toBe(false);
  });
  it('applies .gitignore and .contextpackignore below their folder, deeper rules winning', () => {
    expect(f.verdict('repo/dist/app.js')).toEqual({ keep: false, why: 'ignored' });
    expect(f.verdict('repo/logs/a.log')).toEqual({ keep: false, why: 'ignored' });
    expect(f.verdict('repo/docs/drafts/x.md')).toEqual({ keep: false, why: 'ignored' });
    expect(f.verdict('repo/docs/readme.md')).toEqual({ keep: true });
    expect(f.verdict('repo/src/dist.ts')).toEqual({ keep: true });
    expect(f.verdict('other/dist/app.js')).toEqual({ keep: true });
  });
});
