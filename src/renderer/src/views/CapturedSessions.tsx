import { useEffect, useState } from 'react';
import type { CapturedSession } from '../../../shared/captures.ts';
import { api, errorText } from '../api/client.ts';
import { copyText } from '../api/platform.ts';
import { LevelBadge } from '../components/CapacityBadge.tsx';
import { shortHash } from '../format.ts';
import { useApp } from '../state/app.ts';

/**
 * Sessions the agent hooks captured (`contextpack hooks install`): each one's handoffs with the context capacity at
 * capture, and what its end recorded, each finding with the transcript line it came from (copied as `file:line`).
 */
export function CapturedSessions({ windowTokens }: { windowTokens: number }) {
  const announce = useApp((s) => s.announce);
  const [sessions, setSessions] = useState<CapturedSession[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState<{ hash: string; text: string } | null>(null);
  const load = async () => {
    try {
      setSessions(await api().call('sessions.captures', { window: windowTokens }));
      setError(null);
    } catch (err) {
      setError(errorText(err));
    }
  };
  useEffect(() => {
    void load();
  }, [windowTokens]);
  const show = async (hash: string) => {
    try {
      const h = await api().call('sessions.handoffGet', { hash });
      setOpen({ hash, text: h.text });
    } catch (err) {
      setError(errorText(err));
    }
  };
  const copy = async (text: string) => {
    await copyText(text);
    announce(`Copied ${text}`);
  };
  return (
    <div className="card" data-testid="captured-sessions">
      <h2>
        Captured by the agent hooks <button type="button" onClick={() => void load()}>Refresh</button>
      </h2>
      {error ? <p className="error" role="alert">{error}</p> : null}
      {sessions && sessions.length === 0 ? <p className="muted">No session captured yet: <code>contextpack hooks install claude-code</code> saves each session before it compacts and when it ends.</p> : null}
      <ul className="captures">
        {(sessions ?? []).map((s) => (
          <li key={s.session_id} data-testid="captured-session">
            <h3>
              {s.session_id} <span className="muted">{s.last_at}{s.transcript ? ` · ${s.transcript}` : ''}</span>
            </h3>
            {s.pending && s.pending.length > 0 ? (
              <ul aria-label="Captures not stored" data-testid="pending-captures">
                {s.pending.map((c, i) => (
                  <li key={i} role={c.state === 'failed' ? 'alert' : undefined}>
                    <span className={c.state === 'failed' ? 'badge error' : 'badge'}>{c.state === 'failed' ? 'capture failed' : 'capture waiting'}</span> {c.event} captured {c.captured_at}
                    {c.state === 'waiting' ? ' · kept on disk, stored by the next hook or command' : ''}{c.error ? <span className="muted"> · {c.error}</span> : null}
                  </li>
                ))}
              </ul>
            ) : null}
            {s.handoffs.length > 0 ? (
              <ul aria-label="Handoffs">
                {s.handoffs.map((h) => (
                  <li key={h.hash}>
                    <button type="button" onClick={() => void show(h.hash)}>{h.type} {shortHash(h.hash)}</button> at {h.timestamp} · <LevelBadge level={h.level} /> {h.tokens.toLocaleString()} / {h.window.toLocaleString()} tokens ({h.usage_pct.toFixed(1)} %) at capture · package {h.package_tokens.toLocaleString()} tokens
                  </li>
                ))}
              </ul>
            ) : null}
            {s.ended ? (
              <>
                <p>{s.ended.headline} <span className="muted">ended {s.ended.at}</span></p>
                <ul aria-label="Extracted memories">
                  {s.ended.findings.map((f, i) => (
                    <li key={i}>
                      <span className="badge">{f.kind}</span> {f.title}{' '}
                      {f.source ? <button type="button" className="link" title="Copy the transcript line" onClick={() => void copy(f.source!)}>{f.source.split('/').pop()}</button> : null}
                    </li>
                  ))}
                </ul>
              </>
            ) : <p className="muted">not ended yet</p>}
          </li>
        ))}
      </ul>
      {open ? <pre className="packet-text" data-testid="captured-handoff" tabIndex={0} aria-label={`Handoff ${shortHash(open.hash)}`}>{open.text}</pre> : null}
    </div>
  );
}
