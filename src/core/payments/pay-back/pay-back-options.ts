import { checkCustomerAccess } from '../../customer-care/customer-access';
import { survivingCustomerId } from '../../customers/customer-store';
import { type Engine, ownsProgramData } from '../../engine';
import { holderBalance } from '../../ledger/ledger';
import { quickPayCurrencyOf } from '../quick-pay/credit-quick-pay';
import { cardAmountStep } from '../gateway/stripe-amounts';
import { refundableReloads, totalRefundable } from './card-refundable';

/** What the profile's pay-back control offers: the quick-pay balance and how much of it can go back to cards. */
export interface PayBackOptions {
  currency: { publicId: string; code: string; digits: number };
  /** Minor units; only a positive balance can be paid back. */
  balance: number;
  /** The most a card pay-back takes now: the refundable reloads, at most the balance, in whole card steps. */
  cardRefundable: number;
  cards: Array<{ brand: string | null; last4: string | null; refundable: number }>;
  /** False at a paired store: pay-backs are central's. */
  allowedHere: boolean;
  /**
   * Card pay-backs whose gateway answer was lost (their money is out of the balance, the refund's
   * outcome unknown): sending the same request again, with its key, finishes one.
   */
  unfinished: Array<{ amount: number; method: 'cash' | 'card'; idempotencyKey: string }>;
}

export async function payBackOptions(engine: Engine, vendorId: number, onlyStoreId: number | null, requestedId: number): Promise<PayBackOptions> {
  const db = engine.db;
  const userId = await survivingCustomerId(db, requestedId);
  await checkCustomerAccess(db, vendorId, onlyStoreId, userId);
  const currency = await quickPayCurrencyOf(db, vendorId, { requireActive: false });
  const balance = await holderBalance(db, { holderType: 'user', holderId: userId, currencyId: currency.id });
  const reloads = await refundableReloads(db, engine.payments.name, { vendorId, userId, currencyId: currency.id });
  const step = cardAmountStep(currency.code);
  const most = Math.max(0, Math.min(balance, totalRefundable(reloads)));
  return {
    currency: { publicId: currency.publicId, code: currency.code, digits: currency.digits },
    balance,
    cardRefundable: most - (most % step),
    cards: reloads.map((reload) => ({ brand: reload.brand, last4: reload.last4, refundable: reload.left })),
    allowedHere: ownsProgramData(engine),
    unfinished: (
      await db.selectFrom('stored_value_paybacks').select(['amount', 'method', 'idempotency_key']).where('vendor_id', '=', vendorId).where('user_id', '=', userId).where('status', '=', 'refunding').orderBy('id').execute()
    ).map((row) => ({ amount: Number(row.amount), method: row.method === 'card' ? ('card' as const) : ('cash' as const), idempotencyKey: row.idempotency_key })),
  };
}
