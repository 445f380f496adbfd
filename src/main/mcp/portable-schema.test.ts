import { Ajv } from 'ajv';
import { z } from 'zod';
import { toJsonSchemaCompat } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js';
import { expect, it } from 'vitest';
import { portableSchema } from './portable-schema.ts';

it('spells a type array as anyOf branches and accepts exactly what the original accepted', () => {
  const zod = z
    .object({
      name: z.string().min(2).nullable().describe('a name'),
      score: z.number().nullable().describe('a score'),
      items: z.array(z.object({ at: z.boolean().nullable() }).strict()),
      either: z.union([z.string(), z.object({ n: z.number().nullable() }).strict()]).nullable(),
    })
    .strict();
  const original = toJsonSchemaCompat(zod, { pipeStrategy: 'output' }) as Record<string, any>;
  const portable = portableSchema(original);
  expect(JSON.stringify(portable)).not.toMatch(/"type":\[/);
  expect(portable.properties.score).toEqual({ description: 'a score', anyOf: [{ type: 'number' }, { type: 'null' }] });
  expect(portable.properties.items.items.properties.at.anyOf).toEqual([{ type: 'boolean' }, { type: 'null' }]);
  expect(original.properties.score.type).toEqual(['number', 'null']); // the input is left as it was
  const ajv = new Ajv({ strict: true, allErrors: true });
  const [before, after] = [ajv.compile(original), ajv.compile(portable)];
  const values = [
    { name: null, score: null, items: [], either: null },
    { name: 'ab', score: 1.5, items: [{ at: true }, { at: null }], either: 'x' },
    { name: 'ab', score: 1, items: [], either: { n: null } },
    { name: 'a', score: 1, items: [], either: null }, // too short
    { name: 'ab', score: 'x', items: [], either: null },
    { name: 'ab', score: 1, items: [{ at: 1.5 }], either: null },
    { name: 'ab', score: 1, items: [], either: { n: 'x' } },
    { name: 'ab', score: 1, items: [], either: null, extra: 1 },
  ];
  expect(values.map((v) => after(v))).toEqual(values.map((v) => before(v)));
  expect(values.map((v) => after(v))).toEqual([true, true, true, false, false, false, false, false]);
});

it("leaves out what says nothing: zod's $schema line and the ±2^53-1 bounds of a bare integer", () => {
  const zod = z.object({ n: z.number().int(), m: z.number().int().min(1).max(10) }).strict();
  const portable = portableSchema(toJsonSchemaCompat(zod, { pipeStrategy: 'input' })) as Record<string, any>;
  expect(portable.$schema).toBeUndefined();
  expect(portable.properties.n).toEqual({ type: 'integer' });
  expect(portable.properties.m).toEqual({ type: 'integer', minimum: 1, maximum: 10 });
});
