// The API contract of the library (app and store, sources, ingest and embedding, search, settings, models, projects, roots, the watcher, desktop helpers, the redaction gate):
// each method's input schema and output type.
import { z } from 'zod';
import { capError, QUERY_MAX } from '../limits.ts';
import type { IngestReport, ProjectInfo, ProjectsView, RootRecord, SearchHit, SearchMode, SourceRecord, StoreStats, WatchStatus, RetrievalRanking, GatedFields } from '../types.ts';
import type { ModelDownloadProgress } from './events.ts';
import { empty, globSchema, searchFiltersSchema, relativePathSchema, modelIdSchema, projectNameSchema, ingestOptionShape } from './schemas.ts';

export const libraryInputs = {
  'app.info': empty,
  'stats.get': empty,
  'sources.list': empty,
  'library.ingest': z.object({ paths: z.array(z.string().min(1).max(4096)).min(1, 'give at least one path').max(1000), ...ingestOptionShape }).strict(),
  'library.import': z
    .object({
      // A file over the upload limit is skipped by name (not refused with the request); this cap only bounds a request.
      files: z
        .array(z.object({ path: relativePathSchema, base64: z.string().max(64 * 1024 * 1024) }).strict())
        .max(5000),
      /** A folder sent in batches: the same id on every request, `final` on the last (which swaps in and ingests). */
      batch: z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/, 'batch.id must be 8–64 letters, digits, _ or -'), final: z.boolean() }).strict().optional(),
      /** Files the browser left out (over the limit), reported by name with the import. */
      skipped: z.array(z.object({ path: z.string().max(1024), reason: z.string().max(500) }).strict()).max(100_000).optional(),
    })
    .strict()
    .refine((v) => v.files.length > 0 || v.batch !== undefined || (v.skipped?.length ?? 0) > 0, { message: 'give at least one file', path: ['files'] }),
  'sources.remove': z.object({ id: z.number().int().positive() }).strict(),
  'sources.reindex': z.object({ id: z.number().int().positive() }).strict(),
  'sources.chunks': z.object({ path: z.string().min(1).max(4096) }).strict(),
  'settings.get': empty,
  'settings.set': z.object({ evidenceExclude: z.array(globSchema).max(100).optional(), sessionStartTokens: z.number().int('sessionStartTokens must be a whole number').min(200, 'sessionStartTokens must be at least 200').max(2_400, 'sessionStartTokens must be at most 2400 (about the 10,000 characters an agent inlines)').optional() }).strict(),
  'library.rescan': z.object(ingestOptionShape).strict(),
  /** Re-index the project's roots (no paths), or files and folders under them: relative to a root, or absolute inside one. */
  // Embeds the chunks that lack a vector (resumable); a modelId becomes the configured model first, and its vectors
  // replace the old ones once they cover every chunk.
  'library.embed': z.object({ modelId: modelIdSchema.optional(), batch: z.number().int('batch must be a whole number').min(1, 'batch must be at least 1').max(100_000).optional() }).strict(),
  'library.refresh': z.object({ paths: z.array(z.string().trim().min(1, 'a path is empty').max(4096)).max(1000).optional() }).strict(),
  'search.query': z
    .object({
      query: z.string().trim().min(1, 'query is empty').max(QUERY_MAX, capError('query', QUERY_MAX)),
      k: z.number().int().min(1).max(200).optional(),
      /** Absent or 'best': hybrid when every chunk has a vector and the model is here, else bm25 (the reason comes back). */
      mode: z.enum(['best', 'bm25', 'vector', 'hybrid']).optional(),
      mmrLambda: z.number().min(0).max(1).optional(),
      filters: searchFiltersSchema.optional(),
    })
    .strict(),
  'chunks.context': z.object({ chunkId: z.number().int().positive(), radius: z.number().int().min(0).max(20).optional() }).strict(),
  'models.list': empty,
  'models.download': z.object({ modelId: modelIdSchema, allowUnverified: z.boolean().optional() }).strict(),
  'models.cancel': z.object({ modelId: modelIdSchema }).strict(),
  'models.use': z.object({ modelId: modelIdSchema }).strict(),
  'projects.list': empty,
  'projects.create': z.object({ name: projectNameSchema }).strict(),
  'projects.switch': z.object({ name: projectNameSchema }).strict(),
  'projects.rename': z.object({ name: projectNameSchema, newName: projectNameSchema }).strict(),
  'projects.delete': z.object({ name: projectNameSchema }).strict(),
  'roots.list': empty,
  'roots.setWatch': z.object({ rootId: z.number().int().positive(), watch: z.boolean() }).strict(),
  'watch.status': empty,
  'desktop.pickPaths': z.object({ kind: z.enum(['files', 'folders']) }).strict(),
  'desktop.copyText': z.object({ text: z.string().max(10 * 1024 * 1024) }).strict(),
  'redact.text': z
    .object({
      text: z.string().max(64 * 1024 * 1024),
      source: z.string().trim().min(1).max(1024).optional().describe('The name the redactions are reported under (a file name); default text.'),
      patterns: z
        .array(
          z
            .object({
              id: z.string().trim().min(1).max(100),
              type: z.string().trim().min(1).max(100).describe('The <type> of the [REDACTED: <type>] marker.'),
              pattern: z.string().min(1).max(2000).describe('An RE2 regular expression; one RE2 cannot compile is refused.'),
            })
            .strict(),
        )
        .max(100)
        .optional()
        .describe('Extra patterns, beside the built-in rules.'),
    })
    .strict(),
};

export interface Capability {
  available: boolean;
  /** Why it is off, in words for the user ("packet engine not built yet (#5)"). */
  reason?: string;
}

