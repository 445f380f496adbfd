import { useEffect, useRef, useState, type DragEvent } from 'react';
import { api } from '../api/client.ts';
import { filesFromList, ingestDrop, upload } from '../api/platform.ts';
import { Meter } from '../components/Meter.tsx';
import { ModelsPanel } from '../components/ModelsPanel.tsx';
import { VirtualList } from '../components/VirtualList.tsx';
import { fmtBytes } from '../format.ts';
import { useApp } from '../state/app.ts';
import { useLibrary } from '../state/library.ts';

export function LibraryView() {
  const { sources, stats, busy, progress, report, error, refresh, run } = useLibrary();
  const announce = useApp((s) => s.announce);
  const desktop = api().transport === 'ipc';
  const [over, setOver] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  const finish = (r: { added: string[]; updated: string[]; failed: unknown[] } | null) => {
    if (r) announce(`Indexed: ${r.added.length} added, ${r.updated.length} updated, ${r.failed.length} failed`);
  };
  const onDrop = async (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    const dt = e.dataTransfer;
    finish(await run(desktop ? 'indexing' : 'uploading', () => ingestDrop(dt)));
  };
  const onPicked = async (list: FileList | null) => {
    if (!list || list.length === 0) return;
    const files = filesFromList(list);
    finish(await run('uploading', () => upload(files)));
    if (fileInput.current) fileInput.current.value = '';
    if (folderInput.current) folderInput.current.value = '';
  };
  const pickDesktop = async (kind: 'files' | 'folders') => {
    const paths = await api().call('desktop.pickPaths', { kind });
    if (paths.length > 0) finish(await run('indexing', () => api().call('library.ingest', { paths })));
  };

  return (
    <section className="view" aria-labelledby="library-title">
      <header className="view-header">
        <h1 id="library-title">Library</h1>
        <button type="button" onClick={() => void run('indexing', () => api().call('library.rescan', {})).then(finish)} disabled={busy !== null}>
          Rescan
        </button>
      </header>

      <div
        className={`dropzone ${over ? 'dropzone-over' : ''}`}
        data-testid="dropzone"
        onDragOver={(e) => {
          e.preventDefault();
          e.dataTransfer.dropEffect = 'copy';
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => void onDrop(e)}
      >
        <p>Drop files or folders here to index them{desktop ? ' in place' : ' (they are copied into the app’s imports folder)'}.</p>
        <div className="row">
          {desktop ? (
            <>
              <button type="button" onClick={() => void pickDesktop('files')}>Choose files…</button>
              <button type="button" onClick={() => void pickDesktop('folders')}>Choose folder…</button>
            </>
          ) : (
            <>
              <label className="button">
                Choose files…
                <input ref={fileInput} type="file" multiple className="visually-hidden" data-testid="pick-files" onChange={(e) => void onPicked(e.target.files)} />
              </label>
              <label className="button">
                Choose folder…
                <input
                  ref={(el) => {
                    folderInput.current = el;
                    el?.setAttribute('webkitdirectory', '');
                  }}
                  type="file"
                  className="visually-hidden"
                  data-testid="pick-folder"
                  onChange={(e) => void onPicked(e.target.files)}
                />
              </label>
            </>
          )}
        </div>
      </div>

      {busy || progress ? <IngestProgressBar /> : null}
      {error ? <p className="error" role="alert">{error}</p> : null}
      {report ? (
        <div className="report" data-testid="ingest-report">
          <p>
            {report.added.length} added, {report.updated.length} updated, {report.unchanged} unchanged, {report.removed.length} removed,{' '}
            {report.skipped.length} skipped, {report.failed.length} failed — {report.files} files, {report.chunks} chunks in{' '}
            {(report.durationMs / 1000).toFixed(2)} s
          </p>
          {report.failed.length + report.skipped.length > 0 ? (
            <ul className="issues">
              {report.failed.map((f) => (
                <li key={`f${f.path}`} className="issue-failed"><strong>failed</strong> {f.path}: {f.reason}</li>
              ))}
              {report.skipped.map((f) => (
                <li key={`s${f.path}`}><strong>skipped</strong> {f.path}: {f.reason}</li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}

      <h2>
        Sources <span className="muted">{stats ? `${stats.sources.indexed} indexed · ${stats.sources.skipped} skipped · ${stats.sources.failed} failed · ${stats.chunks} chunks` : ''}</span>
      </h2>
      {stats?.notices.map((n) => <p key={n} className="notice">{n}</p>)}
      <EmbeddingStatus />
      {sources.length === 0 ? (
        <p className="muted">Nothing indexed yet.</p>
      ) : (
        <VirtualList
          label="Sources"
          className="sources"
          items={sources}
          estimate={44}
          itemKey={(s) => s.id}
          render={(s) => (
            <div className="source" data-testid="source-row">
              <span className={`badge badge-${s.status}`}>{s.status}</span>
              <span className="source-path" title={s.path}>{s.path}</span>
              <span className="muted">{s.type}{s.language ? ` · ${s.language}` : ''} · {fmtBytes(s.size)} · {s.chunks} chunks</span>
              {s.error ? <span className="source-error">{s.error}</span> : null}
            </div>
          )}
        />
      )}
      <ModelsPanel />
    </section>
  );
}

function EmbeddingStatus() {
  const e = useLibrary((s) => s.embedding);
  if (!e || e.state === 'off') return null;
  if (e.state === 'failed') return <p className="notice issue-failed">Embedding with {e.modelId} failed: {e.reason}</p>;
  return (
    <Meter
      label={e.state === 'done' ? 'Embedded' : 'Embedding'}
      value={e.done}
      max={Math.max(1, e.total)}
      text={`${e.done} / ${e.total} chunks · ${e.modelId}`}
      testId="embed-progress"
    />
  );
}

function IngestProgressBar() {
  const { busy, progress } = useLibrary();
  if (busy === 'uploading' && !progress) return <Meter label="Uploading" value={0} max={1} text="sending files…" testId="ingest-progress" />;
  const p = progress;
  if (!p) return <Meter label="Indexing" value={0} max={1} text="starting…" testId="ingest-progress" />;
  const label = p.phase === 'scan' ? 'Scanning' : p.phase === 'done' ? 'Done' : 'Indexing';
  return (
    <Meter
      label={label}
      value={p.phase === 'done' ? 1 : p.filesDone}
      max={p.phase === 'done' ? 1 : Math.max(1, p.filesTotal)}
      text={`${p.filesDone} / ${p.filesTotal} files · ${fmtBytes(p.bytesDone)} of ${fmtBytes(p.bytesTotal)}${p.path && p.phase !== 'done' ? ` · ${p.path.split('/').pop()}` : ''}`}
      testId="ingest-progress"
    />
  );
}
