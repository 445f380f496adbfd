import type { CliIo } from './command.ts';
import { commands, loadCommand } from './commands/index.ts';

function help(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'contextpack — project memory and context packets for LLM agents',
    '',
    'commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'every command takes --project NAME (default: $CONTEXTPACK_PROJECT, else "default"), --db FILE (wins over --project) and --json',
    'contextpack <command> --help shows its usage',
  ].join('\n') + '\n';
}

/** Runs one CLI invocation and returns its exit code; never calls process.exit so tests can drive it in-process. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(help());
    return name ? 0 : 2;
  }
  // What `setup` runs (through `sh -c`, in the agent's environment) to check that its command starts this CLI.
  if (name === '--version' || name === '-v') {
    const { readFileSync } = await import('node:fs');
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
    io.stdout(`contextpack ${pkg.version} (node ${process.version})\n`);
    return 0;
  }
  const entry = commands.find((c) => c.name === name);
  if (!entry) {
    io.stderr(`contextpack: unknown command ${JSON.stringify(name)}\n\n${help()}`);
    return 2;
  }
  // Loaded with the command, not for --help: command.ts brings the store (SQLite) with it.
  const { CliError, gatedContext, parseCommand } = await import('./command.ts');
  try {
    const cmd = await loadCommand(entry);
    const ctx = parseCommand(cmd, rest, io);
    if (ctx.values.help === true) {
      io.stdout(`${cmd.summary}\nusage: ${cmd.usage}\n`);
      return 0;
    }
    return await cmd.run(cmd.gatesOutput ? await gatedContext(ctx) : ctx);
  } catch (err) {
    if (err instanceof CliError) {
      io.stderr(`contextpack: ${err.message}\n`);
      return err.exitCode;
    }
    io.stderr(`contextpack ${name}: ${(err as Error).message}\n`);
    return 1;
  }
}
