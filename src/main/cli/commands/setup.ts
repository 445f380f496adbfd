// `contextpack setup <agent>`: one step from an installed ContextPack to an agent that uses it. It registers the MCP
// server in the agent's configuration and installs the hooks where the agent has them, with one command checked the
// way the agent will run it (sh -c, the agent's PATH) before anything is written; every file is shown as a diff and
// written only on confirmation. `--remove` takes out exactly what setup adds.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { installHooks, uninstallHooks } from '../../core/hooks/settings.ts';
import { installMcpServer, MCP_FORMATS, serverArgv, uninstallMcpServer, type McpFormat } from '../../core/hooks/mcp-config.ts';
import { agentCommand, applyEdits, ourCommands, planEdits, shellLine, type FileEdit } from '../agent-setup.ts';
import { CliError, oneOf, type Command } from '../command.ts';
import { str } from './memory-shared.ts';
import { hooksFile } from './hooks-install.ts';

export const SETUP_AGENTS = ['claude-code', 'codex', 'cursor', 'vscode'] as const;
type SetupAgent = (typeof SETUP_AGENTS)[number];

interface AgentSetup {
  /** The MCP configuration file for a scope, relative to the project folder or the home folder; null: no such scope. */
  mcp: { project: string | null; user: string | null; format: McpFormat };
  /** Whether the agent takes ContextPack's hooks (core/hooks/settings.ts knows where). */
  hooks: 'claude-code' | 'codex' | null;
  /** What the user does next, printed after writing. */
  next: string;
}

const AGENTS: Record<SetupAgent, AgentSetup> = {
  'claude-code': {
    mcp: { project: '.mcp.json', user: '.claude.json', format: MCP_FORMATS.claude },
    hooks: 'claude-code',
    next: 'Start Claude Code in the project; it asks once to approve the project\'s MCP server "contextpack" (`claude mcp list` shows it).',
  },
  // Codex reads MCP servers from the user's ~/.codex/config.toml only.
  codex: { mcp: { project: null, user: join('.codex', 'config.toml'), format: MCP_FORMATS.codex }, hooks: 'codex', next: 'Start Codex; `codex mcp list` shows "contextpack".' },
  cursor: { mcp: { project: join('.cursor', 'mcp.json'), user: join('.cursor', 'mcp.json'), format: MCP_FORMATS.claude }, hooks: null, next: 'Open the project in Cursor and enable "contextpack" under Settings → MCP.' },
  vscode: { mcp: { project: join('.vscode', 'mcp.json'), user: null, format: MCP_FORMATS.vscode }, hooks: null, next: 'Open the project in VS Code; start "contextpack" from .vscode/mcp.json (Copilot agent mode lists its tools).' },
};

export const setupCommand: Command = {
  name: 'setup',
  summary: `Set an agent up in one step (${SETUP_AGENTS.join(', ')}): registers the MCP server and installs the hooks, with a command checked to start`,
  usage:
    `contextpack setup ${SETUP_AGENTS.join('|')} [--project-scope | --user-scope] [--dir FOLDER] [--yes | --dry-run] [--remove]\n` +
    '                      [--command "…"] [--project NAME]',
  options: {
    'project-scope': { type: 'boolean', default: false },
    'user-scope': { type: 'boolean', default: false },
    dir: { type: 'string' },
    yes: { type: 'boolean', short: 'y', default: false },
    'dry-run': { type: 'boolean', default: false },
    remove: { type: 'boolean', default: false },
    command: { type: 'string' },
  },
  gatesOutput: true,
  async run(ctx) {
    const agent = oneOf(ctx.args[0], SETUP_AGENTS, 'agent', undefined);
    if (!agent) throw new CliError(`setup: name the agent (${SETUP_AGENTS.join(', ')})\nusage: ${this.usage}`);
    const spec = AGENTS[agent];
    const user = ctx.values['user-scope'] === true;
    if (user && ctx.values['project-scope'] === true) throw new CliError('setup: give --project-scope or --user-scope, not both');
    const home = ctx.io.env.HOME ?? homedir();
    const projectDir = resolve(str(ctx, 'dir') ?? process.cwd());
    // An agent whose MCP file has one scope only uses that one, and says so.
    const mcpRel = (user ? spec.mcp.user : spec.mcp.project) ?? spec.mcp.user ?? spec.mcp.project;
    const mcpInHome = mcpRel === spec.mcp.user && (user || spec.mcp.project === null);
    if (user && spec.mcp.user === null) throw new CliError(`setup ${agent}: --user-scope is not supported (its MCP servers live in the project's ${spec.mcp.project}); nothing was changed`);
    const mcpFile = join(mcpInHome ? home : projectDir, mcpRel!);
    const project = str(ctx, 'project');
    const given = str(ctx, 'command');
    const remove = ctx.values.remove === true;
    const edits: FileEdit[] = [];
    if (remove) {
      const ours = ourCommands(ctx.io.env, given);
      edits.push({ file: mcpFile, what: 'MCP server "contextpack"', edit: (before, f) => uninstallMcpServer(before, f, spec.mcp.format, ours) });
      if (spec.hooks) {
        const lines = ours.map(shellLine);
        const agentHooks = spec.hooks;
        edits.push({ file: hooksFile(ctx, agentHooks), what: `${agent} hooks`, edit: (before, f) => uninstallHooks(before, f, lines) });
      }
    } else {
      const command = agentCommand(ctx, given);
      ctx.io.stdout(`command: ${command.line}\n  checked: sh -c '${command.line} --version' in the agent's environment printed "${command.version}"\n`);
      const ours = ourCommands(ctx.io.env, given);
      edits.push({ file: mcpFile, what: 'MCP server "contextpack"', edit: (before, f) => installMcpServer(before, f, spec.mcp.format, serverArgv(command.argv, project), ours) });
      if (spec.hooks) {
        const agentHooks = spec.hooks;
        edits.push({ file: hooksFile(ctx, agentHooks), what: `${agent} hooks`, edit: (before, f) => installHooks(before, f, agentHooks, command.line, project) });
      } else {
        ctx.io.stdout(`${agent} takes no ContextPack hooks: the MCP server only\n`);
      }
    }
    const code = await applyEdits(ctx, planEdits(edits), `setup ${agent}`);
    if (code === 0 && !remove && ctx.values['dry-run'] !== true) ctx.io.stdout(`next: ${spec.next}\n`);
    return code;
  },
};
