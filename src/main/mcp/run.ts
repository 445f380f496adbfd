import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { createApi } from '../api/index.ts';
import { createEngines } from '../api/wire-engines.ts';
import { getDefaultRedactor } from '../core/redact/index.ts';
import { openStore } from '../core/store/index.ts';
import { createMcpServer } from './server.ts';
import { BoundedStdioServerTransport } from './stdio-transport.ts';

const packageJson = fileURLToPath(new URL('../../../package.json', import.meta.url));

/**
 * stdout carries the protocol and nothing else: anything a library prints with console.log/info/debug (transformers.js
 * and onnxruntime do) would corrupt a JSON-RPC frame, so the console goes to stderr for the life of the server.
 */
function consoleToStderr(): void {
  const toErr = (...args: unknown[]) => console.error(...args);
  console.log = toErr;
  console.info = toErr;
  console.debug = toErr;
  console.warn = toErr;
}

/** Runs until the client closes stdin (or SIGINT/SIGTERM), then closes the API and the store. */
export interface McpRunOptions {
  dbPath: string;
  /** The managed folders (imports, logs) of this database, as `serve` uses them. */
  dataDir: string;
  /** Folders searched for a local embedding model. */
  modelDirs: readonly string[];
  stderr: (s: string) => void;
}

export async function runMcpServer(options: McpRunOptions): Promise<number> {
  consoleToStderr();
  const log = (s: string) => options.stderr(`contextpack mcp: ${s}\n`);
  const version = (JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string }).version;
  const store = openStore(options.dbPath);
  // The query embedder's worker thread writes to this process's stdout by default; its output goes to stderr instead.
  const engines = createEngines(store, {
    modelDirs: options.modelDirs,
    embedWorker: {
      spawnWorker: (url, init) => {
        const worker = new Worker(url, { workerData: init, stdout: true });
        worker.stdout.pipe(process.stderr);
        return worker;
      },
    },
  });
  const api = createApi({
    engines,
    store,
    dataDir: options.dataDir,
    modelDirs: options.modelDirs,
    version,
    transport: 'mcp',
    // An agent's session is no place for background embedding or daily maintenance: the app and the CLI do those.
    background: false,
    onError: (method, err) => log(`${method}: ${(err as Error).stack ?? String(err)}`),
  });
  const server = createMcpServer({ dispatch: api.dispatch, redactor: getDefaultRedactor(), version });
  // Bounded: an oversized or malformed line gets a JSON-RPC error, never a closed connection (stdio-transport.ts).
  const transport = new BoundedStdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await server.connect(transport);
  log(`serving ${options.dbPath} on stdio`);
  await closed;
  await server.close().catch(() => undefined);
  await api.close();
  store.close();
  return 0;
}
