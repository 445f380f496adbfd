import { OwnershipError } from '../../core/hierarchy/ownership.ts';
import { NotFoundError, ValidationError } from '../../core/memory/index.ts';
import { ApiFailure } from '../failure.ts';

/** The memory engine's own errors, as contract errors (per-field issues survive for the form). */
export function asApiFailure<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof ValidationError) throw new ApiFailure('invalid_input', err.message, err.issues);
    if (err instanceof NotFoundError) throw new ApiFailure('not_found', err.message);
    if (err instanceof OwnershipError) throw new ApiFailure('forbidden', err.message, [{ field: 'agent', message: err.message }]);
    throw err;
  }
}
