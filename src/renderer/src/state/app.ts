import { create } from 'zustand';
import type { AppInfo, CapabilityName } from '../../../shared/api/index.ts';
import { api, errorText } from '../api/client.ts';

export const VIEWS = ['library', 'search', 'decisions', 'hierarchy', 'packets'] as const;
export type ViewName = (typeof VIEWS)[number];
export const VIEW_LABELS: Record<ViewName, string> = {
  library: 'Library',
  search: 'Search',
  decisions: 'Decisions',
  hierarchy: 'Hierarchy',
  packets: 'Packets',
};

interface AppState {
  view: ViewName;
  info: AppInfo | null;
  infoError: string | null;
  /** Last status message, read out by the aria-live region. */
  status: string;
  setView(view: ViewName): void;
  loadInfo(): Promise<void>;
  announce(message: string): void;
}

export const useApp = create<AppState>((set) => ({
  view: 'library',
  info: null,
  infoError: null,
  status: '',
  setView: (view) => set({ view }),
  loadInfo: async () => {
    try {
      set({ info: await api().call('app.info', {}), infoError: null });
    } catch (err) {
      set({ infoError: errorText(err) });
    }
  },
  announce: (status) => set({ status }),
}));

/** The reason a capability is off, or null when it is on (or not yet known). */
export function useMissing(name: CapabilityName): string | null {
  return useApp((s) => {
    const cap = s.info?.capabilities[name];
    return cap && !cap.available ? (cap.reason ?? 'not available') : null;
  });
}
