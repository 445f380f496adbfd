import { useEffect, type JSX } from 'react';
import { api } from './api/client.ts';
import { useApp, VIEW_LABELS, VIEWS, type ViewName } from './state/app.ts';
import { useLibrary } from './state/library.ts';
import { ProjectSwitcher } from './components/ProjectSwitcher.tsx';
import { DecisionsView } from './views/DecisionsView.tsx';
import { HierarchyView } from './views/HierarchyView.tsx';
import { LibraryView } from './views/LibraryView.tsx';
import { PacketsView } from './views/PacketsView.tsx';
import { SEARCH_INPUT_ID, SearchView } from './views/SearchView.tsx';

const VIEW_COMPONENTS: Record<ViewName, () => JSX.Element> = {
  library: LibraryView,
  search: SearchView,
  decisions: DecisionsView,
  hierarchy: HierarchyView,
  packets: PacketsView,
};

export function App() {
  const { view, setView, info, infoError, status, loadInfo } = useApp();

  useEffect(() => {
    void loadInfo();
    return api().onEvent((e) => {
      if (e.name === 'ingest.progress') useLibrary.getState().onProgress(e.payload);
      else if (e.name === 'embed.progress') useLibrary.getState().onEmbedProgress(e.payload);
    });
  }, [loadInfo]);

  useEffect(() => {
    // Ctrl/Cmd+K: search from anywhere; Ctrl/Cmd+1…5: switch views.
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey) return;
      if (e.key === 'k' || e.key === 'K') {
        e.preventDefault();
        setView('search');
        requestAnimationFrame(() => (document.getElementById(SEARCH_INPUT_ID) as HTMLInputElement | null)?.select());
        return;
      }
      const n = Number(e.key);
      if (n >= 1 && n <= VIEWS.length) {
        e.preventDefault();
        setView(VIEWS[n - 1]!);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [setView]);

  const Current = VIEW_COMPONENTS[view];
  return (
    <div className="app">
      <a className="skip" href="#main">Skip to content</a>
      <nav className="sidebar" aria-label="Views">
        <div className="brand">ContextPack</div>
        <ul role="tablist" aria-orientation="vertical">
          {VIEWS.map((v, i) => (
            <li key={v}>
              <button
                type="button"
                role="tab"
                aria-selected={view === v}
                aria-controls="main"
                className={view === v ? 'active' : ''}
                onClick={() => setView(v)}
                title={`Ctrl+${i + 1}`}
              >
                {VIEW_LABELS[v]}
                <kbd>{i + 1}</kbd>
              </button>
            </li>
          ))}
        </ul>
        <ProjectSwitcher />
        <div className="sidebar-foot muted">
          {info ? (
            <>
              <div title={info.dbPath} className="ellipsis">{info.dbPath.split(/[\\/]/).pop()}</div>
              <div>{info.transport === 'http' ? 'browser · serve mode' : 'desktop'} · v{info.version}</div>
            </>
          ) : null}
        </div>
      </nav>
      <main id="main" tabIndex={-1} role="tabpanel" aria-label={VIEW_LABELS[view]}>
        {infoError ? <p className="error" role="alert">Cannot reach the engine: {infoError}</p> : null}
        {info ? <Current /> : !infoError ? <p className="muted">Connecting…</p> : null}
      </main>
      <div className="visually-hidden" aria-live="polite" role="status">{status}</div>
    </div>
  );
}
