import type { ApiError, ApiErrorCode } from '../../shared/api/index.ts';
import type { FieldIssue } from '../../shared/memory.ts';

/** A failure a handler means to report as-is to the caller (anything else is reported as `failed`). */
export class ApiFailure extends Error {
  readonly code: ApiErrorCode;
  readonly issues?: FieldIssue[];
  constructor(code: ApiErrorCode, message: string, issues?: FieldIssue[]) {
    super(message);
    this.code = code;
    this.issues = issues;
  }
  toJSON(): ApiError {
    return { code: this.code, message: this.message, ...(this.issues ? { issues: this.issues } : {}) };
  }
}

export const unavailable = (what: string): ApiFailure => new ApiFailure('unavailable', what);
