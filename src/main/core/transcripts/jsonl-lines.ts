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

let lastArray: { text: string; value: unknown[] | null } | null = null;

/** Lets go of the array jsonArray kept (parseTranscript calls it once a transcript is read). */
export function forgetJsonArray(): void {
  lastArray = null;
}

/**
 * The text parsed as one JSON array, or null when it is not one (a JSONL file, a Markdown file). The last answer is
 * kept: detection asks for the same text once per parser, then the parser once more.
 */
export function jsonArray(text: string): unknown[] | null {
  const head = text.trimStart();
  if (head[0] !== '[') return null;
  if (lastArray?.text === text) return lastArray.value;
  let value: unknown[] | null = null;
  try {
    const v = JSON.parse(head) as unknown;
    value = Array.isArray(v) ? v : null;
  } catch {
    value = null;
  }
  lastArray = { text, value };
  return value;
}

/**
 * The 1-based line of the file where each top-level element of a JSON array starts (provenance for pretty-printed
 * arrays). Given the whole file: blank lines before the `[` count, as they do for the reader.
 */
export function arrayElementLines(text: string): number[] {
  const out: number[] = [];
  let line = 1;
  let depth = 0;
  let inString = false;
  let pendingValue = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) line++;
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped char
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) {
      if (depth === 1 && pendingValue) out.push(line), (pendingValue = false);
      inString = true;
    } else if (c === 91 || c === 123) {
      if (depth === 1 && pendingValue) out.push(line), (pendingValue = false);
      depth++;
    } else if (c === 93 || c === 125) depth--;
    else if (c === 44 && depth === 1) pendingValue = true;
    else if (depth === 1 && pendingValue && c > 32) out.push(line), (pendingValue = false);
  }
  return out;
}

/**
 * Entries of a JSONL file or of one JSON array of the same objects: `line` is the entry's line in the file either
 * way. Array elements that are not objects become problems, like bad JSONL lines.
 */
export function jsonEntries(text: string, problems: TranscriptProblem[]): { line: number; rec: Record<string, unknown> }[] {
  const arr = jsonArray(text);
  if (!arr) return jsonlRecords(text, problems);
  const lines = arrayElementLines(text);
  const out: { line: number; rec: Record<string, unknown> }[] = [];
  arr.forEach((v, i) => {
    const line = lines[i] ?? i + 1;
    if (isObj(v)) out.push({ line, rec: v });
    else problems.push({ line, message: 'expected a JSON object in the array' });
  });
  return out;
}

/** The first entries for sniffing: JSONL lines, or the first elements of a JSON array. */
export function firstEntries(text: string, n = 40): Record<string, unknown>[] {
  const head = text.trimStart();
  if (head[0] === '[') {
    const arr = jsonArray(head);
    return arr ? arr.slice(0, n).filter(isObj) : [];
  }
  return firstRecords(text, n);
}
