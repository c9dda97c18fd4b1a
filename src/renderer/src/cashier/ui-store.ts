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
  /** A session whose panel takes the focus once it shows (a customer just registered); null: none. */
  focusPanel: string | null;
  /** The order result in the panel takes the focus once the order dialog has closed (an order was just placed). */
  focusOrderResult: boolean;
  show(dialog: CashierDialog): void;
  setFocusOrderResult(on: boolean): void;
  /** The panel of session `hash` takes the focus when it shows; null once it has. */
  setFocusPanel(hash: string | null): void;
  /** Opens the register dialog for an unlinked card. */
  registerCard(card: CardToLink): void;
}

/** Which dialog the cashier screen shows, so shortcuts and buttons open the same ones. */
export function createCashierUiStore() {
  return createStore<CashierUiState>()((set) => ({
    dialog: null,
    card: null,
    focusPanel: null,
    focusOrderResult: false,
    setFocusOrderResult: (focusOrderResult) => set({ focusOrderResult }),
    show: (dialog) => set({ dialog, card: null }),
    setFocusPanel: (focusPanel) => set({ focusPanel }),
    registerCard: (card) => set({ dialog: 'register', card }),
  }));
}

export type CashierUiStore = ReturnType<typeof createCashierUiStore>;
