import { CliError, type Command } from '../command.ts';

/** Printed by `contextpack mcp --help`; the README's MCP section carries the same snippets. */
export const MCP_HELP = `contextpack mcp [--db FILE | --project NAME] [--tools default|all|LIST]

An MCP server on stdio (JSON-RPC on stdin/stdout, logs on stderr) for coding agents.
Tools: search, pack, remember, rehydrate, handoff (the default set, small enough to leave on in every session);
       with --tools all also get_packet, replay, hierarchy, stats, ingest, update_memory, resolve_issue,
       capacity, end_session.
--tools takes all, default or a comma list of tool names, e.g. --tools default,ingest,end_session.
Prompts: start_task, hand_off.
Resources: contextpack://packet/<context_snapshot_hash> (every stored packet).

Claude Code:
  claude mcp add contextpack -- contextpack mcp --project NAME

Claude Desktop (claude_desktop_config.json), Cursor (.cursor/mcp.json or ~/.cursor/mcp.json):
  {
    "mcpServers": {
      "contextpack": { "command": "contextpack", "args": ["mcp", "--project", "NAME"] }
    }
  }

VS Code (.vscode/mcp.json):
  {
    "servers": {
      "contextpack": { "type": "stdio", "command": "contextpack", "args": ["mcp", "--project", "NAME"] }
    }
  }

Without contextpack on PATH, use "command": "node" with "args": ["/path/to/contextpack/src/main/cli/bin.mjs", "mcp", ...].
--db FILE instead of --project NAME serves that database file.`;

export const mcpCommand: Command = {
  name: 'mcp',
  summary: 'Serve the project to coding agents over MCP (stdio): search, pack, remember, rehydrate, …',
  usage: MCP_HELP,
  options: { tools: { type: 'string', default: 'default' } },
  async run(ctx) {
    // Loaded here, not at start-up: the SDK and the engine are needed only once the server runs.
    const [{ runMcpServer }, { dataDirFor, defaultModelDirs }, { parseToolSet }] = await Promise.all([import('../../mcp/run.ts'), import('../../paths.ts'), import('../../mcp/tools.ts')]);
    let tools;
    try {
      tools = parseToolSet(String(ctx.values.tools));
    } catch (err) {
      throw new CliError((err as Error).message);
    }
    return runMcpServer({
      dbPath: ctx.dbPath,
      dataDir: dataDirFor(ctx.values.db as string | undefined, ctx.dbPath, ctx.io.env),
      modelDirs: defaultModelDirs(ctx.io.env),
      stderr: ctx.io.stderr,
      tools,
    });
  },
};
