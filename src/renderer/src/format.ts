import { provenance } from '../../shared/provenance.ts';

export const fmtBytes = (n: number): string =>
  n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`;

export const where = provenance;

export const shortHash = (h: string): string => h.slice(0, 12);
