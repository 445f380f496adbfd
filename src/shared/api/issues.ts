import type { z } from 'zod';
import type { FieldIssue } from '../memory.ts';

type Issue = z.core.$ZodIssue;

/** A union's problems: those of the branch the value was meant for (the one not refused for its type alone). */
function unionBranch(issue: Extract<Issue, { code: 'invalid_union' }>): Issue[] | null {
  const meant = issue.errors.filter((branch) => !(branch.length === 1 && branch[0]!.code === 'invalid_type' && branch[0]!.path.length === 0));
  return meant.length === 1 ? meant[0]! : null;
}

function flatten(issues: readonly Issue[], at: PropertyKey[]): FieldIssue[] {
  return issues.flatMap((i) => {
    const path = [...at, ...i.path].map(String);
    // An unknown key is named as its own field: a caller who misspelt `exclude` reads `exclude: unknown field`.
    if (i.code === 'unrecognized_keys') return i.keys.map((k) => ({ field: [...path, k].join('.'), message: 'unknown field' }));
    if (i.code === 'invalid_union') {
      const branch = unionBranch(i);
      if (branch) return flatten(branch, path);
    }
    return [{ field: path.join('.') || '(input)', message: i.message }];
  });
}

/** zod issues → one entry per field path, in the form's own field names (`alternatives_considered.0.name`). */
export function fieldIssues(error: z.ZodError): FieldIssue[] {
  return flatten(error.issues, []);
}
