import { useCallback, useEffect, useState } from 'react';
import { decisionInputSchema, type ApiInput } from '../../../shared/api/contract.ts';
import { fieldIssues } from '../../../shared/api/issues.ts';
import { TITLE_MAX } from '../../../shared/limits.ts';
import type { DecisionRecord, FieldIssue } from '../../../shared/memory.ts';
import { ApiCallError, api, errorText } from '../api/client.ts';
import { Field } from '../components/Field.tsx';
import { Unavailable } from '../components/Unavailable.tsx';
import { VirtualList } from '../components/VirtualList.tsx';
import { useApp, useMissing } from '../state/app.ts';

interface FormState {
  title: string;
  decision: string;
  rationale: string;
  alternatives: { name: string; reason: string }[];
  expected_impact: string;
  validation_criteria: string;
  context: string;
  tags: string;
  importance: string;
}

const EMPTY: FormState = { title: '', decision: '', rationale: '', alternatives: [], expected_impact: '', validation_criteria: '', context: '', tags: '', importance: '5' };

function toInput(f: FormState): ApiInput<'decisions.create'> {
  const opt = (s: string) => (s.trim() === '' ? undefined : s);
  return {
    title: f.title,
    decision: f.decision,
    rationale: f.rationale,
    alternatives_considered: f.alternatives.length > 0 ? f.alternatives : undefined,
    expected_impact: opt(f.expected_impact),
    validation_criteria: opt(f.validation_criteria),
    context: opt(f.context),
    tags: f.tags.split(',').map((t) => t.trim()).filter(Boolean),
    importance: f.importance.trim() === '' ? Number.NaN : Number(f.importance),
  };
}

export function DecisionsView() {
  const missing = useMissing('decisions');
  if (missing) return <Unavailable what="Decisions" reason={missing} />;
  return <Decisions />;
}

