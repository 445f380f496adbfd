/** Shannon entropy in bits per character (0 for the empty string). */
export function shannonEntropy(value: string): number {
  if (value.length === 0) return 0;
  // ASCII counted in an array (one pass, no Map per character: values can be a megabyte long), the rest by code point.
  const ascii = new Uint32Array(128);
  let others: Map<number, number> | null = null;
  let length = 0;
  for (let i = 0; i < value.length; i++) {
    let c = value.charCodeAt(i);
    length++;
    if (c < 128) {
      ascii[c]!++;
      continue;
    }
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < value.length) {
      const low = value.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        c = (c - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
        i++;
      }
    }
    others ??= new Map();
    others.set(c, (others.get(c) ?? 0) + 1);
  }
  let bits = 0;
  const add = (n: number) => {
    const p = n / length;
    bits -= p * Math.log2(p);
  };
  for (const n of ascii) if (n > 0) add(n);
  if (others) for (const n of others.values()) add(n);
  return bits;
}
