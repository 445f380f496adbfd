import { useState, type DragEvent } from 'react';
import type { SessionAnalysis } from '../../../shared/api/index.ts';
import { HANDOFF_BUDGET_RANGES, HANDOFF_TYPES, type HandoffResult, type HandoffType } from '../../../shared/session.ts';
import { ApiCallError, api, errorText } from '../api/client.ts';
import { copyText } from '../api/platform.ts';
import { LevelBadge, MODEL_WINDOWS } from '../components/CapacityBadge.tsx';
import { Field } from '../components/Field.tsx';
import { DropZone } from '../components/DropZone.tsx';
import { Meter } from '../components/Meter.tsx';
import { shortHash } from '../format.ts';
import { useApp } from '../state/app.ts';
import { useSessions } from '../state/sessions.ts';
import { CapturedSessions } from './CapturedSessions.tsx';

export function SessionsView() {
  const announce = useApp((s) => s.announce);
  const { transcript, windowTokens, analysis, set } = useSessions();
  const setTranscript = (t: { name: string; text: string }) => set({ transcript: t, handoff: null });
  const setWindowTokens = (w: number) => set({ windowTokens: w });
  const setAnalysis = (a: SessionAnalysis | null) => set({ analysis: a });
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const analyze = async (t: { name: string; text: string }, w = windowTokens) => {
    setBusy(true);
    setError(null);
    try {
      const a = await api().call('sessions.analyze', { transcript: t, window: w });
      setAnalysis(a);
      announce(`Transcript ${t.name}: ${a.capacity.level}, ${a.turns} turns`);
    } catch (err) {
      setAnalysis(null);
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const load = async (file: File | undefined) => {
    if (!file) return;
    const t = { name: file.name, text: await file.text() };
    setTranscript(t);
    await analyze(t);
  };
  const onDrop = async (e: DragEvent) => {
    await load(e.dataTransfer.files[0]);
  };

  return (
    <section className="view" aria-labelledby="sessions-title">
      <header className="view-header">
        <h1 id="sessions-title">Sessions</h1>
        <span className="muted">capacity, compaction and handoffs for an agent transcript (seed 002)</span>
      </header>
      <DropZone testId="transcript-drop" onDrop={onDrop}>
        <p>Drop a transcript here: Claude Code (JSONL or chat.json), Codex rollout, pi session, Cline api_conversation_history.json, Aider chat history, or a Markdown chat export (SpecStory, ## User / ## Assistant).</p>
        <label className="button">
          Choose a transcript…
          <input type="file" className="visually-hidden" data-testid="transcript-input" accept=".jsonl,.ndjson,.json,.md,.markdown,.txt" onChange={(e) => void load(e.target.files?.[0])} />
        </label>
        {transcript ? <p className="muted">{transcript.name} · {transcript.text.length.toLocaleString()} characters</p> : null}
      </DropZone>
      <div className="row">
        <Field label="Model window">
          {(a) => (
            <select
              {...a}
              data-testid="window-select"
              value={windowTokens}
              onChange={(e) => {
                const w = Number(e.target.value);
                setWindowTokens(w);
                if (transcript) void analyze(transcript, w);
              }}
            >
              {MODEL_WINDOWS.map((w) => <option key={w.tokens} value={w.tokens}>{w.label}</option>)}
            </select>
          )}
        </Field>
      </div>
      {busy ? <p className="muted" role="status">Reading the transcript…</p> : null}
      {error ? <p className="error" role="alert">{error}</p> : null}
      {analysis ? <Analysis a={analysis} /> : null}
      {analysis && transcript ? <Handoff transcript={transcript} /> : null}
      {analysis && transcript ? <EndSession transcript={transcript} /> : null}
      <CapturedSessions windowTokens={windowTokens} />
    </section>
  );
}

function Analysis({ a }: { a: SessionAnalysis }) {
  const c = a.capacity;
  const [filter, setFilter] = useState<'all' | 'kept' | 'compressed' | 'dropped'>('all');
  const shown = a.elements.filter((e) => filter === 'all' || e.action === filter);
  const count = (k: string) => a.elements.filter((e) => e.action === k).length;
  return (
    <div className="card" data-testid="session-analysis">
      <h2>
        {a.name} <span className="muted">{a.format} · {a.turns} turns{a.redactions ? ` · ${a.redactions} redacted` : ''}</span>
      </h2>
      {a.problems.length > 0 ? (
        <details>
          <summary className="notice">{a.problems.length} malformed line{a.problems.length === 1 ? '' : 's'} skipped</summary>
          <ul>{a.problems.map((p) => <li key={p.line}>line {p.line}: {p.message}</li>)}</ul>
        </details>
      ) : null}
      <div className={`gauge capacity-${c.level}`} data-testid="capacity-gauge">
        <Meter label="Capacity" value={c.tokens} max={c.window} text={`${c.tokens.toLocaleString()} / ${c.window.toLocaleString()} tokens (${c.usage_pct.toFixed(1)} %)`} over={c.level === 'RED'} testId="capacity-meter" />
        <p>
          <LevelBadge level={c.level} /> {c.action} — <span className="muted">{c.status}</span>
        </p>
      </div>
      <h3>Compaction</h3>
      <p data-testid="compaction-summary">
        tokens_before <strong>{a.compaction.tokens_before.toLocaleString()}</strong> → tokens_after <strong>{a.compaction.tokens_after.toLocaleString()}</strong> · saved {a.compaction.tokens_saved.toLocaleString()} · elements_removed {a.compaction.elements_removed} · preservation_validation{' '}
        <strong className={a.compaction.preservation_validation ? 'confirm' : 'error'}>{String(a.compaction.preservation_validation)}</strong>
      </p>
      <ul className="preserved" aria-label="Preserved elements" data-testid="preserved">
        {a.preserved.map((p) => (
          <li key={p.id}>
            <span className="badge">{p.kind}</span> {p.expect[0]} {p.present ? '✓' : <strong className="error">missing</strong>}
          </li>
        ))}
      </ul>
      <div className="row" role="group" aria-label="Show elements">
        {(['all', 'kept', 'compressed', 'dropped'] as const).map((k) => (
          <button key={k} type="button" aria-pressed={filter === k} onClick={() => setFilter(k)}>
            {k} ({k === 'all' ? a.elements.length : count(k)})
          </button>
        ))}
      </div>
      <ul className="elements" data-testid="elements">
        {shown.slice(0, 300).map((e) => (
          <li key={e.id} className={`element element-${e.action}`}>
            <span className="badge">{e.action}</span> <span className="mono">turn {e.turn}</span> {e.role}
            {e.kind !== 'text' ? ` (${e.kind})` : ''} <span className="muted">{e.tokens_before} → {e.tokens_after} tok · {e.reason}</span>
            <div className="ellipsis muted">{e.preview}</div>
          </li>
        ))}
      </ul>
      {shown.length > 300 ? <p className="muted">… {shown.length - 300} more</p> : null}
    </div>
  );
}

function Handoff({ transcript }: { transcript: { name: string; text: string } }) {
  const announce = useApp((s) => s.announce);
  const [type, setType] = useState<HandoffType>('continuation');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [reason, setReason] = useState('');
  const [maxTokens, setMaxTokens] = useState('');
  const [save, setSave] = useState(false);
  const result = useSessions((st) => st.handoff);
  const setResult = (r: HandoffResult | null) => useSessions.getState().set({ handoff: r });
  const [error, setError] = useState<string | null>(null);
  const [copied, setCopied] = useState<string | null>(null);
  // Building is a preview: nothing is stored until "Save handoff" (a transcript from another repository must not
  // become this project's current state by being looked at).
  const [savedNote, setSavedNote] = useState<string | null>(null);
  const build = async (store: boolean) => {
    setError(null);
    setCopied(null);
    setSavedNote(null);
    try {
      const r = await api().call('sessions.handoff', {
        type,
        transcript,
        from: from.trim() || undefined,
        to: to.trim() || undefined,
        reason: reason.trim() || undefined,
        maxTokens: maxTokens.trim() ? Number(maxTokens) : undefined,
        ...(store ? { save } : { preview: true }),
      });
      setResult(r);
      if (store) {
        const note = savedText(r);
        setSavedNote(note);
        announce(note);
      } else announce(`Handoff ${type} built: ${r.package.budget.package_tokens} tokens (a preview: nothing saved)`);
    } catch (err) {
      setResult(null);
      setError(err instanceof ApiCallError && err.issues.length ? err.issues.map((i) => `${i.field}: ${i.message}`).join('; ') : errorText(err));
    }
  };
  const copy = async () => {
    if (!result) return;
    try {
      await copyText(result.text);
      setCopied(`Copied the ${result.package.handoff_metadata.handoff_type} handoff (${result.package.budget.package_tokens.toLocaleString()} tokens) to the clipboard`);
      announce('Handoff copied to the clipboard');
    } catch (err) {
      setCopied(`Copy failed: ${errorText(err)}`);
    }
  };
  const p = result?.package;
  return (
    <div className="card" data-testid="handoff">
      <h2>Handoff package</h2>
      <form
        className="form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void build(false);
        }}
      >
        <div className="row">
          <Field label="Type" hint={`budget ${HANDOFF_BUDGET_RANGES[type][1].toLocaleString()} tokens`}>
            {(a) => (
              <select {...a} data-testid="handoff-type" value={type} onChange={(e) => setType(e.target.value as HandoffType)}>
                {HANDOFF_TYPES.map((t) => <option key={t} value={t}>{t}</option>)}
              </select>
            )}
          </Field>
          <Field label="From agent">{(a) => <input {...a} value={from} onChange={(e) => setFrom(e.target.value)} placeholder="agent" />}</Field>
          <Field label="To agent">{(a) => <input {...a} value={to} onChange={(e) => setTo(e.target.value)} placeholder="next-agent" />}</Field>
          <Field label="Max tokens (lower only)">{(a) => <input {...a} type="number" min={100} value={maxTokens} onChange={(e) => setMaxTokens(e.target.value)} />}</Field>
        </div>
        <Field label="Reason">{(a) => <input {...a} value={reason} onChange={(e) => setReason(e.target.value)} />}</Field>
        <label className="row">
          <input type="checkbox" checked={save} onChange={(e) => setSave(e.target.checked)} /> When saving, also save the decisions, issues and lessons found as memories (deduplicated)
        </label>
        <button type="submit" className="primary" data-testid="build-handoff">Build handoff (preview)</button>
      </form>
      {error ? <p className="error" role="alert">{error}</p> : null}
      {p && result ? (
        <div data-testid="handoff-result">
          <header className="row">
            <h3 className="grow">
              handoff-{p.handoff_metadata.handoff_type} <span className="mono" title={result.hash} data-testid="handoff-hash">{shortHash(result.hash)}</span>
            </h3>
            <button type="button" className="primary" onClick={() => void copy()}>Copy to clipboard</button>
            <button type="button" data-testid="save-handoff" onClick={() => void build(true)} title="Store the package by its hash, record its task state as the project's current state, move the section ownership it lists">
              Save handoff
            </button>
          </header>
          {copied ? <p className="confirm" role="status" data-testid="handoff-copied">{copied}</p> : null}
          <p className={savedNote ? 'confirm' : 'muted'} role="status" data-testid="handoff-saved">
            {savedNote ?? 'Preview: nothing is saved until "Save handoff".'}
          </p>
          <Meter label="Package" value={p.budget.package_tokens} max={p.budget.max_tokens} text={`${p.budget.package_tokens.toLocaleString()} / ${p.budget.max_tokens.toLocaleString()} tokens`} over={!p.budget.within_budget} testId="handoff-budget" />
          <p>
            reduction {(p.compaction.reduction_achieved * 100).toFixed(1)} % (target {p.compaction.reduction_target * 100} %{p.compaction.reduction_target_met ? ', met' : ', not met'}) · preservation_validation{' '}
            <strong className={p.compaction.preservation_validation ? 'confirm' : 'error'}>{String(p.compaction.preservation_validation)}</strong>
          </p>
          <pre className="packet-text" data-testid="handoff-text" tabIndex={0} aria-label="Handoff text">{result.text}</pre>
        </div>
      ) : null}
    </div>
  );
}

/** What a saved handoff changed in the project, in one sentence. */
function savedText(r: HandoffResult): string {
  const parts = [
    r.stored ? `stored as ${shortHash(r.hash)}` : `already stored as ${shortHash(r.hash)}`,
    r.recorded_memory_id ? `its task state recorded as ${r.recorded_memory_id} (the project's current state)` : null,
    r.package.ownership_transfers.length ? `ownership of ${r.package.ownership_transfers.length} section${r.package.ownership_transfers.length === 1 ? '' : 's'} handed over` : null,
    r.saved ? `${r.saved.created.length} memor${r.saved.created.length === 1 ? 'y' : 'ies'} saved, ${r.saved.duplicates.length} already known` : null,
  ].filter(Boolean);
  return `Saved: ${parts.join('; ')}.`;
}

/** 002's session summary for this transcript: recorded for HISTORY and rehydration, findings saved as memories. */
function EndSession({ transcript }: { transcript: { name: string; text: string } }) {
  const announce = useApp((s) => s.announce);
  const [agent, setAgent] = useState('');
  const [result, setResult] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const end = async () => {
    try {
      const r = await api().call('sessions.end', { transcript, agent: agent.trim() || undefined });
      setResult(`${r.headline} · saved ${r.saved.created.length}, ${r.saved.duplicates.length} already known`);
      setError(null);
      announce('Session recorded');
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <form className="card form" noValidate data-testid="end-session" onSubmit={(e) => (e.preventDefault(), void end())}>
      <h2>End the session</h2>
      <p className="muted">Records the session summary (done, decisions, bugs, TODOs) that the next packet's HISTORY and the rehydration bundle show, and saves its findings as memories.</p>
      <Field label="Agent">{(a) => <input {...a} value={agent} onChange={(e) => setAgent(e.target.value)} placeholder="user" />}</Field>
      <button type="submit">Record session end</button>
      {result ? <p className="confirm" role="status" data-testid="session-recorded">{result}</p> : null}
      {error ? <p className="error" role="alert">{error}</p> : null}
    </form>
  );
}
