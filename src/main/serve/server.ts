import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { ApiErrorCode, ApiResult } from '../../shared/api/index.ts';
import type { Dispatch } from '../api/dispatch.ts';
import type { EventHub } from '../api/event-hub.ts';
import { allowedHosts, allowedOrigins, CONTENT_SECURITY_POLICY, isLoopbackHost, TOKEN_HEADER, tokensEqual } from './security.ts';
import { readJsonBody } from './json-body.ts';

export interface ServeOptions {
  dispatch: Dispatch;
  events: EventHub;
  /** The built renderer (`out/renderer`). */
  rendererDir: string;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Defaults to 32 random bytes; tests may not pass one (they read the printed URL like a user). */
  token?: string;
  maxBodyBytes?: number;
}

export interface RunningServer {
  url: string;
  /** The URL to open: the token rides in the fragment, which browsers never send to a server or write to logs. */
  openUrl: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

const STATUS: Record<ApiErrorCode, number> = {
  invalid_input: 400,
  unknown_method: 404,
  not_found: 404,
  unavailable: 503,
  busy: 409,
  failed: 500,
  forbidden: 403,
  conflict: 409,
  // The store's bytes are not what their id says: the server's data is at fault, not the request.
  tampered: 500,
};

export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host)) throw new Error(`--host must be a loopback address (127.0.0.1, localhost or ::1), got ${JSON.stringify(host)}`);
  try {
    await stat(join(options.rendererDir, 'index.html'));
  } catch {
    throw new Error(`no built renderer at ${options.rendererDir}: run npm run build`);
  }
  const token = options.token ?? randomBytes(32).toString('base64url');
  const maxBody = options.maxBodyBytes ?? 256 * 1024 * 1024;
  let port = 0;
  const streams = new Set<ServerResponse>();

  const server = createServer((req, res) => {
    void handle(req, res).catch((err: Error) => {
      if (!res.headersSent) sendJson(res, 500, { ok: false, error: { code: 'failed', message: err.message } });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
    if (!allowedHosts(port).has(req.headers.host ?? '')) return sendText(res, 421, 'unexpected Host header');
    let url: URL;
    try {
      url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    } catch {
      return sendText(res, 400, 'bad request URL');
    }
    if (url.pathname.startsWith('/api/')) {
      let name: string;
      try {
        name = decodeURIComponent(url.pathname.slice('/api/'.length));
      } catch {
        return sendError(res, 400, 'invalid_input', 'malformed percent-escape in the API method name');
      }
      return handleApi(req, res, name);
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendText(res, 405, 'method not allowed');
    return serveStatic(res, url.pathname, req.method === 'HEAD');
  }

  async function handleApi(req: IncomingMessage, res: ServerResponse, name: string): Promise<void> {
    res.setHeader('Cache-Control', 'no-store');
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins(port).has(origin)) return sendError(res, 403, 'failed', `origin ${origin} not allowed`);
    if (req.headers['sec-fetch-site'] === 'cross-site') return sendError(res, 403, 'failed', 'cross-site request refused');
    const given = req.headers[TOKEN_HEADER];
    if (!tokensEqual(typeof given === 'string' ? given : undefined, token)) return sendError(res, 401, 'failed', 'missing or wrong API token: open the URL that `contextpack serve` printed');
    if (name === 'events') {
      if (req.method !== 'GET') return sendError(res, 405, 'failed', 'GET only');
      return openEventStream(req, res);
    }
    if (req.method !== 'POST') return sendError(res, 405, 'failed', 'API methods are called with POST');
    if (!(req.headers['content-type'] ?? '').startsWith('application/json')) return sendError(res, 415, 'invalid_input', 'send application/json');
    let input: unknown;
    try {
      input = await readJsonBody(req, maxBody);
    } catch (err) {
      const status = (err as { status?: number }).status ?? 400;
      if (status === 413) refuseRestOfBody(req, res);
      return sendError(res, status, 'invalid_input', `request body: ${(err as Error).message}`);
    }
    const result = await options.dispatch(name, input);
    sendJson(res, result.ok ? 200 : STATUS[result.error.code], result);
  }

  function openEventStream(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', Connection: 'keep-alive' });
    res.write(': connected\n\n');
    streams.add(res);
    const unsubscribe = options.events.subscribe((e) => res.write(`event: ${e.name}\ndata: ${JSON.stringify(e.payload)}\n\n`));
    const ping = setInterval(() => res.write(': ping\n\n'), 15_000);
    req.on('close', () => {
      clearInterval(ping);
      unsubscribe();
      streams.delete(res);
    });
  }

  async function serveStatic(res: ServerResponse, pathname: string, head: boolean): Promise<void> {
    let rel: string;
    try {
      rel = decodeURIComponent(pathname);
    } catch {
      return sendText(res, 400, 'bad path');
    }
    if (rel === '/' || rel === '') rel = '/index.html';
    const file = normalize(join(options.rendererDir, rel));
    if (!file.startsWith(normalize(options.rendererDir) + sep)) return sendText(res, 404, 'not found');
    let body: Buffer;
    try {
      body = await readFile(file);
    } catch {
      return sendText(res, 404, 'not found');
    }
    const type = MIME[extname(file)] ?? 'application/octet-stream';
    res.writeHead(200, {
      'Content-Type': type,
      'Content-Length': body.length,
      'Content-Security-Policy': CONTENT_SECURITY_POLICY,
      'Cache-Control': type.startsWith('text/html') ? 'no-store' : 'no-cache',
    });
    res.end(head ? undefined : body);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const urlHost = host === '::1' ? '[::1]' : host;
  const url = `http://${urlHost}:${port}/`;
  return {
    url,
    openUrl: `${url}#token=${token}`,
    port,
    token,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of streams) s.end();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * After a 413: read and discard what the client still sends, then close the connection. Closing at once would reset
 * it while the client writes, and most clients then report the reset, never the 413. A client that keeps sending past
 * a grace period is cut off.
 */
function refuseRestOfBody(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('Connection', 'close');
  const cutOff = setTimeout(() => req.destroy(), 10_000);
  cutOff.unref();
  req.on('end', () => clearTimeout(cutOff));
  req.on('close', () => clearTimeout(cutOff));
  req.resume();
}

function sendJson(res: ServerResponse, status: number, value: ApiResult<unknown>): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function sendError(res: ServerResponse, status: number, code: ApiErrorCode, message: string): void {
  sendJson(res, status, { ok: false, error: { code, message } });
}

function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(text);
}
