import type { ApiError, ApiEvent, ApiInput, ApiMethod, ApiOutput, ApiResult } from '../../../shared/api/index.ts';
import type { FieldIssue } from '../../../shared/memory.ts';

/** The renderer's only door to the engine: the contract's methods, over IPC (desktop) or HTTP (serve mode). */
export interface ApiClient {
  readonly transport: 'ipc' | 'http';
  call<M extends ApiMethod>(method: M, input: ApiInput<M>): Promise<ApiOutput<M>>;
  onEvent(listener: (event: ApiEvent) => void): () => void;
}

export class ApiCallError extends Error {
  readonly code: ApiError['code'];
  readonly issues: FieldIssue[];
  constructor(error: ApiError) {
    super(error.message);
    this.code = error.code;
    this.issues = error.issues ?? [];
  }
}

export function unwrap<T>(result: ApiResult<unknown>): T {
  if (!result.ok) throw new ApiCallError(result.error);
  return result.value as T;
}

let current: ApiClient | null = null;

export function setApiClient(client: ApiClient): void {
  current = client;
}

export function api(): ApiClient {
  if (!current) throw new Error('API client not set up');
  return current;
}

export const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));
