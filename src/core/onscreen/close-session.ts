import { ServiceError } from '../../shared/errors';
import type { StoreScope } from '../credentials/authenticate';
import { type Engine, transact } from '../engine';
import { recordCheckInEvent } from '../webhooks/events';
import { publishAll, sessionEvent } from './pos-session';

/**
 * DELETE /onscreen: the session closes (status {2, Closed}) and leaves the queue. Closing is
 * idempotent: a session of this store that is already closed (a retry after a timeout, or a POS
 * closing after its order closed the session) answers the same, announcing nothing twice. A hash
 * this store never opened is 404 session_not_found.
 */
export async function closeSession(engine: Engine, scope: StoreScope, hash: string): Promise<void> {
  const event = await transact(engine, async (trx) => {
    const session = await trx.selectFrom('pos_sessions').selectAll().where('hash', '=', hash).where('vendor_id', '=', scope.vendorId).where('store_id', '=', scope.storeId).executeTakeFirst();
    if (!session) throw new ServiceError('session_not_found', undefined, 'pos_session_hash');
    if (session.status !== 'active') return null;
    const now = engine.clock.now();
    // Only while still open: a close or an order committed since the read has announced it already.
    const closed = await trx.updateTable('pos_sessions').set({ status: 'closed', closed_at: now, closed_reason: 'closed', updated_at: now }).where('id', '=', session.id).where('status', '=', 'active').returning('id').execute();
    if (closed.length === 0) return null;
    await recordCheckInEvent(trx, engine, 'check_in.closed', session, { at: now, reason: 'closed' });
    return sessionEvent('session.closed', session, now);
  });
  if (event) publishAll(engine, [event]);
}
