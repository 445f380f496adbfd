// One conversation written in every format we read (structures as the real tools write them; the texts are ours):
// a user request, a tool call that fails, a tool call that succeeds, an answer. The shared reader suite runs over
// each; format-specific structures have their own fixtures beside the suite.
import type { TranscriptFormat } from './types.ts';

const j = (o: unknown) => JSON.stringify(o);

export interface ReaderFixture {
  text: string;
  /** Tool names of the failing and the succeeding call as this format records them. */
  failingTool: string;
  okTool: string;
  /** Whether the format carries times. */
  times: boolean;
  /** A malformed line and the 1-based line it is inserted at (JSONL formats only). */
  malformed?: { text: string; line: number };
}

const ccLines = [
  j({ type: 'summary', summary: 'Auth work', leafUuid: 'x' }),
  j({ type: 'user', sessionId: 's-1', uuid: 'u1', timestamp: '2026-01-05T10:00:00Z', message: { role: 'user', content: 'Fix the login test' } }),
  j({ type: 'assistant', sessionId: 's-1', uuid: 'u2', timestamp: '2026-01-05T10:00:05Z', message: { role: 'assistant', content: [{ type: 'text', text: 'Running the tests.' }, { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'npm test' } }] } }),
  j({ type: 'user', sessionId: 's-1', uuid: 'u3', timestamp: '2026-01-05T10:00:09Z', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'Error: expected 200, got 401', is_error: true }] } }),
  j({ type: 'assistant', sessionId: 's-1', uuid: 'u4', timestamp: '2026-01-05T10:01:00Z', message: { role: 'assistant', content: [{ type: 'tool_use', id: 't2', name: 'Read', input: { file_path: 'src/auth.ts' } }] } }),
  j({ type: 'user', sessionId: 's-1', uuid: 'u5', timestamp: '2026-01-05T10:01:01Z', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't2', content: [{ type: 'text', text: 'export const x = 1;' }] }] } }),
  j({ type: 'assistant', sessionId: 's-1', uuid: 'u6', timestamp: '2026-01-05T10:02:00Z', message: { role: 'assistant', content: 'The cookie was dropped.' } }),
];

