// Command-line flags from an API method's zod input schema: `evidenceExclude` (an array of strings) becomes
// `--evidence-exclude` (repeatable), a number becomes a string flag read as a number, a boolean a switch. The values
// go back into an input object that the dispatcher validates with the same schema, so the checks are the API's.
import { z } from 'zod';
import type { Options } from './command.ts';

/** `evidenceExclude` → `--evidence-exclude`; `filters.include` → `--include`. */
export function flagName(field: string): string {
  const last = field.split('.').filter((p) => !/^\d+$/.test(p)).pop() ?? field;
  return `--${last.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

function inner(schema: z.ZodType): z.ZodType {
  let s = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault) s = s.unwrap() as z.ZodType;
  return s;
}

function shapeOf(schema: z.ZodType): Record<string, z.ZodType> {
  const s = inner(schema);
  if (!(s instanceof z.ZodObject)) throw new Error('api-flags: a method input is an object');
  return s.shape as Record<string, z.ZodType>;
}

/** parseArgs options for the named fields of a method's input. */
export function optionsFrom(schema: z.ZodType, fields: readonly string[]): Options {
  const shape = shapeOf(schema);
  const out: Options = {};
  for (const f of fields) {
    const s = shape[f];
    if (!s) throw new Error(`api-flags: the input has no field ${f}`);
    const t = inner(s);
    const name = flagName(f).slice(2);
    out[name] = t instanceof z.ZodBoolean ? { type: 'boolean' } : t instanceof z.ZodArray ? { type: 'string', multiple: true } : { type: 'string' };
  }
  return out;
}

/** The input the flags give, for the named fields (absent flags stay absent); numbers are read as numbers. */
export function inputFrom(schema: z.ZodType, fields: readonly string[], values: Record<string, unknown>): Record<string, unknown> {
  const shape = shapeOf(schema);
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = values[flagName(f).slice(2)];
    if (v === undefined) continue;
    const t = inner(shape[f]!);
    out[f] = t instanceof z.ZodNumber && typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v)) ? Number(v) : v;
  }
  return out;
}
