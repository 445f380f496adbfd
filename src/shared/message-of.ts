/** The text of anything thrown, for messages that must never say "[object Object]". */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
