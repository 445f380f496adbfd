// Project memory: decisions, issues, state and learnings (the seed's Cross-Session Memory Persistence).
// Every function takes the store's better-sqlite3 `db` plus injected deps (clock, ids) and returns plain JSON.
export { ValidationError, NotFoundError, validateMemoryInput, normalizeTimestamp, DECISION_ID_PATTERN, DEFAULT_PROJECT_ID, DEFAULT_AGENT_ID, TITLE_MAX } from './validate.ts';
export { addMemory, updateMemory, getMemory, listAudit, type MemoryDeps, type GetOptions } from './records.ts';
export {
  validateDecision,
  createDecision,
  getDecision,
  updateDecision,
  supersedeDecision,
  decisionChain,
  allocateDecisionId,
  existingDecisionIds,
} from './decisions.ts';
export {
  searchMemories,
  relevanceBreakdown,
  RELEVANCE_WEIGHTS,
  getLatestState,
  listDecisions,
  recentDecisions,
  openIssues,
  relevantLearnings,
  memoriesByIds,
  type DecisionListOptions,
  type ScopeOptions,
} from './search.ts';
export { rehydrate, formatMemory, type RehydrateOptions } from './rehydrate.ts';
export {
  runMaintenance,
  archiveMemory,
  restoreMemory,
  deleteMemory,
  startMaintenanceTimer,
  LIFECYCLE_RULES,
  type MaintenanceOptions,
  type MaintenanceTimerOptions,
  type LifecycleRule,
} from './lifecycle.ts';
export { renderDecisionMarkdown, parseDecisionMarkdown, isDecisionMarkdown, DecisionFileError, type ParsedDecisionFile } from './decision-markdown.ts';
export { exportDecisions, gateDecision, importDecisions, decisionFileName, type ExportResult, type ImportReport } from './decision-files.ts';
export { sessionContinuity, humanGap } from './session-continuity.ts';
export { patchMemory, resolveMemory, type MemoryPatch, type PatchResult } from './patch.ts';
export { applyLifecycleTo } from './lifecycle.ts';
