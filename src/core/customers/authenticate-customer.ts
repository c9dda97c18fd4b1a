import { ServiceError } from '../../shared/errors';
import { type Engine, transact } from '../engine';
import { emailKey } from './contact';
import { confirmMembership, findUserByEmail, linkUserToVendor, loadVendor, type UserRow, type UserVendorRow } from './customer-store';
import { passwordMatches } from './passwords';
import { createSession } from './sessions';

/** After this many wrong passwords in a row the account is locked for LOCKOUT_MINUTES. */
export const MAX_FAILED_LOGINS = 5;
export const LOCKOUT_MINUTES = 15;

export interface LoginResult {
  user: UserRow;
  link: UserVendorRow;
  firstLogin: boolean;
  sessionKey: string;
  onlineOrderToken: string;
}

/**
 * Logs a customer in to a vendor. The first login with a vendor links the account there
 * (`first_login`). Wrong passwords count; the 5th in a row locks the account for 15 minutes. A
 * deactivated account comes back to life by logging in.
 */
export async function authenticateCustomer(engine: Engine, input: { email: string; password: string; vendorId: number }): Promise<LoginResult> {
  const user = await findUserByEmail(engine.db, emailKey(input.email));
  await loadVendor(engine.db, input.vendorId);
  const now = engine.clock.now();
  if (user?.locked_until && user.locked_until > now) throw lockedError(user.locked_until, now);
  const matches = await passwordMatches(user && user.status !== 'deleted' ? user.password_hash : null, input.password);
  const ok = matches && user !== undefined;

  if (!ok || !user) {
    if (user && user.status !== 'deleted') await recordFailedLogin(engine, user);
    throw new ServiceError('invalid_credentials');
  }

  return transact(engine, async (trx) => {
    // A login is not a change of the profile: updated_at moves only when a sleeping account wakes.
    const wakes = user.status !== 'active' ? { status: 'active', updated_at: now } : {};
    await trx.updateTable('users').set({ failed_logins: 0, locked_until: null, ...wakes }).where('id', '=', user.id).execute();
    const link = await confirmMembership(trx, await linkUserToVendor(trx, engine, { userId: user.id, vendorId: input.vendorId, via: 'app' }));
    const firstLogin = link.first_login_at === null;
    if (firstLogin) await trx.updateTable('user_vendors').set({ first_login_at: now }).where('id', '=', link.id).execute();
    const session = await createSession(trx, engine, { userId: user.id, vendorId: input.vendorId });
    return {
      user: { ...user, failed_logins: 0, locked_until: null, status: 'active', updated_at: user.status !== 'active' ? now : user.updated_at },
      link: { ...link, first_login_at: link.first_login_at ?? now },
      firstLogin,
      sessionKey: session.sessionKey,
      onlineOrderToken: session.onlineOrderToken,
    };
  });
}

/**
 * Counted in its own transaction (the failed login itself must not roll it back) and in SQL, so
 * wrong passwords sent at the same time all count.
 */
async function recordFailedLogin(engine: Engine, user: UserRow): Promise<void> {
  const now = engine.clock.now();
  const lockedUntil = await transact(engine, async (trx) => {
    const row = await trx
      .updateTable('users')
      .set((eb) => ({ failed_logins: eb('failed_logins', '+', 1) }))
      .where('id', '=', user.id)
      .returning('failed_logins')
      .executeTakeFirstOrThrow();
    if (row.failed_logins < MAX_FAILED_LOGINS) return null;
    const until = now + LOCKOUT_MINUTES * 60_000;
    await trx.updateTable('users').set({ failed_logins: 0, locked_until: until }).where('id', '=', user.id).execute();
    return until;
  });
  if (lockedUntil !== null) throw lockedError(lockedUntil, now);
}

function lockedError(until: number, now: number): ServiceError {
  const minutes = Math.max(1, Math.ceil((until - now) / 60_000));
  const error = new ServiceError('account_locked', `Too many failed attempts. Your account is locked for ${minutes} more minute${minutes === 1 ? '' : 's'}; try again later or reset your password.`);
  error.retryAfterSeconds = Math.max(1, Math.ceil((until - now) / 1000));
  return error;
}
