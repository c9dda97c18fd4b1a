import { ServiceError } from '../../shared/errors';
import { type Engine, transact } from '../engine';
import { loadUser } from './customer-store';
import { withdrawPasswordResets } from './one-time-codes';
import { hashPassword, passwordMatches } from './passwords';
import { type CustomerSession, endAllSessions } from './sessions';

/** PUT /user/password: needs the current password; the customer's other sessions and pending resets end. */
export async function changePassword(engine: Engine, session: CustomerSession, input: { currentPassword: string; password: string }): Promise<void> {
  const user = await loadUser(engine.db, session.userId);
  if (!(await passwordMatches(user.password_hash, input.currentPassword))) throw new ServiceError('wrong_current_password', undefined, 'current_password');
  const passwordHash = await hashPassword(input.password);
  await transact(engine, async (trx) => {
    await trx.updateTable('users').set({ password_hash: passwordHash, updated_at: engine.clock.now() }).where('id', '=', user.id).execute();
    await endAllSessions(trx, engine, user.id, session.sessionId);
    await withdrawPasswordResets(trx, engine, user.id);
  });
}
