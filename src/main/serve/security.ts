import { timingSafeEqual } from 'node:crypto';

export { CONTENT_SECURITY_POLICY, TOKEN_HEADER } from '../../shared/api/security.ts';

export const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '::1'] as const;

export function isLoopbackHost(host: string): boolean {
  return (LOOPBACK_HOSTS as readonly string[]).includes(host);
}

/** The Host header values a page served by us can send; anything else is a DNS-rebinding attempt or a mistake. */
export function allowedHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
}

export function allowedOrigins(port: number): Set<string> {
  return new Set([...allowedHosts(port)].map((h) => `http://${h}`));
}

export function tokensEqual(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
