// `contextpack hooks install|uninstall <agent>`: ContextPack's hook entries in an agent's settings file, added or
// removed byte-exactly (core/hooks/settings.ts), with the command checked the way the agent will run it.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { AGENT_HOOKS, HOOK_AGENTS, installHooks, uninstallHooks, type HookAgent } from '../../core/hooks/settings.ts';
import { agentCommand, applyEdits, ourCommands, planEdits, shellLine, type FileEdit } from '../agent-setup.ts';
import { CliError, oneOf, type Command, type CommandContext } from '../command.ts';
import { str, subcommand } from './memory-shared.ts';

/** The agent's hooks file for the scope asked (project folder by default, or the home folder). */
export function hooksFile(ctx: CommandContext, agent: HookAgent): string {
  const user = ctx.values['user-scope'] === true;
  if (user && ctx.values['project-scope'] === true) throw new CliError(`${ctx.args[0] ?? 'hooks'}: give --project-scope or --user-scope, not both`);
  const base = user ? (ctx.io.env.HOME ?? homedir()) : resolve(str(ctx, 'dir') ?? process.cwd());
  return join(base, AGENT_HOOKS[agent].file);
}

export const hooksCommand: Command = {
  name: 'hooks',
  summary: "Install or uninstall ContextPack's hooks in an agent's settings (claude-code, codex): shows the diff, keeps every other hook",
  usage:
    `contextpack hooks install|uninstall ${HOOK_AGENTS.join('|')} [--project-scope | --user-scope] [--dir FOLDER] [--yes | --dry-run]\n` +
    '                      [--command "contextpack"] [--project NAME]',
  options: {
    'project-scope': { type: 'boolean', default: false },
    'user-scope': { type: 'boolean', default: false },
    dir: { type: 'string' },
    yes: { type: 'boolean', short: 'y', default: false },
    'dry-run': { type: 'boolean', default: false },
    command: { type: 'string' },
  },
  gatesOutput: true,
  async run(ctx) {
    const sub = subcommand(ctx, ['install', 'uninstall'], this.usage);
    const agent = oneOf(ctx.args[1], HOOK_AGENTS, 'agent', undefined);
    if (!agent) throw new CliError(`hooks ${sub}: name the agent (${HOOK_AGENTS.join(', ')})\nusage: ${this.usage}`);
    const file = hooksFile(ctx, agent);
    const given = str(ctx, 'command');
    let edit: FileEdit;
    if (sub === 'install') {
      // The command is checked the way the agent runs it (sh -c, the agent's PATH) before anything is written.
      const command = agentCommand(ctx, given);
      ctx.io.stdout(`command: ${command.line} (checked: ${command.version})\n`);
      edit = { file, what: `${agent} hooks`, edit: (before, f) => installHooks(before, f, agent, command.line, str(ctx, 'project')) };
    } else {
      const ours = ourCommands(ctx.io.env, given).map(shellLine);
      edit = { file, what: `${agent} hooks`, edit: (before, f) => uninstallHooks(before, f, ours) };
    }
    return applyEdits(ctx, planEdits([edit]), `hooks ${sub}`);
  },
};
