import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY, META_CONTENT_SECURITY_POLICY } from '../../shared/api/security.ts';

describe('content security policy', () => {
  it('index.html carries the header policy as its meta tag (less frame-ancestors, which a meta tag cannot set)', () => {
    const html = readFileSync(new URL('../../renderer/index.html', import.meta.url), 'utf8');
    const metas = [...html.matchAll(/<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"\s*\/?>/gi)].map((m) => m[1]);
    expect(metas).toEqual([META_CONTENT_SECURITY_POLICY]);
    expect(CONTENT_SECURITY_POLICY.split('; ').filter((d) => !d.startsWith('frame-ancestors '))).toEqual(META_CONTENT_SECURITY_POLICY.split('; '));
    expect(CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'");
  });
});
