import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import type { ChunkContext, HierarchyView as Tree, OwnershipView } from '../../../shared/api/index.ts';
import type { ConsistencyFinding, ExecutiveSummary, FieldIssue, HierarchySection, L4Node, LevelLimitFinding } from '../../../shared/memory.ts';
import { ApiCallError, api, errorText } from '../api/client.ts';
import { ChunkPane } from '../components/ChunkPane.tsx';
import { Field } from '../components/Field.tsx';
import { Unavailable } from '../components/Unavailable.tsx';
import { VirtualList } from '../components/VirtualList.tsx';
import { fmtBytes } from '../format.ts';
import { useApp, useMissing } from '../state/app.ts';

export function HierarchyView() {
  const missing = useMissing('hierarchy');
  if (missing) return <Unavailable what="The hierarchy" reason={missing} />;
  return <Hierarchy />;
}

const domId = (marker: string) => `sec-${marker.replace(/[^A-Za-z0-9]/g, '-')}`;
const sectionMarker = (m: string) => (m.startsWith('§') ? m : `§${m}`);

/** Who edits (seed 002's ownership: an exclusively owned section is written only by its owner), and a reload. */
const EditCtx = createContext<{ agent: string; reload: () => Promise<void>; owners: OwnershipView[] }>({ agent: '', reload: async () => {}, owners: [] });

const messageOf = (err: unknown) => (err instanceof ApiCallError && err.issues.length ? err.issues.map((i) => (i.field === 'agent' ? i.message : `${i.field}: ${i.message}`)).join('; ') : errorText(err));

