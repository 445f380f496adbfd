import { create } from 'zustand';
import type { SessionAnalysis } from '../../../shared/api/index.ts';
import type { HandoffResult } from '../../../shared/session.ts';

/** The Sessions view's work survives switching views: the transcript, its analysis and the last handoff. */
interface SessionsState {
  transcript: { name: string; text: string } | null;
  windowTokens: number;
  analysis: SessionAnalysis | null;
  handoff: HandoffResult | null;
  set(patch: Partial<Omit<SessionsState, 'set'>>): void;
}

export const useSessions = create<SessionsState>((set) => ({
  transcript: null,
  windowTokens: 200_000,
  analysis: null,
  handoff: null,
  set: (patch) => set(patch),
}));
