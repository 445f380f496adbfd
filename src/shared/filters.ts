// Search filter values both sides agree on: the contract rejects what the engine would, naming the field.

/** A `modifiedAfter` / `modifiedBefore` bound as epoch ms, or null when it is not a date (ISO 8601 is the documented form). */
export function filterDateMs(value: string): number | null {
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : ms;
}
