// --path / --exclude / --type, the same on `search` and `pack` (and the API's filters.include / exclude / types).
import { GLOB_MAX, globError, TYPE_WORD_LIST, TYPE_WORDS, type TypeWord } from '../../../shared/globs.ts';
import type { SearchFilters, SourceType } from '../../../shared/types.ts';
import { CliError, type CommandContext, type Options } from '../command.ts';

export const FILTER_OPTIONS: Options = {
  path: { type: 'string', multiple: true },
  exclude: { type: 'string', multiple: true },
  type: { type: 'string', multiple: true },
};

export const FILTER_USAGE = `[--path GLOB]... [--exclude GLOB]... [--type ${TYPE_WORD_LIST.join('|')}]...`;

function globs(ctx: CommandContext, flag: string): string[] {
  const raw = ctx.values[flag];
  const list = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]) as string[];
  return list.map((g) => {
    const t = String(g).trim();
    if (t === '' || t.length > GLOB_MAX) throw new CliError(`--${flag} must be a glob of 1–${GLOB_MAX} characters, got ${JSON.stringify(g)}`);
    const error = flag === 'type' ? null : globError(t);
    if (error) throw new CliError(`--${flag}: ${error}`);
    return t;
  });
}

/** The filters the flags ask for, or undefined when none is given (so an unfiltered search stays on its fast path). */
export function filtersFromFlags(ctx: CommandContext): SearchFilters | undefined {
  const include = globs(ctx, 'path');
  const exclude = globs(ctx, 'exclude');
  const types = new Set<SourceType>();
  for (const word of globs(ctx, 'type')) {
    // Comma lists work too: --type md,code.
    for (const w of word.split(',').map((x) => x.trim()).filter(Boolean)) {
      if (!(TYPE_WORD_LIST as string[]).includes(w)) throw new CliError(`--type must be one of ${TYPE_WORD_LIST.join(', ')}, got ${JSON.stringify(w)}`);
      for (const t of TYPE_WORDS[w as TypeWord]) types.add(t);
    }
  }
  if (include.length === 0 && exclude.length === 0 && types.size === 0) return undefined;
  return {
    ...(include.length > 0 ? { include } : {}),
    ...(exclude.length > 0 ? { exclude } : {}),
    ...(types.size > 0 ? { types: [...types] } : {}),
  };
}
