import type { ImportReport } from '../../../shared/api/index.ts';
import type { IngestReport } from '../../../shared/types.ts';
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

/**
 * Desktop: a drop's top-level items (files or folders) are indexed where they are; their real paths come from the
 * preload (webUtils.getPathForFile). Browser: there are no paths, so the bytes are uploaded into the app's imports
 * folder and indexed there.
 */
export async function ingestDrop(dt: DataTransfer): Promise<IngestReport | ImportReport> {
  const bridge = window.contextpack;
  if (api().transport === 'ipc' && bridge) {
    const paths = [...dt.files].map((f) => bridge.pathForFile(f)).filter((p) => p !== '');
    if (paths.length === 0) throw new Error('nothing to index in that drop');
    return api().call('library.ingest', { paths });
  }
  return upload(await filesFromDrop(dt));
}

export async function upload(files: PickedFile[]): Promise<ImportReport> {
  if (files.length === 0) throw new Error('no files in that selection');
  const uploads = await Promise.all(files.map(async (f) => ({ path: f.path, base64: toBase64(new Uint8Array(await f.file.arrayBuffer())) })));
  return api().call('library.import', { files: uploads });
}

function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}
