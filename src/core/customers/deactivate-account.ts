import { ServiceError } from '../../shared/errors';
import { type Engine, transact } from '../engine';
import { recordCustomerEvent } from '../webhooks/events';
import { loadUser } from './customer-store';
import { passwordMatches } from './passwords';
import { programsOfPerson } from './programs-of-person';
import { type CustomerSession, endAllSessions } from './sessions';

/**
 * POST /user/account/deactivate: the account goes to sleep (status Inactive): every session ends
 * and it cannot check in. Logging in again wakes it; deleting it is the two-step deletion.
 */
export async function deactivateAccount(engine: Engine, session: CustomerSession, password: string): Promise<void> {
  const user = await loadUser(engine.db, session.userId);
  if (!(await passwordMatches(user.password_hash, password))) throw new ServiceError('wrong_current_password', 'The password is not correct.', 'password');
  await transact(engine, async (trx) => {
    await trx.updateTable('users').set({ status: 'inactive', updated_at: engine.clock.now() }).where('id', '=', user.id).execute();
    await endAllSessions(trx, engine, user.id);
    // The account's status is the person's, so every program they belong to hears of it.
    for (const vendorId of await programsOfPerson(trx, user.id, session.vendorId)) {
      await recordCustomerEvent(trx, engine, 'customer.updated', { vendorId, userId: user.id });
    }
  });
}
