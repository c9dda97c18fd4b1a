import type { StoreScope } from '../credentials/authenticate';
import { type Engine, transact } from '../engine';
import { recordCheckInEvent } from '../webhooks/events';
import { findOpenSession, publishAll, sessionEvent } from './pos-session';

/** DELETE /onscreen: the session closes (status {2, Closed}) and leaves the queue. */
export async function closeSession(engine: Engine, scope: StoreScope, hash: string): Promise<void> {
  const event = await transact(engine, async (trx) => {
    const session = await findOpenSession(trx, scope, hash);
    const now = engine.clock.now();
    await trx.updateTable('pos_sessions').set({ status: 'closed', closed_at: now, closed_reason: 'closed', updated_at: now }).where('id', '=', session.id).execute();
    await recordCheckInEvent(trx, engine, 'check_in.closed', session, { at: now, reason: 'closed' });
    return sessionEvent('session.closed', session, now);
  });
  publishAll(engine, [event]);
}
