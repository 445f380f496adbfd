// npm run bench:tools [-- --tools LIST]
// The o200k token count of `tools/list` (the JSON a client receives and an agent carries for the whole session) for
// the default tool set, for `--tools all`, for any --tools LIST given, and for each tool on its own. Target (issue
// #37): the default set at most 2,500 tokens; tool-list.test.ts fails past it.
import { parseArgs } from 'node:util';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { toolList } from '../src/main/mcp/server.ts';
import { ALL_TOOLS, DEFAULT_TOOLS, DEFAULT_TOOLS_TOKEN_TARGET, parseToolSet } from '../src/main/mcp/tools.ts';

const { values } = parseArgs({ options: { tools: { type: 'string' } } });
const tokensOf = (value: unknown): number => countTokens(JSON.stringify(value));

const sets: [string, readonly (typeof ALL_TOOLS)[number][]][] = [
  ['default', DEFAULT_TOOLS],
  ['all', ALL_TOOLS],
  ...(values.tools ? [[values.tools, parseToolSet(values.tools)] as [string, (typeof ALL_TOOLS)[number][]]] : []),
];
console.log('set            tools  o200k tokens of tools/list');
for (const [name, tools] of sets) console.log(`${name.padEnd(14)} ${String(tools.length).padStart(5)}  ${String(tokensOf({ tools: toolList(tools) })).padStart(12)}`);
console.log('\ntool           total  description  inputSchema  outputSchema  in default');
for (const t of toolList(ALL_TOOLS)) {
  console.log(
    `${t.name.padEnd(14)} ${String(tokensOf(t)).padStart(5)}  ${String(countTokens(t.description ?? '')).padStart(11)}  ${String(tokensOf(t.inputSchema)).padStart(11)}  ${String(t.outputSchema ? tokensOf(t.outputSchema) : 0).padStart(12)}  ${(DEFAULT_TOOLS as string[]).includes(t.name) ? 'yes' : ''}`,
  );
}
const def = tokensOf({ tools: toolList(DEFAULT_TOOLS) });
console.log(`\ndefault set ${def} tokens; target <= ${DEFAULT_TOOLS_TOKEN_TARGET}: ${def <= DEFAULT_TOOLS_TOKEN_TARGET ? 'PASS' : 'FAIL'}`);
process.exitCode = def <= DEFAULT_TOOLS_TOKEN_TARGET ? 0 : 1;
