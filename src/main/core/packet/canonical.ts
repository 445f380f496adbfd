import { createHash } from 'node:crypto';

/** NFC, \n line endings, no trailing spaces or tabs on any line: the text forms that hash alike. */
export function normalizeText(text: string): string {
  return text
    .normalize('NFC')
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t]+$/gm, '');
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
