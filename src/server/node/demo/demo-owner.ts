import { type Engine, transact } from '../../../core/engine';
import { addOwner } from '../../../core/staff/add-owner';
import { findStaffByEmail } from '../../../core/staff/staff-accounts';
import { issueStaffToken } from '../../../core/staff/staff-tokens';

/** The demo program's back-office owner (no password: each start prints a one-time sign-in link). */
export const DEMO_OWNER_EMAIL = 'owner@example.com';

/**
 * A one-time sign-in link token for the demo's owner, made at the first start that needs one: the
 * demo shows the back office as readily as the screens. Each start's link voids the previous one,
 * as its screen keys replace the last start's; the owner may set a password in the back office.
 */
export async function demoOwnerSignIn(engine: Engine, vendorId: number): Promise<string> {
  const owner = await findStaffByEmail(engine.db, DEMO_OWNER_EMAIL);
  if (!owner) {
    const made = await addOwner(engine, { vendorId, email: DEMO_OWNER_EMAIL, name: 'Demo owner' });
    return made.signInToken!;
  }
  return transact(engine, async (trx) => (await issueStaffToken(trx, engine, owner, 'sign_in_link')).token);
}
