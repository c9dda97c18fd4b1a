import type { CurrencyInfo } from '../balances/balance-store';
import type { BalancesAfter } from './balances-after';

/** What placing (or voiding) an order answers; stored with the order so a resend gets it back. */
export interface OrderResult {
  orderId: number;
  receiptNumber: string;
  status: 'Complete' | 'Voided';
  orderedAt: number;
  user: { id: number; firstName: string; lastName: string };
  pointsEarned: number;
  pointsSpent: number;
  /** Minor units of the quick-pay currency. */
  quickPayUsed: number;
  earned: Array<{ ruleName: string; currency: CurrencyInfo; points: number }>;
  redeemed: Array<{ rewardId: string; name: string; currency: CurrencyInfo; cost: number }>;
  balances: BalancesAfter;
  /** The history record, when the order moved value. */
  transactionId: number | null;
  /** Digits of the quick-pay currency, to show amounts in major units. */
  digits: number;
}
