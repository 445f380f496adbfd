import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Database } from 'better-sqlite3';
import type { Retriever } from '../search/index.ts';
import { loadHits } from '../search/index.ts';
import type { SearchHit } from '../../../shared/types.ts';
import { splitIdentifier } from '../search/code-words.ts';
import { ftsMatchOf } from '../search/fts-query.ts';
import { indexedTask, taskScores } from '../search/task-scores.ts';
import { taskTerms } from '../search/task-terms.ts';

// What packet assembly reads, as injected providers. Only the retriever is required; a missing or empty
// provider leaves its section with 000's degradation note instead of failing the packet.

/** L1 (executive summary) and directives, for GOALS. */
export interface GoalsData {
  /** Provenance of the summary, e.g. `hierarchy §1.0`. */
  source: string;
  goal: string;
  /** e.g. `40% — auth done, search next`; null when unknown. */
  status: string | null;
  /** 000's failing gates: what currently blocks the goal. Kept when GOALS is reduced. */
  blockers: string[];
  /** 000's passing gates: summarized as a count when GOALS is reduced. */
  priorities: string[];
  /** Strategic intent, always kept (e.g. the L1 key decisions, or the spec's directives). */
  directives: { id: string; text: string }[];
  /**
   * 000's fitness spec (GOALS.md / GOALS.yaml at an indexed root, with the newest snapshot of each gate). When set,
   * GOALS shows Passing / Failing / Directives from it; the L1 fields above are the fallback when it is absent.
   */
  fitness?: FitnessGoals | null;
}

export interface FitnessGoals {
  /** The spec file. */
  file: string;
  gates: { id: string; description: string; threshold: string | null; status: 'pass' | 'fail' | null; value: string | null }[];
}

export type MemoryKind = 'state' | 'decision' | 'learning' | 'issue';

export interface MemoryEntry {
  /** memory id, or the decision id (DEC-…) for decisions. */
  id: string;
  kind: MemoryKind;
  /** Provenance shown next to the item: memory id, decision id and source path where known. */
  source: string;
  /** ISO timestamp. */
  ts: string;
  title: string;
  /** The body as plain text lines; passes the redaction gate like everything else. */
  text: string;
  /** 0..1, higher is better. */
  score: number;
  /** Learnings: 000's freshness (0.17/week decay from the memory's timestamp) and utility; score = their product. */
  freshness?: number;
  utility?: number;
}

/** An L2 / L3 hierarchy section chosen by relevance to the query, carried as evidence with its § marker. */
export interface HierarchyEntry {
  /** '§2.1', '§3.1.2'. */
  marker: string;
  level: 2 | 3;
  title: string;
  body: string;
  /** 0..1: share of the query's terms the section contains. */
  score: number;
}

export interface SessionEntry {
  id: string;
  source: string;
  ts: string;
  text: string;
}

type MaybePromise<T> = T | Promise<T>;

export interface LineContext {
  before: string[] | null;
  /** Full source line `lineStart`, when the chunk holds only part of it. */
  first: string | null;
  /** Full source line `lineEnd`, when the chunk holds only part of it. */
  last: string | null;
}

/** Project memory (issue #4), read-only: nothing here may change the store, or replays would drift. */
export interface MemoryProvider {
  /** Newest first. */
  latestStates(limit: number): MaybePromise<MemoryEntry[]>;
  /** Newest first: the decision chain shown in HISTORY. */
  decisionTimeline(limit: number): MaybePromise<MemoryEntry[]>;
  /** Best first. */
  decisions(query: string, limit: number): MaybePromise<MemoryEntry[]>;
  /** 000: freshness × utility, best first; learnings tagged `pattern` are left to patterns(). */
  learnings(query: string, limit: number): MaybePromise<MemoryEntry[]>;
  /** 000's Active Patterns: learnings tagged `pattern`, best first. */
  patterns?(query: string, limit: number): MaybePromise<MemoryEntry[]>;
  /** 001's ContextPackV2 sources: memories tagged `constraint`, `preference` or `fact`, best first. */
  tagged?(tag: 'constraint' | 'preference' | 'fact', query: string, limit: number): MaybePromise<MemoryEntry[]>;
  openIssues(query: string, limit: number): MaybePromise<MemoryEntry[]>;
  /** Recorded in the manifest; differs when the memory engine's scoring changes. */
  readonly version?: string;
}

