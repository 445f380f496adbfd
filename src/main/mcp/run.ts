import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Api, Dispatch } from '../api/index.ts';
import type { Redactor } from '../core/redact/index.ts';
import type { Store } from '../core/store/index.ts';
import { createMcpServer } from './server.ts';
import { DEFAULT_TOOLS, type ToolName } from './tools.ts';
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
  /** The tools to serve (`--tools`); default DEFAULT_TOOLS. */
  tools?: readonly ToolName[];
}

export async function runMcpServer(options: McpRunOptions): Promise<number> {
  consoleToStderr();
  const log = (s: string) => options.stderr(`contextpack mcp: ${s}\n`);
  const version = (JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string }).version;
  /**
   * The store, the engine and the redaction rules load once the server answers: a client's initialize and tools/list
   * need none of them, so an agent sees the tools without waiting for the engine's modules (issue #24's cold start).
   */
  let opened: { store: Store; api: Api; redactor: Redactor } | null = null;
  const open = async (): Promise<{ store: Store; api: Api; redactor: Redactor }> => {
    const [{ createApi }, { createEngines }, { getDefaultRedactor }, { openStore }] = await Promise.all([
      import('../api/index.ts'),
      import('../api/wire-engines.ts'),
      import('../core/redact/index.ts'),
      import('../core/store/index.ts'),
    ]);
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
    opened = { store, api, redactor: getDefaultRedactor() };
    return opened;
  };
  let opening: Promise<{ store: Store; api: Api; redactor: Redactor }> | null = null;
  const ready = () => (opening ??= open());
  const dispatch: Dispatch = async (method, input) => (await ready()).api.dispatch(method, input);
  // Every gated text follows a dispatch (each tool call reads the roots first), so the rules are loaded by then.
  const redactor = {
    redactText: (text, ctx) => {
      if (!opened) throw new Error('the redaction rules are not loaded yet');
      return opened.redactor.redactText(text, ctx);
    },
  } as Redactor;
  // Tool calls read the roots first, so the API is open by the time a tool listens for its progress.
  const subscribe = (listener: Parameters<Api['events']['subscribe']>[0]) => (opened ? opened.api.events.subscribe(listener) : () => undefined);
  let listed: () => void = () => undefined;
  const toolsListed = new Promise<void>((resolve) => (listed = resolve));
  const server = createMcpServer({ dispatch, redactor, version, subscribe, onToolsListed: () => listed(), tools: options.tools ?? DEFAULT_TOOLS });
  // Bounded: an oversized or malformed line gets a JSON-RPC error, never a closed connection (stdio-transport.ts).
  const transport = new BoundedStdioServerTransport();
  let ended = false;
  const closed = new Promise<void>((resolve) => {
    const end = () => {
      ended = true;
      resolve();
    };
    transport.onclose = end;
    process.stdin.once('end', end);
    process.once('SIGINT', end);
    process.once('SIGTERM', end);
  });
  await server.connect(transport);
  // Opened once the client has its tools (or after a second without a tools/list), unless a tool call opens it
  // first, so initialize and tools/list do not compete with the engine's modules for the CPU; a store that cannot
  // open ends the server. A client that leaves before then (prompts/list and out) ends the wait: an unref'd timer
  // alone would leave nothing to keep the process alive, and Node would exit with the CLI's await unsettled.
  try {
    await Promise.race([toolsListed, closed, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
    if (!ended) await ready();
  } catch (err) {
    log(`cannot open ${options.dbPath}: ${(err as Error).message}`);
    await server.close().catch(() => undefined);
    return 1;
  }
  if (!ended) log(`serving ${options.dbPath} on stdio`);
  await closed;
  await server.close().catch(() => undefined);
  const done = opened as { store: Store; api: Api } | null;
  await done?.api.close();
  done?.store.close();
  return 0;
}
