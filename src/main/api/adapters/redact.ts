import { createRedactor, PatternRefusedError, redactReport } from '../../core/redact/index.ts';
import type { ApiHandlers } from '../dispatch.ts';
import { ApiFailure } from '../failure.ts';

/** The redaction gate on a text (`contextpack redact`); extra patterns RE2 cannot take are refused, never dropped. */
export function createRedactHandlers(): Pick<ApiHandlers, 'redact.text'> {
  return {
    'redact.text': async (input) => {
      let redactor;
      try {
        redactor = input.patterns && input.patterns.length > 0 ? createRedactor({ userPatterns: input.patterns }) : undefined;
      } catch (err) {
        if (err instanceof PatternRefusedError) throw new ApiFailure('invalid_input', err.message, [{ field: 'patterns', message: err.message }]);
        throw err;
      }
      return redactReport(input.text, input.source ?? 'text', { redactor });
    },
  };
}
