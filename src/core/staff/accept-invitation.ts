import { hashPassword } from '../customers/passwords';
import { type Engine, transact } from '../engine';
import type { StaffSignIn } from './sign-in';
import { toStaffMember } from './staff-accounts';
import { createStaffSession } from './staff-sessions';
import { consumeStaffToken } from './staff-tokens';

/** The invited person chooses a password with the emailed token (once) and is signed in. */
export async function acceptInvitation(engine: Engine, input: { token: string; password: string }): Promise<StaffSignIn> {
  // Checked before the token is used up: a too-short password must not burn it.
  const passwordHash = await hashPassword(input.password);
  return transact(engine, async (trx) => {
    const staff = await consumeStaffToken(trx, engine, 'invitation', input.token);
    const now = engine.clock.now();
    await trx.updateTable('staff_accounts').set({ password_hash: passwordHash, status: 'active', updated_at: now }).where('id', '=', staff.id).execute();
    const session = await createStaffSession(trx, engine, staff);
    return { ...session, staff: toStaffMember({ ...staff, status: 'active', updated_at: now }) };
  });
}
