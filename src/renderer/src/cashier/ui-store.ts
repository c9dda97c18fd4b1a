import { createStore } from 'zustand/vanilla';

export type CashierDialog = 'order' | 'register' | 'help' | 'confirmClose' | null;

export interface CashierUiState {
  /** The one dialog open over the screen. */
  dialog: CashierDialog;
  show(dialog: CashierDialog): void;
}

/** Which dialog the cashier screen shows, so shortcuts and buttons open the same ones. */
export function createCashierUiStore() {
  return createStore<CashierUiState>()((set) => ({
    dialog: null,
    show: (dialog) => set({ dialog }),
  }));
}

export type CashierUiStore = ReturnType<typeof createCashierUiStore>;
