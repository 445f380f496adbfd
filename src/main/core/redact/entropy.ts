/** Shannon entropy in bits per character (0 for the empty string). */
export function shannonEntropy(value: string): number {
  if (value.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let length = 0;
  for (const n of counts.values()) length += n;
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / length;
    bits -= p * Math.log2(p);
  }
  return bits;
}
