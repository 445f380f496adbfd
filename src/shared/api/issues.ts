import type { z } from 'zod';
import type { FieldIssue } from '../memory.ts';

/** zod issues → one entry per field path, in the form's own field names (`alternatives_considered.0.name`). */
export function fieldIssues(error: z.ZodError): FieldIssue[] {
  return error.issues.map((i) => ({ field: i.path.map(String).join('.') || '(input)', message: i.message }));
}
