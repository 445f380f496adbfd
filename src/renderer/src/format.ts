export const fmtBytes = (n: number): string =>
  n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`;

export const where = (h: { path: string; anchor: string; lineStart: number; lineEnd: number }): string =>
  `${h.path}${h.anchor ? `#${h.anchor}` : ''}:${h.lineStart}-${h.lineEnd}`;

export const shortHash = (h: string): string => h.slice(0, 12);
