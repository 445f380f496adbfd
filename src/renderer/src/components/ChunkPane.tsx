import { useEffect, useRef } from 'react';
import type { ChunkContext } from '../../../shared/api/index.ts';
import { splitPath } from '../format.ts';

/**
 * A document's chunks beside a list (a search hit in its context, an L4 file's chunks). The focused chunk is
 * scrolled into view and highlighted each time the focus changes; Escape (handled by the owner) or ✕ closes it.
 */
export function ChunkPane({
  context,
  onClose,
  label,
  masked = true,
}: {
  context: ChunkContext;
  onClose: () => void;
  label: string;
  /** Show the redaction gate's forms of text and labels (when the API sent them); false after an explicit reveal. */
  masked?: boolean;
}) {
  const focusRef = useRef<HTMLElement>(null);
  const path = (masked ? context.gatedPath : undefined) ?? context.path;
  useEffect(() => {
    focusRef.current?.scrollIntoView({ block: 'center' });
  }, [context]);
  return (
    <aside className="context" aria-label={label} data-testid="chunk-context">
      <header className="row context-head">
        <h2 className="grow">{((masked ? context.gatedTitle : undefined) ?? context.title) || splitPath(path).file}</h2>
        <button type="button" onClick={onClose} aria-label="Close (Escape)">✕</button>
      </header>
      <p className="muted mono ellipsis" title={path}>{path}</p>
      {context.chunks.map((raw) => {
        const c = masked && raw.gated ? { ...raw, text: raw.gated.text, anchor: raw.gated.anchor, headingPath: raw.gated.headingPath } : raw;
        const focus = c.chunkId === context.focus;
        return (
          <article key={c.chunkId} ref={focus ? focusRef : undefined} className={`chunk ${focus ? 'chunk-focus' : ''}`} data-testid={focus ? 'chunk-focus' : 'chunk'} aria-current={focus ? 'true' : undefined}>
            <p className="muted mono">
              {c.anchor ? `#${c.anchor}` : ''} lines {c.lineStart}–{c.lineEnd} {c.headingPath ? `· ${c.headingPath}` : ''}
            </p>
            <pre>{c.text}</pre>
          </article>
        );
      })}
    </aside>
  );
}
