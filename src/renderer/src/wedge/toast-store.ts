import { useStore } from 'zustand';
import { createStore } from 'zustand/vanilla';

/** A short message in the corner of the screen (the Mantine notifications package is not installed). */
export interface Toast {
  id: number;
  title: string;
  message: string;
  tone: 'error' | 'info';
}

interface ToastState {
  toasts: Toast[];
  /** Shows a toast for `ms` milliseconds (kept until dismissed when 0); returns its id. */
  push(toast: Omit<Toast, 'id'>, ms?: number): number;
  dismiss(id: number): void;
}

export const TOAST_MS = 6_000;
/** Older toasts give way: a burst of failures never fills the screen. */
const MAX_TOASTS = 3;

export function createToastStore() {
  let nextId = 1;
  return createStore<ToastState>()((set, get) => ({
    toasts: [],
    push(toast, ms = TOAST_MS) {
      const id = nextId++;
      set({ toasts: [...get().toasts, { ...toast, id }].slice(-MAX_TOASTS) });
      if (ms > 0) setTimeout(() => get().dismiss(id), ms);
      return id;
    },
    dismiss(id) {
      set({ toasts: get().toasts.filter((t) => t.id !== id) });
    },
  }));
}

export const toastStore = createToastStore();

export function useToasts(): Toast[] {
  return useStore(toastStore, (s) => s.toasts);
}
