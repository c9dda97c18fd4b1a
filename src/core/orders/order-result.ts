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
  /**
   * Orders that earned: the member's tier (and its tier_since) as the order found it, so a void can
   * take back a tier the order's points got, down to this one at most (takeBackTier). Not on the wire;
   * absent in replies stored before it was kept.
   */
  tierBefore?: { id: number | null; since: number };
}
