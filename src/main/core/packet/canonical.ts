import { createHash } from 'node:crypto';

/** NFC, \n line endings, no trailing spaces or tabs on any line: the text forms that hash alike. */
export function normalizeText(text: string): string {
  return stripLineEndBlanks(text.normalize('NFC').replace(/\r\n?/g, '\n'));
}

/**
 * Spaces and tabs at the end of every line dropped, in one pass: `/[ \t]+$/gm` retries from every blank of a run
 * that does not end a line, which is quadratic (40,000 spaces before a word took 4 s before the gate even ran).
 */
function stripLineEndBlanks(s: string): string {
  let out = '';
  let copied = 0;
  let blankFrom = -1;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 32 || c === 9) {
      if (blankFrom < 0) blankFrom = i;
      continue;
    }
    // The line ends the regex's `$` saw (multiline): \n and the Unicode line and paragraph separators.
    if (blankFrom >= 0 && (c === 10 || c === 0x2028 || c === 0x2029)) {
      out += s.slice(copied, blankFrom);
      copied = i;
    }
    blankFrom = -1;
  }
  if (blankFrom >= 0) return out + s.slice(copied, blankFrom);
  return copied === 0 ? s : out + s.slice(copied);
}

/**
 * Canonical JSON: object keys sorted by code unit, strings normalized, no whitespace. Numbers must be finite;
 * `undefined` members are left out (as JSON.stringify does), so optional fields never change a hash by presence.
 */
export function canonicalJson(value: unknown): string {
  return write(value, '$');
}

function write(value: unknown, at: string): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(normalizeText(value));
    case 'number':
      if (!Number.isFinite(value)) throw new Error(`canonicalJson: ${at} is not a finite number (${value})`);
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (Array.isArray(value)) return `[${value.map((v, i) => (v === undefined ? 'null' : write(v, `${at}[${i}]`))).join(',')}]`;
      if (value instanceof Uint8Array) throw new Error(`canonicalJson: ${at} is binary`);
      const keys = Object.keys(value).sort();
      const parts: string[] = [];
      for (const k of keys) {
        const v = (value as Record<string, unknown>)[k];
        if (v === undefined) continue;
        parts.push(`${JSON.stringify(normalizeText(k))}:${write(v, `${at}.${k}`)}`);
      }
      return `{${parts.join(',')}}`;
    }
    default:
      throw new Error(`canonicalJson: ${at} has unsupported type ${typeof value}`);
  }
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Short content digest for item-level diffs. */
export function digest16(text: string): string {
  return sha256Hex(normalizeText(text)).slice(0, 16);
}

/** Scores are rounded so the hash does not depend on the last bits of a float sum. */
export function roundScore(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/** Accepts `sha256:<hex>`, `<hex>`, or a unique prefix is handled by the store; here only the shape. */
export function parseHash(input: string): string {
  const h = input.trim().toLowerCase().replace(/^sha256:/, '');
  if (!/^[0-9a-f]{4,64}$/.test(h)) throw new Error(`not a snapshot hash: ${JSON.stringify(input)} (expected 64 hex digits, or a prefix of at least 4)`);
  return h;
}
