import { useApp } from '../state/app.ts';

/** Confirmations that would otherwise happen out of sight (a file written, a download, a source removed). */
export function Toasts({ status }: { status: string }) {
  const { toasts, dismissToast } = useApp();
  return (
    <section className="toasts" aria-label="Notifications">
      <div className="visually-hidden" aria-live="polite" role="status">{status}</div>
      {toasts.map((t) => (
        <div key={t.id} className={`toast toast-${t.kind}`} data-testid="toast" role={t.kind === 'error' ? 'alert' : undefined}>
          <span className="grow">{t.text}</span>
          <button type="button" aria-label="Dismiss notification" onClick={() => dismissToast(t.id)}>✕</button>
        </div>
      ))}
    </section>
  );
}
