import type { Kysely } from 'kysely';
import type { Engine } from '../engine';
import { holderBalance } from '../ledger/ledger';
import { recordTransaction } from '../orders/record-transaction';
import type { DB } from '../storage/schema';

/** What moved a balance outside a sale: staff's correction, points expiring, expired points given back, or stored value paid back (and a refused card refund's return). */
export type BalanceNoteKind = 'adjustment' | 'expiry' | 'expiry_return' | 'payback';

const NAMES: Record<BalanceNoteKind, string> = {
  adjustment: 'Balance adjusted by the store',
  expiry: 'Points expired',
  expiry_return: 'Expired points given back',
  payback: 'Balance paid back by the store',
};

/**
 * A history record for a balance move that is not a sale, so a customer's history explains their
 * balance (a staff credit of quick pay, points that expired, were missing from it). Quick pay moves
 * as `quickpay.loaded` (a credit) or `used` (a debit); another currency as a reward line of its
 * kind with a signed amount. The name is the node's neutral words: staff's reason stays in the
 * audit log (it may say what a customer should not read).
 */
export async function recordBalanceNote(
  db: Kysely<DB>,
  engine: Engine,
  note: { kind: BalanceNoteKind; vendorId: number; userId: number; currency: { id: number; name: string }; amount: number },
): Promise<void> {
  const vendor = await db.selectFrom('vendors').select('quick_pay_currency_id').where('id', '=', note.vendorId).executeTakeFirstOrThrow();
  const quickPayId = vendor.quick_pay_currency_id === null ? null : Number(vendor.quick_pay_currency_id);
  const isQuickPay = quickPayId === note.currency.id;
  await recordTransaction(db, engine, {
    vendorId: note.vendorId,
    userId: note.userId,
    storeId: null,
    orderId: null,
    kind: note.kind,
    occurredAt: engine.clock.now(),
    total: 0,
    quickPayUsed: isQuickPay && note.amount < 0 ? -note.amount : 0,
    quickPayLoaded: isQuickPay && note.amount > 0 ? note.amount : 0,
    quickPayBalance: quickPayId === null ? 0 : await holderBalance(db, { holderType: 'user', holderId: note.userId, currencyId: quickPayId }),
    items: [],
    taxes: [],
    receipts: [],
    rewards: isQuickPay ? [] : [{ object: 'reward', kind: note.kind, name: NAMES[note.kind], amount: note.amount, currency: note.currency.name }],
    status: 'Complete',
  });
}