function Hierarchy() {
  const [view, setView] = useState<Tree | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [file, setFile] = useState<ChunkContext | null>(null);
  const [agent, setAgent] = useState('');
  const [owners, setOwners] = useState<OwnershipView[]>([]);
  const load = useCallback(
    () =>
      Promise.all([api().call('hierarchy.tree', {}), api().call('hierarchy.owners', {})]).then(
        ([tree, o]) => (setView(tree), setOwners(o.owners)),
        (err) => setError(errorText(err)),
      ),
    [],
  );
  useEffect(() => {
    void load();
  }, [load]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setFile(null);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  const openFile = async (n: L4Node) => {
    try {
      setFile(await api().call('sources.chunks', { path: n.path }));
    } catch (err) {
      setError(errorText(err));
    }
  };
  if (error) return <p className="error" role="alert">{error}</p>;
  if (!view) return <p className="muted">Loading…</p>;
  const { tree, findings, limits } = view;
  const findingsFor = (marker: string) => findings.filter((f) => f.marker === sectionMarker(marker));
  const limitFor = (marker: string) => limits.find((l) => l.marker === sectionMarker(marker));
  const over = limits.filter((l) => l.severity === 'over').length;
  const placed = new Set(['1.0', ...tree.sections.flatMap((s) => [s.marker, ...s.children.map((c) => c.marker)]), ...tree.orphan_details.map((s) => s.marker)].map(sectionMarker));
  const unplaced = findings.filter((f) => !placed.has(f.marker));
  const go = (marker: string) => {
    const el = document.getElementById(domId(marker));
    el?.scrollIntoView({ block: 'start' });
    el?.focus();
  };

  return (
    <EditCtx.Provider value={{ agent: agent.trim(), reload: async () => void (await load()), owners }}>
    <section className="view" aria-labelledby="hierarchy-title">
      <header className="view-header">
        <h1 id="hierarchy-title">Hierarchy</h1>
        <span className="muted">
          {findings.length} consistency finding{findings.length === 1 ? '' : 's'}
          {over > 0 ? ` · ${over} section${over === 1 ? '' : 's'} over the level's token limit` : ''}
        </span>
        <label className="row">
          Acting as agent <input aria-label="Acting as agent" data-testid="acting-agent" value={agent} onChange={(e) => setAgent(e.target.value)} placeholder="workbench" />
        </label>
      </header>
      <div className={`columns columns-nav ${file ? 'columns-pane' : ''}`}>
        <nav aria-label="Sections" className="tree-nav">
          <ul>
            <li><button type="button" onClick={() => go('1.0')}>§1.0 Executive summary</button></li>
            {tree.sections.map((s) => (
              <li key={s.marker}>
                <button type="button" onClick={() => go(s.marker)}>§{s.marker} {s.title}</button>
                {s.children.length > 0 ? (
                  <ul>
                    {s.children.map((c) => (
                      <li key={c.marker}><button type="button" onClick={() => go(c.marker)}>§{c.marker} {c.title}</button></li>
                    ))}
                  </ul>
                ) : null}
              </li>
            ))}
            <li><button type="button" onClick={() => go('4')}>L4 files ({tree.l4.length})</button></li>
          </ul>
        </nav>
        <div className="tree-body">
          {unplaced.length > 0 ? <Findings findings={unplaced} /> : null}
          <article id={domId('1.0')} tabIndex={-1} className="card level-1">
            <h2><span className="marker">§1.0</span> Executive summary</h2>
            {tree.l1 ? (
              <>
                <p>{tree.l1.goal}</p>
                <p className="muted">status {tree.l1.status_pct}% {tree.l1.status_text}</p>
                {tree.l1.priorities.length ? <p>Priorities: {tree.l1.priorities.join(' · ')}</p> : null}
                {tree.l1.blockers.length ? <p>Blockers: {tree.l1.blockers.join(' · ')}</p> : null}
                <KeyDecisions l1={tree.l1} />
                <SummaryEditor key={tree.l1.updated_at} l1={tree.l1} />
              </>
            ) : (
              <SummaryForm onSaved={() => void load()} />
            )}
            <LevelLimit limit={limitFor('1.0')} />
            <Findings findings={findingsFor('1.0')} />
          </article>
          <AddSection parents={tree.sections.map((s) => s.marker)} />
          {tree.sections.length === 0 ? <p className="muted">No L2/L3 sections yet.</p> : null}
          {tree.sections.map((s) => (
            <Section key={s.marker} s={s} findings={findingsFor(s.marker)} limit={limitFor(s.marker)}>
              {s.children.map((c) => <Section key={c.marker} s={c} findings={findingsFor(c.marker)} limit={limitFor(c.marker)} />)}
            </Section>
          ))}
          {tree.orphan_details.map((s) => <Section key={s.marker} s={s} findings={findingsFor(s.marker)} limit={limitFor(s.marker)} />)}
          <h2 id={domId('4')} tabIndex={-1}>L4 · files</h2>
          <VirtualList
            label="L4 files"
            items={tree.l4}
            estimate={36}
            itemKey={(n) => n.marker}
            render={(n) => (
              <div className="source">
                <button type="button" className="link marker" data-testid="l4-entry" aria-label={`Open §${n.marker} (${n.chunks} chunks)`} onClick={() => void openFile(n)}>§{n.marker}</button>
                <span className="muted">{n.type} · {fmtBytes(n.size)} · {n.chunks} chunks · {n.tokens} tokens</span>
              </div>
            )}
          />
          {tree.l4.length === 0 ? <p className="muted">No files indexed yet: add a folder in the Library and its files appear here as §4 entries.</p> : null}
        </div>
        {file ? <ChunkPane context={file} label="File chunks" onClose={() => setFile(null)} /> : null}
      </div>
    </section>
    </EditCtx.Provider>
  );
}

/** The L1's key decisions, each a link to the decision in the Decisions view. */
function KeyDecisions({ l1 }: { l1: ExecutiveSummary }) {
  const goTo = useApp((s) => s.goTo);
  if (l1.key_decisions.length === 0) return null;
  return (
    <div>
      <h3>Key decisions</h3>
      <ul className="key-decisions" aria-label="Key decisions">
        {l1.key_decisions.map((d) => (
          <li key={d.decision_id}>
            {d.exists ? (
              <a href={`#decisions`} onClick={(e) => { e.preventDefault(); goTo('decisions', d.decision_id); }}>
                <span className="mono">{d.decision_id}</span> {d.title}
              </a>
            ) : (
              <span><span className="mono">{d.decision_id}</span> <span className="notice">(no such decision)</span></span>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** First run: the executive summary written in place (goal, status, up to three priorities). */
function SummaryForm({ onSaved }: { onSaved: () => void }) {
  const toast = useApp((s) => s.toast);
  const [goal, setGoal] = useState('');
  const [status, setStatus] = useState('0');
  const [priorities, setPriorities] = useState('');
  const [issues, setIssues] = useState<FieldIssue[]>([]);
  const issue = (f: string) => issues.find((i) => i.field === f || i.field.startsWith(`${f}.`))?.message;
  const save = async () => {
    try {
      await api().call('hierarchy.summary', {
        goal,
        status_pct: status.trim() === '' ? Number.NaN : Number(status),
        priorities: priorities.split('\n').map((p) => p.trim()).filter(Boolean).slice(0, 3),
      });
      setIssues([]);
      toast('Executive summary saved (§1.0)');
      onSaved();
    } catch (err) {
      setIssues(err instanceof ApiCallError && err.issues.length > 0 ? err.issues : [{ field: 'goal', message: errorText(err) }]);
    }
  };
  return (
    <form className="form empty-state" data-testid="summary-form" noValidate onSubmit={(e) => { e.preventDefault(); void save(); }}>
      <p>No executive summary yet. Write the project’s goal and status here: every packet starts from it (GOALS), and the checks compare it with the sections below.</p>
      <Field label="Goal" error={issue('goal')}>{(a) => <input {...a} name="l1-goal" value={goal} onChange={(e) => setGoal(e.target.value)} />}</Field>
      <Field label="Status (%)" error={issue('status_pct')}>{(a) => <input {...a} name="l1-status" type="number" min={0} max={100} value={status} onChange={(e) => setStatus(e.target.value)} />}</Field>
      <Field label="Top priorities (one per line, up to 3)" error={issue('priorities')}>{(a) => <textarea {...a} rows={3} value={priorities} onChange={(e) => setPriorities(e.target.value)} />}</Field>
      <button type="submit" className="primary">Save summary</button>
    </form>
  );
}

const lines = (s: string) => s.split('\n').map((x) => x.trim()).filter(Boolean);

/** An existing executive summary edited in place (the first one is written with SummaryForm). */
function SummaryEditor({ l1 }: { l1: ExecutiveSummary }) {
  const { agent, reload } = useContext(EditCtx);
  const [open, setOpen] = useState(false);
  const [goal, setGoal] = useState(l1.goal);
  const [status, setStatus] = useState(String(l1.status_pct ?? 0));
  const [statusText, setStatusText] = useState(l1.status_text ?? '');
  const [priorities, setPriorities] = useState((l1.priorities ?? []).join('\n'));
  const [blockers, setBlockers] = useState((l1.blockers ?? []).join('\n'));
  const [decisions, setDecisions] = useState((l1.key_decisions ?? []).map((d) => d.decision_id).join(', '));
  const [error, setError] = useState<string | null>(null);
  if (!open) return <button type="button" data-testid="edit-summary" onClick={() => setOpen(true)}>Edit summary</button>;
  const save = async () => {
    try {
      await api().call('hierarchy.summary', {
        goal,
        status_pct: Number(status),
        status_text: statusText,
        priorities: lines(priorities),
        blockers: lines(blockers),
        key_decisions: decisions.split(',').map((d) => d.trim()).filter(Boolean),
        agent: agent || undefined,
      });
      setOpen(false);
      setError(null);
      await reload();
    } catch (err) {
      setError(messageOf(err));
    }
  };
  return (
    <form className="form" noValidate data-testid="summary-form" onSubmit={(e) => (e.preventDefault(), void save())}>
      <Field label="Goal">{(a) => <input {...a} name="l1-goal" value={goal} onChange={(e) => setGoal(e.target.value)} />}</Field>
      <div className="row">
        <Field label="Status %">{(a) => <input {...a} name="l1-status" type="number" min={0} max={100} value={status} onChange={(e) => setStatus(e.target.value)} />}</Field>
        <Field label="Status text">{(a) => <input {...a} value={statusText} onChange={(e) => setStatusText(e.target.value)} />}</Field>
      </div>
      <Field label="Priorities (one per line, at most 3)">{(a) => <textarea {...a} rows={3} value={priorities} onChange={(e) => setPriorities(e.target.value)} />}</Field>
      <Field label="Blockers (one per line)">{(a) => <textarea {...a} rows={2} value={blockers} onChange={(e) => setBlockers(e.target.value)} />}</Field>
      <Field label="Key decisions (DEC ids, comma-separated)">{(a) => <input {...a} value={decisions} onChange={(e) => setDecisions(e.target.value)} />}</Field>
      {error ? <p className="error" role="alert">{error}</p> : null}
      <div className="row">
        <button type="submit" className="primary">Save summary</button>
        <button type="button" onClick={() => setOpen(false)}>Cancel</button>
      </div>
    </form>
  );
}

function AddSection({ parents }: { parents: string[] }) {
  const { agent, reload } = useContext(EditCtx);
  const [level, setLevel] = useState<2 | 3>(2);
  const [parent, setParent] = useState('');
  const [title, setTitle] = useState('');
  const [body, setBody] = useState('');
  const [error, setError] = useState<string | null>(null);
  const add = async () => {
    try {
      await api().call('hierarchy.addSection', { level, title, body, parent: level === 3 && parent ? `§${parent}` : undefined, agent: agent || undefined });
      setTitle('');
      setBody('');
      setError(null);
      await reload();
    } catch (err) {
      setError(messageOf(err));
    }
  };
  return (
    <details className="card">
      <summary>Add an L2 / L3 section</summary>
      <form className="form" noValidate data-testid="add-section" onSubmit={(e) => (e.preventDefault(), void add())}>
        <div className="row">
          <Field label="Level">
            {(a) => (
              <select {...a} value={level} onChange={(e) => setLevel(Number(e.target.value) as 2 | 3)}>
                <option value={2}>L2 section summary</option>
                <option value={3}>L3 detail</option>
              </select>
            )}
          </Field>
          {level === 3 ? (
            <Field label="Under">
              {(a) => (
                <select {...a} value={parent} onChange={(e) => setParent(e.target.value)}>
                  <option value="">(new §3.N)</option>
                  {parents.map((m) => <option key={m} value={m}>§{m}</option>)}
                </select>
              )}
            </Field>
          ) : null}
        </div>
        <Field label="Title">{(a) => <input {...a} name="section-title" value={title} onChange={(e) => setTitle(e.target.value)} />}</Field>
        <Field label="Body">{(a) => <textarea {...a} name="section-body" rows={4} value={body} onChange={(e) => setBody(e.target.value)} />}</Field>
        {error ? <p className="error" role="alert">{error}</p> : null}
        <button type="submit" className="primary">Add section</button>
      </form>
    </details>
  );
}

function SectionEditor({ s }: { s: HierarchySection }) {
  const { agent, reload } = useContext(EditCtx);
  const [open, setOpen] = useState(false);
  const [title, setTitle] = useState(s.title);
  const [body, setBody] = useState(s.body);
  const [status, setStatus] = useState(s.status_pct === null ? '' : String(s.status_pct));
  const [error, setError] = useState<string | null>(null);
  if (!open) return <button type="button" data-testid="edit-section" onClick={() => setOpen(true)}>Edit §{s.marker}</button>;
  const save = async () => {
    try {
      await api().call('hierarchy.editSection', { marker: s.marker, title, body, status_pct: status.trim() === '' ? null : Number(status), agent: agent || undefined });
      setOpen(false);
      setError(null);
      await reload();
    } catch (err) {
      setError(messageOf(err));
    }
  };
  return (
    <form className="form" noValidate data-testid="section-form" onSubmit={(e) => (e.preventDefault(), void save())}>
      <Field label="Title">{(a) => <input {...a} value={title} onChange={(e) => setTitle(e.target.value)} />}</Field>
      <Field label="Body">{(a) => <textarea {...a} name="edit-body" rows={6} value={body} onChange={(e) => setBody(e.target.value)} />}</Field>
      <Field label="Status %">{(a) => <input {...a} type="number" min={0} max={100} value={status} onChange={(e) => setStatus(e.target.value)} />}</Field>
      {error ? <p className="error" role="alert" data-testid="section-error">{error}</p> : null}
      <div className="row">
        <button type="submit" className="primary">Save §{s.marker}</button>
        <button type="button" onClick={() => setOpen(false)}>Cancel</button>
      </div>
    </form>
  );
}

/** Seed 002's section ownership: who holds it, and take / release as the acting agent. */
function Ownership({ marker }: { marker: string }) {
  const { agent, reload, owners } = useContext(EditCtx);
  const [error, setError] = useState<string | null>(null);
  const o = owners.find((x) => x.section_id === marker);
  const act = async (action: 'acquire' | 'release') => {
    try {
      await api().call('hierarchy.own', { section: `§${marker}`, agent, action });
      setError(null);
      await reload();
    } catch (err) {
      setError(messageOf(err));
    }
  };
  return (
    <div className="row" data-testid="ownership">
      {o ? <span className="badge" data-testid="owner">owned by {o.owner_agent_id} ({o.ownership_type}){o.previous_owner ? `, from ${o.previous_owner}` : ''}</span> : null}
      {agent && o?.owner_agent_id !== agent ? <button type="button" onClick={() => void act('acquire')}>Take ownership as {agent}</button> : null}
      {agent && o?.owner_agent_id === agent ? <button type="button" onClick={() => void act('release')}>Release</button> : null}
      {error ? <span className="error" role="alert">{error}</span> : null}
    </div>
  );
}

function Section({ s, findings, limit, children }: { s: HierarchySection; findings: ConsistencyFinding[]; limit?: LevelLimitFinding; children?: ReactNode }) {
  return (
    <article id={domId(s.marker)} tabIndex={-1} className={`card level-${s.level}`}>
      <h3>
        <span className="marker">§{s.marker}</span> {s.title} {s.status_pct !== null ? <span className="muted">{s.status_pct}%</span> : null} {s.is_draft ? <span className="badge">draft</span> : null}
      </h3>
      <pre className="body">{s.body}</pre>
      <Ownership marker={s.marker} />
      <SectionEditor key={`${s.marker}-${s.updated_at}`} s={s} />
      <LevelLimit limit={limit} />
      <Findings findings={findings} />
      {children}
    </article>
  );
}

/** The section's size against its level's token range: over is a finding (`hierarchy check` fails), under a hint. */
function LevelLimit({ limit }: { limit?: LevelLimitFinding }) {
  if (!limit) return null;
  return (
    <p className={`level-limit level-limit-${limit.severity}`} data-testid="level-limit">
      <strong>{limit.severity === 'over' ? 'over the limit' : 'short'}</strong> {limit.tokens.toLocaleString()} tokens; L{limit.level} sections take {limit.min > 0 ? `${limit.min.toLocaleString()}–` : 'up to '}{limit.max.toLocaleString()}
      {limit.severity === 'over' ? ': move detail down a level' : ''}
    </p>
  );
}

function Findings({ findings }: { findings: ConsistencyFinding[] }) {
  if (findings.length === 0) return null;
  return (
    <ul className="findings" aria-label="Consistency findings">
      {findings.map((f, i) => (
        <li key={i} className="finding"><strong>{f.check}</strong> {f.marker}{f.ref ? ` → ${f.ref}` : ''}: {f.message}</li>
      ))}
    </ul>
  );
}
