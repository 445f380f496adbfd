import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../', import.meta.url));

/** A real `contextpack serve` on its own database (a fresh project), its URL read from its output like a user would. */
export async function startServe(dir: string, db = join(dir, 'ux.db')): Promise<{ url: string; close: () => Promise<void> }> {
  const server = spawn(process.execPath, [join(repo, 'src/main/cli/bin.mjs'), 'serve', '--port', '0', '--db', db], {
    cwd: repo,
    env: { ...process.env, CONTEXTPACK_HOME: join(dir, 'home') },
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
      server.kill('SIGTERM');
      await new Promise((r) => server.once('exit', r));
      if (stderr.trim()) console.error(`serve stderr:\n${stderr}`);
    },
  };
}
