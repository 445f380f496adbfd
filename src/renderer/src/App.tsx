import { lazy, Suspense, useEffect, type ComponentType, type LazyExoticComponent } from 'react';
import { api } from './api/client.ts';
import { ProjectSwitcher } from './components/ProjectSwitcher.tsx';
import { Toasts } from './components/Toasts.tsx';
import { SEARCH_INPUT_ID, useApp, VIEW_LABELS, VIEWS, type ViewName } from './state/app.ts';
import { useLibrary } from './state/library.ts';
import { usePackets } from './state/packets.ts';

// One chunk per view (React.lazy), so the first paint loads the shell and the Library only.
const VIEW_COMPONENTS: Record<ViewName, LazyExoticComponent<ComponentType>> = {
  library: lazy(() => import('./views/LibraryView.tsx').then((m) => ({ default: m.LibraryView }))),
  search: lazy(() => import('./views/SearchView.tsx').then((m) => ({ default: m.SearchView }))),
  decisions: lazy(() => import('./views/DecisionsView.tsx').then((m) => ({ default: m.DecisionsView }))),
  hierarchy: lazy(() => import('./views/HierarchyView.tsx').then((m) => ({ default: m.HierarchyView }))),
  packets: lazy(() => import('./views/PacketsView.tsx').then((m) => ({ default: m.PacketsView }))),
  sessions: lazy(() => import('./views/SessionsView.tsx').then((m) => ({ default: m.SessionsView }))),
  memory: lazy(() => import('./views/MemoryView.tsx').then((m) => ({ default: m.MemoryView }))),
};

export function App() {
  const { view, setView, info, infoError, status, loadInfo } = useApp();

  useEffect(() => {
    void loadInfo();
    return api().onEvent((e) => {
      if (e.name === 'ingest.progress') useLibrary.getState().onProgress(e.payload);
      else if (e.name === 'embed.progress') useLibrary.getState().onEmbedProgress(e.payload);
      else if (e.name === 'library.changed') {
        // Open views follow the index without polling: sources and stats, and packets that may have gone stale.
        useLibrary.getState().onLibraryChanged(e.payload);
        if (usePackets.getState().history.length > 0) void usePackets.getState().loadHistory();
      } else if (e.name === 'watch.status') useLibrary.getState().onWatchStatus(e.payload);
    });
  }, [loadInfo]);

  useEffect(() => {
    // Ctrl/Cmd+K: search from anywhere; Ctrl/Cmd+1…n: switch views.
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey) return;
      if (e.key === 'k' || e.key === 'K') {
        e.preventDefault();
        setView('search');
        const focus = (tries: number) => {
          const el = document.getElementById(SEARCH_INPUT_ID) as HTMLInputElement | null;
          if (el) el.select();
          else if (tries > 0) setTimeout(() => focus(tries - 1), 30);
        };
        requestAnimationFrame(() => focus(60));
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
      {/* A nav of links with aria-current (not a tab list): each view is a page of the workbench. */}
      <nav className="sidebar" aria-label="Views">
        <div className="brand">ContextPack</div>
        <ul>
          {VIEWS.map((v, i) => (
            <li key={v}>
              <a
                href={`#${v}`}
                aria-current={view === v ? 'page' : undefined}
                className={view === v ? 'active' : ''}
                onClick={(e) => {
                  e.preventDefault();
                  setView(v);
                }}
                title={`Ctrl+${i + 1}`}
              >
                {VIEW_LABELS[v]}
                <kbd aria-hidden="true">{i + 1}</kbd>
              </a>
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
      <main id="main" tabIndex={-1} aria-label={VIEW_LABELS[view]}>
        {infoError ? <p className="error" role="alert">Cannot reach the engine: {infoError}</p> : null}
        {info ? (
          <Suspense fallback={<p className="muted view">Loading…</p>}>
            <Current />
          </Suspense>
        ) : !infoError ? (
          <p className="muted">Connecting…</p>
        ) : null}
      </main>
      <Toasts status={status} />
    </div>
  );
}
