import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import type { Cashier } from './cashier-controller';
import type { CustomerState } from './customer-store';
import type { QueueState } from './queue-store';
import type { CashierUiState } from './ui-store';

/** The cashier screen's stores, given to its parts by CashierScreen. */
export const CashierContext = createContext<Cashier | null>(null);

export function useCashier(): Cashier {
  const cashier = useContext(CashierContext);
  if (!cashier) throw new Error('useCashier outside CashierScreen');
  return cashier;
}

export const useQueue = <T,>(selector: (s: QueueState) => T): T => useStore(useCashier().queue, selector);
export const useCustomer = <T,>(selector: (s: CustomerState) => T): T => useStore(useCashier().customer, selector);
export const useCashierUi = <T,>(selector: (s: CashierUiState) => T): T => useStore(useCashier().ui, selector);

/** Id of the check-in box, which F2 and "/" focus. */
export const CHECK_IN_INPUT_ID = 'cashier-check-in';
