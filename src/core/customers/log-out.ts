import { type Engine, transact } from '../engine';
import { type CustomerSession, endSession } from './sessions';

/**
 * Ends the session and every app barcode the customer holds at its program: a barcode checks in as
 * the account at a counter, and nothing says which session drew it, so one shown on a phone just
 * logged out (handed on, left on a shared tablet) must not check in for its remaining 15 minutes.
 * The customer's other signed-in devices draw a new one when they show it.
 */
export function logOut(engine: Engine, session: CustomerSession): Promise<void> {
  return transact(engine, async (trx) => {
    await endSession(trx, engine, session.sessionId);
    await trx.deleteFrom('barcode_tokens').where('user_id', '=', session.userId).where('vendor_id', '=', session.vendorId).execute();
  });
}
