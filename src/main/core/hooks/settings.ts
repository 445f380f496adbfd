// Hook entries in an agent's settings file, merged in and taken out without touching anything else: other keys,
// other hooks, comments and formatting stay as they were (jsonc-parser edits the text in place). An entry is ours
// when its command runs `contextpack … hook <Event>`; uninstall removes exactly those.
import { applyEdits, modify, parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { join } from 'node:path';
import type { HookEvent } from './payload.ts';

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

export class SettingsFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingsFileError';
  }
}

interface Handler {
  type?: unknown;
  command?: unknown;
  [k: string]: unknown;
}
interface Group {
  matcher?: unknown;
  hooks?: unknown;
  [k: string]: unknown;
}

const OURS = /(?:^|[\s/\\"'])(?:contextpack(?:\.cmd|\.mjs)?|bin\.mjs)["']?\s+(?:.*\s)?hook\s+(PreCompact|SessionStart|SessionEnd|Stop)\b/;

export function isOurHandler(h: unknown, command?: string): boolean {
  if (!h || typeof h !== 'object') return false;
  const c = (h as Handler).command;
  if (typeof c !== 'string') return false;
  return OURS.test(c) || (command !== undefined && c.startsWith(`${command} hook `));
}

export function hookCommand(command: string, event: HookEvent, project?: string): string {
  return `${command} hook ${event}${project ? ` --project ${project}` : ''}`;
}

const FORMAT = { formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' } };

function parseSettings(text: string, file: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  const errors: ParseError[] = [];
  const v = parse(text, errors, { allowTrailingComma: true });
  if (errors.length > 0) {
    const e = errors[0]!;
    const line = text.slice(0, e.offset).split('\n').length;
    throw new SettingsFileError(`${file}:${line}: not valid JSON (${printParseErrorCode(e.error)}); fix it first, nothing was changed`);
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new SettingsFileError(`${file}: expected a JSON object at the top; nothing was changed`);
  const hooks = (v as Record<string, unknown>).hooks;
  if (hooks !== undefined && (!hooks || typeof hooks !== 'object' || Array.isArray(hooks))) throw new SettingsFileError(`${file}: "hooks" must be an object; nothing was changed`);
  for (const [event, groups] of Object.entries((hooks as Record<string, unknown>) ?? {})) {
    if (!Array.isArray(groups)) throw new SettingsFileError(`${file}: "hooks.${event}" must be a list; nothing was changed`);
  }
  return v as Record<string, unknown>;
}

const groupsOf = (settings: Record<string, unknown>, event: string): Group[] => (((settings.hooks as Record<string, unknown> | undefined)?.[event] as Group[] | undefined) ?? []);
const handlersOf = (g: Group): unknown[] => (Array.isArray(g?.hooks) ? g.hooks : []);

/** The settings text with our entries added where missing (already present: the text unchanged). */
export function installHooks(text: string, file: string, agent: HookAgent, command: string, project?: string): string {
  const settings = parseSettings(text, file);
  const spec = AGENT_HOOKS[agent];
  let out = text.trim() === '' ? '{}\n' : text;
  for (const event of spec.events) {
    const want = hookCommand(command, event, project) + (event === 'SessionStart' && spec.sessionStartFlags ? ` ${spec.sessionStartFlags}` : '');
    if (groupsOf(settings, event).some((g) => handlersOf(g).some((h) => (h as Handler).command === want))) continue;
    const group = { hooks: [{ type: 'command', command: want, timeout: spec.timeout }] };
    const exists = Array.isArray(((parseSettings(out, file).hooks as Record<string, unknown> | undefined) ?? {})[event]);
    out = applyEdits(out, exists ? modify(out, ['hooks', event, -1], group, { ...FORMAT, isArrayInsertion: true }) : modify(out, ['hooks', event], [group], FORMAT));
  }
  return out;
}

/** The settings text without our entries; groups and events left empty by that go too, nothing else changes. */
export function uninstallHooks(text: string, file: string, command?: string): string {
  const settings = parseSettings(text, file);
  let out = text;
  const hooks = (settings.hooks as Record<string, Group[]> | undefined) ?? {};
  for (const event of Object.keys(hooks)) {
    const groups = hooks[event]!;
    if (!groups.some((g) => handlersOf(g).some((h) => isOurHandler(h, command)))) continue;
    const kept: Group[] = [];
    for (const g of groups) {
      const handlers = handlersOf(g);
      const rest = handlers.filter((h) => !isOurHandler(h, command));
      if (rest.length === handlers.length) kept.push(g);
      else if (rest.length > 0) kept.push({ ...g, hooks: rest });
    }
    out = applyEdits(out, modify(out, ['hooks', event], kept.length ? kept : undefined, FORMAT));
  }
  const after = parseSettings(out, file);
  if (after.hooks && Object.keys(after.hooks as object).length === 0 && settings.hooks && Object.keys(hooks).length > 0) out = applyEdits(out, modify(out, ['hooks'], undefined, FORMAT));
  return out;
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
