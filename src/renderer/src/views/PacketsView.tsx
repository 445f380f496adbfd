import { useEffect, useState } from 'react';
import type { PacketView } from '../../../shared/api/index.ts';
import { MIN_MAX_TOKENS } from '../../../shared/limits.ts';
import type { SectionBudget } from '../../../shared/packet.ts';
import { errorText } from '../api/client.ts';
import { copyText } from '../api/platform.ts';
import { Field } from '../components/Field.tsx';
import { Meter } from '../components/Meter.tsx';
import { Unavailable } from '../components/Unavailable.tsx';
import { VirtualList } from '../components/VirtualList.tsx';
import { shortHash } from '../format.ts';
import { useApp, useMissing } from '../state/app.ts';
import { usePackets } from '../state/packets.ts';

export function PacketsView() {
  const missing = useMissing('packets');
  if (missing) return <Unavailable what="Context packets" reason={missing} />;
  return <Packets />;
}

function Packets() {
  const p = usePackets();
  useEffect(() => {
    void p.loadHistory();
  }, []); // eslint-disable-line react-hooks/exhaustive-deps
  const issue = (field: string) => p.issues.find((i) => i.field === field)?.message;

  return (
    <section className="view" aria-labelledby="packets-title">
      <header className="view-header">
        <h1 id="packets-title">Packets</h1>
      </header>
      <div className="columns">
        <form
          className="card form"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            void p.build();
          }}
        >
          <h2>Compose</h2>
          <Field label="Query" error={issue('query')}>{(a) => <input {...a} name="packet-query" value={p.draft.query} onChange={(e) => p.setDraft({ query: e.target.value })} />}</Field>
          <Field label="Task and acceptance criteria" error={issue('task')}>{(a) => <textarea {...a} name="packet-task" rows={5} value={p.draft.task} onChange={(e) => p.setDraft({ task: e.target.value })} />}</Field>
          <div className="row">
            <Field label="Template" error={issue('template')}>
              {(a) => (
                <select {...a} value={p.draft.template} onChange={(e) => p.setDraft({ template: e.target.value as 'ao-v1' | 'layered-v1' })}>
                  <option value="ao-v1">ao-v1 (five sections)</option>
                  <option value="layered-v1">layered-v1 (layers)</option>
                </select>
              )}
            </Field>
            <Field label="Token budget" error={issue('maxTokens')}>
              {(a) => <input {...a} name="packet-budget" type="number" min={MIN_MAX_TOKENS} step={100} value={p.draft.maxTokens} onChange={(e) => p.setDraft({ maxTokens: Number(e.target.value) })} />}
            </Field>
          </div>
          {p.error && p.issues.length === 0 ? <p className="error" role="alert">{p.error}</p> : null}
          <button type="submit" className="primary" disabled={p.building}>{p.building ? 'Building…' : 'Build packet'}</button>
        </form>
        <History />
      </div>
      {p.current ? <Preview packet={p.current} /> : null}
    </section>
  );
}

function History() {
  const { history, show, replayHash, replay } = usePackets();
  return (
    <div className="list-pane">
      <h2>History</h2>
      {replay ? (
        <div className={`card replay ${replay.identical ? 'replay-same' : 'replay-diff'}`} role="status" data-testid="replay-result">
          <strong>{replay.identical ? 'Replay identical' : 'Replay differs'}</strong> <span className="mono">{shortHash(replay.hash)}</span>
          {replay.identical ? null : (
            <ul>
              {replay.added.map((i) => <li key={`a${i.id}`}>+ {i.section} {i.source}</li>)}
              {replay.removed.map((i) => <li key={`r${i.id}`}>− {i.section} {i.source}</li>)}
              {replay.changed.map((c) => <li key={`c${c.id}`}>~ {c.section} {c.id}: {c.before.digest} → {c.after.digest}</li>)}
              {replay.notes.map((n) => <li key={n}>{n}</li>)}
            </ul>
          )}
        </div>
      ) : null}
      {history.length === 0 ? <p className="muted">No packets yet.</p> : null}
      <VirtualList
        label="Packet history"
        items={history}
        estimate={76}
        itemKey={(h) => h.hash}
        render={(h) => (
          <div className="card packet-row" data-testid="packet-row" data-hash={h.hash}>
            <div className="row">
              <span className="mono" title={h.hash}>{shortHash(h.hash)}</span>
              <span className="grow ellipsis">{h.query}</span>
              <span className="muted">{h.total_tokens} tok · {h.redactions} redacted</span>
            </div>
            <div className="row">
              <span className="muted grow">{h.template} · {new Date(h.created_at).toLocaleString()}</span>
              <button type="button" onClick={() => void show(h.hash)}>Open</button>
              <button type="button" onClick={() => void replayHash(h.hash)}>Replay</button>
            </div>
          </div>
        )}
      />
    </div>
  );
}

