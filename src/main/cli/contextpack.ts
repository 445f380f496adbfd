import { runCli } from './run.ts';

const io = {
  stdout: (s: string) => void process.stdout.write(s),
  stderr: (s: string) => void process.stderr.write(s),
  env: process.env,
  readStdin: async (maxBytes?: number) => {
    const parts: Buffer[] = [];
    let n = 0;
    for await (const chunk of process.stdin) {
      parts.push(chunk as Buffer);
      n += (chunk as Buffer).length;
      // Past the cap the rest is never read: the caller refuses what is over it (by its length), without buffering it.
      if (maxBytes !== undefined && n >= maxBytes) {
        process.stdin.destroy();
        return Buffer.concat(parts).subarray(0, maxBytes).toString('utf8');
      }
    }
    return Buffer.concat(parts).toString('utf8');
  },
  confirm: process.stdin.isTTY
    ? async (question: string) => {
        const { createInterface } = await import('node:readline/promises');
        const rl = createInterface({ input: process.stdin, output: process.stderr });
        try {
          return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
        } finally {
          rl.close();
        }
      }
    : undefined,
};

process.exitCode = await runCli(process.argv.slice(2), io);
