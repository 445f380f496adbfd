// A local HTTP server in the Hugging Face layout (`/<model id>/resolve/main/<file>`) serving one model folder, with
// Range support and the hub's X-Linked-ETag digests, and switches to misbehave. Tests of the downloader, the API and
// the Models panel use it instead of the network.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

export type ServerBehaviour = {
  // Bytes of the ONNX body after which the server stops sending (the socket is destroyed), once.
  cutAfter?: number;
  // Serve an ONNX body that does not match the digest the server announces.
  corrupt?: boolean;
  // Pause between 64 KiB pieces of the ONNX body.
  slowMs?: number;
  // Every file is random bytes, chunked, with no Content-Length, ETag or X-Linked-ETag (a hostile or broken mirror).
  garbage?: boolean;
  // Real files, but no digest headers at all.
  noDigest?: boolean;
  // Small files announce only their git blob id as ETag, as the hub does for files kept in git rather than LFS.
  gitEtag?: boolean;
  // This file (e.g. 'config.json') never ends: random chunks with no Content-Length, stopped by the server only after
  // `endlessLimit` bytes (default 64 MiB) so a test that fails cannot fill the disk.
  endless?: string;
  endlessLimit?: number;
  // Answer every file with a 302 to this origin (another host), announcing the digest as the hub does.
  redirectTo?: string;
  // Answer every file with a 302 to /lfs/... on this same server, as the hub sends large files to its CDN.
  redirectSameHost?: boolean;
  // Serve this body as the ONNX file, with its own (matching) digest: verified bytes that are not a working model.
  onnxBody?: Buffer;
};

export type ModelServer = {
  baseUrl: string;
  behaviour: ServerBehaviour;
  /** Range headers received, in order. */
  ranges: string[];
  /** Bytes the server wrote for `endless` files. */
  endlessSent: number;
  close(): Promise<void>;
};

export async function startModelServer(options: { modelId: string; modelDir: string }): Promise<ModelServer> {
  const state: ModelServer = { baseUrl: '', behaviour: {}, ranges: [], endlessSent: 0, close: async () => {} };
  const serve = (req: IncomingMessage, res: ServerResponse): void => {
    const b = state.behaviour;
    const lfs = (req.url ?? '').startsWith('/lfs/');
    const m = /^\/(?:lfs\/)?(.+?)\/resolve\/main\/(.+)$/.exec(req.url ?? '');
    const file = m && m[1] === options.modelId ? join(options.modelDir, m[2]!) : '';
    if (!file || !existsSync(file)) {
      res.writeHead(404).end('not found');
      return;
    }
    const isOnnx = m![2]!.endsWith('.onnx');
    let body = isOnnx && b.onnxBody ? b.onnxBody : readFileSync(file);
    const sha = createHash('sha256').update(body).digest('hex');
    if (req.headers.range) state.ranges.push(req.headers.range);
    if (b.garbage || b.endless === m![2]) {
      // An endless answer still names the real file's digest (a stream that is merely broken); garbage names none.
      const digest = b.garbage || b.noDigest ? {} : b.gitEtag && !isOnnx ? { etag: `"${gitBlobId(body)}"` } : { 'x-linked-etag': `"${sha}"` };
      res.writeHead(200, { 'content-type': 'application/octet-stream', ...digest });
      const limit = b.endless === m![2] ? (b.endlessLimit ?? 64 * 1024 * 1024) : 4096 + Math.floor(Math.random() * 4096);
      let sent = 0;
      const more = () => {
        while (!res.destroyed && sent < limit) {
          const piece = randomBytes(Math.min(16 * 1024, limit - sent));
          sent += piece.length;
          if (b.endless === m![2]) state.endlessSent += piece.length;
          if (!res.write(piece)) return void res.once('drain', more);
        }
        if (!res.destroyed) res.end();
      };
      more();
      return;
    }
    if (!lfs && (b.redirectTo || b.redirectSameHost)) {
      res.writeHead(302, {
        location: `${b.redirectTo ?? ''}/lfs/${m![1]}/resolve/main/${m![2]}`,
        'x-linked-etag': `"${sha}"`,
        'x-linked-size': String(body.length),
      });
      res.end();
      return;
    }
    if (isOnnx && b.corrupt) body = Buffer.concat([body.subarray(0, body.length - 1), Buffer.from([body.at(-1)! ^ 0xff])]);
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const start = range ? Number(range[1]) : 0;
    const part = body.subarray(start);
    res.writeHead(range ? 206 : 200, {
      'content-length': String(part.length),
      ...(b.noDigest ? {} : b.gitEtag && !isOnnx ? { etag: `"${gitBlobId(body)}"` } : { 'x-linked-etag': `"${sha}"` }),
      ...(range ? { 'content-range': `bytes ${start}-${body.length - 1}/${body.length}` } : {}),
    });
    if (!isOnnx) {
      res.end(part);
      return;
    }
    const cut = b.cutAfter;
    b.cutAfter = undefined;
    let sent = 0;
    const step = () => {
      if (res.destroyed) return;
      if (cut !== undefined && sent >= cut) {
        res.destroy();
        return;
      }
      const piece = part.subarray(sent, sent + 64 * 1024);
      sent += piece.length;
      if (sent >= part.length) res.end(piece);
      else {
        res.write(piece);
        setTimeout(step, state.behaviour.slowMs ?? 0);
      }
    };
    step();
  };
  const server = createServer(serve);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  };
  return state;
}

const gitBlobId = (body: Buffer): string => createHash('sha1').update(`blob ${body.length}\0`).update(body).digest('hex');