export interface PacketSources {
  retriever: Retriever;
  memory?: MemoryProvider | null;
  goals?: (() => MaybePromise<GoalsData | null>) | null;
  /** Newest first. */
  sessions?: ((limit: number) => MaybePromise<SessionEntry[]>) | null;
  /** L2/L3 hierarchy sections relevant to the query, best first. */
  hierarchy?: ((query: string, limit: number) => MaybePromise<HierarchyEntry[]>) | null;
  /** Static texts (PROTOCOL, layered SYSTEM); null → the template's minimal text. */
  staticText?: (name: 'ao-v1' | 'layered-v1-system') => string | null;
  /**
   * What surrounds an evidence chunk in its document, so the gate judges whole lines, not fragments: the lines
   * above it when one of them could open a multi-line secret (a private-key block), and the full text of its
   * first / last line when the chunker split that line across chunks. Null members: nothing to add.
   */
  lineContext?: ((documentId: number, lineStart: number, lineEnd: number) => LineContext) | null;
  /** A whole document's lines as indexed (from its chunks), so a hit can widen to its whole definition; null: unknown. */
  documentText?: ((documentId: number) => string[] | null) | null;
  /** The query's BM25 matches among the chunks of some documents (a packet's focus files), best first. */
  fileChunks?: ((documentIds: number[], query: string) => FileChunkMatch[]) | null;
  /** Definitions named `name` (anchor `name` or `X.name`) in code files, at most `limit`, in store order. */
  definitionsNamed?: ((names: string[], limit: number) => SearchHit[]) | null;
  /** Chunks that call one of `names` (`name(`), not the definitions themselves, at most `limit`, best BM25 first. */
  callersOf?: ((names: string[], limit: number) => SearchHit[]) | null;
  /** Model id of the embedder behind the retriever, when it has one. */
  embedderId?: string | null;
  /** The project's "exclude from evidence by default" globs (settings, migration 80); absent → none. */
  defaultExcludes?: (() => string[]) | null;
  /** Why the retriever is not hybrid (see core/search/best-retriever.ts), recorded as retrieval.fallback_reason. */
  retrievalFallback?: string | null;
  /** Why a provider is absent, shown as a degradation in the manifest (e.g. "memory: module not installed"). */
  unavailable?: string[];
}

const RESOURCE_DIR = fileURLToPath(new URL('../../../../resources/protocol/', import.meta.url));

/** Reads `resources/protocol/<name>.md` (editable static text); null when it is missing or empty. */
export function readStaticText(name: string, dir: string = RESOURCE_DIR): string | null {
  try {
    const text = readFileSync(`${dir}${dir.endsWith('/') ? '' : '/'}${name}.md`, 'utf8').trim();
    return text.length > 0 ? text : null;
  } catch {
    return null;
  }
}

/**
 * Sessions from the ingest log: the core schema's record of what changed in the project's index and when.
 * Read-only and deterministic for an unchanged store.
 */
export function ingestSessions(db: Database): (limit: number) => SessionEntry[] {
  const hasRoots = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'roots'").get() !== undefined;
  const rootsStmt = hasRoots ? db.prepare('SELECT path, name, kind FROM roots ORDER BY length(path) DESC') : null;
  // Logged paths are absolute; a packet names them by root (`myproj`, `myproj/docs`), never by the user's folders.
  const named = (p: string, roots: { path: string; name: string; kind: string }[]): string => {
    const r = roots.find((x) => x.path === p || (x.kind === 'folder' && (p.startsWith(x.path + '/') || p.startsWith(x.path + '\\'))));
    if (!r) return p.split(/[\\/]/).filter(Boolean).pop() ?? p;
    return r.path === p ? r.name : `${r.name}/${p.slice(r.path.length + 1).split('\\').join('/')}`;
  };
  const stmt = db.prepare(
    `SELECT id, started_at, roots, added, updated, removed, failed FROM ingest_log
     WHERE finished_at IS NOT NULL AND (added + updated + removed + failed) > 0
     ORDER BY started_at DESC, id DESC LIMIT ?`,
  );
  return (limit) => {
    const roots = (rootsStmt?.all() ?? []) as { path: string; name: string; kind: string }[];
    return (stmt.all(limit) as { id: number; started_at: string; roots: string; added: number; updated: number; removed: number; failed: number }[]).map(
      (r) => {
        let paths: string[] = [];
        try {
          paths = JSON.parse(r.roots) as string[];
        } catch {
          paths = [r.roots];
        }
        return {
          id: `ingest:${r.id}`,
          source: `ingest_log#${r.id}`,
          ts: r.started_at,
          text: `indexed ${paths.map((p) => named(p, roots)).join(', ')}: ${r.added} added, ${r.updated} updated, ${r.removed} removed${r.failed ? `, ${r.failed} failed` : ''}`,
        };
      },
    );
  };
}

