/** Shown instead of a view whose engine part has not landed: says so, and fakes nothing. */
export function Unavailable({ what, reason }: { what: string; reason: string }) {
  return (
    <div className="unavailable" role="note" data-testid="unavailable">
      <h2>{what} is not available yet</h2>
      <p>{reason}</p>
    </div>
  );
}
