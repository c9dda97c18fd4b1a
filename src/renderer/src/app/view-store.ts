import { useStore } from 'zustand';
import { createStore } from 'zustand/vanilla';

/** Which screen the shell shows: the role's own screen, or settings. */
export const viewStore = createStore<{ view: 'main' | 'settings'; show(view: 'main' | 'settings'): void }>()((set) => ({
  view: 'main',
  show: (view) => set({ view }),
}));

export function useView() {
  return useStore(viewStore, (s) => s.view);
}
