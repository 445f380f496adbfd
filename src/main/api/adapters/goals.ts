import type { Database } from 'better-sqlite3';
import { fitnessState, GoalsSpecError, recordGate, UnknownGateError } from '../../core/goals/index.ts';
import type { ApiHandlers } from '../dispatch.ts';
import { ApiFailure } from '../failure.ts';

/** A malformed spec or a gate it does not have: the caller's to fix, in the engine's words. */
function mapped<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof UnknownGateError) throw new ApiFailure('invalid_input', err.message, [{ field: 'gate', message: err.message }]);
    if (err instanceof GoalsSpecError) throw new ApiFailure('invalid_input', err.message);
    throw err;
  }
}

/** Fitness goals (000's GOALS.md): the state of every gate, and recording one result. */
export function createGoalsHandlers(db: Database): Pick<ApiHandlers, 'goals.show' | 'goals.record'> {
  return {
    'goals.show': async () =>
      mapped(() => fitnessState(db) ?? { file: null, gates: [], directives: [], passing: 0, failing: 0, unmeasured: 0 }),
    'goals.record': async (input) => mapped(() => recordGate(db, { gate: input.gate, status: input.status, value: input.value ?? null, agent: input.agent ?? null })),
  };
}
