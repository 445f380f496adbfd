import type { SearchFilters } from '../../../shared/types.ts';
import { filterDateMs } from '../../../shared/filters.ts';
import { PATH_FILTER_FN } from './functions.ts';

// Search filters as SQL over sources: in the store so that every retriever (BM25 in search, KNN in vectors) builds
// the same WHERE clause from one place.

export interface FilterSql {
  where: string;
  params: unknown[];
}

export function filterSql(filters: SearchFilters | undefined): FilterSql {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filters?.pathGlob) {
    where.push('s.path GLOB ?');
    params.push(filters.pathGlob);
  }
  const include = filters?.include ?? [];
  const exclude = [...(filters?.exclude ?? []), ...(filters?.excludeDefault ?? [])];
  if (include.length > 0 || exclude.length > 0) {
    where.push(`${PATH_FILTER_FN}(?, ?, s.path, s.root) = 1`);
    params.push(JSON.stringify(include), JSON.stringify(exclude));
  }
  if (filters?.types && filters.types.length > 0) {
    where.push(`s.type IN (${filters.types.map(() => '?').join(', ')})`);
    params.push(...filters.types);
  }
  if (filters?.modifiedAfter) {
    where.push('s.mtime_ms >= ?');
    params.push(parseDate(filters.modifiedAfter, 'modifiedAfter'));
  }
  if (filters?.modifiedBefore) {
    where.push('s.mtime_ms < ?');
    params.push(parseDate(filters.modifiedBefore, 'modifiedBefore'));
  }
  return { where: where.length > 0 ? where.join(' AND ') : '1', params };
}

function parseDate(value: string, field: string): number {
  const ms = filterDateMs(value);
  if (ms === null) throw new Error(`filters.${field}: not a date: ${JSON.stringify(value)}`);
  return ms;
}

export function hasFilters(filters: SearchFilters | undefined): boolean {
  return filterSql(filters).params.length > 0;
}
