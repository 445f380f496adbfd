// 000's GOALS source: the fitness spec (GOALS.md / GOALS.yaml at an indexed root) and its recorded snapshots.
export { parseGoalsMarkdown, parseGoalsYaml, GoalsSpecError, type GoalGate, type GoalsSpec } from './spec.ts';
export {
  fitnessState,
  fitnessOf,
  loadGoalsSpec,
  latestSnapshots,
  recordGate,
  indexedRoots,
  UnknownGateError,
  GOALS_FILES,
  type FitnessState,
  type GateState,
  type GateStatus,
  type GoalsDeps,
} from './fitness.ts';
