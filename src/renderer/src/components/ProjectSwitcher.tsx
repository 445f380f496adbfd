import { useEffect, useState, type FormEvent } from 'react';
import type { ProjectsView } from '../../../shared/types.ts';
import { api, errorText } from '../api/client.ts';

/**
 * The open project, a switcher and a new-project flow. Switching swaps the engine's database under the same window;
 * the page then reloads so that every view starts from the new project's state.
 */
export function ProjectSwitcher() {
  const [view, setView] = useState<ProjectsView | null>(null);
  const [creating, setCreating] = useState(false);
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    api()
      .call('projects.list', {})
      .then(setView, (err: unknown) => setError(errorText(err)));
  }, []);

  useEffect(() => {
    document.title = view?.current ? `${view.current} — ContextPack` : 'ContextPack';
  }, [view?.current]);

  const switchTo = async (target: string) => {
    setBusy(true);
    setError(null);
    try {
      await api().call('projects.switch', { name: target });
      location.reload();
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };

  const create = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const made = await api().call('projects.create', { name: name.trim() });
      await switchTo(made.name);
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };

  if (!view) return error ? <p className="error">{error}</p> : null;
  if (!view.switchable || !view.current) return null;
  return (
    <div className="projects" data-testid="project-switcher">
      <label htmlFor="project-select" className="muted">Project</label>
      <select id="project-select" value={view.current} disabled={busy} onChange={(e) => void switchTo(e.target.value)}>
        {view.projects.map((p) => (
          <option key={p.name} value={p.name}>
            {p.name}
            {p.sources === null ? '' : ` (${p.sources})`}
          </option>
        ))}
      </select>
      {creating ? (
        <form onSubmit={(e) => void create(e)} className="project-new">
          <label htmlFor="project-name" className="visually-hidden">New project name</label>
          <input id="project-name" autoFocus value={name} placeholder="name" onChange={(e) => setName(e.target.value)} disabled={busy} />
          <button type="submit" disabled={busy || name.trim() === ''}>Create</button>
          <button type="button" onClick={() => setCreating(false)} disabled={busy}>Cancel</button>
        </form>
      ) : (
        <button type="button" onClick={() => setCreating(true)}>New project…</button>
      )}
      {error ? <p className="error" role="alert">{error}</p> : null}
    </div>
  );
}
