import { useId, useState } from 'react';
import { TYPE_WORD_LIST } from '../../../shared/globs.ts';
import type { FilterChoice } from '../state/filters.ts';

const TYPE_LABELS: Record<string, string> = { md: 'Markdown', code: 'Code', html: 'HTML', pdf: 'PDF', json: 'JSON', text: 'Plain text' };

/**
 * Path include / exclude globs as removable chips, and a file type. Globs are read against paths relative to
 * their folder, gitignore-style (`test/**`, `**\/fixtures/**`, `*.md`).
 */
export function FilterBar({ value, onChange, label }: { value: FilterChoice; onChange: (f: FilterChoice) => void; label: string }) {
  const id = useId();
  const [draft, setDraft] = useState('');
  const add = (kind: 'include' | 'exclude') => {
    const globs = draft.split(/[\s,]+/).map((g) => g.trim()).filter(Boolean);
    if (globs.length === 0) return;
    onChange({ ...value, [kind]: [...new Set([...value[kind], ...globs])] });
    setDraft('');
  };
  const remove = (kind: 'include' | 'exclude', glob: string) => onChange({ ...value, [kind]: value[kind].filter((g) => g !== glob) });
  return (
    <div className="filter-bar" role="group" aria-label={label} data-testid="filter-bar">
      <label htmlFor={`${id}-glob`} className="visually-hidden">Path glob</label>
      <input
        id={`${id}-glob`}
        className="glob-input"
        placeholder="path glob, e.g. docs/** or test/**"
        value={draft}
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            // Enter adds an include glob; Shift+Enter an exclude glob (the buttons say the same).
            e.preventDefault();
            add(e.shiftKey ? 'exclude' : 'include');
          }
        }}
      />
      <button type="button" onClick={() => add('include')} disabled={draft.trim() === ''}>Only these</button>
      <button type="button" onClick={() => add('exclude')} disabled={draft.trim() === ''}>Exclude</button>
      <label htmlFor={`${id}-type`} className="visually-hidden">File type</label>
      <select id={`${id}-type`} value={value.type} onChange={(e) => onChange({ ...value, type: e.target.value as FilterChoice['type'] })}>
        <option value="">All types</option>
        {TYPE_WORD_LIST.map((t) => <option key={t} value={t}>{TYPE_LABELS[t] ?? t}</option>)}
      </select>
      {value.include.length + value.exclude.length > 0 ? (
        <ul className="chips" aria-label="Active path filters">
          {value.include.map((g) => (
            <li key={`i${g}`} className="chip chip-include" data-testid="chip-include">
              <span>only <code>{g}</code></span>
              <button type="button" aria-label={`Remove include ${g}`} onClick={() => remove('include', g)}>✕</button>
            </li>
          ))}
          {value.exclude.map((g) => (
            <li key={`e${g}`} className="chip chip-exclude" data-testid="chip-exclude">
              <span>not <code>{g}</code></span>
              <button type="button" aria-label={`Remove exclude ${g}`} onClick={() => remove('exclude', g)}>✕</button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
