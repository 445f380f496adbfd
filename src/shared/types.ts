// Data shapes shared by the engine (main), its transports (IPC, HTTP) and the renderer. Plain JSON only.

export const SOURCE_TYPES = ['markdown', 'text', 'code', 'html', 'pdf', 'json', 'jsonl'] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];
export type SourceStatus = 'indexed' | 'skipped' | 'failed';

export interface SourceRecord {
  id: number;
  path: string;
  root: string;
  /** The root this source was ingested under (see RootRecord) and its path relative to it, with forward slashes. */
  rootId: number | null;
  relPath: string | null;
  type: SourceType | 'binary' | 'unknown';
  language: string | null;
  status: SourceStatus;
  error: string | null;
  size: number;
  mtimeMs: number;
  contentHash: string | null;
  documents: number;
  chunks: number;
  indexedAt: string;
}

/** A folder or file that was ingested; a project remembers its roots (rescan and the watcher read them). */
export interface RootRecord {
  id: number;
  path: string;
  /** Unique among roots; prefixes citations when several roots are indexed (`myproj/docs/x.md#…`). */
  name: string;
  kind: 'folder' | 'file';
  createdAt: string;
  /** offline: the folder is gone (an unmounted drive); its sources are kept until it returns. */
  status: 'online' | 'offline';
  /** Whether the watcher follows this root. */
  watch: boolean;
  sources: number;
}

export interface IngestFileIssue {
  path: string;
  reason: string;
}

export interface IngestReport {
  roots: string[];
  added: string[];
  updated: string[];
  unchanged: number;
  removed: string[];
  skipped: IngestFileIssue[];
  failed: IngestFileIssue[];
  /** Indexed, but part of the file was left out (e.g. the bad lines of a JSONL collection). */
  warnings: IngestFileIssue[];
  files: number;
  bytes: number;
  chunks: number;
  durationMs: number;
  /** Folder roots that were not there: marked offline, their sources kept until they return. */
  offline?: string[];
}

export interface IngestProgress {
  phase: 'scan' | 'index' | 'done';
  filesDone: number;
  filesTotal: number;
  bytesDone: number;
  bytesTotal: number;
  path?: string;
}

export type SearchMode = 'bm25' | 'vector' | 'hybrid';

/**
 * How a retriever ranked, beside its mode: the fusion of keyword and vector lists, and the MMR re-ranking with the
 * similarity it used (chunk vectors, or the chunks' own words when the store has none). Recorded in packet manifests.
 */
export interface RetrievalRanking {
  fusion?: { method: 'rrf' | 'normalized'; k?: number; weights?: [number, number] } | null;
  mmr?: { lambda: number; fetch_k: number; similarity: 'vector' | 'text' } | null;
}

export interface SearchFilters {
  /** SQLite GLOB over the absolute source path, e.g. `/home/me/proj/docs/*.md`. */
  pathGlob?: string;
  /** Globs over the path relative to its root (src/shared/globs.ts): a hit must match one of these, when given… */
  include?: string[];
  /** …and none of these (`test/**`, `**\/fixtures/**`). */
  exclude?: string[];
  /** The project's "exclude from evidence by default" globs a packet applied (recorded apart in its manifest). */
  excludeDefault?: string[];
  types?: SourceType[];
  /** ISO dates compared with the source file's modification time. */
  modifiedAfter?: string;
  modifiedBefore?: string;
}

export interface SearchRequest {
  query: string;
  k?: number;
  mode?: SearchMode;
  mmrLambda?: number;
  fetchK?: number;
  filters?: SearchFilters;
}

export interface SearchHit {
  chunkId: number;
  documentId: number;
  externalId: string | null;
  path: string;
  title: string;
  anchor: string;
  headingPath: string;
  lineStart: number;
  lineEnd: number;
  text: string;
  score: number;
  /** The base retriever's score when a re-ranker (MMR) replaced `score`; packets measure their floor against it. */
  relevance?: number;
  /** The source's root and its path relative to it (null for sources indexed before roots existed and not yet backfilled). */
  rootId?: number | null;
  relPath?: string | null;
  /** What to cite: relPath, prefixed by the root's name when several roots are indexed. Never an absolute path. */
  displayPath?: string;
  /** SHA-256 of the source file as indexed (packets record it to tell when they have gone stale). */
  contentHash?: string | null;
  /**
   * The hit's displayed fields as the redaction gate leaves them (set by the API, issue #10): the workbench shows these
   * by default and the raw fields only on an explicit per-hit reveal. `redactedLines` 0: nothing to reveal.
   */
  gated?: GatedFields;
}

/** Text and labels after the redaction gate. */
export interface GatedFields {
  text: string;
  title: string;
  path: string;
  anchor: string;
  headingPath: string;
  /** `displayPath` (the root-relative path cited) and `relPath`, gated. */
  displayPath?: string;
  relPath?: string | null;
  /** Lines of `text` the gate replaced, plus labels it replaced. */
  redactedLines: number;
}

export interface StoreStats {
  dbPath: string;
  sources: Record<SourceStatus, number>;
  documents: number;
  chunks: number;
  dbBytes: number;
  lastIngest: { startedAt: string; finishedAt: string | null; durationMs: number | null } | null;
  /** Human-readable states of optional capabilities, e.g. "semantic search off: no model at …". */
  notices: string[];
}

/** A project: a name with its own database and data folder under the ContextPack home. */
export interface ProjectInfo {
  name: string;
  /** The project's database file. */
  path: string;
  /** Bytes on disk: the database with its WAL and shared-memory files. */
  size: number;
  /** Indexed sources, or null when the database cannot be read (the reason is in `error`). */
  sources: number | null;
  /** ISO time of the last write to the database; null for a project that was never opened. */
  lastUsed: string | null;
  error?: string;
}

export interface ProjectsView {
  /** The open project, or null when a database was named directly (--db). */
  current: string | null;
  /** Whether this window can switch projects (not when it was started on one database file). */
  switchable: boolean;
  projects: ProjectInfo[];
}

/** One watcher batch (or reconcile) that changed the index: the API's `library.changed` event. */
export interface LibraryChange {
  rootId: number;
  /** The root's name (never its absolute path). */
  root: string;
  /** Paths relative to the root. */
  added: string[];
  updated: string[];
  removed: string[];
  at: string;
}

/** The watcher's live state: the Library view's status line. */
export interface WatchStatus {
  /** Roots with a live subscription (or polled, for file roots). */
  watching: number;
  roots: { id: number; name: string; status: 'online' | 'offline'; watching: boolean }[];
  lastChange: string | null;
  /** Changed paths waiting for the next batch. */
  queue: number;
  busy: boolean;
  batches: number;
}
