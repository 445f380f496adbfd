import { useEffect, useRef, useState, type DragEvent, type RefObject } from 'react';
import type { SourceRecord } from '../../../shared/types.ts';
import { api, errorText } from '../api/client.ts';
import { filesFromList, ingestDrop, upload } from '../api/platform.ts';
import { DropZone } from '../components/DropZone.tsx';
import { Meter } from '../components/Meter.tsx';
import { ModelsPanel } from '../components/ModelsPanel.tsx';
import { VirtualList } from '../components/VirtualList.tsx';
import { fmtBytes } from '../format.ts';
import { useApp } from '../state/app.ts';
import { useLibrary } from '../state/library.ts';

export function LibraryView() {
  const { sources, stats, busy, progress, report, error, refresh, run, onUpload } = useLibrary();
  const announce = useApp((s) => s.announce);
  const desktop = api().transport === 'ipc';
  const fileInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  const finish = (r: { added: string[]; updated: string[]; failed: unknown[] } | null) => {
    if (r) announce(`Indexed: ${r.added.length} added, ${r.updated.length} updated, ${r.failed.length} failed`);
  };
  const onDrop = async (e: DragEvent) => {
    const dt = e.dataTransfer;
    finish(await run(desktop ? 'indexing' : 'uploading', () => ingestDrop(dt, onUpload)));
  };
  const onPicked = async (list: FileList | null) => {
    if (!list || list.length === 0) return;
    const files = filesFromList(list);
    finish(await run('uploading', () => upload(files, onUpload)));
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

      <DropZone testId="dropzone" onDrop={onDrop}>
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
              <FolderPicker inputRef={folderInput} testId="pick-folder" label="Choose folder…" onPicked={(l) => void onPicked(l)} />
            </>
          )}
        </div>
      </DropZone>

      {busy || progress ? <IngestProgressBar /> : null}
      {error ? <p className="error" role="alert">{error}</p> : null}
      {report ? (
        <div className="report" data-testid="ingest-report">
          <p>
            {report.added.length} added, {report.updated.length} updated, {report.unchanged} unchanged, {report.removed.length} removed,{' '}
            {report.skipped.length} skipped, {report.failed.length} failed — {report.files} files, {report.chunks} chunks in{' '}
            {(report.durationMs / 1000).toFixed(2)} s
          </p>
          {report.ignoredCount ? <p className="muted" data-testid="ignored-count">{report.ignoredCount} files left out before upload (.git/, node_modules/, .gitignore and .contextpackignore rules)</p> : null}
          {report.failed.length + report.skipped.length + (report.warnings?.length ?? 0) > 0 ? (
            <ul className="issues">
              {report.failed.map((f) => (
                <li key={`f${f.path}`} className="issue-failed"><strong>failed</strong> {f.path}: {f.reason}</li>
              ))}
              {report.skipped.map((f) => (
                <li key={`s${f.path}`}><strong>skipped</strong> {f.path}: {f.reason}</li>
              ))}
              {(report.warnings ?? []).map((f) => (
                <li key={`w${f.path}`}><strong>warning</strong> {f.path}: {f.reason}</li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}

      <Roots />

      <h2>
        Sources <span className="muted">{stats ? `${stats.sources.indexed} indexed · ${stats.sources.skipped} skipped · ${stats.sources.failed} failed · ${stats.chunks} chunks` : ''}</span>
      </h2>
      {stats?.notices.map((n) => <p key={n} className="notice">{n}</p>)}
      <EmbeddingStatus />
      {sources.length === 0 && stats !== null && !busy ? (
        <div className="empty-state card" data-testid="empty-library">
          <h2>Nothing indexed yet</h2>
          <p>Add a project folder: its Markdown, code, HTML, PDF and JSON files are chunked and indexed here, so you can search them and build context packets from them. {desktop ? 'Files stay where they are.' : '.git/, node_modules/, ignored and secret-looking files are left out.'}</p>
          {desktop ? (
            <button type="button" className="primary" onClick={() => void pickDesktop('folders')}>Add a folder…</button>
          ) : (
            <FolderPicker testId="empty-add-folder" label="Add a folder…" primary onPicked={(l) => void onPicked(l)} />
          )}
        </div>
      ) : sources.length === 0 ? null : (
        <VirtualList
          label="Sources"
          className="sources"
          items={sources}
          estimate={44}
          itemKey={(s) => s.id}
          render={(s) => <SourceRow source={s} busy={busy !== null} />}
        />
      )}
      <ModelsPanel />
    </section>
  );
}

/** A folder picker for the browser (an input with webkitdirectory inside a label styled as a button). */
function FolderPicker({ label, testId, onPicked, primary, inputRef }: { label: string; testId: string; onPicked: (l: FileList | null) => void; primary?: boolean; inputRef?: RefObject<HTMLInputElement | null> }) {
  return (
    <label className={`button ${primary ? 'primary' : ''}`}>
      {label}
      <input
        ref={(el) => {
          if (inputRef) inputRef.current = el;
          el?.setAttribute('webkitdirectory', '');
        }}
        type="file"
        className="visually-hidden"
        data-testid={testId}
        onChange={(e) => {
          onPicked(e.target.files);
          e.target.value = '';
        }}
      />
    </label>
  );
}

/** One source: status, path, size; re-index, and remove behind an inline confirmation. */
function SourceRow({ source: s, busy }: { source: SourceRecord; busy: boolean }) {
  const { run, refresh } = useLibrary();
  const toast = useApp((a) => a.toast);
  const [confirming, setConfirming] = useState(false);
  const name = s.path.split(/[\\/]/).pop() ?? s.path;
  const remove = async () => {
    setConfirming(false);
    try {
      const r = await api().call('sources.remove', { id: s.id });
      toast(`Removed ${name} (${r.chunks} chunks)${r.deletedFile ? ' and its uploaded copy' : ''}`);
    } catch (err) {
      toast(`Could not remove ${name}: ${errorText(err)}`, 'error');
    }
    await refresh();
  };
  return (
    <div className="source" data-testid="source-row" data-source-id={s.id}>
      <span className={`badge badge-${s.status}`}>{s.status}</span>
      <span className="source-path" title={s.path}>{s.path}</span>
      <span className="muted">{s.type}{s.language ? ` · ${s.language}` : ''} · {fmtBytes(s.size)} · {s.chunks} chunks</span>
      {confirming ? (
        <span className="row" role="group" aria-label={`Remove ${name}?`}>
          <span>Remove from the index?</span>
          <button type="button" className="danger" onClick={() => void remove()}>Remove</button>
          <button type="button" onClick={() => setConfirming(false)}>Keep</button>
        </span>
      ) : (
        <span className="row source-actions">
          <button type="button" disabled={busy} aria-label={`Re-index ${name}`} onClick={() => void run('indexing', () => api().call('sources.reindex', { id: s.id }))}>Re-index</button>
          <button type="button" aria-label={`Remove ${name}`} onClick={() => setConfirming(true)}>Remove…</button>
        </span>
      )}
      {s.error ? <span className="source-error">{s.error}</span> : null}
    </div>
  );
}

/** Each indexed root with its watch switch, and the watcher's status line (watching N roots, last change, queue). */
function Roots() {
  const { roots, watch, setWatch } = useLibrary();
  if (roots.length === 0) return null;
  const last = watch?.lastChange ? new Date(watch.lastChange).toLocaleTimeString() : 'none yet';
  return (
    <div className="roots" aria-labelledby="roots-title">
      <h2 id="roots-title">Roots</h2>
      <p className="muted" role="status" data-testid="watch-status">
        {watch ? `Watching ${watch.watching} root${watch.watching === 1 ? '' : 's'} · last change ${last} · queue ${watch.queue}${watch.busy ? ' · indexing…' : ''}` : 'Watcher off'}
      </p>
      <ul className="root-list">
        {roots.map((r) => (
          <li key={r.id} className="root-row" data-testid="root-row">
            <label className="switch">
              <input
                type="checkbox"
                role="switch"
                aria-checked={r.watch}
                checked={r.watch}
                aria-label={`Watch ${r.name}`}
                data-testid="root-watch"
                onChange={(e) => void setWatch(r.id, e.target.checked)}
              />
              <span>{r.name}</span>
            </label>
            <span className={`badge badge-${r.status === 'online' ? 'indexed' : 'failed'}`}>{r.status}</span>
            <span className="source-path muted" title={r.path}>{r.path}</span>
            <span className="muted">{r.sources} sources</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** "12 chunks/s · about 3 min left", counted from when this view first saw the run; '' until there is a rate. */
function embedPace(done: number, total: number, since: { at: number; done: number } | null): string {
  if (!since) return '';
  const secs = (Date.now() - since.at) / 1000;
  const rate = secs > 0 ? (done - since.done) / secs : 0;
  if (rate <= 0) return '';
  const left = (total - done) / rate;
  const leftText = left >= 90 ? `about ${Math.round(left / 60)} min left` : `about ${Math.max(1, Math.round(left))} s left`;
  return ` · ${rate >= 10 ? Math.round(rate) : rate.toFixed(1)} chunks/s · ${leftText}`;
}

function EmbeddingStatus() {
  const e = useLibrary((s) => s.embedding);
  const since = useLibrary((s) => s.embeddingSince);
  if (!e || e.state === 'off') return null;
  if (e.state === 'failed') return <p className="notice issue-failed">Embedding with {e.modelId} failed: {e.reason}</p>;
  return (
    <Meter
      label={e.state === 'done' ? 'Embedded' : 'Embedding'}
      value={e.done}
      max={Math.max(1, e.total)}
      text={`${e.done} / ${e.total} chunks${e.state === 'running' ? embedPace(e.done, e.total, since) : ''} · ${e.modelId}`}
      testId="embed-progress"
    />
  );
}

function IngestProgressBar() {
  const { busy, progress, upload } = useLibrary();
  if (busy === 'uploading' && upload && (!progress || upload.batch < upload.batches)) {
    return (
      <Meter
        label="Uploading"
        value={upload.bytesSent}
        max={Math.max(1, upload.bytesTotal)}
        text={`${upload.filesSent} / ${upload.filesTotal} files · ${fmtBytes(upload.bytesSent)} of ${fmtBytes(upload.bytesTotal)} · batch ${upload.batch} of ${upload.batches}`}
        testId="upload-progress"
      />
    );
  }
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