function Decisions() {
  const announce = useApp((s) => s.announce);
  const [form, setForm] = useState<FormState>(EMPTY);
  const [superseding, setSuperseding] = useState<DecisionRecord | null>(null);
  const [issues, setIssues] = useState<FieldIssue[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [decisions, setDecisions] = useState<DecisionRecord[]>([]);
  const [filter, setFilter] = useState({ query: '', tag: '', includeSuperseded: false });
  const toast = useApp((s) => s.toast);
  // Opened from a link elsewhere (the L1's key decisions): show that decision.
  const [only, setOnly] = useState<string | null>(null);
  useEffect(() => {
    const id = useApp.getState().takeHandoff('decisions');
    if (id) setOnly(id);
  }, []);

  const load = useCallback(async () => {
    try {
      const r = await api().call('decisions.list', { query: filter.query || undefined, tag: filter.tag || undefined, includeSuperseded: filter.includeSuperseded });
      setDecisions(r.decisions);
    } catch (err) {
      setError(errorText(err));
    }
  }, [filter]);
  useEffect(() => {
    void load();
  }, [load]);

  const issueFor = (field: string) => issues.find((i) => i.field === field || i.field.startsWith(`${field}.`))?.message;
  const set = (patch: Partial<FormState>) => setForm((f) => ({ ...f, ...patch }));

  const save = async () => {
    setError(null);
    const input = toInput(form);
    // Same schema as the boundary: the form shows the messages before a round trip, the engine re-checks anyway.
    const local = decisionInputSchema.safeParse(input);
    if (!local.success) {
      setIssues(fieldIssues(local.error));
      announce('The decision has errors; see the messages next to the fields');
      return;
    }
    try {
      const saved = superseding
        ? await api().call('decisions.supersede', { decisionId: superseding.decision_id!, replacement: input })
        : await api().call('decisions.create', input);
      setIssues([]);
      setForm(EMPTY);
      setSuperseding(null);
      announce(`Saved ${saved.decision_id}`);
      await load();
    } catch (err) {
      setIssues(err instanceof ApiCallError ? err.issues : []);
      setError(errorText(err));
    }
  };

  const startSupersede = (d: DecisionRecord) => {
    setSuperseding(d);
    setIssues([]);
    setForm({
      ...EMPTY,
      title: d.title,
      decision: d.content.decision,
      rationale: d.content.rationale,
      alternatives: d.content.alternatives_considered ?? [],
      expected_impact: d.content.expected_impact ?? '',
      validation_criteria: d.content.validation_criteria ?? '',
      context: d.content.context ?? '',
      tags: d.tags.join(', '),
      importance: String(d.importance),
    });
    document.getElementById('decision-form')?.querySelector('input')?.focus();
  };

  // Desktop: written to the data folder, and the toast says where. Browser: downloaded as decisions.md.
  const exportMarkdown = async () => {
    try {
      const desktop = api().transport === 'ipc';
      const r = await api().call('decisions.exportMarkdown', desktop ? { write: true } : {});
      const masked = r.masked?.length ? ` A secret in ${r.masked.join(', ')} was masked.` : '';
      if (r.path) toast(`Exported ${r.count} decision${r.count === 1 ? '' : 's'} to ${r.path}.${masked}`);
      else {
        const url = URL.createObjectURL(new Blob([r.markdown], { type: 'text/markdown;charset=utf-8' }));
        const a = document.createElement('a');
        a.href = url;
        a.download = 'decisions.md';
        document.body.append(a);
        a.click();
        a.remove();
        setTimeout(() => URL.revokeObjectURL(url), 10_000);
        toast(`Downloaded decisions.md (${r.count} decision${r.count === 1 ? '' : 's'}).${masked}`);
      }
    } catch (err) {
      toast(`Export failed: ${errorText(err)}`, 'error');
    }
  };
  const shown = only ? decisions.filter((d) => d.decision_id === only || d.memory_id === only) : decisions;

  return (
    <section className="view" aria-labelledby="decisions-title">
      <header className="view-header">
        <h1 id="decisions-title">Decisions</h1>
        <button type="button" onClick={() => void exportMarkdown()}>
          Export to Markdown
        </button>
      </header>
      <div className="columns">
        <form
          id="decision-form"
          className="card form"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <h2>{superseding ? `Supersede ${superseding.decision_id}` : 'New decision'}</h2>
          <Field label="Title" error={issueFor('title')}>{(p) => <input {...p} name="title" value={form.title} maxLength={TITLE_MAX} onChange={(e) => set({ title: e.target.value })} />}</Field>
          <Field label="Decision" error={issueFor('decision')}>{(p) => <textarea {...p} name="decision" rows={2} value={form.decision} onChange={(e) => set({ decision: e.target.value })} />}</Field>
          <Field label="Rationale" error={issueFor('rationale')}>{(p) => <textarea {...p} name="rationale" rows={3} value={form.rationale} onChange={(e) => set({ rationale: e.target.value })} />}</Field>
          <fieldset className="alternatives">
            <legend>Alternatives considered</legend>
            {form.alternatives.map((a, i) => (
              <div key={i} className="row">
                <input aria-label={`Alternative ${i + 1} name`} placeholder="name" value={a.name} onChange={(e) => set({ alternatives: form.alternatives.map((x, j) => (j === i ? { ...x, name: e.target.value } : x)) })} />
                <input aria-label={`Alternative ${i + 1} reason rejected`} placeholder="why not" className="grow" value={a.reason} onChange={(e) => set({ alternatives: form.alternatives.map((x, j) => (j === i ? { ...x, reason: e.target.value } : x)) })} />
                <button type="button" aria-label={`Remove alternative ${i + 1}`} onClick={() => set({ alternatives: form.alternatives.filter((_, j) => j !== i) })}>✕</button>
              </div>
            ))}
            {issueFor('alternatives_considered') ? <p className="field-error" role="alert">{issueFor('alternatives_considered')}</p> : null}
            <button type="button" onClick={() => set({ alternatives: [...form.alternatives, { name: '', reason: '' }] })}>Add alternative</button>
          </fieldset>
          <Field label="Expected impact" error={issueFor('expected_impact')}>{(p) => <textarea {...p} rows={2} value={form.expected_impact} onChange={(e) => set({ expected_impact: e.target.value })} />}</Field>
          <Field label="Validation criteria" error={issueFor('validation_criteria')}>{(p) => <textarea {...p} rows={2} value={form.validation_criteria} onChange={(e) => set({ validation_criteria: e.target.value })} />}</Field>
          <Field label="Context" error={issueFor('context')}>{(p) => <textarea {...p} rows={2} value={form.context} onChange={(e) => set({ context: e.target.value })} />}</Field>
          <div className="row">
            <Field label="Tags" hint="comma-separated" error={issueFor('tags')}>{(p) => <input {...p} name="tags" value={form.tags} onChange={(e) => set({ tags: e.target.value })} />}</Field>
            <Field label="Importance (1–10)" error={issueFor('importance')}>{(p) => <input {...p} name="importance" type="number" min={1} max={10} value={form.importance} onChange={(e) => set({ importance: e.target.value })} />}</Field>
          </div>
          {error && issues.length === 0 ? <p className="error" role="alert">{error}</p> : null}
          <div className="row">
            <button type="submit" className="primary">{superseding ? 'Save superseding decision' : 'Save decision'}</button>
            {superseding ? <button type="button" onClick={() => { setSuperseding(null); setForm(EMPTY); setIssues([]); }}>Cancel</button> : null}
          </div>
        </form>

        <div className="list-pane">
          <div className="row filters">
            <input aria-label="Filter decisions" placeholder="Filter…" value={filter.query} onChange={(e) => setFilter({ ...filter, query: e.target.value })} />
            <input aria-label="Tag" placeholder="tag" value={filter.tag} onChange={(e) => setFilter({ ...filter, tag: e.target.value })} />
            <label>
              <input type="checkbox" checked={filter.includeSuperseded} onChange={(e) => setFilter({ ...filter, includeSuperseded: e.target.checked })} /> superseded too
            </label>
          </div>
          {only ? (
            <p className="row" data-testid="decision-focus">
              Showing <span className="mono">{only}</span>
              <button type="button" onClick={() => setOnly(null)}>Show all</button>
            </p>
          ) : null}
          {shown.length === 0 ? (
            <p className="muted" data-testid="empty-decisions">
              {filter.query || filter.tag || only ? 'No decisions match.' : 'No decisions yet. Record one with the form: what was decided, why, and what else was considered; packets cite the important ones as directives.'}
            </p>
          ) : null}
          <VirtualList
            label="Decisions"
            items={shown}
            estimate={120}
            itemKey={(d) => d.memory_id}
            render={(d) => (
              <article className={`card decision ${d.superseded_by ? 'decision-superseded' : ''}`} data-testid="decision-row">
                <header className="row">
                  <span className="mono muted">{d.decision_id}</span>
                  <strong className="grow">{d.title}</strong>
                  <span className="badge" title="importance">{d.importance}</span>
                </header>
                <p>{d.content.decision}</p>
                <p className="muted">
                  {d.tags.map((t) => `#${t}`).join(' ')} {d.supersedes ? `· supersedes ${d.supersedes}` : ''} {d.superseded_by ? `· superseded by ${d.superseded_by}` : ''}
                </p>
                {!d.superseded_by ? <button type="button" onClick={() => startSupersede(d)}>Supersede…</button> : null}
              </article>
            )}
          />
        </div>
      </div>
    </section>
  );
}
