import { create } from 'zustand';
import type { AppInfo, CapabilityName } from '../../../shared/api/index.ts';
import { api, errorText } from '../api/client.ts';

export const VIEWS = ['library', 'search', 'decisions', 'hierarchy', 'packets', 'sessions', 'memory'] as const;
/** The search box's id: Ctrl+K focuses it from anywhere (here, so the shell need not load the Search view). */
export const SEARCH_INPUT_ID = 'search-query';

export type ViewName = (typeof VIEWS)[number];
export const VIEW_LABELS: Record<ViewName, string> = {
  library: 'Library',
  search: 'Search',
  decisions: 'Decisions',
  hierarchy: 'Hierarchy',
  packets: 'Packets',
  sessions: 'Sessions',
  memory: 'Memory',
};

export interface Toast {
  id: number;
  text: string;
  kind: 'ok' | 'error';
}

interface AppState {
  view: ViewName;
  /** Short confirmations (export written, source removed), shown bottom-right and read out; they expire. */
  toasts: Toast[];
  toast(text: string, kind?: Toast['kind']): void;
  dismissToast(id: number): void;
  /** Set by a view before switching to another, read once by the target (e.g. Hierarchy → Decisions filter). */
  handoff: { view: ViewName; value: string } | null;
  goTo(view: ViewName, value: string): void;
  takeHandoff(view: ViewName): string | null;
  info: AppInfo | null;
  infoError: string | null;
  /** Last status message, read out by the aria-live region. */
  status: string;
  setView(view: ViewName): void;
  loadInfo(): Promise<void>;
  announce(message: string): void;
}

let toastSeq = 0;

export const useApp = create<AppState>((set, get) => ({
  view: 'library',
  toasts: [],
  toast: (text, kind = 'ok') => {
    const id = ++toastSeq;
    set((s) => ({ toasts: [...s.toasts.slice(-3), { id, text, kind }], status: text }));
    setTimeout(() => get().dismissToast(id), 8000);
  },
  dismissToast: (id) => set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) })),
  handoff: null,
  goTo: (view, value) => set({ view, handoff: { view, value } }),
  takeHandoff: (view) => {
    const h = get().handoff;
    if (!h || h.view !== view) return null;
    set({ handoff: null });
    return h.value;
  },
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
