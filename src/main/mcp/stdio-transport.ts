import process from 'node:process';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { MCP_MESSAGE_MAX_BYTES, overCap } from '../../shared/limits.ts';

/*
 * The MCP stdio transport, bounded. The SDK's own (StdioServerTransport) closes the connection when a line outgrows
 * its 10 MiB read buffer, and drops a malformed line without a word. Here every line gets an answer, as JSON-RPC 2.0
 * asks: a line over the cap is skipped as it streams in (never held whole) and answered -32600 naming the cap; a line
 * that is not JSON is answered -32700; JSON that is not a JSON-RPC message, -32600. The connection stays open.
 */

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
/** Bytes kept from each end of an oversized line: enough to find its id, wherever the client serialized it. */
const KEEP = 4096;

type Id = string | number | null;

interface Dropping {
  bytes: number;
  head: Buffer;
  tail: Buffer;
}

export class BoundedStdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly stdin: NodeJS.ReadableStream;
  private readonly stdout: NodeJS.WritableStream;
  private readonly maxBytes: number;
  private chunks: Buffer[] = [];
  private size = 0;
  private dropping: Dropping | null = null;
  private started = false;

  constructor(stdin: NodeJS.ReadableStream = process.stdin, stdout: NodeJS.WritableStream = process.stdout, maxBytes = MCP_MESSAGE_MAX_BYTES) {
    this.stdin = stdin;
    this.stdout = stdout;
    this.maxBytes = maxBytes;
  }

  private readonly ondata = (chunk: Buffer): void => {
    try {
      this.take(chunk);
    } catch (err) {
      this.onerror?.(err instanceof Error ? err : new Error(String(err)));
    }
  };

  private readonly onstreamerror = (error: Error): void => {
    this.onerror?.(error);
  };

  async start(): Promise<void> {
    if (this.started) throw new Error('BoundedStdioServerTransport already started');
    this.started = true;
    this.stdin.on('data', this.ondata);
    this.stdin.on('error', this.onstreamerror);
  }

  private take(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(10, start);
      const piece = chunk.subarray(start, nl === -1 ? chunk.length : nl);
      if (this.dropping) {
        this.dropping.bytes += piece.length;
        this.dropping.tail = lastBytes(Buffer.concat([this.dropping.tail, piece]));
      } else if (this.size + piece.length > this.maxBytes) {
        const sofar = Buffer.concat([...this.chunks, piece]);
        this.dropping = { bytes: sofar.length, head: Buffer.from(sofar.subarray(0, KEEP)), tail: lastBytes(sofar) };
        this.chunks = [];
        this.size = 0;
      } else if (piece.length > 0) {
        this.chunks.push(piece);
        this.size += piece.length;
      }
      if (nl === -1) return;
      start = nl + 1;
      if (this.dropping) {
        const d = this.dropping;
        this.dropping = null;
        this.reply(idOfOversized(d), INVALID_REQUEST, `Invalid Request: ${overCap('message', this.maxBytes, d.bytes, 'bytes')} (one MCP message); nothing of it was read`);
      } else {
        const line = Buffer.concat(this.chunks).toString('utf8');
        this.chunks = [];
        this.size = 0;
        this.line(line.endsWith('\r') ? line.slice(0, -1) : line);
      }
    }
  }

  private line(line: string): void {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      this.reply(null, PARSE_ERROR, `Parse error: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      const why = parsed.error.issues[0]?.message ?? 'not a JSON-RPC 2.0 message';
      this.reply(idOf(value), INVALID_REQUEST, `Invalid Request: not a JSON-RPC 2.0 request, notification or response (${why})`);
      return;
    }
    this.onmessage?.(parsed.data);
  }

  private reply(id: Id, code: number, message: string): void {
    void this.send({ jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage);
  }

  async close(): Promise<void> {
    this.stdin.off('data', this.ondata);
    this.stdin.off('error', this.onstreamerror);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.chunks = [];
    this.dropping = null;
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.stdout.once('drain', resolve);
    });
  }
}

function lastBytes(b: Buffer): Buffer {
  return b.length <= KEEP ? b : Buffer.from(b.subarray(b.length - KEEP));
}

function idOf(value: unknown): Id {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const id = (value as { id?: unknown }).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

// A client writes the id first (`{"jsonrpc":"2.0","id":7,…`) or last (`…,"jsonrpc":"2.0","id":7}`, the SDK's order).
const ID_VALUE = '(-?\\d{1,15}|"(?:[^"\\\\]|\\\\.){0,200}")';
const ID_AT_START = new RegExp(`^\\s*\\{\\s*(?:"jsonrpc"\\s*:\\s*"2\\.0"\\s*,\\s*)?"id"\\s*:\\s*${ID_VALUE}`);
const ID_AT_END = new RegExp(`"id"\\s*:\\s*${ID_VALUE}\\s*\\}\\s*$`);

/** The id of a line too long to parse, from what was kept of its ends; null (as JSON-RPC allows) when neither has it. */
function idOfOversized(d: Dropping): Id {
  const m = ID_AT_START.exec(d.head.toString('utf8')) ?? ID_AT_END.exec(d.tail.toString('utf8').replace(/\r$/, ''));
  if (!m) return null;
  return JSON.parse(m[1]!) as string | number;
}
