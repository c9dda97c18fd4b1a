import { ServiceError } from '../../shared/errors';
import { LOCKOUT_MINUTES, MAX_FAILED_LOGINS } from '../customers/authenticate-customer';
import { passwordMatches } from '../customers/passwords';
import { type Engine, transact } from '../engine';
import { findStaffByEmail, type StaffMember, type StaffRow, toStaffMember } from './staff-accounts';
import { createStaffSession } from './staff-sessions';
import { consumeStaffToken } from './staff-tokens';

export interface StaffSignIn {
  token: string;
  expiresAt: number;
  staff: StaffMember;
}

/**
 * Email + password, locked like customers: the 5th wrong password in a row locks the account for
 * 15 minutes (a reset lifts it). Unknown emails spend the time of a real check.
 */
export async function signInStaff(engine: Engine, input: { email: string; password: string }): Promise<StaffSignIn> {
  const staff = await findStaffByEmail(engine.db, input.email);
  const now = engine.clock.now();
  if (staff?.locked_until && staff.locked_until > now) throw lockedError(staff.locked_until, now);
  const matches = await passwordMatches(staff?.password_hash ?? null, input.password);
  if (!staff || !matches) {
    if (staff) await recordFailedSignIn(engine, staff);
    throw new ServiceError('invalid_credentials');
  }
  if (staff.status !== 'active') throw new ServiceError('staff_disabled');
  return transact(engine, async (trx) => {
    await trx.updateTable('staff_accounts').set({ failed_logins: 0, locked_until: null }).where('id', '=', staff.id).execute();
    const session = await createStaffSession(trx, engine, staff);
    return { ...session, staff: toStaffMember(staff) };
  });
}

/** The one-time sign-in link `punchcard init` prints for the first owner. */
export function signInWithLink(engine: Engine, token: string): Promise<StaffSignIn> {
  return transact(engine, async (trx) => {
    const staff = await consumeStaffToken(trx, engine, 'sign_in_link', token);
    const session = await createStaffSession(trx, engine, staff);
    return { ...session, staff: toStaffMember(staff) };
  });
}

async function recordFailedSignIn(engine: Engine, staff: StaffRow): Promise<void> {
  const now = engine.clock.now();
  const lockedUntil = await transact(engine, async (trx) => {
    const row = await trx
      .updateTable('staff_accounts')
      .set((eb) => ({ failed_logins: eb('failed_logins', '+', 1) }))
      .where('id', '=', staff.id)
      .returning('failed_logins')
      .executeTakeFirstOrThrow();
    if (row.failed_logins < MAX_FAILED_LOGINS) return null;
    const until = now + LOCKOUT_MINUTES * 60_000;
    await trx.updateTable('staff_accounts').set({ failed_logins: 0, locked_until: until }).where('id', '=', staff.id).execute();
    return until;
  });
  if (lockedUntil !== null) throw lockedError(lockedUntil, now);
}

function lockedError(until: number, now: number): ServiceError {
  const minutes = Math.max(1, Math.ceil((until - now) / 60_000));
  const error = new ServiceError('account_locked', `Too many failed attempts. This account is locked for ${minutes} more minute${minutes === 1 ? '' : 's'}; try again later or reset the password.`);
  error.retryAfterSeconds = Math.max(1, Math.ceil((until - now) / 1000));
  return error;
}
