/**
 * One transaction of a customer's history (the contract's "Transaction history record"): an order,
 * reload or eGift that moved stored value or loyalty currency. Written by the in-store issue; the
 * route turns it into the wire shape (Unix seconds, major units).
 */
export interface HistoryRecord {
  kind: string;
  id: number;
  completedAt: number;
  /** Major units, as the contract shows them. */
  total: number;
  storeName: string;
  storeAddress: string;
  rating: { comment: string | null; value: number; window: number };
  tip: { amount: number; window: number };
  quickpay: { used: number; loaded: number; balance: number };
  items: Record<string, unknown>[];
  taxes: Record<string, unknown>[];
  receipts: Record<string, unknown>[];
  rewards: Record<string, unknown>[];
  status: string;
}
