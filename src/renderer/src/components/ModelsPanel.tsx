import { useCallback, useEffect, useState } from 'react';
import type { ModelsView } from '../../../shared/api/index.ts';
import { api, errorText } from '../api/client.ts';
import { fmtBytes } from '../format.ts';
import { Meter } from './Meter.tsx';

/**
 * Semantic search in one place: the model in use and how much of the library it covers, and a Download button for
 * each registered model (progress, cancel; a cancelled download resumes). Embedding starts by itself afterwards.
 */
export function ModelsPanel() {
  const [view, setView] = useState<ModelsView | null>(null);
  const [error, setError] = useState<string | null>(null);

  const refresh = useCallback(async () => {
    try {
      setView(await api().call('models.list', {}));
      setError(null);
    } catch (err) {
      setError(errorText(err));
    }
  }, []);

  useEffect(() => {
    void refresh();
    return api().onEvent((e) => {
      if (e.name === 'models.progress') {
        const p = e.payload;
        setView((v) => (v ? { ...v, models: v.models.map((m) => (m.id === p.modelId ? { ...m, download: p } : m)) } : v));
        if (p.state === 'done' || p.state === 'failed' || p.state === 'cancelled') void refresh();
      } else if (e.name === 'embed.progress' && (e.payload.state === 'done' || e.payload.state === 'failed')) void refresh();
    });
  }, [refresh]);

  const act = async (fn: () => Promise<unknown>) => {
    setError(null);
    try {
      await fn();
      await refresh();
    } catch (err) {
      setError(errorText(err));
    }
  };

  if (!view) return error ? <p className="error" role="alert">{error}</p> : null;
  const active = view.semantic.active;
  return (
    <section className="panel models" aria-labelledby="models-title" data-testid="models-panel">
      <h2 id="models-title">Semantic search</h2>
      <p data-testid="semantic-status">
        {view.semantic.on && active
          ? `On: ${active.modelId} (${active.dims}-d), ${active.vectors.toLocaleString()} / ${active.chunks.toLocaleString()} chunks embedded.`
          : `${view.semantic.reason ?? 'Off.'} Download a model below to turn it on.`}
      </p>
      <table className="models-table">
        <thead>
          <tr>
            <th scope="col">Model</th>
            <th scope="col">Dimensions</th>
            <th scope="col">Status</th>
            <th scope="col"><span className="visually-hidden">Actions</span></th>
          </tr>
        </thead>
        <tbody>
          {view.models.map((m) => {
            const d = m.download;
            const running = d && (d.state === 'downloading' || d.state === 'verifying' || d.state === 'installing');
            return (
              <tr key={m.id} data-testid="model-row" data-model={m.id}>
                <th scope="row">
                  {m.id}
                  {view.configured === m.id && m.installed ? <span className="badge">in use</span> : null}
                </th>
                <td>{m.dims}</td>
                <td>
                  {running ? (
                    <Meter
                      label={`Downloading ${d.file ?? ''}`.trim()}
                      value={d.bytes}
                      max={d.totalBytes ?? Math.max(d.bytes, 1)}
                      text={`file ${d.fileIndex + 1} / ${d.fileCount}: ${fmtBytes(d.bytes)}${d.totalBytes ? ` of ${fmtBytes(d.totalBytes)}` : ''}`}
                      testId="model-download-progress"
                    />
                  ) : m.installed ? (
                    `installed, ${fmtBytes(m.sizeBytes ?? 0)}${m.unverified ? ', unverified' : ''}`
                  ) : (
                    'not installed'
                  )}
                  {d && (d.state === 'failed' || d.state === 'cancelled') ? <p className={d.state === 'failed' ? 'error' : 'muted'} data-testid="model-download-error">{d.error}</p> : null}
                </td>
                <td>
                  {running ? (
                    <button type="button" onClick={() => void act(() => api().call('models.cancel', { modelId: m.id }))}>Cancel</button>
                  ) : !m.installed ? (
                    <button type="button" disabled={!view.downloadDir} onClick={() => void act(() => api().call('models.download', { modelId: m.id }))}>
                      {d?.state === 'cancelled' || d?.state === 'failed' ? 'Resume' : 'Download'}
                    </button>
                  ) : view.configured !== m.id ? (
                    <button type="button" onClick={() => void act(() => api().call('models.use', { modelId: m.id }))}>Use</button>
                  ) : null}
                  {!running && !m.installed && d?.needsConfirmation === 'unverified' ? (
                    <button
                      type="button"
                      disabled={!view.downloadDir}
                      onClick={() => {
                        if (window.confirm(`${m.id} from ${view.baseUrl} has files without a digest, so they cannot be verified. Install it anyway, marked unverified?`)) {
                          void act(() => api().call('models.download', { modelId: m.id, allowUnverified: true }));
                        }
                      }}
                    >
                      Download unverified
                    </button>
                  ) : null}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <p className="muted">Downloads come from {view.baseUrl} (set CONTEXTPACK_MODEL_BASE_URL for a mirror){view.downloadDir ? ` into ${view.downloadDir}` : ''}; each file is checked against its digest, and the set must load and embed before it replaces anything.</p>
      {error ? <p className="error" role="alert">{error}</p> : null}
    </section>
  );
}
