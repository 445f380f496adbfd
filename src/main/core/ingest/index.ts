export { ingestPaths, ingestWithin, rescan, DEFAULT_MAX_FILE_BYTES, type IngestOptions } from './ingest.ts';
export { CHUNKER_VERSION, chunkLines, chunkMarkdown, markdownSections, slugify, type ChunkDraft, type ChunkOptions } from './chunker.ts';
export { createWordPieceCounter, type WordPieceCounter } from './wordpiece.ts';
export { classifyPath } from './file-types.ts';
export { walk, PROJECT_IGNORE_FILE, DEFAULT_IGNORES } from './walk.ts';
export { htmlToText, readers, decodeUtf8 } from './readers.ts';
export { removeSource, markForReindex, getSourceRef, type SourceRef } from './remove.ts';
export { containmentReason, sensitiveReason, symlinkReason, reincluded, isInside, SYMLINK_OUTSIDE_ROOT, type ContainmentOptions } from './containment.ts';
export { listRoots, getRoot, ensureRoot, rootContaining, setRootStatus, setRootWatch, isUnder, relativeTo } from './roots.ts';
