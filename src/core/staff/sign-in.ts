import { ServiceError } from '../../shared/errors';
import { clearFailedSignIns, failedSignIn, refuseWhileLockedOut, type SignInAttempt } from '../limits/failed-sign-ins';
import { passwordMatches } from '../customers/passwords';
import { type Engine, transact } from '../engine';
import { findStaffByEmail, type StaffMember, toStaffMember } from './staff-accounts';
import { createStaffSession } from './staff-sessions';
import { consumeStaffToken } from './staff-tokens';

export interface StaffSignIn {
  token: string;
  expiresAt: number;
  staff: StaffMember;
}

/**
 * Email + password, locked out like customers (failed-sign-ins.ts): the 5th wrong password in a row
 * from one client locks that client out of the email for 15 minutes (a reset lifts it), known email
 * or not. Unknown emails spend the time of a real check. `client`: as rate limits count them.
 */
export async function signInStaff(engine: Engine, input: { email: string; password: string; client: string }): Promise<StaffSignIn> {
  const staff = await findStaffByEmail(engine.db, input.email);
  const attempt: SignInAttempt = { kind: 'staff', email: input.email, client: input.client, passwordGeneration: staff?.password_hash?.slice(-16) ?? '' };
  await refuseWhileLockedOut(engine, attempt);
  const matches = await passwordMatches(staff?.password_hash ?? null, input.password);
  if (!staff || !matches) return failedSignIn(engine, attempt);
  await clearFailedSignIns(engine, attempt);
  if (staff.status !== 'active') throw new ServiceError('staff_disabled');
  return transact(engine, async (trx) => {
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