/**
 * lineContext over the chunks table. A chunk's text is its source lines joined by newlines, a long line split
 * into pieces at word boundaries; the pieces of one line, joined in chunk order, contain every adjacent pair of
 * pieces (overlaps only repeat words), which is what a pattern spanning a split needs.
 */
export function chunkLineContext(db: Database): (documentId: number, lineStart: number, lineEnd: number) => LineContext {
  // Case-insensitive prefilter for the block-opening rules (PEM / OpenSSH / PGP "BEGIN … PRIVATE KEY", PuTTY) and the
  // long multi-line values (YAML `key: |` / `key: >`, TOML / Python triple quotes) the gate follows (issue #10).
  const probe = db.prepare(
    `SELECT 1 FROM chunks WHERE document_id = ? AND line_start < ? AND (text LIKE '%begin%' OR text LIKE '%putty%'
       OR text LIKE '%: |%' OR text LIKE '%: >%' OR text LIKE '%"""%' OR text LIKE '%''''''%') LIMIT 1`,
  );
  // Otherwise the chunk just above: a value whose key ends the previous chunk (`password:` / `"secret":` / `=`).
  const previous = db.prepare('SELECT line_start, text FROM chunks WHERE document_id = ? AND line_start < ? ORDER BY line_start DESC, ordinal DESC LIMIT 1');
  const above = db.prepare('SELECT line_start, text FROM chunks WHERE document_id = ? AND line_start < ? ORDER BY line_start, ordinal');
  const covering = db.prepare('SELECT line_start, text FROM chunks WHERE document_id = ? AND line_start <= ? AND line_end >= ? ORDER BY ordinal');
  const fullLine = (documentId: number, line: number): string | null => {
    const rows = covering.all(documentId, line, line) as { line_start: number; text: string }[];
    if (rows.length < 2) return null;
    return rows.map((r) => r.text.split('\n')[line - r.line_start] ?? '').join(' ');
  };
  return (documentId, lineStart, lineEnd) => {
    let before: string[] | null = null;
    if (lineStart > 1 && probe.get(documentId, lineStart) !== undefined) {
      const lines: string[] = new Array(lineStart - 1).fill('');
      const seen = new Set<number>();
      for (const r of above.all(documentId, lineStart) as { line_start: number; text: string }[]) {
        r.text.split('\n').forEach((t, i) => {
          const ln = r.line_start + i;
          if (ln < lineStart && !seen.has(ln)) {
            seen.add(ln);
            lines[ln - 1] = t;
          }
        });
      }
      before = lines;
    } else if (lineStart > 1) {
      const r = previous.get(documentId, lineStart) as { line_start: number; text: string } | undefined;
      // Only the lines above this chunk (the gate needs the lines just before it, not their numbers).
      if (r) before = r.text.split('\n').slice(0, Math.max(0, lineStart - r.line_start));
    }
    return { before, first: fullLine(documentId, lineStart), last: lineEnd === lineStart ? null : fullLine(documentId, lineEnd) };
  };
}

/**
 * A document's lines rebuilt from its chunks (line_start + offset). Null when a line was split across chunks (its
 * pieces differ): a rebuilt line would be a fragment the gate judges alone, so such a document keeps its chunks.
 */
export function chunkDocumentText(db: Database): (documentId: number) => string[] | null {
  const rows = db.prepare('SELECT line_start AS start, text FROM chunks WHERE document_id = ? ORDER BY line_start, ordinal');
  return (documentId) => {
    const lines: (string | undefined)[] = [];
    const all = rows.all(documentId) as { start: number; text: string }[];
    if (all.length === 0) return null;
    for (const r of all) {
      const parts = r.text.split('\n');
      for (let i = 0; i < parts.length; i++) {
        const ln = r.start + i - 1;
        const seen = lines[ln];
        if (seen === undefined) lines[ln] = parts[i]!;
        else if (seen !== parts[i]) return null;
      }
    }
    return Array.from(lines, (l) => l ?? '');
  };
}

export interface FileChunkMatch {
  documentId: number;
  lineStart: number;
  lineEnd: number;
  score: number;
}

/**
 * The task's BM25 (its weighted terms, the retriever's column weights: task-scores.ts) over the chunks of the given
 * documents only, best first; ties by document and line.
 */
