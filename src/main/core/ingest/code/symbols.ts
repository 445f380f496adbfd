import type { Node } from 'web-tree-sitter';
import type { CodeLanguage } from './grammars.ts';

/**
 * A definition in a source file: its (qualified) name and its rows, 0-based and inclusive, widened to the comments,
 * doc comments, decorators and attributes right above it. Nested definitions are found only when asked for
 * (`children()`), because only a symbol too big for one chunk needs them.
 */
export interface CodeSymbol {
  name: string;
  startRow: number;
  endRow: number;
  children(): CodeSymbol[];
}

/** How one language names its definitions: node type → name (null: not a definition after all). */
interface LanguageSpec {
  /** `nested`: inside another definition, where object literals are data, not definitions. */
  definitions: Record<string, (n: Node, nested: boolean) => string | null>;
  /** Nodes looked through for definitions when they are not definitions themselves (statements, export wrappers). */
  transparent: Set<string>;
  /** Wrappers whose range is the definition's own (export, decorators): `field` holds the definition. */
  wrappers: Record<string, string>;
  /** Siblings right above a definition that belong to it. */
  leading: Set<string>;
  /** Where the nested definitions of a definition are (class body, impl body, function body). */
  bodyField: string;
}

const byName = (n: Node) => n.childForFieldName('name')?.text ?? null;

const JS_FUNCTION_VALUES = new Set(['arrow_function', 'function', 'function_expression', 'generator_function', 'class', 'object']);

/** `const f = () => …`, `let Foo = class …`, `const api = { … }`: the declarator's name when its value is a definition. */
function declaratorName(n: Node, nested: boolean): string | null {
  const decls = n.namedChildren.filter((c) => c?.type === 'variable_declarator');
  if (decls.length !== 1) return null;
  const value = decls[0]!.childForFieldName('value');
  if (!value || !JS_FUNCTION_VALUES.has(value.type) || (nested && value.type === 'object')) return null;
  return decls[0]!.childForFieldName('name')?.text ?? null;
}

/** `res.send = function send() {…}`, `module.exports = {…}`, `exports.x = () => …`, chained `a.x = a.y = function …`. */
function assignmentName(n: Node, nested: boolean): string | null {
  const expr = n.namedChildren[0];
  if (!expr || expr.type !== 'assignment_expression') return null;
  let right = expr.childForFieldName('right');
  // `res.contentType = res.type = function contentType() {…}`: named by the first target.
  while (right?.type === 'assignment_expression') right = right.childForFieldName('right');
  if (!right || !JS_FUNCTION_VALUES.has(right.type) || (nested && right.type === 'object')) return null;
  const left = expr.childForFieldName('left');
  return left && (left.type === 'member_expression' || left.type === 'identifier') ? left.text : null;
}

const JS_DEFINITIONS: LanguageSpec['definitions'] = {
  function_declaration: byName,
  generator_function_declaration: byName,
  class_declaration: byName,
  abstract_class_declaration: byName,
  class: byName,
  method_definition: byName,
  interface_declaration: byName,
  enum_declaration: byName,
  type_alias_declaration: byName,
  internal_module: byName,
  module: byName,
  lexical_declaration: declaratorName,
  variable_declaration: declaratorName,
  expression_statement: assignmentName,
  public_field_definition: (n) => (fieldValueIsFunction(n) ? byName(n) ?? n.childForFieldName('property')?.text ?? null : null),
  field_definition: (n) => (fieldValueIsFunction(n) ? n.childForFieldName('property')?.text ?? null : null),
  pair: (n) => {
    const v = n.childForFieldName('value');
    return v && v.type !== 'object' && JS_FUNCTION_VALUES.has(v.type) ? n.childForFieldName('key')?.text ?? null : null;
  },
};

function fieldValueIsFunction(n: Node): boolean {
  const v = n.childForFieldName('value');
  return v !== null && JS_FUNCTION_VALUES.has(v.type);
}

const JS: LanguageSpec = {
  definitions: JS_DEFINITIONS,
  transparent: new Set(['program', 'export_statement', 'statement_block', 'class_body', 'object', 'ambient_declaration', 'expression_statement', 'lexical_declaration', 'variable_declaration', 'variable_declarator', 'arrow_function', 'function_expression', 'function', 'parenthesized_expression', 'call_expression', 'arguments', 'assignment_expression']),
  wrappers: { export_statement: 'declaration', ambient_declaration: '' },
  leading: new Set(['comment', 'decorator']),
  bodyField: 'body',
};

const PYTHON: LanguageSpec = {
  definitions: { function_definition: byName, class_definition: byName },
  transparent: new Set(['module', 'block', 'if_statement', 'try_statement', 'with_statement', 'else_clause', 'except_clause', 'finally_clause', 'decorated_definition']),
  wrappers: { decorated_definition: 'definition' },
  leading: new Set(['comment']),
  bodyField: 'body',
};

