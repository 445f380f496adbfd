import { useEffect, useRef } from 'react';
import type { SearchMode } from '../../../shared/types.ts';
import { VirtualList } from '../components/VirtualList.tsx';
import { where } from '../format.ts';
import { useMissing } from '../state/app.ts';
import { useSearch } from '../state/search.ts';

export const SEARCH_INPUT_ID = 'search-query';

export function SearchView() {
  const s = useSearch();
  const vectorMissing = useMissing('vector');
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  const mmrUsable = s.mode !== 'bm25';

  return (
    <section className="view" aria-labelledby="search-title">
      <header className="view-header">
        <h1 id="search-title">Search</h1>
        <span className="muted">Ctrl+K</span>
      </header>
      <form
        className="search-form"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          void s.search();
        }}
      >
        <label htmlFor={SEARCH_INPUT_ID} className="visually-hidden">Query</label>
        <input ref={input} id={SEARCH_INPUT_ID} type="search" placeholder="Search the library…" value={s.query} onChange={(e) => s.set({ query: e.target.value })} />
        <fieldset className="modes">
          <legend className="visually-hidden">Mode</legend>
          {(['bm25', 'vector', 'hybrid'] as SearchMode[]).map((m) => (
            <label key={m} className={m !== 'bm25' && vectorMissing ? 'disabled' : ''} title={m !== 'bm25' && vectorMissing ? vectorMissing : undefined}>
              <input type="radio" name="mode" value={m} checked={s.mode === m} disabled={m !== 'bm25' && vectorMissing !== null} onChange={() => s.set({ mode: m })} />
              {m}
            </label>
          ))}
        </fieldset>
        <label className={`mmr ${mmrUsable ? '' : 'disabled'}`}>
          <input type="checkbox" checked={s.mmrLambda !== null} disabled={!mmrUsable} onChange={(e) => s.set({ mmrLambda: e.target.checked ? 0.7 : null })} />
          MMR λ
          <input
            type="range"
            min={0}
            max={1}
            step={0.05}
            value={s.mmrLambda ?? 0.7}
            disabled={!mmrUsable || s.mmrLambda === null}
            aria-label="MMR lambda"
            onChange={(e) => s.set({ mmrLambda: Number(e.target.value) })}
          />
          <output>{(s.mmrLambda ?? 0.7).toFixed(2)}</output>
        </label>
        <button type="submit" disabled={s.loading || s.query.trim() === ''}>Search</button>
      </form>
      {vectorMissing ? <p className="notice">Vector and hybrid modes are off: {vectorMissing}</p> : null}
      {s.error ? <p className="error" role="alert">{s.error}</p> : null}

      <div className={`split ${s.context ? 'split-open' : ''}`}>
        <div className="split-main">
          {s.searched !== null ? <p className="muted" data-testid="result-count">{s.hits.length} results for “{s.searched}”</p> : null}
          <VirtualList
            label="Results"
            items={s.hits}
            estimate={96}
            itemKey={(h) => h.chunkId}
            render={(h) => (
              <button type="button" className={`hit ${s.context?.focus === h.chunkId ? 'hit-active' : ''}`} data-testid="hit" onClick={() => void s.open(h.chunkId)}>
                <span className="hit-head">
                  <span className="score">{h.score.toFixed(3)}</span>
                  <span className="hit-where">{where(h)}</span>
                </span>
                <span className="hit-text">{h.text.replace(/\s+/g, ' ').slice(0, 240)}</span>
              </button>
            )}
          />
        </div>
        {s.context ? (
          <aside className="context" aria-label="Chunk in context" data-testid="chunk-context">
            <header className="row">
              <h2 className="grow">{s.context.title || s.context.path.split('/').pop()}</h2>
              <button type="button" onClick={s.closeContext} aria-label="Close context">✕</button>
            </header>
            <p className="muted mono">{s.context.path}</p>
            {s.context.chunks.map((c) => (
              <article key={c.chunkId} className={`chunk ${c.chunkId === s.context!.focus ? 'chunk-focus' : ''}`}>
                <p className="muted mono">
                  {c.anchor ? `#${c.anchor}` : ''} lines {c.lineStart}–{c.lineEnd} {c.headingPath ? `· ${c.headingPath}` : ''}
                </p>
                <pre>{c.text}</pre>
              </article>
            ))}
          </aside>
        ) : null}
      </div>
    </section>
  );
}
