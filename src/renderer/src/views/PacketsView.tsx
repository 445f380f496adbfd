import { useEffect, useState } from 'react';
import type { PacketView } from '../../../shared/api/index.ts';
import type { SearchFilters } from '../../../shared/types.ts';
import { FilterBar } from '../components/FilterBar.tsx';
import { toApiFilters, useRememberedFilters } from '../state/filters.ts';
import { MIN_MAX_TOKENS } from '../../../shared/limits.ts';
import type { SectionBudget } from '../../../shared/packet.ts';
import { api, errorText } from '../api/client.ts';
import { copyText } from '../api/platform.ts';
import { Field } from '../components/Field.tsx';
import { Meter } from '../components/Meter.tsx';
import { Unavailable } from '../components/Unavailable.tsx';
import { VirtualList } from '../components/VirtualList.tsx';
import { shortHash } from '../format.ts';
import { useApp, useMissing } from '../state/app.ts';
import { usePackets } from '../state/packets.ts';
import { capacityLevelOf } from '../../../shared/session.ts';
import { LevelBadge, MODEL_WINDOWS } from '../components/CapacityBadge.tsx';

export function PacketsView() {
  const missing = useMissing('packets');
  if (missing) return <Unavailable what="Context packets" reason={missing} />;
  return <Packets />;
}

function Packets() {
  const p = usePackets();
  const [filters, setFilters] = useRememberedFilters('packets');
  const [useDefaults, setUseDefaults] = useState(true);
  useEffect(() => {
    void p.loadHistory();
  }, []); // eslint-disable-line react-hooks/exhaustive-deps
  const issue = (field: string) => p.issues.find((i) => i.field === field)?.message;
  const build = () => void p.build({ filters: toApiFilters(filters), useDefaultExcludes: useDefaults });

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
            build();
          }}
        >
          <h2>Compose</h2>
          {p.history.length === 0 && !p.current ? <FirstPacket onTry={(q) => p.setDraft({ query: q })} /> : null}
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
          <div className="row">
            <Field label="Format" error={issue('format')}>
              {(a) => (
                <select {...a} name="packet-format" value={p.draft.format} onChange={(e) => p.setDraft({ format: e.target.value as 'md' | 'json' | 'contextos' })}>
                  <option value="md">Markdown</option>
                  <option value="json">JSON (with manifest)</option>
                  <option value="contextos">ContextOS (ten layers)</option>
                </select>
              )}
            </Field>
            <Field label="Task profile (layered-v1)" error={issue('profile')}>
              {(a) => (
                <select {...a} name="packet-profile" value={p.draft.profile} disabled={p.draft.template !== 'layered-v1'} onChange={(e) => p.setDraft({ profile: e.target.value as 'research' | 'docs' | 'tests' })}>
                  <option value="research">research</option>
                  <option value="docs">docs</option>
                  <option value="tests">tests</option>
                </select>
              )}
            </Field>
            <Field label="Session id (optional)" error={issue('sessionId')}>
              {(a) => <input {...a} name="packet-session" value={p.draft.sessionId} onChange={(e) => p.setDraft({ sessionId: e.target.value })} />}
            </Field>
          </div>
          <FilterBar label="Evidence filters" value={filters} onChange={setFilters} />
          <DefaultExcludes apply={useDefaults} onApply={setUseDefaults} />
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
  // Each packet's size against a model window, in seed 002's capacity colours (the Sessions view's gauge).
  const [windowTokens, setWindowTokens] = useState(200_000);
  return (
    <div className="list-pane">
      <h2>History</h2>
      <label className="row">
        Model window{' '}
        <select aria-label="Model window" data-testid="packets-window" value={windowTokens} onChange={(e) => setWindowTokens(Number(e.target.value))}>
          {MODEL_WINDOWS.map((w) => <option key={w.tokens} value={w.tokens}>{w.label}</option>)}
        </select>
      </label>
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
      {history.length === 0 ? <p className="muted">No packets yet. Built packets are listed here by hash; open or replay any of them.</p> : null}
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
              <span className={`packet-capacity capacity-${capacityLevelOf(h.total_tokens, windowTokens)}`} title={`${((h.total_tokens / windowTokens) * 100).toFixed(1)} % of a ${windowTokens.toLocaleString()}-token window`}>
                <LevelBadge level={capacityLevelOf(h.total_tokens, windowTokens)} /> {((h.total_tokens / windowTokens) * 100).toFixed(1)} %
              </span>
              {h.stale ? (
                <span
                  className="badge badge-failed"
                  data-testid="stale-badge"
                  title={`Changed since: ${(h.changed_sources ?? []).map((c) => `${c.path} (${c.change})`).join(', ')}`}
                >
                  stale
                </span>
              ) : null}
            </div>
            <div className="row">
              <span className="muted grow">{h.template} · {new Date(h.created_at).toLocaleString()}</span>
              {h.template.startsWith('handoff-') ? (
                <button type="button" onClick={() => void copyHandoff(h.hash)}>Copy handoff</button>
              ) : (
                <>
                  <button type="button" onClick={() => void show(h.hash)}>Open</button>
                  {h.stale ? (
                    <button type="button" onClick={() => void replayHash(h.hash)} title="Reassemble against the current index and show what changed">Rebuild</button>
                  ) : (
                    <button type="button" onClick={() => void replayHash(h.hash)}>Replay</button>
                  )}
                </>
              )}
            </div>
          </div>
        )}
      />
    </div>
  );
}