export type CapabilityName = 'vector' | 'decisions' | 'hierarchy' | 'packets';

/** What opening the store found: a new file, a quick_check run or skipped (unchanged file), in memory, or damaged (read-only). */
export type StoreIntegrity = 'new' | 'ran' | 'unchanged' | 'memory' | 'damaged';

export interface AppInfo {
  version: string;
  transport: 'ipc' | 'http' | 'mcp' | 'cli';
  dataDir: string;
  dbPath: string;
  capabilities: Record<CapabilityName, Capability>;
}

export interface SearchResponse {
  mode: SearchMode;
  hits: SearchHit[];
  /** How the hits were ranked: fusion and MMR settings, and why hybrid was not used when it was asked for or best. */
  retrieval?: RetrievalRanking & { fallback_reason: string | null };
}

export interface ChunkView {
  chunkId: number;
  ordinal: number;
  headingPath: string;
  anchor: string;
  lineStart: number;
  lineEnd: number;
  text: string;
  /** The chunk's text and labels after the redaction gate (shown by default; issue #10). */
  gated?: GatedFields;
}

export interface ChunkContext {
  path: string;
  title: string;
  /** `path` and `title` after the redaction gate. */
  gatedPath?: string;
  gatedTitle?: string;
  documentId: number;
  focus: number;
  chunks: ChunkView[];
}

export interface ImportReport extends IngestReport {
  /** The managed folder the uploaded files were written to. */
  folder: string;
  /** A non-final batch: how many of its files were staged (nothing is indexed until the final batch). */
  staged?: number;
}

/** What a refresh changed, every path as the index cites it (root-relative; never absolute). */
export interface RefreshReport {
  /** The project's roots, by name. */
  roots: string[];
  added: string[];
  updated: string[];
  removed: string[];
  unchanged: number;
  skipped: { path: string; reason: string }[];
  failed: { path: string; reason: string }[];
  files: number;
  chunks: number;
  durationMs: number;
}

/** One embedding run (library.embed): what it embedded, coverage of the model's space, and whether searches use it. */
export interface EmbedReport {
  spaceId: number;
  modelId: string;
  fingerprint: string;
  dims: number;
  chunkerVersion: number;
  embedded: number;
  done: number;
  total: number;
  /** Chunks of other chunker versions still in the store (a rescan re-chunks them); they block the swap. */
  otherVersion: number;
  /** True when this space is the one searches use after the run. */
  active: boolean;
  /** True when this run made it active (and dropped the spaces it replaced). */
  swapped: boolean;
  dropped: number[];
  /** Stopped before the end (interrupted); a later run resumes. */
  aborted: boolean;
  durationMs: number;
}

export interface RemovedSource {
  id: number;
  path: string;
  chunks: number;
  /** An uploaded file is deleted from the imports folder too (a rescan would bring it back otherwise). */
  deletedFile: boolean;
}

export interface ProjectSettingsView {
  /** Globs left out of packet evidence by default (manifest: retrieval.filters.excludeDefault). */
  evidenceExclude: string[];
  /** Token budget of what the SessionStart hook injects (default 1,500). */
  sessionStartTokens: number;
}

export interface ModelEntry {
  id: string;
  dims: number;
  /** Installed in one of the model folders (the first that has it). */
  installed: boolean;
  dir?: string;
  /** Bytes of the installed folder. */
  sizeBytes?: number;
  /** Installed from files that had no digest to check, because the user accepted that. */
  unverified?: boolean;
  /** A download in progress (or the last one's end state, until the next list after it). */
  download?: ModelDownloadProgress;
}

export interface ModelsView {
  /** The model new vectors are made with (`contextpack embed --model`, or the Models panel). */
  configured: string;
  semantic: { on: boolean; reason?: string; active?: { modelId: string; dims: number; vectors: number; chunks: number } };
  /** Where downloads go (the user-data models folder); null where this window cannot download. */
  downloadDir: string | null;
  baseUrl: string;
  models: ModelEntry[];
}

/** What the redaction gate masked in one text; the secrets themselves are never in it. */
export interface RedactionReportView {
  source: string;
  totalLines: number;
  redactedLines: number;
  byType: Record<string, { count: number; lines: number[] }>;
  redactions: { ts: string; pattern: string; type: string; source: string; line: number; section: string }[];
  text: string;
}

export interface LibraryOutputs {
  'app.info': AppInfo;
  'stats.get': StoreStats & { integrity: StoreIntegrity };
  'sources.list': SourceRecord[];
  'library.ingest': IngestReport;
  'library.import': ImportReport;
  'library.rescan': IngestReport;
  'library.refresh': RefreshReport;
  'library.embed': EmbedReport;
  'sources.remove': RemovedSource;
  'sources.reindex': IngestReport;
  'sources.chunks': ChunkContext;
  'settings.get': ProjectSettingsView;
  'settings.set': ProjectSettingsView;
  'search.query': SearchResponse;
  'chunks.context': ChunkContext;
  'models.list': ModelsView;
  'models.download': { started: boolean };
  'models.cancel': { cancelled: boolean };
  'models.use': { configured: string };
  'projects.list': ProjectsView;
  'projects.create': ProjectInfo;
  'projects.switch': { current: string };
  'projects.rename': ProjectInfo;
  'projects.delete': { deleted: string };
  'roots.list': RootRecord[];
  'roots.setWatch': RootRecord;
  'watch.status': WatchStatus;
  'desktop.pickPaths': string[];
  'desktop.copyText': { copied: number };
  'redact.text': RedactionReportView;
}
