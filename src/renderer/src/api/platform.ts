import type { ImportReport } from '../../../shared/api/index.ts';
import { UPLOAD_BATCH_BYTES, UPLOAD_FILE_MAX_BYTES } from '../../../shared/limits.ts';
import type { IngestFileIssue, IngestReport } from '../../../shared/types.ts';
import { createUploadFilter, IGNORE_FILES, skipFolder } from '../../../shared/upload-rules.ts';
import { api } from './client.ts';

/** Clipboard: Electron's clipboard through the API in the desktop app, the browser's own in serve mode. */
export async function copyText(text: string): Promise<void> {
  if (api().transport === 'ipc') await api().call('desktop.copyText', { text });
  else await navigator.clipboard.writeText(text);
}

export interface PickedFile {
  /** Relative path, folder names included ("notes/a.md"). */
  path: string;
  file: File;
}

/** Folders dropped from the OS arrive as entries to walk; synthetic or picker files carry their relative path. */
export async function filesFromDrop(dt: DataTransfer): Promise<PickedFile[]> {
  const entries = [...dt.items].map((i) => (i.kind === 'file' ? i.webkitGetAsEntry?.() : null));
  if (entries.some((e) => e?.isDirectory)) {
    const out: PickedFile[] = [];
    for (const e of entries) if (e) await walkEntry(e, '', out);
    return out;
  }
  return filesFromList(dt.files);
}

export function filesFromList(list: FileList | File[]): PickedFile[] {
  return [...list].map((file) => ({ path: file.webkitRelativePath || file.name, file }));
}

async function walkEntry(entry: FileSystemEntry, prefix: string, out: PickedFile[]): Promise<void> {
  const path = prefix ? `${prefix}/${entry.name}` : entry.name;
  // .git/ and node_modules/ are not even walked: a repository's history alone can be tens of MB.
  if (!entry.isFile && skipFolder(path)) return;
  if (entry.isFile) {
    const file = await new Promise<File>((res, rej) => (entry as FileSystemFileEntry).file(res, rej));
    out.push({ path, file });
    return;
  }
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((res, rej) => reader.readEntries(res, rej));
    if (batch.length === 0) break;
    for (const child of batch) await walkEntry(child, path, out);
  }
}

/** What the upload did beyond the engine's report: files left out before sending, by kind. */
export interface UploadOutcome extends ImportReport {
  /** Left out by .gitignore / .contextpackignore or the default skips (.git/, node_modules/). */
  ignoredCount: number;
  /** Files that usually hold secrets (.env*, *.pem, id_rsa*), never sent; by name. */
  sensitive: string[];
}

export interface UploadProgress {
  filesSent: number;
  filesTotal: number;
  bytesSent: number;
  bytesTotal: number;
  batch: number;
  batches: number;
}

/**
 * Desktop: a drop's top-level items (files or folders) are indexed where they are; their real paths come from the
 * preload (webUtils.getPathForFile). Browser: there are no paths, so the bytes are uploaded into the app's imports
 * folder and indexed there.
 */
export async function ingestDrop(dt: DataTransfer, onUpload?: (p: UploadProgress) => void): Promise<IngestReport | UploadOutcome> {
  const bridge = window.contextpack;
  if (api().transport === 'ipc' && bridge) {
    const paths = [...dt.files].map((f) => bridge.pathForFile(f)).filter((p) => p !== '');
    if (paths.length === 0) throw new Error('nothing to index in that drop');
    return api().call('library.ingest', { paths });
  }
  return upload(await filesFromDrop(dt), onUpload);
}

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

/**
 * Filters a browser selection (ignore files, default skips, sensitive files, files over the limit), then sends it
 * in batches of about UPLOAD_BATCH_BYTES under one batch id; the last request swaps the folder in and indexes it.
 */
export async function upload(files: PickedFile[], onProgress?: (p: UploadProgress) => void): Promise<UploadOutcome> {
  if (files.length === 0) throw new Error('no files in that selection');
  const ignoreTexts = new Map<string, string>();
  for (const f of files) {
    const name = f.path.split('/').pop()!;
    if (IGNORE_FILES.includes(name) && f.file.size < 1024 * 1024) ignoreTexts.set(f.path, await f.file.text());
  }
  const filter = createUploadFilter(ignoreTexts);
  const keep: PickedFile[] = [];
  const tooBig: IngestFileIssue[] = [];
  const sensitive: string[] = [];
  let ignoredCount = 0;
  for (const f of files) {
    const v = filter.verdict(f.path);
    if (!v.keep) {
      if (v.why === 'sensitive') sensitive.push(f.path);
      else ignoredCount++;
    } else if (f.file.size > UPLOAD_FILE_MAX_BYTES) tooBig.push({ path: f.path, reason: `too big to upload: ${mb(f.file.size)} > limit ${mb(UPLOAD_FILE_MAX_BYTES)}` });
    else keep.push(f);
  }
  const skipped: IngestFileIssue[] = [...tooBig, ...sensitive.map((path) => ({ path, reason: 'not uploaded: may hold secrets (.env*, *.pem, id_rsa*, …)' }))];
  const batches: PickedFile[][] = [];
  let current: PickedFile[] = [];
  let size = 0;
  for (const f of keep) {
    if (current.length > 0 && (size + f.file.size > UPLOAD_BATCH_BYTES || current.length >= 500)) {
      batches.push(current);
      current = [];
      size = 0;
    }
    current.push(f);
    size += f.file.size;
  }
  batches.push(current);
  const id = `up-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
  const bytesTotal = keep.reduce((n, f) => n + f.file.size, 0);
  let filesSent = 0;
  let bytesSent = 0;
  let report: ImportReport | null = null;
  for (let b = 0; b < batches.length; b++) {
    onProgress?.({ filesSent, filesTotal: keep.length, bytesSent, bytesTotal, batch: b + 1, batches: batches.length });
    const batch = batches[b]!;
    const payload = await Promise.all(batch.map(async (f) => ({ path: f.path, base64: toBase64(new Uint8Array(await f.file.arrayBuffer())) })));
    const final = b === batches.length - 1;
    report = await api().call('library.import', { files: payload, batch: { id, final }, ...(final ? { skipped } : {}) });
    filesSent += batch.length;
    bytesSent += batch.reduce((n, f) => n + f.file.size, 0);
  }
  onProgress?.({ filesSent, filesTotal: keep.length, bytesSent, bytesTotal, batch: batches.length, batches: batches.length });
  return { ...report!, ignoredCount, sensitive };
}
function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}
