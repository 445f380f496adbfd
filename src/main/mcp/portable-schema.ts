// Tool schemas as the most clients can read them. zod writes a nullable field as a type array (["string", "null"]),
// legal JSON Schema that a client mapping schemas onto a single-`type` dialect (Gemini's OpenAPI subset) rejects or
// loosens; the MCP Inspector's --strict check warns on it. The same constraint spelt as anyOf branches reads everywhere.
// Every tools/list entry sits in an agent's context for the whole session, so what says nothing is left out: zod's
// `$schema` line (the default dialect) and the ±2^53-1 bounds it gives every integer (no JSON number gets past them).

type Schema = { [key: string]: unknown };

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Keywords whose value is a map of name → subschema, a list of subschemas, or one subschema. */
const MAP_KEYWORDS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const LIST_KEYWORDS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const ONE_KEYWORDS = ['items', 'additionalProperties', 'additionalItems', 'contains', 'not', 'if', 'then', 'else', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties'];

/**
 * A copy of the schema with every `type: [a, b]` turned into `anyOf: [{type: a}, {type: b}]`. The other keywords stay
 * where they were: each one applies only to its own type (minLength to strings, items to arrays), so the schema
 * accepts exactly what it did.
 */
export function portableSchema<T>(schema: T): T {
  const out = rewrite(schema) as Schema;
  if (isSchema(out)) delete out.$schema;
  return out as T;
}

function rewrite(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewrite);
  if (!isSchema(node)) return node;
  const out: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    if (MAP_KEYWORDS.includes(key) && isSchema(value)) out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rewrite(v)]));
    else if (LIST_KEYWORDS.includes(key) && Array.isArray(value)) out[key] = value.map(rewrite);
    else if (ONE_KEYWORDS.includes(key)) out[key] = rewrite(value);
    else if ((key === 'minimum' && value === -Number.MAX_SAFE_INTEGER) || (key === 'maximum' && value === Number.MAX_SAFE_INTEGER)) continue;
    else out[key] = value;
  }
  if (Array.isArray(out.type)) {
    const branches = out.type.map((type) => ({ type }));
    delete out.type;
    // A node that already has anyOf gets both: the type branches and its own, each of which must hold.
    if (out.anyOf === undefined) out.anyOf = branches;
    else out.allOf = [...((out.allOf as unknown[] | undefined) ?? []), { anyOf: branches }];
  }
  return out;
}
