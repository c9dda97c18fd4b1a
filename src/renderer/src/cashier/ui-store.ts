import { createStore } from 'zustand/vanilla';

export type CashierDialog = 'order' | 'register' | 'help' | 'confirmClose' | null;

/** An unlinked card the register dialog works with: a new customer with it, or link it to one found. */
export interface CardToLink {
  number: string;
  mode: 'new' | 'link';
}

export interface CashierUiState {
  /** The one dialog open over the screen. */
  dialog: CashierDialog;
  /** The card the register dialog links (opened from an unlinked card); null for a plain registration. */
  card: CardToLink | null;
  show(dialog: CashierDialog): void;
  /** Opens the register dialog for an unlinked card. */
  registerCard(card: CardToLink): void;
}

/** Which dialog the cashier screen shows, so shortcuts and buttons open the same ones. */
export function createCashierUiStore() {
  return createStore<CashierUiState>()((set) => ({
    dialog: null,
    card: null,
    show: (dialog) => set({ dialog, card: null }),
    registerCard: (card) => set({ dialog: 'register', card }),
  }));
}

export type CashierUiStore = ReturnType<typeof createCashierUiStore>;
