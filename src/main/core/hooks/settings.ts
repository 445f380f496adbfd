// Hook entries in an agent's settings file, added and taken out without touching anything else: other keys, other
// hooks, comments and formatting stay byte for byte (jsonc-edit.ts). An entry is ours only when its command is
// exactly one we write (`<command> hook <Event>`, with the optional `--project NAME` and the agent's flags), for a
// command the caller names: never because it merely contains those words.
import { join } from 'node:path';
import { appendMember, emptied, membersOf, newFile, nodeAt, parseSettingsTree, removeMember, SettingsFileError } from './jsonc-edit.ts';
import type { Node } from 'jsonc-parser';
import type { HookEvent } from './payload.ts';

export { SettingsFileError } from './jsonc-edit.ts';

export const HOOK_AGENTS = ['claude-code', 'codex'] as const;
export type HookAgent = (typeof HOOK_AGENTS)[number];

interface AgentHooks {
  /** The settings file, relative to the project folder or the home folder. */
  file: string;
  events: HookEvent[];
  /** Seconds the agent waits for the command (the hooks return in about a second; the agent's default is longer). */
  timeout: number;
  /** Flags for SessionStart: Codex validates SessionStart output as its JSON shape when it looks like JSON. */
  sessionStartFlags?: string;
}

/**
 * Claude Code: PreCompact, SessionStart (every source: the command tells them apart), SessionEnd, in
 * .claude/settings.json. Codex: the same shape in .codex/hooks.json, with Stop as its end of session (it has no
 * SessionEnd; Stop ends every turn, and re-recording a session replaces its summary).
 */
export const AGENT_HOOKS: Record<HookAgent, AgentHooks> = {
  'claude-code': { file: join('.claude', 'settings.json'), events: ['PreCompact', 'SessionStart', 'SessionEnd'], timeout: 30 },
  codex: { file: join('.codex', 'hooks.json'), events: ['PreCompact', 'SessionStart', 'Stop'], timeout: 30, sessionStartFlags: '--format json' },
};

