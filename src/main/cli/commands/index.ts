import type { Command } from '../command.ts';

/**
 * A command known by name and summary only; its module (and everything it imports: the store, the engine, the
 * heavy libraries) loads when it runs, so `contextpack --help` and each command start without the others' weight.
 * lazy.test.ts checks each entry against the module it loads.
 */
export interface LazyCommand {
  name: string;
  summary: string;
  load(): Promise<Command>;
}

/** An eager Command still works here (it just loads with the CLI). */
export type CommandEntry = Command | LazyCommand;

const lazy = (name: string, summary: string, load: () => Promise<Command>): LazyCommand => ({ name, summary, load });

/** Every CLI command; a capability adds its commands here. */
export const commands: CommandEntry[] = [
  lazy('ingest', 'Index files and folders (honours .gitignore and .contextpackignore)', async () => (await import('./ingest.ts')).ingestCommand),
  lazy('search', 'Search the index (best available: hybrid with vectors, else bm25); batch mode prints a TREC run', async () => (await import('./search.ts')).searchCommand),
  lazy('stats', 'Show what the index holds and which capabilities are on', async () => (await import('./stats.ts')).statsCommand),
  lazy('embed', 'Embed chunks that lack a vector (resumable); --model switches model and re-embeds', async () => (await import('./embed.ts')).embedCommand),
  lazy('models', 'Where embedding models are looked for, in order, and what each place holds; `models fetch` puts one in the first', async () => (await import('./models.ts')).modelsCommand),
  lazy('serve', 'Serve the workbench to a browser on 127.0.0.1, with a per-run token', async () => (await import('./serve.ts')).serveCommand),
  lazy('decision', 'Record, list, show, supersede, export and import decisions (DEC-YYYY-MM-DD-NNN)', async () => (await import('./decision.ts')).decisionCommand),
  lazy('memory', 'Project memory: add, search, show, update, resolve, archive/restore, delete, lifecycle maintenance, rehydration', async () => (await import('./memory.ts')).memoryCommand),
  lazy('hierarchy', 'Four-level project hierarchy (§1.0 summary, §2 sections, §3 details, §4 files): show, check, edit', async () => (await import('./hierarchy.ts')).hierarchyCommand),
  lazy('pack', 'Assemble a context packet (budgets, redaction, manifest, snapshot hash)', async () => (await import('./pack.ts')).packCommand),
  lazy('replay', 'Print a stored packet by its hash (verified), or rebuild it and diff by item id', async () => (await import('./replay.ts')).replayCommand),
  lazy('packets', 'List stored packets, newest first, each with whether a cited source changed since (stale)', async () => (await import('./packets.ts')).packetsCommand),
  lazy('redact', 'Run text through the redaction gate (what packets get); --json reports what was redacted', async () => (await import('./redact.ts')).redactCommand),
  lazy('projects', 'List, create, rename or delete projects (each has its own database)', async () => (await import('./projects.ts')).projectsCommand),
  lazy('settings', "Show or change the project's settings (e.g. globs excluded from packet evidence by default)", async () => (await import('./settings.ts')).settingsCommand),
  lazy('goals', 'Fitness goals (GOALS.md gates and directives): show their state, record a gate result, write a template', async () => (await import('./goals.ts')).goalsCommand),
  lazy('watch', 'Keep the index current: follow folders and re-index what changes (Ctrl+C stops)', async () => (await import('./watch.ts')).watchCommand),
  lazy('mcp', 'Serve the project to coding agents over MCP (stdio): search, pack, remember, rehydrate, …', async () => (await import('./mcp.ts')).mcpCommand),
  lazy('capacity', "Context capacity level (seed 002: GREEN / YELLOW / ORANGE / RED at 80 / 90 / 95 %) and the action it prescribes", async () => (await import('./sessions.ts')).capacityCommand),
  lazy('compact', "Compact a transcript per seed 002's preservation rules; prints the compacted context and the compaction summary", async () => (await import('./sessions.ts')).compactCommand),
  lazy('handoff', "Build seed 002's handoff package (complete | specialist | continuation | emergency), stored and replayable by hash", async () => (await import('./sessions.ts')).handoffCommand),
  lazy('session', "Record seed 002's session summary (done, decisions, bugs, TODOs) and save its findings as memories; list sessions", async () => (await import('./sessions.ts')).sessionCommand),
  lazy('hook', "Run one agent hook (PreCompact, SessionStart, SessionEnd, Stop) from the hook's JSON on stdin; always exits 0", async () => (await import('./hook.ts')).hookCommand),
  lazy('setup', 'Set an agent up in one step (claude-code, codex, cursor, vscode): registers the MCP server and installs the hooks, with a command checked to start', async () => (await import('./setup.ts')).setupCommand),
  lazy('hooks', "Install or uninstall ContextPack's hooks in an agent's settings (claude-code, codex): shows the diff, keeps every other hook", async () => (await import('./hooks-install.ts')).hooksCommand),
];

/** The command itself, loading its module when the entry is lazy. */
export async function loadCommand(entry: CommandEntry): Promise<Command> {
  return 'load' in entry ? entry.load() : entry;
}
