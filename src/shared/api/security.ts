// Security constants both ends of a transport need: the server and Electron send them, the renderer uses them.

/** The header serve mode requires on every API call, carrying the per-run token. */
export const TOKEN_HEADER = 'x-contextpack-token';

const CSP_DIRECTIVES = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'none'",
];

/** The one CSP for the renderer, sent as a header by serve mode and by Electron. */
export const CONTENT_SECURITY_POLICY = CSP_DIRECTIVES.join('; ');

/**
 * What src/renderer/index.html carries as a meta tag (a test holds it to this): the same policy less
 * frame-ancestors, which browsers ignore in a meta tag (the header covers it).
 */
export const META_CONTENT_SECURITY_POLICY = CSP_DIRECTIVES.filter((d) => !d.startsWith('frame-ancestors ')).join('; ');
