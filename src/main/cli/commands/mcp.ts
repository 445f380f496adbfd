import type { Command } from '../command.ts';

/** Printed by `contextpack mcp --help`; the README's MCP section carries the same snippets. */
export const MCP_HELP = `contextpack mcp [--db FILE | --project NAME]

An MCP server on stdio (JSON-RPC on stdin/stdout, logs on stderr) for coding agents.
Tools: search, pack, get_packet, replay, remember, rehydrate, hierarchy, stats, ingest, update_memory,
       resolve_issue, capacity, handoff, end_session.
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
  options: {},
  async run(ctx) {
    // Loaded here, not at start-up: the SDK and the engine are needed only once the server runs.
    const [{ runMcpServer }, { dataDirFor, defaultModelDirs }] = await Promise.all([import('../../mcp/run.ts'), import('../../paths.ts')]);
    return runMcpServer({
      dbPath: ctx.dbPath,
      dataDir: dataDirFor(ctx.values.db as string | undefined, ctx.dbPath, ctx.io.env),
      modelDirs: defaultModelDirs(ctx.io.env),
      stderr: ctx.io.stderr,
    });
  },
};
