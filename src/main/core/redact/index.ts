export type {
  CompileFn,
  CompileSetFn,
  MatchHit,
  Matcher,
  MatcherSet,
  RedactContext,
  RedactionEvent,
  RedactionReport,
  RedactionRule,
  RedactResult,
  Redactor,
  RedactorDeps,
  UserPattern,
} from './types.ts';
export { BUILTIN_RULES } from './rules.ts';
export {
  createRedactor,
  getDefaultRedactor,
  redactionMarker,
  DEFAULT_TIME_BUDGET_MS,
  DEFAULT_TIME_LIMIT_MS,
  DEFAULT_WORK_LIMIT,
  ERROR_RULE,
  LIMIT_RULE,
  RedactionTimeLimitError,
} from './redactor.ts';
export { PatternRefusedError, validateUserPattern } from './user-patterns.ts';
export type { PatternValidation } from './user-patterns.ts';
export { compileRe2, compileRe2Set } from './re2-compile.ts';
export { createJsonlAppender, createJsonlRedactionLog } from './jsonl-log.ts';
export type { JsonlLogDeps } from './jsonl-log.ts';
export { redactReport } from './report.ts';
export type { RedactReportOptions } from './report.ts';
export { shannonEntropy } from './entropy.ts';
export { gateDeep, gateLabel, gateString } from './fields.ts';
export type { GatedString, GateOptions } from './fields.ts';
