import { create } from 'zustand';
import type { ApiInput, PacketView } from '../../../shared/api/index.ts';
import type { PacketListItem, ReplayDiff } from '../../../shared/packet.ts';
import { ApiCallError, api, errorText } from '../api/client.ts';
import type { FieldIssue } from '../../../shared/memory.ts';

export type PacketDraft = Required<Pick<ApiInput<'packets.build'>, 'query' | 'task' | 'template' | 'maxTokens' | 'format' | 'profile'>> & { sessionId: string };

interface PacketsState {
  draft: PacketDraft;
  building: boolean;
  issues: FieldIssue[];
  error: string | null;
  current: PacketView | null;
  history: PacketListItem[];
  replay: ReplayDiff | null;
  setDraft(patch: Partial<PacketDraft>): void;
  build(options?: { filters?: ApiInput<'packets.build'>['filters']; useDefaultExcludes?: boolean }): Promise<PacketView | null>;
  loadHistory(): Promise<void>;
  show(hash: string): Promise<void>;
  replayHash(hash: string): Promise<void>;
}

export const usePackets = create<PacketsState>((set, get) => ({
  draft: { query: '', task: '', template: 'ao-v1', maxTokens: 7000, format: 'md', profile: 'research', sessionId: '' },
  building: false,
  issues: [],
  error: null,
  current: null,
  history: [],
  replay: null,
  setDraft: (patch) => set((s) => ({ draft: { ...s.draft, ...patch } })),
  build: async (options = {}) => {
    const { draft } = get();
    set({ building: true, issues: [], error: null, replay: null });
    try {
      const { sessionId, profile, ...rest } = draft;
      const current = await api().call('packets.build', {
        ...rest,
        task: draft.task.trim() === '' ? undefined : draft.task,
        ...(options.filters ? { filters: options.filters } : {}),
        ...(options.useDefaultExcludes === false ? { useDefaultExcludes: false } : {}),
        // The profile steers layered-v1's allocator only; the session id is recorded with the injection.
        profile: draft.template === 'layered-v1' ? profile : undefined,
        sessionId: sessionId.trim() === '' ? undefined : sessionId.trim(),
      });
      set({ current });
      await get().loadHistory();
      return current;
    } catch (err) {
      set({ error: errorText(err), issues: err instanceof ApiCallError ? err.issues : [] });
      return null;
    } finally {
      set({ building: false });
    }
  },
  loadHistory: async () => {
    try {
      set({ history: await api().call('packets.list', { limit: 500 }) });
    } catch (err) {
      set({ error: errorText(err) });
    }
  },
  show: async (hash) => {
    try {
      set({ current: await api().call('packets.get', { hash }), replay: null });
    } catch (err) {
      set({ error: errorText(err) });
    }
  },
  replayHash: async (hash) => {
    try {
      set({ replay: await api().call('packets.replay', { hash }), error: null });
    } catch (err) {
      set({ error: errorText(err) });
    }
  },
}));
