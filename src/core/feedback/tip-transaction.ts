import { ServiceError } from '../../shared/errors';
import { toMinorUnits } from '../../shared/money';
import { vendorMoneyDigits } from '../currencies/vendor-money';
import type { CustomerSession } from '../customers/sessions';
import { type Engine, transact } from '../engine';
import { feedbackTarget } from './feedback-target';
import { secondsLeft, TIP_WINDOW_MS } from './feedback-windows';

/**
 * POST /user/transaction/tip: the customer adds a tip (major units of the vendor's money) to one of
 * their own store purchases, once, within TIP_WINDOW_MS, at most the purchase's total. The tip is
 * recorded for the store and shown in the history; no money moves (docs/decisions.md).
 */
export async function tipTransaction(engine: Engine, session: CustomerSession, tip: { transactionId: number; amount: number }): Promise<void> {
  const digits = await vendorMoneyDigits(engine.db, session.vendorId);
  const amount = toMinorUnits(tip.amount, digits, 'amount');
  if (amount <= 0) throw new ServiceError('validation_failed', 'amount must be more than 0.', 'amount');
  await transact(engine, async (trx) => {
    const target = await feedbackTarget(trx, session, tip.transactionId);
    if (target.tip_amount !== null) throw new ServiceError('already_tipped', undefined, 'transaction');
    const now = engine.clock.now();
    if (secondsLeft(target.occurred_at, TIP_WINDOW_MS, now) === 0) throw new ServiceError('tip_window_closed', undefined, 'transaction');
    if (amount > Number(target.total)) throw new ServiceError('validation_failed', 'A tip cannot be more than the purchase total.', 'amount');
    // The tip_amount check makes two simultaneous tips one tip.
    const done = await trx.updateTable('transactions').set({ tip_amount: amount, tipped_at: now }).where('id', '=', target.id).where('tip_amount', 'is', null).executeTakeFirst();
    if (Number(done.numUpdatedRows) === 0) throw new ServiceError('already_tipped', undefined, 'transaction');
  });
}