export function chunkFileMatches(db: Database): (documentIds: number[], query: string) => FileChunkMatch[] {
  const st = db.prepare(
    `SELECT c.id AS chunkId, c.document_id AS documentId, c.line_start AS lineStart, c.line_end AS lineEnd, s.path AS path
     FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id
     WHERE chunks_fts MATCH ? AND c.document_id IN (SELECT value FROM json_each(?))`,
  );
  return (documentIds, query) => {
    const task = indexedTask(db, taskTerms(query));
    const match = ftsMatchOf(task.terms.map((t) => t.term));
    if (match === null || documentIds.length === 0) return [];
    const rows = st.all(match, JSON.stringify(documentIds)) as (FileChunkMatch & { chunkId: number; path: string })[];
    const scores = taskScores(db, task, rows.map((r) => r.chunkId));
    return rows
      .map((r) => ({ documentId: r.documentId, lineStart: r.lineStart, lineEnd: r.lineEnd, score: scores.get(r.chunkId) ?? 0, path: r.path }))
      .filter((r) => r.score > 0)
      .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) || a.lineStart - b.lineStart)
      .map(({ path: _path, ...m }) => m);
  };
}

/**
 * Definitions by name through the documents' symbol field (doc_fields_fts, words of each defined name): the files
 * defining a word sequence, then their chunks whose anchor is the name or ends in `.name`.
 */
export function chunkDefinitionsNamed(db: Database): ((names: string[], limit: number) => SearchHit[]) | null {
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'doc_fields_fts'").get() === undefined) return null;
  // Ranked by how well they match, ties by path: never by row id, which depends on how the store was filled (#35).
  const docs = db.prepare(
    `SELECT f.rowid AS id FROM doc_fields_fts f JOIN documents d ON d.id = f.rowid JOIN sources s ON s.id = d.source_id
     WHERE doc_fields_fts MATCH ? ORDER BY f.rank, s.path, d.ordinal LIMIT 30`,
  );
  const chunks = db.prepare(
    `SELECT c.id, c.anchor, c.heading_path AS headings FROM chunks c JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id
     WHERE c.document_id IN (SELECT value FROM json_each(?)) AND c.anchor != '' ORDER BY s.path, d.ordinal, c.ordinal`,
  );
  return (names, limit) => {
    const phrases = [...new Set(names)].map((n) => splitIdentifier(n.replace(/_/g, ' ')).join(' ')).filter((p) => p !== '').map((p) => `symbols : "${p}"`);
    if (phrases.length === 0 || limit <= 0) return [];
    const ids = (docs.all(phrases.join(' OR ')) as { id: number }[]).map((r) => r.id);
    if (ids.length === 0) return [];
    const wanted = new Set(names);
    const found: { chunkId: number; score: number }[] = [];
    // A chunk of small neighbours is anchored by its first symbol and lists the others in its heading path.
    const defines = (c: { anchor: string; headings: string }) =>
      [c.anchor, ...c.headings.split(/[^\w.$]+/)].some((n) => n !== '' && wanted.has(n.slice(n.lastIndexOf('.') + 1)));
    for (const c of chunks.all(JSON.stringify(ids)) as { id: number; anchor: string; headings: string }[]) {
      if (found.length < limit && defines(c)) found.push({ chunkId: c.id, score: 0 });
    }
    return loadHits(db, found);
  };
}

/** The store's callers lookup: chunks whose body names one of `names` (FTS5), kept when the text calls it. */
export function chunkCallersOf(db: Database): (names: string[], limit: number) => SearchHit[] {
  const st = db.prepare(
    `SELECT r.rowid AS id FROM (SELECT rowid, rank FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank LIMIT 150) r
     JOIN chunks c ON c.id = r.rowid JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id
     ORDER BY r.rank, s.path, c.line_start LIMIT 100`,
  );
  return (names, limit) => {
    const wanted = [...new Set(names)].filter((n) => /^[A-Za-z_$][\w$]{2,}$/.test(n));
    if (wanted.length === 0 || limit <= 0) return [];
    // FTS5 splits snake_case at `_`: such a name is a phrase of its parts; camelCase stays one token.
    const match = wanted.map((n) => `body : "${n.split(/[_$]+/).filter((p) => p !== '').join(' ')}"`).join(' OR ');
    const ids = (st.all(match) as { id: number }[]).map((r) => ({ chunkId: r.id, score: 0 }));
    const calls = wanted.map((n) => ({ n, re: new RegExp(`(?<![\\w$])(?<!\\b(?:def|function|func|fn)\\s+)(?<!\\)\\s+)${n.replace(/\$/g, '\\$')}\\s*\\(`) }));
    const out: SearchHit[] = [];
    for (const h of loadHits(db, ids)) {
      if (out.length >= limit) break;
      const own = h.anchor.slice(h.anchor.lastIndexOf('.') + 1);
      // A call of the name (not `def name(`, `func (r T) name(`), in a chunk that is not the name's own definition.
      if (calls.some(({ n, re }) => n !== own && re.test(h.text))) out.push(h);
    }
    return out;
  };
}
