import { useEffect, useState } from 'react';
import { TYPE_WORDS, type TypeWord } from '../../../shared/globs.ts';
import type { SearchFilters, SourceType } from '../../../shared/types.ts';
import { useApp } from './app.ts';

export interface FilterChoice {
  include: string[];
  exclude: string[];
  type: TypeWord | '';
}

export const NO_FILTERS: FilterChoice = { include: [], exclude: [], type: '' };

/** The API's filters for a choice, or undefined when nothing narrows the search. */
export function toApiFilters(f: FilterChoice): SearchFilters | undefined {
  if (f.include.length === 0 && f.exclude.length === 0 && f.type === '') return undefined;
  return {
    ...(f.include.length > 0 ? { include: f.include } : {}),
    ...(f.exclude.length > 0 ? { exclude: f.exclude } : {}),
    ...(f.type !== '' ? { types: [...TYPE_WORDS[f.type]] as SourceType[] } : {}),
  };
}

function read(key: string): FilterChoice {
  try {
    const v = JSON.parse(localStorage.getItem(key) ?? 'null') as Partial<FilterChoice> | null;
    if (!v) return NO_FILTERS;
    const list = (x: unknown) => (Array.isArray(x) ? x.filter((g): g is string => typeof g === 'string') : []);
    return { include: list(v.include), exclude: list(v.exclude), type: typeof v.type === 'string' && v.type in TYPE_WORDS ? (v.type as TypeWord) : '' };
  } catch {
    return NO_FILTERS;
  }
}

/**
 * A view's filter bar choice, remembered per project (localStorage, keyed by the database path) and per view, so
 * a project's `test/**` exclusion is there again next time and does not leak into another project.
 */
export function useRememberedFilters(scope: 'search' | 'packets'): [FilterChoice, (f: FilterChoice) => void] {
  const db = useApp((s) => s.info?.dbPath ?? '');
  const key = `contextpack.filters:${db}:${scope}`;
  const [value, setValue] = useState<FilterChoice>(() => read(key));
  useEffect(() => setValue(read(key)), [key]);
  const update = (f: FilterChoice) => {
    setValue(f);
    try {
      localStorage.setItem(key, JSON.stringify(f));
    } catch {
      // storage full or disabled: the choice still applies for this session
    }
  };
  return [value, update];
}
