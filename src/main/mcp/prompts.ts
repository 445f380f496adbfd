// Prompts: the two moments where an agent benefits from a fixed sequence of calls, the start of a task and a handoff.
// Each only tells the agent which tools to call in which order; the tools do the work. A step whose tool this server
// does not serve is left out when another covers it, else the prompt says how to turn the tool on.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { capError, QUERY_MAX, TASK_MAX } from '../../shared/limits.ts';
import { apiInputs } from '../../shared/api/index.ts';
import { ALL_TOOLS, enableHint, type ToolName } from './tools.ts';

/** Numbered steps, with a closing line naming the tools the steps need that this server does not serve. */
function steps(lines: (string | null)[], needs: readonly ToolName[], enabled: readonly ToolName[]): string {
  const missing = needs.filter((t) => !enabled.includes(t));
  const body = lines.filter((l): l is string => l !== null).map((l, i) => `${i + 1}. ${l}`);
  if (missing.length) body.push(`(${missing.map((t) => `\`${t}\``).join(', ')} ${missing.length > 1 ? 'are' : 'is'} not enabled in this server: ask the user to ${enableHint(missing)}.)`);
  return body.join('\n');
}

export function registerPrompts(server: McpServer, enabled: readonly ToolName[] = ALL_TOOLS): void {
  const on = (t: ToolName) => enabled.includes(t);
  server.registerPrompt(
    'start_task',
    {
      title: 'Start a task',
      description: "Load the project's memory and a context packet for a task before working on it.",
      argsSchema: {
        task: z.string().min(1).max(TASK_MAX, capError('task', TASK_MAX)).describe('the task, with its acceptance criteria as "- [ ] ..." lines'),
        query: z.string().max(QUERY_MAX, capError('query', QUERY_MAX)).optional().describe('what the evidence should be about (default: the task)'),
      },
    },
    ({ task, query }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'text',
            text:
              'Before you start, load this project\'s context with the contextpack tools:\n' +
              steps(
                [
                  'Call `rehydrate` for the project memory (summary, current state, key decisions, open issues, learnings).',
                  `Call \`pack\` with query ${JSON.stringify((query ?? task).slice(0, 2000))} and the task below; keep its context_snapshot_hash and cite the evidence labels it gives.`,
                  // Without `ingest` the server's watcher re-indexes changed files by itself.
                  `Use \`search\` to find anything the packet lacks${on('ingest') ? '; after you change files, call `ingest` with their paths' : ''}.`,
                  'Record decisions, issues and learnings with `remember` as you go.',
                ],
                ['rehydrate', 'pack', 'search', 'remember'],
                enabled,
              ) +
              `\n\nTask:\n${task}`,
          },
        },
      ],
    }),
  );

  server.registerPrompt(
    'hand_off',
    {
      title: 'Hand off',
      description: 'Hand the work over to another agent or a fresh session, with the state recorded in project memory.',
      argsSchema: {
        to: z.string().max(100).optional().describe('the receiving agent id'),
        // The handoff tool's own types, so the prompt cannot name one the tool refuses.
        type: apiInputs['sessions.handoff'].shape.type.optional().describe('the handoff type (default continuation)'),
      },
    },
    ({ to, type }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'text',
            text:
              'Hand this work over with the contextpack tools:\n' +
              steps(
                [
                  'Call `remember` with type "state" for where the task stands (task_description, completion_percentage, substeps_remaining, next_actions).',
                  `Call \`handoff\` with type "${type ?? 'continuation'}"${to ? `, to ${JSON.stringify(to)}` : ''}, your transcript and save: true.`,
                  // save: true already keeps the session's decisions, issues and lessons; end_session adds the session record.
                  on('end_session') ? 'Call `end_session` with Done: / DECISION: / TODO: / Lesson: lines for this session.' : null,
                  'Give the receiving agent the handoff\'s context_snapshot_hash.',
                ],
                ['remember', 'handoff'],
                enabled,
              ),
          },
        },
      ],
    }),
  );
}