export const READER_FIXTURES: Record<TranscriptFormat, ReaderFixture> = {
  'claude-code': { text: ccLines.join('\n'), failingTool: 'Bash', okTool: 'Read', times: true, malformed: { text: '{"type":"user", "sessionId": broken', line: 3 } },
  codex: {
    text: [
      j({ timestamp: '2026-01-05T10:00:00Z', type: 'session_meta', payload: { id: 's-1', cwd: '/p', cli_version: '0.46.0' } }),
      j({ timestamp: '2026-01-05T10:00:00Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: '# AGENTS.md instructions for /p\n\n<INSTRUCTIONS>\nUse pnpm.\n</INSTRUCTIONS>' }] } }),
      j({ timestamp: '2026-01-05T10:00:00Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context>cwd</environment_context>' }] } }),
      j({ timestamp: '2026-01-05T10:00:00Z', type: 'turn_context', payload: { cwd: '/p', model: 'gpt-5' } }),
      j({ timestamp: '2026-01-05T10:00:00Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Fix the login test' }] } }),
      j({ timestamp: '2026-01-05T10:00:05Z', type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Running the tests.' }] } }),
      j({ timestamp: '2026-01-05T10:00:05Z', type: 'response_item', payload: { type: 'function_call', name: 'shell', arguments: j({ command: ['npm', 'test'] }), call_id: 'c1' } }),
      j({ timestamp: '2026-01-05T10:00:09Z', type: 'response_item', payload: { type: 'function_call_output', call_id: 'c1', output: j({ output: 'Error: expected 200, got 401', metadata: { exit_code: 1 } }) } }),
      j({ timestamp: '2026-01-05T10:00:09Z', type: 'event_msg', payload: { type: 'agent_message', message: 'dup' } }),
      j({ timestamp: '2026-01-05T10:01:00Z', type: 'response_item', payload: { type: 'function_call', name: 'read_file', arguments: j({ path: 'src/auth.ts' }), call_id: 'c2' } }),
      j({ timestamp: '2026-01-05T10:01:01Z', type: 'response_item', payload: { type: 'function_call_output', call_id: 'c2', output: j({ output: 'export const x = 1;', metadata: { exit_code: 0 } }) } }),
      j({ timestamp: '2026-01-05T10:02:00Z', type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'The cookie was dropped.' }] } }),
    ].join('\n'),
    failingTool: 'shell',
    okTool: 'read_file',
    times: true,
    malformed: { text: 'not json at all', line: 4 },
  },
  pi: {
    text: [
      j({ type: 'session', version: 3, id: 's-1', timestamp: '2026-01-05T09:59:59Z', cwd: '/p' }),
      j({ type: 'model_change', id: 'm1', parentId: null, timestamp: '2026-01-05T09:59:59Z', model: 'anthropic/claude' }),
      j({ type: 'custom_message', customType: 'project-context', content: '<system-reminder>tree</system-reminder>', display: false, id: 'c0', parentId: 'm1', timestamp: '2026-01-05T09:59:59Z' }),
      j({ type: 'message', id: 'a', parentId: 'c0', timestamp: '2026-01-05T10:00:00Z', message: { role: 'user', content: [{ type: 'text', text: 'Fix the login test' }] } }),
      j({ type: 'message', id: 'b', parentId: 'a', timestamp: '2026-01-05T10:00:05Z', message: { role: 'assistant', content: [{ type: 'thinking', thinking: 'hm' }, { type: 'text', text: 'Running the tests.' }, { type: 'toolCall', id: 't1', name: 'bash', arguments: { command: 'npm test' } }] } }),
      j({ type: 'message', id: 'c', parentId: 'b', timestamp: '2026-01-05T10:00:09Z', message: { role: 'toolResult', toolCallId: 't1', toolName: 'bash', content: [{ type: 'text', text: 'Error: expected 200, got 401' }], isError: true } }),
      j({ type: 'message', id: 'd', parentId: 'c', timestamp: '2026-01-05T10:01:00Z', message: { role: 'assistant', content: [{ type: 'toolCall', id: 't2', name: 'read', arguments: { path: 'src/auth.ts' } }] } }),
      j({ type: 'message', id: 'e', parentId: 'd', timestamp: '2026-01-05T10:01:01Z', message: { role: 'toolResult', toolCallId: 't2', toolName: 'read', content: [{ type: 'text', text: 'export const x = 1;' }], isError: false } }),
      j({ type: 'custom', customType: 'ext-state', data: { v: 1 }, id: 'x', parentId: 'e', timestamp: '2026-01-05T10:01:30Z' }),
      j({ type: 'message', id: 'f', parentId: 'x', timestamp: '2026-01-05T10:02:00Z', message: { role: 'assistant', content: [{ type: 'text', text: 'The cookie was dropped.' }] } }),
    ].join('\n'),
    failingTool: 'bash',
    okTool: 'read',
    times: true,
    malformed: { text: '{"type":"message","id":"zz", broken', line: 5 },
  },
  cline: {
    text: JSON.stringify(
      [
        { role: 'user', content: [{ type: 'text', text: '<task>\nFix the login test\n</task>' }, { type: 'text', text: '<environment_details>\n# VSCode Visible Files\nsrc/auth.ts\n</environment_details>' }], ts: Date.parse('2026-01-05T10:00:00Z') },
        { role: 'assistant', content: [{ type: 'text', text: 'Running the tests.' }, { type: 'tool_use', id: 't1', name: 'execute_command', input: { command: 'npm test', task_progress: '- [ ] Run the tests\n- [ ] Fix the cookie' } }], ts: Date.parse('2026-01-05T10:00:05Z') },
        { role: 'user', content: [{ type: 'text', text: "[execute_command for 'npm test'] Result:\nThe tool execution failed: Error: expected 200, got 401" }], ts: Date.parse('2026-01-05T10:00:09Z') },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't2', name: 'read_file', input: { path: 'src/auth.ts' } }], ts: Date.parse('2026-01-05T10:01:00Z') },
        { role: 'user', content: [{ type: 'text', text: "[read_file for 'src/auth.ts'] Result:\nexport const x = 1;" }], ts: Date.parse('2026-01-05T10:01:01Z') },
        { role: 'assistant', content: [{ type: 'text', text: 'The cookie was dropped.' }], ts: Date.parse('2026-01-05T10:02:00Z') },
      ],
      null,
      2,
    ),
    failingTool: 'execute_command',
    okTool: 'read_file',
    times: true,
  },
  aider: {
    text: [
      '',
      '# aider chat started at 2026-01-05 10:00:00',
      '',
      '> Aider v0.83.1  ',
      '> Main model: some-model with whole edit format  ',
      '',
      '#### Fix the login test  ',
      '',
      'Running the tests.',
      '',
      '> Running npm test  ',
      '> Error: expected 200, got 401  ',
      '',
      '#### /read-only src/auth.ts  ',
      '',
      '> Added src/auth.ts to read-only files.  ',
      '> export const x = 1;  ',
      '',
      'The cookie was dropped.',
      '',
    ].join('\n'),
    failingTool: 'aider',
    okTool: 'aider',
    times: true,
  },
  'markdown-chat': {
    text: [
      '# Chat export',
      '',
      '## User — 2026-01-05T10:00:00Z',
      'Fix the login test',
      '',
      '## Assistant — 2026-01-05T10:00:05Z',
      'Running the tests.',
      '',
      '## Tool: Bash (error)',
      'Error: expected 200, got 401',
      '',
      '## Tool: Read',
      '```',
      '## User (inside a fence: not a turn)',
      'export const x = 1;',
      '```',
      '',
      '## Assistant',
      'The cookie was dropped.',
    ].join('\n'),
    failingTool: 'Bash',
    okTool: 'Read',
    times: true,
    malformed: { text: '## User — yesterday-ish', line: 3 },
  },
};