/** The bar's scale: the hard cap when there is one, else the target (a section may pass its target, never its max). */
function budgetOf(b: SectionBudget): number | null {
  return b.max ?? b.target;
}

function Preview({ packet }: { packet: PacketView }) {
  const announce = useApp((s) => s.announce);
  const [copied, setCopied] = useState<string | null>(null);
  const { manifest } = packet;
  const b = manifest.budgets;
  const unit = b.unit;
  const total = unit === 'chars' ? b.total_chars : b.total_tokens;
  const copy = async () => {
    try {
      await copyText(packet.text);
      setCopied(`Copied ${packet.text.length.toLocaleString()} characters (${b.total_tokens.toLocaleString()} tokens) to the clipboard`);
      announce('Packet copied to the clipboard');
    } catch (err) {
      setCopied(`Copy failed: ${errorText(err)}`);
    }
  };
  return (
    <div className="card preview" data-testid="packet-preview">
      <header className="row">
        <h2 className="grow">Packet <span className="mono" data-testid="packet-hash" title={packet.hash}>{shortHash(packet.hash)}</span></h2>
        <button type="button" className="primary" onClick={() => void copy()}>Copy to clipboard</button>
      </header>
      {copied ? <p className="confirm" role="status" data-testid="copy-confirmation">{copied}</p> : null}
      <Meter
        label="Total"
        value={total}
        max={b.total_budget}
        text={`${total.toLocaleString()} / ${b.total_budget.toLocaleString()} ${unit} · ${b.total_tokens.toLocaleString()} tokens`}
        over={total > b.total_budget}
        testId="budget-total"
      />
      <div className="budgets">
        {b.sections.filter((s) => !s.reserved).map((s) => {
          const used = s.unit === 'chars' ? s.chars : s.tokens;
          const cap = budgetOf(s);
          return (
            <Meter
              key={s.name}
              label={`${s.name}${s.truncated ? ' (trimmed)' : ''}`}
              value={used}
              max={cap ?? used}
              text={`${used.toLocaleString()}${cap !== null ? ` / ${cap.toLocaleString()}` : ''} ${s.unit} · ${s.items} items${s.max === null && s.target !== null ? ' (target)' : ''}`}
              over={s.max !== null && used > s.max}
              note={s.note}
              testId="budget-section"
            />
          );
        })}
      </div>
      {manifest.redactions.count > 0 ? (
        <p className="notice" data-testid="redaction-summary">
          {manifest.redactions.count} line{manifest.redactions.count === 1 ? '' : 's'} redacted:{' '}
          {Object.entries(manifest.redactions.by_type).map(([t, n]) => `${t} × ${n}`).join(', ')}
        </p>
      ) : null}
      {manifest.dropped.length > 0 ? (
        <details open>
          <summary>{manifest.dropped.length} evicted item{manifest.dropped.length === 1 ? '' : 's'}</summary>
          <ul className="evicted" data-testid="evicted">
            {manifest.dropped.map((d) => (
              <li key={d.id}><span className="badge">{d.section}</span> {d.source} {d.score !== null ? <span className="muted">score {d.score.toFixed(3)}</span> : null} — {d.reason}</li>
            ))}
          </ul>
        </details>
      ) : (
        <p className="muted">Nothing evicted.</p>
      )}
      <PacketText text={packet.text} />
    </div>
  );
}

const MARKER = /(\[REDACTED: [^\]]+\])/;

/** The packet as copied, with redaction markers made visible. */
function PacketText({ text }: { text: string }) {
  const parts = text.split(MARKER);
  return (
    <pre className="packet-text" data-testid="packet-text" tabIndex={0} aria-label="Packet text">
      {parts.map((part, i) => (i % 2 === 1 ? <mark key={i} className="redacted">{part}</mark> : part))}
    </pre>
  );
}
