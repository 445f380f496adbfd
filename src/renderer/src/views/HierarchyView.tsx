import { useEffect, useState, type ReactNode } from 'react';
import type { HierarchyView as Tree } from '../../../shared/api/index.ts';
import type { ConsistencyFinding, HierarchySection } from '../../../shared/memory.ts';
import { api, errorText } from '../api/client.ts';
import { Unavailable } from '../components/Unavailable.tsx';
import { VirtualList } from '../components/VirtualList.tsx';
import { fmtBytes } from '../format.ts';
import { useMissing } from '../state/app.ts';

export function HierarchyView() {
  const missing = useMissing('hierarchy');
  if (missing) return <Unavailable what="The hierarchy" reason={missing} />;
  return <Hierarchy />;
}

const domId = (marker: string) => `sec-${marker.replace(/[^A-Za-z0-9]/g, '-')}`;
const sectionMarker = (m: string) => (m.startsWith('§') ? m : `§${m}`);

function Hierarchy() {
  const [view, setView] = useState<Tree | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api().call('hierarchy.tree', {}).then(setView, (err) => setError(errorText(err)));
  }, []);
  if (error) return <p className="error" role="alert">{error}</p>;
  if (!view) return <p className="muted">Loading…</p>;
  const { tree, findings } = view;
  const findingsFor = (marker: string) => findings.filter((f) => f.marker === sectionMarker(marker));
  const placed = new Set(['1.0', ...tree.sections.flatMap((s) => [s.marker, ...s.children.map((c) => c.marker)]), ...tree.orphan_details.map((s) => s.marker)].map(sectionMarker));
  const unplaced = findings.filter((f) => !placed.has(f.marker));
  const go = (marker: string) => {
    const el = document.getElementById(domId(marker));
    el?.scrollIntoView({ block: 'start' });
    el?.focus();
  };

  return (
    <section className="view" aria-labelledby="hierarchy-title">
      <header className="view-header">
        <h1 id="hierarchy-title">Hierarchy</h1>
        <span className="muted">{findings.length} consistency finding{findings.length === 1 ? '' : 's'}</span>
      </header>
      <div className="columns columns-nav">
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
              </>
            ) : (
              <p className="muted">No executive summary yet (set one with the hierarchy CLI).</p>
            )}
            <Findings findings={findingsFor('1.0')} />
          </article>
          {tree.sections.length === 0 ? <p className="muted">No L2/L3 sections yet.</p> : null}
          {tree.sections.map((s) => (
            <Section key={s.marker} s={s} findings={findingsFor(s.marker)}>
              {s.children.map((c) => <Section key={c.marker} s={c} findings={findingsFor(c.marker)} />)}
            </Section>
          ))}
          {tree.orphan_details.map((s) => <Section key={s.marker} s={s} findings={findingsFor(s.marker)} />)}
          <h2 id={domId('4')} tabIndex={-1}>L4 · files</h2>
          <VirtualList
            label="L4 files"
            items={tree.l4}
            estimate={36}
            itemKey={(n) => n.marker}
            render={(n) => (
              <div className="source">
                <span className="marker">§{n.marker}</span>
                <span className="muted">{n.type} · {fmtBytes(n.size)} · {n.chunks} chunks · {n.tokens} tokens</span>
              </div>
            )}
          />
        </div>
      </div>
    </section>
  );
}

function Section({ s, findings, children }: { s: HierarchySection; findings: ConsistencyFinding[]; children?: ReactNode }) {
  return (
    <article id={domId(s.marker)} tabIndex={-1} className={`card level-${s.level}`}>
      <h3>
        <span className="marker">§{s.marker}</span> {s.title} {s.status_pct !== null ? <span className="muted">{s.status_pct}%</span> : null} {s.is_draft ? <span className="badge">draft</span> : null}
      </h3>
      <pre className="body">{s.body}</pre>
      <Findings findings={findings} />
      {children}
    </article>
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
