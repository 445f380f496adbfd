import { apiInputs, fieldIssues, isApiMethod, type ApiMethod, type ApiOutput, type ApiParsedInput, type ApiResult } from '../../shared/api/index.ts';
import { ApiFailure } from './failure.ts';

export type ApiHandlers = { [M in ApiMethod]: (input: ApiParsedInput<M>) => Promise<ApiOutput<M>> };

export type Dispatch = (method: string, input: unknown) => Promise<ApiResult<unknown>>;

export { fieldIssues };

/**
 * The single entry point both transports call: checks the method is in the contract, validates the input with the
 * contract's schema, runs the handler, and turns every outcome into an envelope. Nothing unvalidated reaches a handler.
 */
export function createDispatcher(handlers: ApiHandlers, onError: (method: string, err: unknown) => void = () => {}): Dispatch {
  return async (method, input) => {
    if (!isApiMethod(method)) return { ok: false, error: { code: 'unknown_method', message: `unknown API method ${JSON.stringify(method)}` } };
    const parsed = apiInputs[method].safeParse(input ?? {});
    if (!parsed.success) {
      const issues = fieldIssues(parsed.error);
      return { ok: false, error: { code: 'invalid_input', message: `${method}: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`, issues } };
    }
    try {
      const handler = handlers[method] as (input: unknown) => Promise<unknown>;
      return { ok: true, value: await handler(parsed.data) };
    } catch (err) {
      if (err instanceof ApiFailure) return { ok: false, error: err.toJSON() };
      onError(method, err);
      return { ok: false, error: { code: 'failed', message: (err as Error).message ?? String(err) } };
    }
  };
}
