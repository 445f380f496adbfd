import type { TranscriptProblem } from './types.ts';

/** The non-blank lines of a JSONL text parsed one by one; a line that is not a JSON object becomes a problem, the rest go on. */
export function jsonlRecords(text: string, problems: TranscriptProblem[]): { line: number; rec: Record<string, unknown> }[] {
  const out: { line: number; rec: Record<string, unknown> }[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim();
    if (raw === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      problems.push({ line: i + 1, message: `invalid JSON: ${(err as Error).message}` });
      continue;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      problems.push({ line: i + 1, message: 'expected a JSON object' });
      continue;
    }
    out.push({ line: i + 1, rec: value as Record<string, unknown> });
  }
  return out;
}

/**
 * The first parseable JSON objects, for content sniffing. Enough of them to get past the `summary` lines a resumed
 * Claude Code session starts with, but never more than the first 512 KB.
 */
export function firstRecords(text: string, n = 40): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let start = 0;
  const stop = Math.min(text.length, 512 * 1024);
  while (out.length < n && start < stop) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const raw = text.slice(start, end).trim();
    start = end + 1;
    if (raw === '' || raw[0] !== '{') continue;
    try {
      const v = JSON.parse(raw);
      if (v && typeof v === 'object' && !Array.isArray(v)) out.push(v as Record<string, unknown>);
    } catch {
      /* sniffing only: a bad line is reported by parse() */
    }
  }
  return out;
}

export const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
export const strOr = (v: unknown, fallback: string | null = null): string | null => (typeof v === 'string' ? v : fallback);

/** A timestamp as ISO 8601, or null when it is missing or unreadable. */
export function isoOrNull(v: unknown): string | null {
  if (typeof v !== 'string' && typeof v !== 'number') return null;
  const ms = typeof v === 'number' ? (v < 1e12 ? v * 1000 : v) : Date.parse(v);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}

/** Tool input shown compactly: a command or path when there is one, else the JSON. */
export function toolInputText(input: unknown): string {
  if (typeof input === 'string') return input;
  if (isObj(input)) {
    for (const k of ['command', 'cmd', 'file_path', 'path', 'pattern', 'query', 'url']) {
      const v = input[k];
      if (typeof v === 'string') return `${k}: ${v}`;
      if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return `${k}: ${v.join(' ')}`;
    }
  }
  try {
    return JSON.stringify(input ?? null);
  } catch {
    return String(input);
  }
}
