// The one API contract: every method's input schema (validated at the boundary by main, for both transports) and
// output type. The renderer calls nothing else; preload exposes exactly these names. Each capability's methods live in
// a file of their own (library-, memory-, packets- and sessions-contract.ts); this file joins them.
import type { z } from 'zod';
import type { ApiMethod } from './methods.ts';
import type { FieldIssue } from '../memory.ts';
import { libraryInputs, type LibraryOutputs } from './library-contract.ts';
import { memoryInputs, type MemoryOutputs } from './memory-contract.ts';
import { packetsInputs, type PacketsOutputs } from './packets-contract.ts';
import { sessionsInputs, type SessionsOutputs } from './sessions-contract.ts';

export * from './schemas.ts';
export * from './library-contract.ts';
export * from './memory-contract.ts';
export * from './packets-contract.ts';
export * from './sessions-contract.ts';

export const apiInputs = {
  ...libraryInputs,
  ...memoryInputs,
  ...packetsInputs,
  ...sessionsInputs,
};

export interface ApiOutputs extends LibraryOutputs, MemoryOutputs, PacketsOutputs, SessionsOutputs {}

export type ApiInput<M extends ApiMethod> = z.input<(typeof apiInputs)[M]>;
export type ApiParsedInput<M extends ApiMethod> = z.output<(typeof apiInputs)[M]>;
export type ApiOutput<M extends ApiMethod> = ApiOutputs[M];

/** `tampered`: a stored snapshot's bytes no longer hash to its id; it is refused, never served. */
export type ApiErrorCode = 'invalid_input' | 'unknown_method' | 'unavailable' | 'not_found' | 'busy' | 'failed' | 'forbidden' | 'conflict' | 'tampered';

export interface ApiError {
  code: ApiErrorCode;
  message: string;
  /** Per-field problems (invalid_input), for forms to show next to the field. */
  issues?: FieldIssue[];
}

/** Both transports carry this envelope, so structured errors survive IPC (which would keep only a message). */
export type ApiResult<T> = { ok: true; value: T } | { ok: false; error: ApiError };
