// Sessions (seed 002, issue #13): capacity monitoring, compaction of agent transcripts, handoff packages, session
// summaries. Engine code under plain Node; transcripts come from core/transcripts, memories from core/memory.
export { capacityStatus, CAPACITY_LEVELS, CAPACITY_THRESHOLDS, DEFAULT_WINDOW, type CapacityLevel, type CapacityReport, type CapacityThreshold } from './capacity.ts';
export { compactTranscript, summarizeOutput, type CompactionResult, type CompactOptions } from './compact.ts';
export { extract, openIssuesOf, firstRequest, parseAlternatives, type Extraction, type ExtractedDecision, type ExtractedError, type ExtractedIssue, type TaskState } from './extract.ts';
export { buildHandoff, createHandoff, storeHandoff, previewHandoff, decodeHandoff, handoffBudget, FINISHED_LINE, LAST_REPORT_LABEL, type BuiltHandoff, type HandoffRequest, type HandoffDeps, type CreateHandoffOptions } from './handoff.ts';
export { renderHandoffMarkdown } from './handoff-render.ts';
export { saveExtraction, type SaveOptions } from './save.ts';
export { endSession, recordSession, summarizeSession, notesTranscript, listSessions, type SessionEndOptions, type StoredSession } from './session-end.ts';
export { sessionContinuity, humanGap } from '../memory/index.ts';
export { joinLines } from './one-line.ts';
export { oneLine, sentences } from './requests.ts';
export { inline, QUOTE_BEGIN, QUOTE_END, quoteLine, quoteLines, quoteText, quoteTurn, quoteTurns, unquote } from './quote.ts';
