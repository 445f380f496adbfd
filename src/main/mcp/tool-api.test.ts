// The MCP tools against the API methods they call: every input field of a tool's method reaches the tool (under its
// snake_case name) or is withheld with a reason, every tool argument lands on a field of the method, and what a tool
// accepts its method accepts too (its enums, lengths and ranges within the method's). An option added to an API
// method fails here until the tool carries it or says why not.
import { z } from 'zod';
import { toJsonSchemaCompat } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js';
import { describe, expect, it } from 'vitest';
import { apiInputs } from '../../shared/api/index.ts';
import { TOOL_INPUTS, type ToolName } from './tools.ts';
import { API_TO_TOOL_FIELDS, apiInputOf, TOOL_API } from './tool-api.ts';

type Schema = { [key: string]: any };
const TOOLS = Object.keys(TOOL_INPUTS) as ToolName[];

const apiSchema = (name: ToolName): Schema => z.toJSONSchema(apiInputs[TOOL_API[name].method], { io: 'input', target: 'draft-7', unrepresentable: 'any' }) as Schema;
const toolSchema = (name: ToolName): Schema => toJsonSchemaCompat(TOOL_INPUTS[name], { pipeStrategy: 'input' }) as Schema;

/** The property at a dotted path, through optional wrappers (anyOf with one object branch). */
function at(schema: Schema, path: string): Schema | undefined {
  let node: Schema | undefined = schema;
  for (const part of path.split('.')) {
    const object: Schema | undefined = node?.properties ? node : (node?.anyOf as Schema[] | undefined)?.find((b) => b.properties);
    node = object?.properties?.[part];
  }
  return node;
}

/** A schema's fields, descending into an object the table maps field by field (filters, a transcript). */
function fieldsOf(schema: Schema, mapped: string[]): string[] {
  return Object.entries(schema.properties ?? {}).flatMap(([key, sub]) => {
    const children = mapped.filter((m) => m.startsWith(`${key}.`));
    if (children.length === 0) return [key];
    return [...(mapped.includes(key) ? [key] : []), ...Object.keys((sub as Schema).properties ?? (sub as Schema).anyOf?.find((b: Schema) => b.properties)?.properties ?? {}).map((f) => `${key}.${f}`)];
  });
}

describe('each tool against its API method', () => {
  it.each(TOOLS)('%s: every field of the method is carried or withheld with a reason, and every argument is carried', (name) => {
    const { fields } = TOOL_API[name];
    const apiFields = fieldsOf(apiSchema(name), Object.keys(fields));
    expect(Object.keys(fields).sort()).toEqual(apiFields.sort());
    for (const fate of Object.values(fields)) if (typeof fate !== 'string') expect(fate.withheld.length).toBeGreaterThan(20);
    const carried = Object.values(fields).filter((f): f is string => typeof f === 'string');
    const args = fieldsOf(toolSchema(name), carried);
    expect(args.filter((a) => !carried.includes(a))).toEqual([]);
    expect(carried.filter((c) => !args.includes(c))).toEqual([]);
  });

  it.each(TOOLS)('%s: what the tool accepts, its method accepts (enums, caps and minimums within the method’s)', (name) => {
    const api = apiSchema(name);
    const tool = toolSchema(name);
    const wider: string[] = [];
    for (const [field, fate] of Object.entries(TOOL_API[name].fields)) {
      if (typeof fate !== 'string') continue;
      const [a, t] = [at(api, field), at(tool, fate)];
      expect(a, `${name}: ${field}`).toBeDefined();
      expect(t, `${name}: ${fate}`).toBeDefined();
      // An array's items are compared as well as the array.
      const pairs: [Schema, Schema, string][] = [[a!, t!, fate]];
      if (a!.items && t!.items) pairs.push([a!.items, t!.items, `${fate}[]`]);
      for (const [x, y, label] of pairs) {
        if (typeof x.type === 'string' && typeof y.type === 'string' && x.type !== y.type && !(x.type === 'number' && y.type === 'integer')) wider.push(`${label}: ${y.type}, the method takes ${x.type}`);
        if (x.enum && (!y.enum || y.enum.some((v: unknown) => !x.enum.includes(v)))) wider.push(`${label}: enum ${JSON.stringify(y.enum)} beyond ${JSON.stringify(x.enum)}`);
        for (const cap of ['maximum', 'maxLength', 'maxItems'] as const) if (x[cap] !== undefined && !(y[cap] <= x[cap])) wider.push(`${label}: ${cap} ${y[cap]} over the method's ${x[cap]}`);
        for (const floor of ['minimum', 'minLength', 'minItems'] as const) if (x[floor] !== undefined && !(y[floor] >= x[floor])) wider.push(`${label}: ${floor} ${y[floor]} under the method's ${x[floor]}`);
      }
    }
    expect(wider).toEqual([]);
  });
});

it('one spelling per API field across the tools, so an error is worded with the name the agent sent', () => {
  const seen = new Map<string, string>();
  for (const name of TOOLS) {
    for (const [field, fate] of Object.entries(TOOL_API[name].fields)) {
      if (typeof fate !== 'string') continue;
      expect(seen.get(field) ?? fate, `${name}: ${field}`).toBe(fate);
      seen.set(field, fate);
    }
  }
  expect(API_TO_TOOL_FIELDS).toMatchObject({ maxTokens: 'max_tokens', useDefaultExcludes: 'default_excludes', 'filters.pathGlob': 'filters.path_glob', 'filters.modifiedAfter': 'filters.modified_after' });
});

it('turns parsed arguments into the method’s input by the table', () => {
  expect(apiInputOf('search', { query: 'q', filters: { path_glob: '*.md', include: ['docs/**'], modified_before: '2026-01-01' } })).toEqual({
    query: 'q',
    filters: { pathGlob: '*.md', include: ['docs/**'], modifiedBefore: '2026-01-01' },
  });
  expect(apiInputOf('pack', { query: 'q', max_tokens: 900, default_excludes: false, task: undefined })).toEqual({ query: 'q', maxTokens: 900, useDefaultExcludes: false });
  expect(apiInputOf('handoff', { type: 'complete', transcript: 'chat', transcript_name: 'a.md' })).toEqual({ type: 'complete', transcript: { text: 'chat', name: 'a.md' } });
});
