import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../', import.meta.url));

export type ServeOptions = {
  /** The database file (`--db`); null serves the home's default project instead. */
  db?: string | null;
  /** More flags for `contextpack serve` (e.g. `--root DIR`). */
  args?: string[];
  /** More environment; CONTEXTPACK_HOME is `<dir>/home` unless given. */
  env?: NodeJS.ProcessEnv;
};

/** A real `contextpack serve`, its URL (with the per-run token) read from its output like a user would. */
export async function startServe(dir: string, options: ServeOptions = {}): Promise<{ url: string; close: () => Promise<void> }> {
  const db = options.db === undefined ? join(dir, 'ux.db') : options.db;
  const server = spawn(process.execPath, [join(repo, 'src/main/cli/bin.mjs'), 'serve', '--port', '0', ...(db ? ['--db', db] : []), ...(options.args ?? [])], {
    cwd: repo,
    env: { ...process.env, CONTEXTPACK_HOME: join(dir, 'home'), ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  server.stderr.on('data', (c) => (stderr += c));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`serve did not print its URL in 30 s\n${out}\n${stderr}`)), 30_000);
    server.stdout.on('data', (c) => {
      out += c;
      const m = /open (http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    server.on('exit', (code) => reject(new Error(`serve exited with ${code}\n${out}\n${stderr}`)));
  });
  return {
    url,
    close: async () => {
      if (server.exitCode === null && server.signalCode === null) {
        server.kill('SIGTERM');
        await new Promise((r) => server.once('exit', r));
      }
      if (stderr.trim()) console.error(`serve stderr:\n${stderr}`);
    },
  };
}
