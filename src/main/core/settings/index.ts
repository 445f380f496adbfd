// Project settings (migration 80): small, validated values the user sets once per project and the engine honours.
import type { Database } from 'better-sqlite3';
import { GLOB_MAX, globError } from '../../../shared/globs.ts';

export interface ProjectSettings {
  /** Globs (src/shared/globs.ts) left out of packet evidence unless a request turns it off, e.g. `test/**`. */
  evidenceExclude: string[];
  /** Token budget of what the SessionStart hook puts in an agent's context (issue #33: small by default). */
  sessionStartTokens: number;
}

/** SessionStart's default budget: the task, what remains and the agent's last report fit; the rest is a tool call away. */
export const DEFAULT_SESSION_START_TOKENS = 1_500;
/** Claude Code inlines about 10,000 characters of hook output: ~2,400 tokens at 4 characters a token, with room. */
export const SESSION_START_TOKENS_RANGE: readonly [number, number] = [200, 2_400];

export const DEFAULT_SETTINGS: ProjectSettings = { evidenceExclude: [], sessionStartTokens: DEFAULT_SESSION_START_TOKENS };

function cleanTokens(v: unknown): number {
  const [min, max] = SESSION_START_TOKENS_RANGE;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw new SettingsError('sessionStartTokens', `must be a whole number from ${min} to ${max}`);
  return v;
}

export class SettingsError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(`${field}: ${message}`);
    this.field = field;
    this.name = 'SettingsError';
  }
}

/** One glob list, trimmed, de-duplicated, order kept; the error names the entry. */
export function cleanGlobs(field: string, globs: readonly unknown[]): string[] {
  const out: string[] = [];
  globs.forEach((g, i) => {
    if (typeof g !== 'string') throw new SettingsError(`${field}[${i}]`, 'must be a string');
    const t = g.trim();
    if (t === '') return;
    if (t.length > GLOB_MAX) throw new SettingsError(`${field}[${i}]`, `longer than ${GLOB_MAX} characters`);
    if (/[\r\n\0]/.test(t)) throw new SettingsError(`${field}[${i}]`, 'must be one line');
    const error = globError(t);
    if (error) throw new SettingsError(`${field}[${i}]`, error);
    if (!out.includes(t)) out.push(t);
  });
  if (out.length > 100) throw new SettingsError(field, 'at most 100 globs');
  return out;
}

export function getSettings(db: Database): ProjectSettings {
  const rows = db.prepare('SELECT key, value FROM settings').all() as { key: string; value: string }[];
  const out: ProjectSettings = { ...DEFAULT_SETTINGS };
  for (const r of rows) {
    if (r.key === 'sessionStartTokens') {
      try {
        out.sessionStartTokens = cleanTokens(JSON.parse(r.value));
      } catch {
        // a hand-edited, unreadable value leaves the default
      }
    }
    if (r.key === 'evidenceExclude') {
      try {
        out.evidenceExclude = cleanGlobs('evidenceExclude', JSON.parse(r.value) as unknown[]);
      } catch {
        // a hand-edited, unreadable value is ignored rather than blocking every packet
      }
    }
  }
  return out;
}

export function updateSettings(db: Database, patch: Partial<ProjectSettings>, now: () => Date = () => new Date()): ProjectSettings {
  const put = db.prepare('INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at');
  db.transaction(() => {
    if (patch.evidenceExclude !== undefined) put.run('evidenceExclude', JSON.stringify(cleanGlobs('evidenceExclude', patch.evidenceExclude)), now().toISOString());
    if (patch.sessionStartTokens !== undefined) put.run('sessionStartTokens', JSON.stringify(cleanTokens(patch.sessionStartTokens)), now().toISOString());
  }).immediate();
  return getSettings(db);
}
