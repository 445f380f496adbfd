// ContextPack's MCP server entry in an agent's configuration: added and removed byte-exactly (jsonc-edit.ts for the
// JSON files, one exact block for Codex's TOML). The entry is ours when it is named "contextpack" and runs exactly one
// of the commands the caller knows as ours with `mcp` (and an optional `--project NAME`); another entry of that name
// is somebody else's, and is refused rather than replaced.
import { isDeepStrictEqual } from 'node:util';
import type { Node } from 'jsonc-parser';
import { appendMember, emptied, membersOf, newFile, nodeAt, parseSettingsTree, removeMember, SettingsFileError, valueAt } from './jsonc-edit.ts';

export const SERVER_NAME = 'contextpack';

/** How each agent's MCP file holds its servers. */
export type McpFormat = { kind: 'json'; container: 'mcpServers' | 'servers'; stdioType: boolean } | { kind: 'toml' };

export const MCP_FORMATS = {
  // Claude Code's .mcp.json and ~/.claude.json, Cursor's mcp.json: { "mcpServers": { name: { command, args } } }.
  claude: { kind: 'json', container: 'mcpServers', stdioType: false },
  // VS Code's .vscode/mcp.json: { "servers": { name: { "type": "stdio", command, args } } }.
  vscode: { kind: 'json', container: 'servers', stdioType: true },
  // Codex's config.toml: [mcp_servers.name] command = "…" args = […].
  codex: { kind: 'toml' },
} as const satisfies Record<string, McpFormat>;

/** The server entry for a program's argv (`[program, ...args]`), with `mcp` and the project appended. */
export function serverArgv(base: readonly string[], project?: string): string[] {
  return [...base, 'mcp', ...(project ? ['--project', project] : [])];
}

function entryFor(format: McpFormat, argv: readonly string[]): Record<string, unknown> {
  const [command, ...args] = argv;
  return format.kind === 'json' && format.stdioType ? { type: 'stdio', command, args } : { command, args };
}

/** Whether an entry runs `mcp` through one of `bases`, exactly (an optional `--project NAME` after it). */
function isOurEntry(value: unknown, bases: readonly (readonly string[])[]): boolean {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const { command, args, type, ...rest } = value as Record<string, unknown>;
  if (Object.keys(rest).some((k) => k !== 'env') || (type !== undefined && type !== 'stdio')) return false;
  if (typeof command !== 'string' || !Array.isArray(args) || !args.every((a) => typeof a === 'string')) return false;
  const argv = [command, ...(args as string[])];
  return bases.some((b) => {
    if (argv.length < b.length + 1 || !isDeepStrictEqual(argv.slice(0, b.length), b) || argv[b.length] !== 'mcp') return false;
    const tail = argv.slice(b.length + 1);
    return tail.length === 0 || (tail.length === 2 && tail[0] === '--project' && /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(tail[1]!));
  });
}

function describe(value: unknown): string {
  const v = value as { command?: unknown; args?: unknown };
  return typeof v?.command === 'string' ? [v.command, ...(Array.isArray(v.args) ? v.args : [])].join(' ') : JSON.stringify(value);
}

/**
 * The file's text with our server registered to run `argv`. Already there exactly: unchanged. An older entry of ours
 * (another command or project): replaced. Somebody else's entry of that name: refused.
 */
export function installMcpServer(text: string, file: string, format: McpFormat, argv: readonly string[], ours: readonly (readonly string[])[]): string {
  if (format.kind === 'toml') return installToml(text, file, argv, ours);
  const entry = entryFor(format, argv);
  let root = parseSettingsTree(text, file);
  if (!root) return newFile({ [format.container]: { [SERVER_NAME]: entry } });
  let servers = nodeAt(root, [format.container]);
  if (!servers) return appendMember(text, root, { [SERVER_NAME]: entry }, format.container);
  if (servers.type !== 'object') throw new SettingsFileError(`${file}: "${format.container}" must be an object, found ${servers.type}; nothing was changed`);
  let out = text;
  const current = nodeAt(servers, [SERVER_NAME]);
  if (current) {
    const value = valueAt(servers, [SERVER_NAME]);
    if (isDeepStrictEqual(value, entry)) return text;
    if (!isOurEntry(value, ours)) {
      throw new SettingsFileError(`${file}: an MCP server named "${SERVER_NAME}" is already there and runs \`${describe(value)}\`, which is not ours; rename or remove it first, nothing was changed`);
    }
    out = removeMember(out, servers, current.parent!);
    root = parseSettingsTree(out, file)!;
    servers = nodeAt(root, [format.container])!;
  }
  return appendMember(out, servers, entry, SERVER_NAME);
}

/** The file's text without our server entry; a servers object left empty goes too, and a file left empty is ''. */
export function uninstallMcpServer(text: string, file: string, format: McpFormat, ours: readonly (readonly string[])[]): string {
  if (format.kind === 'toml') return uninstallToml(text, ours);
  const root = parseSettingsTree(text, file);
  const servers = nodeAt(root, [format.container]);
  const current = servers ? nodeAt(servers, [SERVER_NAME]) : undefined;
  if (!root || !servers || !current || !isOurEntry(valueAt(servers, [SERVER_NAME]), ours)) return text;
  const out = membersOf(servers).length > 1 ? removeMember(text, servers, current.parent!) : removeMember(text, root, servers.parent as Node);
  return emptied(out, text);
}

// Codex's TOML: our entry is one block we write whole, found again by its exact text.
const tomlString = (s: string): string => JSON.stringify(s);
const tomlBlock = (argv: readonly string[]): string => `[mcp_servers.${SERVER_NAME}]\ncommand = ${tomlString(argv[0]!)}\nargs = [${argv.slice(1).map(tomlString).join(', ')}]\n`;
const TOML_HEADER = new RegExp(`^[ \\t]*\\[[ \\t]*mcp_servers[ \\t]*\\.[ \\t]*"?${SERVER_NAME}"?[ \\t]*\\]`, 'm');

function ourTomlBlock(text: string, ours: readonly (readonly string[])[]): { at: number; block: string } | null {
  for (const base of ours) {
    for (const project of [undefined, ...projectsNamed(text)]) {
      const block = tomlBlock(serverArgv(base, project));
      const at = text.indexOf(block);
      if (at >= 0 && (at === 0 || text[at - 1] === '\n')) return { at, block };
    }
  }
  return null;
}

function projectsNamed(text: string): string[] {
  return [...text.matchAll(/"--project", "([A-Za-z0-9][A-Za-z0-9._-]{0,63})"\]/g)].map((m) => m[1]!);
}

function installToml(text: string, file: string, argv: readonly string[], ours: readonly (readonly string[])[]): string {
  const block = tomlBlock(argv);
  if (text.includes(block)) return text;
  let out = text;
  if (TOML_HEADER.test(text)) {
    const old = ourTomlBlock(text, ours);
    if (!old) throw new SettingsFileError(`${file}: an MCP server named "${SERVER_NAME}" is already configured there, and not by us; rename or remove it first, nothing was changed`);
    out = uninstallToml(text, ours);
  }
  const sep = out === '' ? '' : out.endsWith('\n') ? '\n' : '\n\n';
  return out + sep + block;
}

function uninstallToml(text: string, ours: readonly (readonly string[])[]): string {
  const found = ourTomlBlock(text, ours);
  if (!found) return text;
  const { at, block } = found;
  // The blank line install put before the block goes with it.
  const from = at >= 2 && text[at - 1] === '\n' && text[at - 2] === '\n' ? at - 1 : at;
  return text.slice(0, from) + text.slice(at + block.length);
}
