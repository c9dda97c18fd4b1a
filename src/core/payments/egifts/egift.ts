import type { Kysely } from 'kysely';
import { type CurrencyInfo, currencyInfo } from '../../balances/balance-store';
import type { DB } from '../../storage/schema';

// An eGift as the use cases hand it to the routes. Money in minor units of `currency` (the
// vendor's quick-pay currency at purchase); times in epoch milliseconds.

export type EgiftStatus = 'pending' | 'scheduled' | 'sent' | 'claimed' | 'declined';

export interface EgiftRecord {
  id: number;
  vendor: { id: number; name: string };
  amount: number;
  currency: CurrencyInfo;
  buyer: { name: string; email: string };
  recipient: { name: string; email: string };
  message: string | null;
  imageUrl: string | null;
  /** The card charged, by its public facts only. */
  card: { brand: string; last4: string };
  /** The buyer's billing profile charged; null for a guest's card. */
  billingProfileId: number | null;
  status: EgiftStatus;
  declineReason: string | null;
  /** The payment_charges row of the purchase: the `transaction` a client quotes. */
  chargeId: number;
  createdAt: number;
  sentAt: number | null;
  claimedAt: number | null;
  /** The buyer's send date when it was in the future at purchase; null: sent when paid. */
  sendAt: number | null;
}

export async function loadEgift(db: Kysely<DB>, egiftId: number): Promise<EgiftRecord> {
  const row = await db
    .selectFrom('egifts as g')
    .innerJoin('vendors as v', 'v.id', 'g.vendor_id')
    .innerJoin('currencies as c', 'c.id', 'g.currency_id')
    .selectAll('g')
    .select(['v.name as vendor_name', 'c.name as currency_name', 'c.code as currency_code'])
    .where('g.id', '=', egiftId)
    .executeTakeFirstOrThrow();
  return {
    id: row.id,
    vendor: { id: row.vendor_id, name: row.vendor_name },
    amount: Number(row.amount),
    currency: currencyInfo({ id: row.currency_id, name: row.currency_name, code: row.currency_code }),
    buyer: { name: row.buyer_name, email: row.buyer_email },
    recipient: { name: row.recipient_name, email: row.recipient_email },
    message: row.message,
    imageUrl: row.image_url,
    card: { brand: row.card_brand, last4: row.card_last4 },
    billingProfileId: row.billing_profile_id,
    status: row.status as EgiftStatus,
    declineReason: row.decline_reason,
    chargeId: row.charge_id,
    createdAt: row.created_at,
    sentAt: row.sent_at,
    claimedAt: row.claimed_at,
    sendAt: row.send_at,
  };
}