/** `func (r *Router) Handle(…)` → `Router.Handle`. */
function goMethodName(n: Node): string | null {
  const name = byName(n);
  const recv = n.childForFieldName('receiver')?.text ?? '';
  const type = /([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[[^\]]*\])?\s*\)\s*$/.exec(recv)?.[1];
  return name && type ? `${type}.${name}` : name;
}

const GO: LanguageSpec = {
  definitions: {
    function_declaration: byName,
    method_declaration: goMethodName,
    type_declaration: (n) => n.namedChildren.find((c) => c?.type === 'type_spec')?.childForFieldName('name')?.text ?? null,
  },
  transparent: new Set(['source_file']),
  wrappers: {},
  leading: new Set(['comment']),
  bodyField: 'body',
};

/** `impl<T> Display for Wrapper<T>` → `Wrapper`; methods inside become `Wrapper.fmt`. */
function rustImplName(n: Node): string | null {
  const type = n.childForFieldName('type')?.text ?? null;
  return type ? type.replace(/<.*$/s, '').replace(/\s+/g, '') : null;
}

const RUST: LanguageSpec = {
  definitions: {
    function_item: byName,
    function_signature_item: byName,
    struct_item: byName,
    enum_item: byName,
    union_item: byName,
    trait_item: byName,
    impl_item: rustImplName,
    mod_item: byName,
    macro_definition: byName,
    type_item: byName,
  },
  transparent: new Set(['source_file', 'declaration_list']),
  wrappers: {},
  leading: new Set(['line_comment', 'block_comment', 'attribute_item', 'inner_attribute_item']),
  bodyField: 'body',
};

const JAVA: LanguageSpec = {
  definitions: {
    class_declaration: byName,
    interface_declaration: byName,
    enum_declaration: byName,
    record_declaration: byName,
    annotation_type_declaration: byName,
    method_declaration: byName,
    constructor_declaration: byName,
  },
  transparent: new Set(['program', 'class_body', 'interface_body', 'enum_body', 'enum_body_declarations']),
  wrappers: {},
  leading: new Set(['line_comment', 'block_comment']),
  bodyField: 'body',
};

const SPECS: Record<CodeLanguage, LanguageSpec> = { javascript: JS, typescript: JS, tsx: JS, python: PYTHON, go: GO, rust: RUST, java: JAVA };

/** The top-level definitions of a parsed file, in source order. */
export function topLevelSymbols(root: Node, lang: CodeLanguage): CodeSymbol[] {
  return collect(root, SPECS[lang], '');
}

// Deep nesting (minified or generated code) must not blow the stack or the time budget: past this depth a
// subtree is one opaque block.
const MAX_DEPTH = 12;

function collect(node: Node, spec: LanguageSpec, prefix: string, depth = 0): CodeSymbol[] {
  const out: CodeSymbol[] = [];
  if (depth > MAX_DEPTH) return out;
  for (const child of node.namedChildren) {
    if (!child) continue;
    const sym = asSymbol(child, spec, prefix, depth);
    if (sym) out.push(sym);
    else if (spec.transparent.has(child.type)) out.push(...collect(child, spec, prefix, depth + 1));
  }
  return out;
}

function asSymbol(node: Node, spec: LanguageSpec, prefix: string, depth: number): CodeSymbol | null {
  let def = node;
  const wrapped = spec.wrappers[node.type];
  if (wrapped !== undefined) {
    const inner = (wrapped ? node.childForFieldName(wrapped) : null) ?? node.namedChildren.find((c) => c !== null && spec.definitions[c.type] !== undefined) ?? null;
    if (!inner) return null;
    def = inner;
  }
  const namer = spec.definitions[def.type];
  if (!namer) return null;
  const raw = namer(def, prefix !== '');
  if (!raw) return null;
  const name = prefix + cleanName(raw);
  const startRow = leadingStart(node, spec);
  const body = def.childForFieldName(spec.bodyField) ?? (def.type === 'expression_statement' || def.type.endsWith('declaration') ? def : null);
  let kids: CodeSymbol[] | null = null;
  return {
    name,
    startRow,
    endRow: node.endPosition.row,
    children: () => (kids ??= body ? collect(body, spec, `${name}.`, depth + 1) : []),
  };
}

/** Names become anchors: no whitespace, no `#`, bounded length. */
function cleanName(raw: string): string {
  return raw.replace(/\s+/g, '').replace(/#/g, '').slice(0, 80);
}

/**
 * Comments, decorators and attributes right above belong to the definition; one blank line between is allowed
 * (Express-style JSDoc blocks are followed by an empty line).
 */
function leadingStart(node: Node, spec: LanguageSpec): number {
  let start = node.startPosition.row;
  let prev = node.previousNamedSibling;
  while (prev && spec.leading.has(prev.type) && prev.endPosition.row >= start - 2) {
    start = prev.startPosition.row;
    prev = prev.previousNamedSibling;
  }
  return start;
}
