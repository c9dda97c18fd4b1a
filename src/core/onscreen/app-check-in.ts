import { ServiceError } from '../../shared/errors';
import { refuseBlockedCustomer } from '../customer-care/blocked';
import type { CustomerSession } from '../customers/sessions';
import { type Engine, transact } from '../engine';
import { onceMoreOnClash } from '../storage/once-more-on-clash';
import { openSession, type PosSessionRow, publishAll } from './pos-session';

/**
 * POST /vendor/store/check-in?session_key {store}: the customer checks in from the app at a store
 * of the session's vendor; the session joins that store's queue like a counter check-in.
 */
export async function checkInFromApp(engine: Engine, customer: CustomerSession, input: { storeId: number }): Promise<PosSessionRow> {
  const { session, events } = await onceMoreOnClash(engine.dialect, () => transact(engine, async (trx) => {
    const store = await trx.selectFrom('stores').select(['id']).where('id', '=', input.storeId).where('vendor_id', '=', customer.vendorId).executeTakeFirst();
    if (!store) throw new ServiceError('store_not_found', undefined, 'store');
    await refuseBlockedCustomer(trx, customer.vendorId, customer.userId);
    return openSession(trx, engine, { vendorId: customer.vendorId, storeId: store.id, posId: null }, {
      userId: customer.userId,
      identifiedBy: 'app',
      cardNumber: null,
      openedBy: 'app',
    });
  }));
  publishAll(engine, events);
  return session;
}