/** The command line we write for one event. */
export function hookCommand(command: string, event: HookEvent, project?: string, agent?: HookAgent): string {
  const flags = agent && event === 'SessionStart' ? AGENT_HOOKS[agent].sessionStartFlags : undefined;
  return `${command} hook ${event}${project ? ` --project ${project}` : ''}${flags ? ` ${flags}` : ''}`;
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// A project name as checkProjectName accepts it (core/projects/layout.ts).
const PROJECT_FLAG = '(?: --project [A-Za-z0-9][A-Za-z0-9._-]{0,63})?';

/** Whether a handler's command is exactly one we write for `event`, with one of `commands` as its program. */
export function isOurHandler(h: unknown, commands: readonly string[], event: string): boolean {
  if (!h || typeof h !== 'object' || Array.isArray(h)) return false;
  const c = (h as { command?: unknown }).command;
  if (typeof c !== 'string') return false;
  const flags = event === 'SessionStart' ? '(?: --format json)?' : '';
  return commands.some((command) => new RegExp(`^${escapeRe(command)} hook ${escapeRe(event)}${PROJECT_FLAG}${flags}$`).test(c));
}

const kindOf = (n: Node | undefined): string => (n ? n.type : 'nothing');

/** The `hooks` object, refused (nothing changed) when any part of it is not the shape the agents document. */
function hooksNode(root: Node | null, file: string): Node | undefined {
  const hooks = nodeAt(root, ['hooks']);
  if (!hooks) return undefined;
  if (hooks.type !== 'object') throw new SettingsFileError(`${file}: "hooks" must be an object, found ${hooks.type}; nothing was changed`);
  for (const prop of membersOf(hooks)) {
    const event = prop.children![0]!.value as string;
    const groups = prop.children![1];
    if (groups?.type !== 'array') throw new SettingsFileError(`${file}: "hooks.${event}" must be a list; nothing was changed`);
    membersOf(groups).forEach((g, i) => {
      if (g.type !== 'object') throw new SettingsFileError(`${file}: "hooks.${event}[${i}]" must be an object, found ${g.type}; nothing was changed`);
      const handlers = nodeAt(g, ['hooks']);
      if (handlers && handlers.type !== 'array') throw new SettingsFileError(`${file}: "hooks.${event}[${i}].hooks" must be a list, found ${kindOf(handlers)}; nothing was changed`);
    });
  }
  return hooks;
}

/** A handler node as the plain { command } isOurHandler reads. */
const handlerValue = (n: Node): { command?: string } | undefined => {
  const cmd = n.type === 'object' ? nodeAt(n, ['command']) : undefined;
  return n.type === 'object' ? { command: cmd?.type === 'string' ? (cmd.value as string) : undefined } : undefined;
};
const NONE = { type: 'array', offset: 0, length: 0, children: [] } as unknown as Node;

/** The settings text with our entries added where missing (already present: the text unchanged). */
export function installHooks(text: string, file: string, agent: HookAgent, command: string, project?: string): string {
  const spec = AGENT_HOOKS[agent];
  const group = (event: HookEvent) => ({ hooks: [{ type: 'command', command: hookCommand(command, event, project, agent), timeout: spec.timeout }] });
  let root = parseSettingsTree(text, file);
  let hooks = hooksNode(root, file);
  const has = (event: HookEvent): boolean => {
    const want = hookCommand(command, event, project, agent);
    const groups = nodeAt(hooks, [event]);
    return membersOf(groups ?? NONE).some((g) => membersOf(nodeAt(g, ['hooks']) ?? NONE).some((h) => handlerValue(h)?.command === want));
  };
  const missing = spec.events.filter((e) => !has(e));
  if (missing.length === 0) return text;
  if (!root) return newFile({ hooks: Object.fromEntries(missing.map((e) => [e, [group(e)]])) });
  if (!hooks) return appendMember(text, root, Object.fromEntries(missing.map((e) => [e, [group(e)]])), 'hooks');
  let out = text;
  for (const event of missing) {
    const groups = nodeAt(hooks, [event]);
    out = groups ? appendMember(out, groups, group(event)) : appendMember(out, hooks!, [group(event)], event);
    root = parseSettingsTree(out, file);
    hooks = hooksNode(root, file);
  }
  return out;
}

/**
 * The settings text without our entries (those whose command is exactly one we write with one of `commands`); a group
 * our handler leaves empty goes, then an event left empty, then `hooks` left empty. Nothing else changes. (The one
 * case that does not come back byte for byte: an event list or `hooks` object that was already empty before install
 * goes with our entries, since nothing tells it from one install made.)
 */
export function uninstallHooks(text: string, file: string, commands: readonly string[] = ['contextpack']): string {
  let out = text;
  // One removal at a time, re-reading the tree after each: offsets move.
  for (;;) {
    const root = parseSettingsTree(out, file);
    const hooks = hooksNode(root, file);
    if (!hooks) return emptied(out, text);
    let next: string | null = null;
    for (const prop of membersOf(hooks)) {
      const event = prop.children![0]!.value as string;
      const groups = prop.children![1]!;
      for (const g of membersOf(groups)) {
        const handlers = nodeAt(g, ['hooks']);
        const ours = membersOf(handlers ?? NONE).find((h) => isOurHandler(handlerValue(h), commands, event));
        if (!ours || !handlers) continue;
        const onlyOne = membersOf(handlers).length === 1;
        const onlyOurKeys = membersOf(g).every((p) => ['hooks', 'matcher'].includes(p.children![0]!.value as string));
        if (!onlyOne || !onlyOurKeys) next = removeMember(out, handlers, ours);
        else if (membersOf(groups).length > 1) next = removeMember(out, groups, g);
        else if (membersOf(hooks).length > 1) next = removeMember(out, hooks, prop);
        else next = removeMember(out, root!, nodeAt(root, ['hooks'])!.parent!);
        break;
      }
      if (next !== null) break;
    }
    if (next === null) return emptied(out, text);
    out = next;
  }
}

/** A line diff (longest common subsequence), changed lines with up to 3 lines of context, `…` between hunks. */
export function lineDiff(before: string, after: string, file: string): string {
  const a = before === '' ? [] : before.replace(/\n$/, '').split('\n');
  const b = after === '' ? [] : after.replace(/\n$/, '').split('\n');
  const n = a.length;
  const m = b.length;
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const ops: [' ' | '-' | '+', string][] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) ops.push([' ', a[i++]!]), j++;
    // Removals before additions, as a reader expects a changed line to show.
    else if (i < n && (j >= m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) ops.push(['-', a[i++]!]);
    else ops.push(['+', b[j++]!]);
  }
  const show = ops.map((op, k) => op[0] !== ' ' || ops.slice(Math.max(0, k - 3), k + 4).some((o) => o[0] !== ' '));
  const lines = [`--- ${before === '' ? '/dev/null' : file}`, `+++ ${file}`];
  ops.forEach((op, k) => {
    if (show[k]) lines.push(`${op[0]}${op[1]}`);
    else if (k > 0 && show[k - 1]) lines.push('…');
  });
  return lines.join('\n') + '\n';
}