/** A stored handoff package (template handoff-<type>) is not a packet: its verified Markdown goes to the clipboard. */
async function copyHandoff(hash: string): Promise<void> {
  const h = await api().call('sessions.handoffGet', { hash });
  await copyText(h.text);
  useApp.getState().announce('Handoff copied to the clipboard');
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
      // The same count as the Total bar: section chars (the budgeted text), not the rendered bytes with headers.
      setCopied(`Copied to the clipboard: ${b.total_chars.toLocaleString()} section chars · ${b.total_tokens.toLocaleString()} tokens`);
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
        text={`${total.toLocaleString()} / ${b.total_budget.toLocaleString()} ${unit === 'chars' ? 'section chars' : unit} · ${b.total_tokens.toLocaleString()} tokens`}
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
      <AppliedFilters filters={packet.packet.inputs.filters} />
      {manifest.redactions.count > 0 ? (
        <p className="notice" data-testid="redaction-summary">
          {manifest.redactions.count} line{manifest.redactions.count === 1 ? '' : 's'} redacted:{' '}
          {Object.entries(manifest.redactions.by_type).map(([t, n]) => `${t} × ${n}`).join(', ')}
        </p>
      ) : null}
      {manifest.validity && !manifest.validity.valid ? (
        <p className="notice" data-testid="packet-validity">Not a valid step (003): {manifest.validity.reasons.join('; ')}</p>
      ) : null}
      {manifest.evidence_needed ? <p className="notice" data-testid="evidence-needed">Evidence needed: the task asks for proof, but no evidence made it into this packet.</p> : null}
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

/** What narrowed the evidence, as the manifest records it (retrieval.filters). */
function AppliedFilters({ filters }: { filters: SearchFilters | null }) {
  if (!filters) return null;
  const parts = [
    ...(filters.include ?? []).map((g) => `only ${g}`),
    ...(filters.exclude ?? []).map((g) => `not ${g}`),
    ...(filters.excludeDefault ?? []).map((g) => `not ${g} (project default)`),
    ...(filters.types ? [`types: ${filters.types.join(', ')}`] : []),
  ];
  if (parts.length === 0) return null;
  return <p className="muted" data-testid="applied-filters">Evidence filters: {parts.join(' · ')}</p>;
}

/** The project's "exclude from evidence by default" globs (stored in the database), and whether this build applies them. */
function DefaultExcludes({ apply, onApply }: { apply: boolean; onApply: (v: boolean) => void }) {
  const toast = useApp((s) => s.toast);
  const [globs, setGlobs] = useState<string[] | null>(null);
  const [draft, setDraft] = useState('');
  useEffect(() => {
    api().call('settings.get', {}).then((s) => {
      setGlobs(s.evidenceExclude);
      setDraft(s.evidenceExclude.join(' '));
    }, () => setGlobs([]));
  }, []);
  const save = async () => {
    try {
      const s = await api().call('settings.set', { evidenceExclude: draft.split(/[\s,]+/).filter(Boolean) });
      setGlobs(s.evidenceExclude);
      toast(s.evidenceExclude.length ? `Project default excludes: ${s.evidenceExclude.join(' ')}` : 'No default excludes for this project');
    } catch (err) {
      toast(`Could not save: ${errorText(err)}`, 'error');
    }
  };
  return (
    <details className="default-excludes" data-testid="default-excludes">
      <summary>Project default excludes: {globs === null ? '…' : globs.length ? globs.join(' ') : 'none'}</summary>
      <Field label="Exclude from evidence by default (globs, space-separated)" hint="e.g. test/** **/fixtures/** — recorded in each packet's manifest">
        {(a) => <input {...a} name="default-excludes" value={draft} onChange={(e) => setDraft(e.target.value)} />}
      </Field>
      <div className="row">
        <button type="button" onClick={() => void save()}>Save for this project</button>
        <label><input type="checkbox" checked={apply} onChange={(e) => onApply(e.target.checked)} /> apply to this packet</label>
      </div>
    </details>
  );
}

/** First run: what a packet is, and a query taken from the indexed files to try. */
function FirstPacket({ onTry }: { onTry: (query: string) => void }) {
  const [sample, setSample] = useState<string | null>(null);
  useEffect(() => {
    api().call('sources.list', {}).then((sources) => {
      // The name of a large indexed text file, split into words, makes a query that surely finds something.
      const pick = sources.filter((s) => s.status === 'indexed' && s.chunks > 0).sort((a, b) => b.chunks - a.chunks || a.path.localeCompare(b.path))[0];
      if (!pick) return;
      const stem = (pick.path.split(/[\\/]/).pop() ?? '').replace(/\.[^.]+$/, '');
      const words = stem.split(/[-_.\s]+|(?=[A-Z][a-z])/).filter((w) => w.length > 1).join(' ').toLowerCase();
      setSample(words || stem);
    }, () => undefined);
  }, []);
  return (
    <div className="empty-state" data-testid="empty-packets">
      <p>
        A <strong>context packet</strong> is what you hand an AI coding agent for one task: the project’s goal and key decisions,
        the best evidence from your indexed files for a query, and the task, within a token budget, with secrets redacted and
        every item traceable to its file. Each packet is stored under its hash so it can be replayed later.
      </p>
      {sample ? (
        <p className="row">
          Try a query from your files: <code>{sample}</code>
          <button type="button" onClick={() => onTry(sample)}>Use this query</button>
        </p>
      ) : (
        <p className="muted">Index a folder in the Library first; packets draw their evidence from it.</p>
      )}
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
