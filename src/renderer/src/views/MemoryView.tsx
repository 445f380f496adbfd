import { useEffect, useState } from 'react';
import type { MemoryRecord, MemorySearchHit } from '../../../shared/memory.ts';
import { ApiCallError, api, errorText } from '../api/client.ts';
import { Field } from '../components/Field.tsx';
import { useApp } from '../state/app.ts';

type Filter = 'issue' | 'state' | 'learning' | 'decision';
const FILTERS: Filter[] = ['issue', 'state', 'learning', 'decision'];

/** The typed content as editable fields: text, lists (one item per line) and numbers. */
function contentFields(m: MemoryRecord): { key: string; kind: 'text' | 'list' | 'number' | 'enum'; value: string; options?: string[] }[] {
  return Object.entries(m.content as unknown as Record<string, unknown>)
    .filter(([k]) => k !== 'alternatives_considered')
    .map(([key, v]) => {
      if (key === 'severity') return { key, kind: 'enum' as const, value: String(v), options: ['critical', 'high', 'medium', 'low'] };
      if (key === 'status') return { key, kind: 'enum' as const, value: String(v), options: ['open', 'resolved'] };
      if (Array.isArray(v)) return { key, kind: 'list' as const, value: v.join('\n') };
      if (typeof v === 'number') return { key, kind: 'number' as const, value: String(v) };
      return { key, kind: 'text' as const, value: String(v ?? '') };
    });
}

const MAIN_FIELD: Record<'issue' | 'state' | 'learning', string> = { issue: 'description', state: 'task_description', learning: 'lesson' };

export function MemoryView() {
  const announce = useApp((s) => s.announce);
  const [type, setType] = useState<Filter>('issue');
  const [query, setQuery] = useState('');
  const [archived, setArchived] = useState(false);
  const [hits, setHits] = useState<MemorySearchHit[]>([]);
  const [selected, setSelected] = useState<MemoryRecord | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = async () => {
    try {
      const r = await api().call('memory.search', { query: query.trim() || undefined, types: [type], archived, limit: 200 });
      setHits(r.hits);
      setError(null);
    } catch (err) {
      setError(errorText(err));
    }
  };
  useEffect(() => {
    void load();
  }, [type, archived]); // eslint-disable-line react-hooks/exhaustive-deps

  const refresh = async (id: string | null, message?: string) => {
    await load();
    if (message) announce(message);
    if (id) {
      try {
        setSelected(await api().call('memory.get', { id }));
      } catch {
        setSelected(null);
      }
    } else setSelected(null);
  };

  return (
    <section className="view" aria-labelledby="memory-title">
      <header className="view-header">
        <h1 id="memory-title">Memory</h1>
        <span className="muted">issues, state, learnings and decisions</span>
      </header>
      <div className="row" role="group" aria-label="Memory type">
        {FILTERS.map((f) => (
          <button key={f} type="button" aria-pressed={type === f} className={type === f ? 'active' : ''} onClick={() => (setType(f), setSelected(null))}>
            {f}
          </button>
        ))}
        <label className="row">
          <input type="checkbox" checked={archived} onChange={(e) => setArchived(e.target.checked)} /> archived
        </label>
      </div>
      <form
        className="row"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          void load();
        }}
      >
        <input aria-label="Search memories" data-testid="memory-search" value={query} onChange={(e) => setQuery(e.target.value)} placeholder={`Search ${type}s…`} />
        <button type="submit">Search</button>
      </form>
      {error ? <p className="error" role="alert">{error}</p> : null}
      <div className="columns">
        <div className="list-pane">
          {type !== 'decision' ? <CreateForm type={type} onCreated={(m) => void refresh(m.memory_id, `Created ${m.title}`)} /> : <p className="muted">New decisions: the Decisions view.</p>}
          <ul className="memory-list" data-testid="memory-list">
            {hits.length === 0 ? <li className="muted">No {archived ? 'archived ' : ''}{type}s.</li> : null}
            {hits.map((h) => (
              <li key={h.memory.memory_id}>
                <button type="button" className={`memory-row ${selected?.memory_id === h.memory.memory_id ? 'active' : ''}`} onClick={() => setSelected(h.memory)} data-testid="memory-row">
                  <span className="grow">{h.memory.title}</span>
                  {h.memory.memory_type === 'issue' ? <span className="badge">{(h.memory.content as { severity: string }).severity} · {(h.memory.content as { status: string }).status}</span> : null}
                  <span className="muted">[{h.memory.importance}]</span>
                </button>
              </li>
            ))}
          </ul>
        </div>
        {selected ? (
          selected.memory_type === 'decision' ? (
            <DecisionDetail key={selected.memory_id} m={selected} onDone={(id, msg) => void refresh(id, msg)} />
          ) : (
            <Detail key={`${selected.memory_id}-${selected.updated_at}-${selected.is_archived}`} m={selected} onDone={(id, msg) => void refresh(id, msg)} />
          )
        ) : (
          <p className="muted">Select a memory to see and edit it.</p>
        )}
      </div>
    </section>
  );
}

