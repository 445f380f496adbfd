// The live tool list, as a strict client reads it: every schema compiles under Ajv's strict mode (what the MCP
// Inspector's validation asks), and the README's MCP table and `contextpack mcp --help` match it: a tool or argument
// added to the server and not to the docs (or the other way round) fails here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Ajv } from 'ajv';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApi, type Api } from '../api/index.ts';
import { getDefaultRedactor } from '../core/redact/index.ts';
import { openStore, type Store } from '../core/store/index.ts';
import { tempDirs } from '../core/testing/tmp.ts';
import { MCP_HELP } from '../cli/commands/mcp.ts';
import { createMcpServer } from './server.ts';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { DEFAULT_TOOLS, DEFAULT_TOOLS_TOKEN_TARGET, parseToolSet } from './tools.ts';

const readme = readFileSync(fileURLToPath(new URL('../../../README.md', import.meta.url)), 'utf8');
const tmp = tempDirs('cp-mcp-readme-');
let store: Store;
let api: Api;
let client: Client;
let tools: Awaited<ReturnType<Client['listTools']>>['tools'];

beforeAll(async () => {
  const dir = tmp.make();
  store = openStore(join(dir, 'r.db'));
  api = createApi({ store, dataDir: dir, version: 't', transport: 'mcp', background: false, watch: false });
  const server = createMcpServer({ dispatch: api.dispatch, redactor: getDefaultRedactor(), version: 't' });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  client = new Client({ name: 'readme-test', version: '0' });
  await client.connect(b);
  tools = (await client.listTools()).tools;
});
afterAll(async () => {
  await client?.close();
  await api.close();
  store.close();
  tmp.cleanup();
});

function mcpTable(): Map<string, string> {
  const section = readme.slice(readme.indexOf('## MCP server for coding agents'), readme.indexOf('\n## ', readme.indexOf('## MCP server for coding agents') + 5));
  const rows = section.split('\n').filter((l) => /^\| `[a-z_]+` \|/.test(l));
  return new Map(rows.map((r) => [/^\| `([a-z_]+)`/.exec(r)![1]!, r.split(' | ')[1]!]));
}

it('every input and output schema is valid JSON Schema under strict validation, closed to unknown keys', () => {
  const ajv = new Ajv({ strict: true, allErrors: true });
  for (const t of tools) {
    for (const [kind, schema] of [['input', t.inputSchema], ['output', t.outputSchema]] as const) {
      if (!schema) continue;
      expect(() => ajv.compile(schema), `${t.name} ${kind}Schema`).not.toThrow();
      expect(schema.type, `${t.name} ${kind}Schema`).toBe('object');
      expect((schema as { additionalProperties?: unknown }).additionalProperties, `${t.name} ${kind}Schema`).toBe(false);
    }
    // What the server checks, the schema says: an unknown key fails the listed schema too.
    expect(ajv.validate(t.inputSchema, { ...Object.fromEntries(((t.inputSchema.required as string[] | undefined) ?? []).map((k) => [k, 'x'])), bogus: 1 }), t.name).toBe(false);
  }
});

/**
 * The MCP Inspector's `--strict` portability rules (v2.12, core/mcp/schemaLint): a `type` array (warning), a schema
 * with no validation keyword (warning), a bare boolean schema (error), a `$ref` outside the document (warning).
 */
function portabilityFindings(schema: unknown, at: string, keyword?: string): string[] {
  if (typeof schema === 'boolean') return ['additionalProperties', 'unevaluatedProperties', 'additionalItems', 'unevaluatedItems'].includes(keyword ?? '') ? [] : [`${at}: boolean schema`];
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return [];
  const node = schema as Record<string, unknown>;
  const out: string[] = [];
  if (Array.isArray(node.type)) out.push(`${at}: type ${JSON.stringify(node.type)}`);
  if (typeof node.$ref === 'string' && !node.$ref.startsWith('#')) out.push(`${at}: remote $ref`);
  const constrains = Object.keys(node).some((k) => !['description', 'title', 'default', 'examples', '$schema', '$id', '$comment', 'deprecated', 'readOnly', 'writeOnly'].includes(k));
  if (!constrains && keyword !== 'not') out.push(`${at}: constrains nothing`);
  for (const key of ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']) {
    for (const [name, sub] of Object.entries((node[key] as Record<string, unknown> | undefined) ?? {})) out.push(...portabilityFindings(sub, `${at}.${key}.${name}`, key));
  }
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) ((node[key] as unknown[] | undefined) ?? []).forEach((sub, i) => out.push(...portabilityFindings(sub, `${at}.${key}[${i}]`, key)));
  for (const key of ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames']) if (key in node) out.push(...portabilityFindings(node[key], `${at}.${key}`, key));
  return out;
}

