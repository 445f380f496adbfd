// Byte-exact edits of an agent's JSON/JSONC settings file (Claude Code's settings.json and .mcp.json, Codex's
// hooks.json, Cursor's and VS Code's mcp.json). jsonc-parser finds where things are; the edits are ours and touch
// only the text of the member we add or remove: a member is appended after the container's last one with the
// separator and indentation of its neighbours, and removing it takes away exactly that separator and text again.
// So install-then-uninstall gives the file back byte for byte: comments, one-line groups, trailing commas, tabs,
// CRLF and other tools' entries stay as they were. (jsonc-parser's own `modify` re-formats the whole lines it
// touches, which is how a one-line file came back as fifteen lines.)
import { findNodeAtLocation, getNodeValue, parseTree, printParseErrorCode, type JSONPath, type Node, type ParseError } from 'jsonc-parser';

export class SettingsFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingsFileError';
  }
}

const lineOf = (text: string, offset: number): number => text.slice(0, offset).split('\n').length;

/**
 * The file's syntax tree, refused (with the file and line) when it is not valid JSONC, its top is not an object, or
 * any object repeats a key: JSON readers keep one of the two, so what we add could land in the one the agent ignores.
 */
export function parseSettingsTree(text: string, file: string): Node | null {
  if (text.trim() === '') return null;
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0 || !root) {
    const e = errors[0];
    const where = e ? `:${lineOf(text, e.offset)}` : '';
    throw new SettingsFileError(`${file}${where}: not valid JSON (${e ? printParseErrorCode(e.error) : 'empty'}); fix it first, nothing was changed`);
  }
  if (root.type !== 'object') throw new SettingsFileError(`${file}: expected a JSON object at the top, found ${root.type}; nothing was changed`);
  checkDuplicateKeys(root, text, file);
  return root;
}

function checkDuplicateKeys(node: Node, text: string, file: string, path: string[] = []): void {
  if (node.type === 'object') {
    const seen = new Set<string>();
    for (const prop of node.children ?? []) {
      const key = prop.children?.[0]?.value as string;
      if (seen.has(key)) {
        const at = [...path, key].join('.');
        throw new SettingsFileError(`${file}:${lineOf(text, prop.offset)}: the key "${at}" appears twice (JSON readers keep only one); merge them first, nothing was changed`);
      }
      seen.add(key);
      if (prop.children?.[1]) checkDuplicateKeys(prop.children[1], text, file, [...path, key]);
    }
  } else if (node.type === 'array') {
    (node.children ?? []).forEach((c, i) => checkDuplicateKeys(c, text, file, [...path, String(i)]));
  }
}

export const valueAt = (root: Node | null | undefined, path: JSONPath): unknown => {
  const n = root ? findNodeAtLocation(root, path) : undefined;
  return n ? getNodeValue(n) : undefined;
};

export const nodeAt = (root: Node | null | undefined, path: JSONPath): Node | undefined => (root ? findNodeAtLocation(root, path) : undefined);

/** The members of an object (its property nodes) or an array (its element nodes). */
export const membersOf = (container: Node): Node[] => container.children ?? [];

const end = (n: Node): number => n.offset + n.length;

/** The whitespace before `offset` when nothing else precedes it on its line; null when the line has other text first. */
function indentBefore(text: string, offset: number): string | null {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  const lead = text.slice(start, offset);
  return /^[ \t]*$/.test(lead) ? lead : null;
}

/** The leading whitespace of the line holding `offset`. */
function lineIndent(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start))![0];
}

/** One level of the file's indentation: the first indented line's, else two spaces. */
function indentUnit(text: string): string {
  return /\n([ \t]+)\S/.exec(text)?.[1] ?? '  ';
}

const eolOf = (text: string): string => (text.includes('\r\n') ? '\r\n' : '\n');

function render(value: unknown, key: string | undefined, indent: string, unit: string, eol: string): string {
  const body = JSON.stringify(value, null, unit).split('\n').join(eol + indent);
  return key === undefined ? body : `${JSON.stringify(key)}: ${body}`;
}

function renderInline(value: unknown, key: string | undefined): string {
  // One line, spaced like hand-written JSON: {"a": 1, "b": [2, 3]}.
  const compact = JSON.stringify(value);
  let body = '';
  let inString = false;
  for (let i = 0; i < compact.length; i++) {
    const c = compact[i]!;
    body += c;
    if (inString) {
      if (c === '\\') body += compact[++i] ?? '';
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === ':' || c === ',') body += ' ';
  }
  return key === undefined ? body : `${JSON.stringify(key)}: ${body}`;
}

/**
 * `text` with `value` appended as the last member of the container (an object when `key` is given, else an array):
 * after the last member with that member's separator style (on its own line with its indentation, or inline), or
 * inside an empty container.
 */
export function appendMember(text: string, container: Node, value: unknown, key?: string): string {
  const members = membersOf(container);
  const eol = eolOf(text);
  const unit = indentUnit(text);
  if (members.length > 0) {
    const last = members[members.length - 1]!;
    const indent = indentBefore(text, last.offset);
    const insert = indent === null ? `, ${renderInline(value, key)}` : `,${eol}${indent}${render(value, key, indent, unit, eol)}`;
    return text.slice(0, end(last)) + insert + text.slice(end(last));
  }
  const open = container.offset + 1;
  const close = end(container) - 1;
  // An empty container on a line of its own text (a one-line file) stays one line.
  const multiLine = text.trim().includes('\n');
  const outer = lineIndent(text, container.offset);
  const inner = multiLine ? `${eol}${outer}${unit}${render(value, key, outer + unit, unit, eol)}${eol}${outer}` : renderInline(value, key);
  return text.slice(0, open) + inner + text.slice(close);
}

/**
 * `text` without one member of a container: the separator before it goes with it (after the first member, the
 * separator after it), so that removing what appendMember added restores the text exactly.
 */
export function removeMember(text: string, container: Node, member: Node): string {
  const members = membersOf(container);
  const i = members.indexOf(member);
  if (i < 0) throw new Error('removeMember: not a member of this container');
  if (members.length === 1) return text.slice(0, container.offset + 1) + text.slice(end(container) - 1);
  if (i > 0) return text.slice(0, end(members[i - 1]!)) + text.slice(end(member));
  return text.slice(0, member.offset) + text.slice(members[1]!.offset);
}

/** A new file holding just `value` (an object), two-space indented. */
export const newFile = (value: Record<string, unknown>): string => JSON.stringify(value, null, 2) + '\n';

/** '' for a file our removal left as a bare `{}` (the caller removes the file we made), else the text. */
export const emptied = (out: string, before: string): string => (out !== before && out.trim() === '{}' ? '' : out);