function CreateForm({ type, onCreated }: { type: 'issue' | 'state' | 'learning'; onCreated: (m: MemoryRecord) => void }) {
  const [title, setTitle] = useState('');
  const [main, setMain] = useState('');
  const [severity, setSeverity] = useState('high');
  const [issues, setIssues] = useState<Record<string, string>>({});
  const create = async () => {
    const content: Record<string, unknown> = { [MAIN_FIELD[type]]: main };
    if (type === 'issue') content.severity = severity;
    if (type === 'state') content.completion_percentage = 0;
    try {
      const m = await api().call('memory.create', { type, title, content });
      setTitle('');
      setMain('');
      setIssues({});
      onCreated(m);
    } catch (err) {
      setIssues(err instanceof ApiCallError && err.issues.length ? Object.fromEntries(err.issues.map((i) => [i.field, i.message])) : { form: errorText(err) });
    }
  };
  return (
    <form
      className="card form"
      noValidate
      data-testid="memory-create"
      onSubmit={(e) => {
        e.preventDefault();
        void create();
      }}
    >
      <h2>New {type}</h2>
      <Field label="Title" error={issues.title}>{(a) => <input {...a} name="memory-title" value={title} onChange={(e) => setTitle(e.target.value)} />}</Field>
      <Field label={MAIN_FIELD[type].replace(/_/g, ' ')} error={issues[`content.${MAIN_FIELD[type]}`]}>{(a) => <textarea {...a} name="memory-main" rows={3} value={main} onChange={(e) => setMain(e.target.value)} />}</Field>
      {type === 'issue' ? (
        <Field label="Severity">
          {(a) => (
            <select {...a} value={severity} onChange={(e) => setSeverity(e.target.value)}>
              {['critical', 'high', 'medium', 'low'].map((s) => <option key={s}>{s}</option>)}
            </select>
          )}
        </Field>
      ) : null}
      {issues.form ? <p className="error" role="alert">{issues.form}</p> : null}
      <button type="submit" className="primary">Create {type}</button>
    </form>
  );
}

function Detail({ m, onDone }: { m: MemoryRecord; onDone: (id: string | null, message: string) => void }) {
  const [title, setTitle] = useState(m.title);
  const [importance, setImportance] = useState(String(m.importance));
  const [tags, setTags] = useState(m.tags.join(', '));
  const fields = contentFields(m);
  const [values, setValues] = useState<Record<string, string>>(Object.fromEntries(fields.map((f) => [f.key, f.value])));
  const [issues, setIssues] = useState<Record<string, string>>({});
  const [confirmDelete, setConfirmDelete] = useState(false);
  const fail = (err: unknown) => setIssues(err instanceof ApiCallError && err.issues.length ? Object.fromEntries(err.issues.map((i) => [i.field, i.message])) : { form: errorText(err) });
  const save = async () => {
    const set: Record<string, unknown> = {};
    for (const f of fields) {
      const v = values[f.key] ?? '';
      if (v === f.value) continue;
      set[f.key] = f.kind === 'list' ? v.split('\n').map((x) => x.trim()).filter(Boolean) : f.kind === 'number' ? Number(v) : v;
    }
    try {
      const r = await api().call('memory.update', {
        id: m.memory_id,
        title: title !== m.title ? title : undefined,
        importance: importance !== String(m.importance) ? Number(importance) : undefined,
        tags: tags !== m.tags.join(', ') ? tags.split(',').map((t) => t.trim()).filter(Boolean) : undefined,
        set: Object.keys(set).length ? set : undefined,
      });
      onDone(m.memory_id, r.lifecycle ? `Saved; archived by ${r.lifecycle.rule}` : r.changed ? 'Saved' : 'Nothing changed');
    } catch (err) {
      fail(err);
    }
  };
  const act = async (fn: () => Promise<unknown>, id: string | null, message: string) => {
    try {
      await fn();
      onDone(id, message);
    } catch (err) {
      fail(err);
    }
  };
  return (
    <form
      className="card form"
      noValidate
      data-testid="memory-detail"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <h2>
        {m.memory_type} <span className="muted mono">{m.memory_id.slice(0, 8)}</span> {m.is_archived ? <span className="badge">archived</span> : null}
      </h2>
      <Field label="Title" error={issues.title}>{(a) => <input {...a} name="edit-title" value={title} onChange={(e) => setTitle(e.target.value)} />}</Field>
      <div className="row">
        <Field label="Importance" error={issues.importance}>{(a) => <input {...a} type="number" min={1} max={10} value={importance} onChange={(e) => setImportance(e.target.value)} />}</Field>
        <Field label="Tags (comma-separated)" error={issues.tags}>{(a) => <input {...a} value={tags} onChange={(e) => setTags(e.target.value)} />}</Field>
      </div>
      {fields.map((f) => (
        <Field key={f.key} label={f.key.replace(/_/g, ' ')} error={issues[`content.${f.key}`]} hint={f.kind === 'list' ? 'one per line' : undefined}>
          {(a) =>
            f.kind === 'enum' ? (
              <select {...a} name={`edit-${f.key}`} value={values[f.key]} onChange={(e) => setValues({ ...values, [f.key]: e.target.value })}>
                {f.options!.map((o) => <option key={o}>{o}</option>)}
              </select>
            ) : f.kind === 'number' ? (
              <input {...a} name={`edit-${f.key}`} type="number" value={values[f.key]} onChange={(e) => setValues({ ...values, [f.key]: e.target.value })} />
            ) : (
              <textarea {...a} name={`edit-${f.key}`} rows={f.kind === 'list' ? 3 : 2} value={values[f.key]} onChange={(e) => setValues({ ...values, [f.key]: e.target.value })} />
            )
          }
        </Field>
      ))}
      {issues.form ? <p className="error" role="alert">{issues.form}</p> : null}
      <div className="row">
        <button type="submit" className="primary">Save</button>
        {m.memory_type === 'issue' && (m.content as { status: string }).status !== 'resolved' ? (
          <button type="button" data-testid="resolve" onClick={() => void act(() => api().call('memory.resolve', { id: m.memory_id }), m.memory_id, 'Issue resolved')}>Resolve</button>
        ) : null}
        <button type="button" onClick={() => void act(() => api().call('memory.archive', { id: m.memory_id, restore: m.is_archived }), m.memory_id, m.is_archived ? 'Restored' : 'Archived')}>
          {m.is_archived ? 'Restore' : 'Archive'}
        </button>
        {confirmDelete ? (
          <button type="button" className="danger" data-testid="confirm-delete" onClick={() => void act(() => api().call('memory.delete', { id: m.memory_id }), null, 'Deleted')}>Delete permanently</button>
        ) : (
          <button type="button" onClick={() => setConfirmDelete(true)}>Delete…</button>
        )}
      </div>
    </form>
  );
}

