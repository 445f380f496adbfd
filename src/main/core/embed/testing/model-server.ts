// A local HTTP server in the Hugging Face layout (`/<model id>/resolve/main/<file>`) serving one model folder, with
// Range support and the hub's X-Linked-ETag digests, and switches to misbehave. Tests of the downloader, the API and
// the Models panel use it instead of the network.
import { createHash } from 'node:crypto';
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
};

export type ModelServer = {
  baseUrl: string;
  behaviour: ServerBehaviour;
  /** Range headers received for ONNX files, in order. */
  ranges: string[];
  close(): Promise<void>;
};

export async function startModelServer(options: { modelId: string; modelDir: string }): Promise<ModelServer> {
  const state: ModelServer = { baseUrl: '', behaviour: {}, ranges: [], close: async () => {} };
  const serve = (req: IncomingMessage, res: ServerResponse): void => {
    const m = /^\/(.+?)\/resolve\/main\/(.+)$/.exec(req.url ?? '');
    const file = m && m[1] === options.modelId ? join(options.modelDir, m[2]!) : '';
    if (!file || !existsSync(file)) {
      res.writeHead(404).end('not found');
      return;
    }
    let body = readFileSync(file);
    const sha = createHash('sha256').update(body).digest('hex');
    const isOnnx = m![2]!.endsWith('.onnx');
    const b = state.behaviour;
    if (isOnnx && b.corrupt) body = Buffer.concat([body.subarray(0, body.length - 1), Buffer.from([body.at(-1)! ^ 0xff])]);
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    if (isOnnx && req.headers.range) state.ranges.push(req.headers.range);
    const start = range ? Number(range[1]) : 0;
    const part = body.subarray(start);
    res.writeHead(range ? 206 : 200, {
      'content-length': String(part.length),
      'x-linked-etag': `"${sha}"`,
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