it("every schema passes the MCP Inspector's --strict portability rules (no type arrays, nothing unconstrained)", () => {
  const findings = tools.flatMap((t) => [...portabilityFindings(t.inputSchema, `${t.name}.inputSchema`), ...(t.outputSchema ? portabilityFindings(t.outputSchema, `${t.name}.outputSchema`) : [])]);
  expect(findings).toEqual([]);
  // The nullable output fields are still nullable, spelt as anyOf branches.
  const anchor = (tools.find((t) => t.name === 'search')!.outputSchema as any).properties.hits.items.properties.anchor;
  expect(anchor.anyOf).toEqual([{ type: 'string' }, { type: 'null' }]);
});

it('every tool refuses an unknown argument by name, before it runs', async () => {
  for (const t of tools) {
    const r = (await client.callTool({ name: t.name, arguments: { bogus: 1 } })) as { isError?: boolean; content: { text: string }[] };
    expect(r.isError, t.name).toBe(true);
    expect(r.content[0]!.text, t.name).toMatch(/^invalid_input:\n(.*\n)*? {2}bogus: unknown argument \(/);
  }
});

it('the README table lists exactly the live tools, each with every argument (and every filter field) it takes', () => {
  const table = mcpTable();
  expect([...table.keys()].sort()).toEqual(tools.map((t) => t.name).sort());
  // The rows above the `--tools all` line are the default set.
  const section = readme.slice(readme.indexOf('| **default set**'), readme.indexOf('| **with `--tools all`**'));
  expect([...section.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1])).toEqual([...DEFAULT_TOOLS]);
  const missing: string[] = [];
  for (const t of tools) {
    const input = table.get(t.name)!;
    for (const [name, schema] of Object.entries(t.inputSchema.properties ?? {}) as [string, { properties?: Record<string, unknown> }][]) {
      if (!input.includes(`\`${name}`)) missing.push(`${t.name}.${name}`);
      for (const field of Object.keys(schema.properties ?? {})) if (name === 'filters' && !input.includes(`\`${field}\``)) missing.push(`${t.name}.${name}.${field}`);
    }
  }
  expect(missing).toEqual([]);
});

it('`contextpack mcp --help` names the default set, every other tool and every prompt', async () => {
  const defaults = /Tools: ([^(]*?) \(the default set/.exec(MCP_HELP)![1]!.split(/,\s*/);
  const more = /with --tools all also ([\s\S]*?)\.\n/.exec(MCP_HELP)![1]!.split(/,\s*/).map((x) => x.trim());
  expect(defaults).toEqual([...DEFAULT_TOOLS]);
  expect([...defaults, ...more].sort()).toEqual(tools.map((t) => t.name).sort());
  const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
  expect(/Prompts: (.*)\./.exec(MCP_HELP)![1]!.split(', ').sort()).toEqual(prompts.sort());
});

it('the default tool set, as a client lists it, stays within its o200k token target (bench:tools prints every set)', async () => {
  const server = createMcpServer({ dispatch: api.dispatch, redactor: getDefaultRedactor(), version: 't', tools: DEFAULT_TOOLS });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const c = new Client({ name: 'default-set', version: '0' });
  await c.connect(b);
  try {
    const listed = (await c.listTools()).tools;
    expect(listed.map((t) => t.name)).toEqual([...DEFAULT_TOOLS]);
    expect(countTokens(JSON.stringify({ tools: listed }))).toBeLessThanOrEqual(DEFAULT_TOOLS_TOKEN_TARGET);
    // The same entries as in the full list, only fewer of them.
    expect(listed).toEqual(tools.filter((t) => (DEFAULT_TOOLS as string[]).includes(t.name)));
  } finally {
    await c.close();
  }
});

it('--tools reads all, default and comma lists, in the tools\' order, and names the known tools on a typo', () => {
  expect(parseToolSet('default')).toEqual([...DEFAULT_TOOLS]);
  expect(parseToolSet('all')).toEqual(tools.map((t) => t.name));
  expect(parseToolSet('end_session, default,ingest')).toEqual(['search', 'pack', 'remember', 'rehydrate', 'ingest', 'handoff', 'end_session']);
  expect(() => parseToolSet('search,serach')).toThrow(/unknown tool "serach" \(known: all, default, search, pack, /);
  expect(() => parseToolSet(' , ')).toThrow(/--tools is empty/);
});
