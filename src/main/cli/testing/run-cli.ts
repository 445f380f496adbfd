// Runs one CLI invocation in-process, as the tests drive it: output captured, environment and stdin given.
import { runCli } from '../run.ts';

export type CliRun = { code: number; stdout: string; stderr: string; json: () => any };

export async function runCliCaptured(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; stdin?: string; confirm?: (question: string) => Promise<boolean> } = {},
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: (s) => void (stdout += s),
    stderr: (s) => void (stderr += s),
    env: options.env ?? {},
    readStdin: async (maxBytes?: number) => (maxBytes === undefined ? (options.stdin ?? '') : Buffer.from(options.stdin ?? '').subarray(0, maxBytes).toString('utf8')),
    ...(options.confirm ? { confirm: options.confirm } : {}),
  });
  return { code, stdout, stderr, json: () => JSON.parse(stdout) };
}
