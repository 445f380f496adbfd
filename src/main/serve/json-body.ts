// A request's JSON body, parsed while it arrives. Buffering it first would hold the body three times over at its peak
// (the chunks, their concatenation, the decoded string) before JSON.parse made a fourth copy: a 250 MiB upload under
// the cap took the server from 136 MB to 1.26 GB. Parsed as a stream, only the value itself is held (bench/serve-body.ts).
import type { IncomingMessage } from 'node:http';
import { JSONParser } from '@streamparser/json';

/** The longest string a method takes (an upload's base64, 64 MiB in the contract); longer ones are built in pieces. */
const LONGEST_STRING = 64 * 1024 * 1024;

/** A body the server answers with this status (413 over the limit, 400 not JSON). */
export class BodyError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/**
 * The body's JSON value ({} for an empty body), up to `limit` bytes. Over the limit (by Content-Length, or once that
 * many bytes arrived) it rejects with 413 at once and stops parsing; the caller answers and drains the rest, so the
 * client, still sending, reads the 413 instead of a reset connection. Malformed JSON rejects with 400 as soon as the
 * parser meets it.
 */
export function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const tooBig = () => new BodyError(413, `larger than ${limit} bytes`);
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) return reject(tooBig());
    // A string's bytes gather in one buffer and are decoded once, into one flat string: a base64 upload is a string of
    // many MiB, and built from pieces it would be copied again whole when first read (and held twice until the next
    // GC). The buffer is only reserved: pages the body never reaches take no memory.
    const stringBufferSize = Math.max(64 * 1024, Math.min(Number.isFinite(declared) && declared > 0 ? declared : limit, LONGEST_STRING));
    const parser = new JSONParser({ paths: ['$'], stringBufferSize });
    let value: unknown;
    let done = false;
    let size = 0;
    let failed = false;
    const fail = (err: BodyError) => {
      if (failed) return;
      failed = true;
      req.off('data', onData);
      reject(err);
    };
    parser.onValue = ({ value: v, stack }) => {
      if (stack.length === 0) {
        value = v;
        done = true;
      }
    };
    parser.onError = (err) => fail(new BodyError(400, err.message));
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > limit) return fail(tooBig());
      if (!parser.isEnded) parser.write(c);
      else if (c.toString('utf8').trim() !== '') fail(new BodyError(400, 'unexpected data after the JSON value'));
    };
    req.on('data', onData);
    req.on('end', () => {
      if (failed) return;
      if (size === 0) return resolve({});
      if (!done) return fail(new BodyError(400, 'unexpected end of JSON input'));
      resolve(value);
    });
    req.on('error', (err) => fail(new BodyError(400, err.message)));
  });
}
