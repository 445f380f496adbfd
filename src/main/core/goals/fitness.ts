import type { Database } from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GoalsSpecError, parseGoalsMarkdown, parseGoalsYaml, type GoalGate, type GoalsSpec } from './spec.ts';

// Fitness state = the spec at an indexed root + the newest recorded snapshot of each gate.

export type GateStatus = 'pass' | 'fail';

export interface GateState extends GoalGate {
  /** null: never recorded. */
  status: GateStatus | null;
  value: string | null;
  recorded_at: string | null;
}

export interface FitnessState {
  file: string;
  version: number | null;
  gates: GateState[];
  directives: string[];
  passing: number;
  failing: number;
  unmeasured: number;
}

export interface GoalsDeps {
  /** Reads a file; null when it does not exist. Injectable for tests. */
  readFile?: (path: string) => string | null;
  now?: () => Date;
}

/** The spec file names, in preference order (000: GOALS.md version 4 over GOALS.yaml versions 1–3). */
export const GOALS_FILES = ['GOALS.md', 'GOALS.yaml', 'GOALS.yml'] as const;

function defaultRead(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
    throw err;
  }
}

/** Folders the store has indexed, in a stable order. */
export function indexedRoots(db: Database): string[] {
  return (db.prepare('SELECT DISTINCT root FROM sources ORDER BY root').all() as { root: string }[]).map((r) => r.root);
}

/**
 * The first GOALS.md / GOALS.yaml found at an indexed root (roots in order, GOALS.md first). null: none. A
 * malformed file throws GoalsSpecError naming file, line and field.
 */
export function loadGoalsSpec(db: Database, deps: GoalsDeps = {}): GoalsSpec | null {
  const read = deps.readFile ?? defaultRead;
  for (const root of indexedRoots(db)) {
    for (const name of GOALS_FILES) {
      const file = join(root, name);
      const text = read(file);
      if (text === null) continue;
      return name === 'GOALS.md' ? parseGoalsMarkdown(text, file) : parseGoalsYaml(text, file);
    }
  }
  return null;
}

function hasSnapshots(db: Database): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'goal_snapshots'").get() !== undefined;
}

/** Newest snapshot per gate. */
export function latestSnapshots(db: Database): Map<string, { status: GateStatus; value: string | null; recorded_at: string }> {
  const out = new Map<string, { status: GateStatus; value: string | null; recorded_at: string }>();
  if (!hasSnapshots(db)) return out;
  const rows = db
    .prepare('SELECT gate_id, status, value, recorded_at FROM goal_snapshots WHERE id IN (SELECT max(id) FROM goal_snapshots GROUP BY gate_id) ORDER BY gate_id')
    .all() as { gate_id: string; status: GateStatus; value: string | null; recorded_at: string }[];
  for (const r of rows) out.set(r.gate_id, { status: r.status, value: r.value, recorded_at: r.recorded_at });
  return out;
}

export function fitnessOf(spec: GoalsSpec, snaps: ReturnType<typeof latestSnapshots>): FitnessState {
  const gates: GateState[] = spec.gates.map((g) => {
    const s = snaps.get(g.id);
    return { ...g, status: s?.status ?? null, value: s?.value ?? null, recorded_at: s?.recorded_at ?? null };
  });
  return {
    file: spec.file,
    version: spec.version,
    gates,
    directives: spec.directives,
    passing: gates.filter((g) => g.status === 'pass').length,
    failing: gates.filter((g) => g.status === 'fail').length,
    unmeasured: gates.filter((g) => g.status === null).length,
  };
}

/** The current fitness state; null when no spec exists at any indexed root. */
export function fitnessState(db: Database, deps: GoalsDeps = {}): FitnessState | null {
  const spec = loadGoalsSpec(db, deps);
  return spec ? fitnessOf(spec, latestSnapshots(db)) : null;
}

export class UnknownGateError extends Error {
  readonly gate: string;
  constructor(gate: string, message: string) {
    super(message);
    this.name = 'UnknownGateError';
    this.gate = gate;
  }
}

/**
 * `goals record <gate> pass|fail [--value V]`: one fitness snapshot. The gate must be in the current spec, so a
 * typo does not create a gate no packet will ever show.
 */
export function recordGate(
  db: Database,
  input: { gate: string; status: GateStatus; value?: string | null; agent?: string | null },
  deps: GoalsDeps = {},
): { id: number; gate_id: string; status: GateStatus; value: string | null; spec_file: string; recorded_at: string } {
  if (input.status !== 'pass' && input.status !== 'fail') throw new UnknownGateError(input.gate, `status: must be pass or fail, got ${JSON.stringify(input.status)}`);
  const spec = loadGoalsSpec(db, deps);
  if (!spec) throw new UnknownGateError(input.gate, `no ${GOALS_FILES.join(' / ')} at an indexed root: write one (see docs/packets.md, "Goals") and ingest its folder`);
  if (!spec.gates.some((g) => g.id === input.gate)) {
    throw new UnknownGateError(input.gate, `gate ${JSON.stringify(input.gate)} is not in ${spec.file} (gates: ${spec.gates.map((g) => g.id).join(', ') || 'none'})`);
  }
  const value = input.value === undefined || input.value === null || input.value.trim() === '' ? null : input.value.trim();
  if (value !== null && (value.length > 200 || /[\r\n]/.test(value))) throw new UnknownGateError(input.gate, 'value: one line of at most 200 characters');
  const recorded_at = (deps.now ?? (() => new Date()))().toISOString();
  const info = db
    .prepare('INSERT INTO goal_snapshots (gate_id, status, value, spec_file, agent_id, recorded_at) VALUES (?, ?, ?, ?, ?, ?)')
    .run(input.gate, input.status, value, spec.file, input.agent ?? null, recorded_at);
  return { id: Number(info.lastInsertRowid), gate_id: input.gate, status: input.status, value, spec_file: spec.file, recorded_at };
}

export { GoalsSpecError };