function DecisionDetail({ m, onDone }: { m: MemoryRecord; onDone: (id: string | null, message: string) => void }) {
  const c = m.content as { decision: string; rationale: string; alternatives_considered: { name: string; reason: string }[]; expected_impact: string; validation_criteria: string };
  const [editing, setEditing] = useState(false);
  const [title, setTitle] = useState(m.title);
  const [decision, setDecision] = useState(c.decision);
  const [rationale, setRationale] = useState(c.rationale);
  const [importance, setImportance] = useState(String(m.importance));
  const [issues, setIssues] = useState<Record<string, string>>({});
  const supersede = async () => {
    try {
      const d = await api().call('decisions.supersede', {
        decisionId: m.decision_id!,
        replacement: { title, decision, rationale, importance: Number(importance), alternatives_considered: c.alternatives_considered, expected_impact: c.expected_impact, validation_criteria: c.validation_criteria, tags: m.tags },
      });
      onDone(d.memory_id, `${d.decision_id} supersedes ${m.decision_id}`);
    } catch (err) {
      setIssues(err instanceof ApiCallError && err.issues.length ? Object.fromEntries(err.issues.map((i) => [i.field.replace(/^replacement\./, ''), i.message])) : { form: errorText(err) });
    }
  };
  return (
    <div className="card" data-testid="decision-detail">
      <h2>
        {m.decision_id} {m.title} {m.is_archived ? <span className="badge">archived{m.superseded_by ? ` → ${m.superseded_by}` : ''}</span> : null}
      </h2>
      <p><strong>Decision:</strong> {c.decision}</p>
      <p><strong>Rationale:</strong> {c.rationale}</p>
      {c.alternatives_considered.length ? <ul>{c.alternatives_considered.map((a) => <li key={a.name}>{a.name}: {a.reason}</li>)}</ul> : null}
      <p className="muted">importance {m.importance} · {m.timestamp}{m.supersedes ? ` · supersedes ${m.supersedes}` : ''}</p>
      {m.is_archived ? null : editing ? (
        <form
          className="form"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            void supersede();
          }}
        >
          <p className="muted">Decisions are never edited in place: the edit is a new decision that supersedes this one (which is archived, kept).</p>
          <Field label="Title" error={issues.title}>{(a) => <input {...a} value={title} onChange={(e) => setTitle(e.target.value)} />}</Field>
          <Field label="Decision" error={issues.decision}>{(a) => <textarea {...a} rows={2} value={decision} onChange={(e) => setDecision(e.target.value)} />}</Field>
          <Field label="Rationale" error={issues.rationale}>{(a) => <textarea {...a} rows={2} value={rationale} onChange={(e) => setRationale(e.target.value)} />}</Field>
          <Field label="Importance" error={issues.importance}>{(a) => <input {...a} type="number" min={1} max={10} value={importance} onChange={(e) => setImportance(e.target.value)} />}</Field>
          {issues.form ? <p className="error" role="alert">{issues.form}</p> : null}
          <button type="submit" className="primary">Save as superseding decision</button>
        </form>
      ) : (
        <button type="button" onClick={() => setEditing(true)}>Edit (supersede)</button>
      )}
    </div>
  );
}
