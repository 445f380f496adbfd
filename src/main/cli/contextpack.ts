import { runCli } from './run.ts';

const io = {
  stdout: (s: string) => void process.stdout.write(s),
  stderr: (s: string) => void process.stderr.write(s),
  env: process.env,
  readStdin: async () => {
    const parts: Buffer[] = [];
    for await (const chunk of process.stdin) parts.push(chunk as Buffer);
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
