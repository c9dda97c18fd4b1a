import type { CurrencyInfo } from '../balances/balance-store';
import type { ExpiringAmount } from '../balances/expirations';
import type { BalancesAfter } from './balances-after';
import type { TierRow } from '../customers/membership';

/** A tier as the counter shows it (kept in the order's stored reply: no more than this). */
export type TierShown = Pick<TierRow, 'id' | 'name' | 'summary' | 'description' | 'threshold'>;

export const tierShown = (tier: TierRow | null): TierShown | null => tier && { id: tier.id, name: tier.name, summary: tier.summary, description: tier.description, threshold: tier.threshold };

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
  /**
   * The member's tier after the order and the next one up, so the counter shows a promotion at once
   * (the session is closed: it cannot read the customer again). Absent on voids and older replies.
   */
  tierAfter?: { current: TierShown | null; next: TierShown | null };
  /**
   * What is still to expire of the loyalty balances after the order, by currency id (those with
   * anything expiring), for the same reason. Absent on voids and older replies.
   */
  loyaltyExpiring?: Record<number, ExpiringAmount[]>;
  /** The quick-pay spend crossed the customer's threshold: an auto reload is on its way. */
  autoReloadQueued?: boolean;
}
