import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { SearchHit, SearchMode } from '../../../shared/types.ts';
import { ChunkPane } from '../components/ChunkPane.tsx';
import { FilterBar } from '../components/FilterBar.tsx';
import { VirtualList } from '../components/VirtualList.tsx';
import { hitPath, middleEllipsis, splitPath } from '../format.ts';
import { SEARCH_INPUT_ID, useMissing } from '../state/app.ts';
import { toApiFilters, useRememberedFilters } from '../state/filters.ts';
import { useSearch } from '../state/search.ts';

/**
 * What a hit shows: its gated fields (the API's redaction gate, issue #10) unless the user revealed that hit. A hit
 * without gated fields (an older server) is shown as is.
 */
function shown(h: SearchHit, revealed: boolean): SearchHit {
  if (revealed || !h.gated) return h;
  const g = h.gated;
  return { ...h, text: g.text, title: g.title, path: g.path, anchor: g.anchor, headingPath: g.headingPath, ...(g.displayPath !== undefined ? { displayPath: g.displayPath } : {}), ...(g.relPath !== undefined ? { relPath: g.relPath } : {}) };
}

export function SearchView() {
  const s = useSearch();
  // Per-hit reveal of what the redaction gate masks, by chunk id; cleared by every new result list.
  const [revealed, setRevealed] = useState<ReadonlySet<number>>(new Set());
  useEffect(() => setRevealed(new Set()), [s.hits]);
  const toggle = (id: number) =>
    setRevealed((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const vectorMissing = useMissing('vector');
  const input = useRef<HTMLInputElement>(null);
  const [filters, setFilters] = useRememberedFilters('search');
  useEffect(() => input.current?.focus(), []);
  const mmrUsable = s.mode !== 'bm25';

  const focusHit = (i: number) => requestAnimationFrame(() => (document.querySelector(`[data-testid="hit"][data-hit-index="${i}"]`) as HTMLElement | null)?.focus());
  // Up/down move through the hits (and open each); Home/End jump; Escape closes the pane and returns to the hit.
  const onListKey = (e: KeyboardEvent) => {
    if (s.hits.length === 0) return;
    const moves: Record<string, number> = { ArrowDown: s.active + 1, ArrowUp: s.active - 1, Home: 0, End: s.hits.length - 1 };
    if (e.key in moves) {
      e.preventDefault();
      const next = Math.max(0, Math.min(s.hits.length - 1, moves[e.key]!));
      void s.open(next);
      focusHit(next);
    } else if (e.key === 'Escape' && s.context) {
      e.preventDefault();
      s.closeContext();
      focusHit(s.active);
    }
  };
  useEffect(() => {
    // Escape closes the pane from anywhere in the view (focus may be inside the pane).
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key === 'Escape' && useSearch.getState().context) {
        useSearch.getState().closeContext();
        focusHit(useSearch.getState().active);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  const run = () => void s.search(toApiFilters(filters));

  return (
    <section className="view" aria-labelledby="search-title">
      <header className="view-header">
        <h1 id="search-title">Search</h1>
        <span className="muted">Ctrl+K · ↑↓ move through hits · Esc closes</span>
      </header>
      <form
        className="search-form"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          run();
        }}
      >
        <label htmlFor={SEARCH_INPUT_ID} className="visually-hidden">Query</label>
        <input
          ref={input}
          id={SEARCH_INPUT_ID}
          type="search"
          placeholder="Search the library…"
          value={s.query}
          onChange={(e) => s.set({ query: e.target.value })}
          onKeyDown={(e) => {
            if (e.key === 'ArrowDown' && s.hits.length > 0) {
              e.preventDefault();
              void s.open(0);
              focusHit(0);
            }
          }}
        />
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
      <FilterBar
        label="Search filters"
        value={filters}
        onChange={(f) => {
          setFilters(f);
          if (s.searched !== null) void s.search(toApiFilters(f));
        }}
      />
      {vectorMissing ? <p className="notice">Vector and hybrid modes are off: {vectorMissing}</p> : null}
      {s.error ? <p className="error" role="alert">{s.error}</p> : null}

      <div className={`split ${s.context ? 'split-open' : ''}`}>
        <div className="split-main" onKeyDown={onListKey}>
          {s.searched !== null ? <p className="muted" data-testid="result-count">{s.hits.length} results for “{s.searched}”</p> : null}
          <VirtualList
            label="Results"
            items={s.hits}
            estimate={96}
            itemKey={(h) => h.chunkId}
            scrollToIndex={s.active}
            render={(h, i) => {
              const open = revealed.has(h.chunkId);
              const masked = (h.gated?.redactedLines ?? 0) > 0;
              return (
                <div className="hit-row">
                  <Hit hit={shown(h, open)} index={i} active={s.active === i} onOpen={() => void s.open(i)} />
                  {masked ? (
                    <button
                      type="button"
                      className="reveal"
                      data-testid="reveal"
                      aria-pressed={open}
                      title={open ? 'Mask the redacted lines again' : 'This hit holds lines the redaction gate masks; show them'}
                      onClick={() => toggle(h.chunkId)}
                    >
                      {open ? 'Mask secrets' : `Reveal (${h.gated!.redactedLines} masked)`}
                    </button>
                  ) : null}
                </div>
              );
            }}
          />
        </div>
        {s.context ? (
          <ChunkPane
            context={s.context}
            masked={!revealed.has(s.context.focus)}
            onClose={() => { s.closeContext(); focusHit(s.active); }}
            label="Chunk in context"
          />
        ) : null}
      </div>
    </section>
  );
}

/** File name and anchor always visible, the folder shortened in its middle, the score on one line. */
function Hit({ hit, index, active, onOpen }: { hit: SearchHit; index: number; active: boolean; onOpen: () => void }) {
  const { folder, file } = splitPath(hitPath(hit));
  const anchor = hit.anchor ? `#${hit.anchor}` : '';
  return (
    <button
      type="button"
      className={`hit ${active ? 'hit-active' : ''}`}
      data-testid="hit"
      data-hit-index={index}
      aria-current={active ? 'true' : undefined}
      title={`${hit.path}${anchor}:${hit.lineStart}-${hit.lineEnd}`}
      onClick={onOpen}
    >
      <span className="hit-head">
        <span className="hit-file">{file}</span>
        <span className="hit-anchor">{anchor}:{hit.lineStart}-{hit.lineEnd}</span>
        <span className="score" aria-label={`score ${hit.score.toFixed(3)}`}>{hit.score.toFixed(3)}</span>
      </span>
      {folder ? <span className="hit-folder" data-testid="hit-folder">{middleEllipsis(folder)}</span> : null}
      <span className="hit-text">{hit.text.replace(/\s+/g, ' ').slice(0, 240)}</span>
    </button>
  );
}
