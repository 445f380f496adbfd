// A session the agent hooks captured (issue #27), as the Sessions view lists it: its handoffs (with the context
// capacity the transcript had reached when each was stored) and what its end recorded, each finding with the
// transcript line it came from.
import type { CapacityLevel } from './session.ts';

export interface CapturedHandoff {
  hash: string;
  type: string;
  /** The transcript's last turn when it was captured. */
  timestamp: string;
  stored_at: string;
  /** The transcript's size then, in tokens, and its level against the default window. */
  tokens: number;
  window: number;
  level: CapacityLevel;
  usage_pct: number;
  package_tokens: number;
}

export interface CapturedFinding {
  kind: 'decision' | 'bug' | 'issue' | 'todo' | 'error' | 'learning';
  title: string;
  /** `transcript:line` (null when the summary does not say). */
  source: string | null;
}

export interface CapturedSession {
  session_id: string;
  transcript: string | null;
  /** Newest first. */
  handoffs: CapturedHandoff[];
  ended: { at: string; agent: string; headline: string; findings: CapturedFinding[] } | null;
  /** The latest of its handoffs and its end. */
  last_at: string;
  /** Captures of this session that a hook could not store yet (waiting in the spool) or could not store at all. */
  pending?: PendingCapture[];
}

export interface PendingCapture {
  event: string;
  state: 'waiting' | 'failed';
  captured_at: string;
  /** Why it is not stored (the store was busy past the deadline, the transcript could not be read, …). */
  error: string | null;
}
