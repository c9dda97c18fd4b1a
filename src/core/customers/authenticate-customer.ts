import { type Engine, transact } from '../engine';
import { clearFailedSignIns, failedSignIn, refuseWhileLockedOut, type SignInAttempt } from '../limits/failed-sign-ins';
import { recordCustomerEvent } from '../webhooks/events';
import { emailKey } from './contact';
import { confirmMembership, findUserByTypedEmail, linkUserToVendor, loadVendor, type UserRow, type UserVendorRow } from './customer-store';
import { passwordMatches } from './passwords';
import { programsOfPerson } from './programs-of-person';
import { createSession } from './sessions';

export interface LoginResult {
  user: UserRow;
  link: UserVendorRow;
  firstLogin: boolean;
  sessionKey: string;
  onlineOrderToken: string;
}

/**
 * Logs a customer in to a vendor. The first login with a vendor links the account there
 * (`first_login`). Wrong passwords count per email and client: the 5th in a row locks that client
 * out for 15 minutes (failed-sign-ins.ts). A deactivated account comes back to life by logging in.
 * `client`: who is asking, as rate limits count them (an address, an IPv6 /64).
 */
export async function authenticateCustomer(engine: Engine, input: { email: string; password: string; vendorId: number; client: string }): Promise<LoginResult> {
  const user = await findUserByTypedEmail(engine.db, input.email);
  await loadVendor(engine.db, input.vendorId);
  const now = engine.clock.now();
  const usable = user && user.status !== 'deleted' ? user : undefined;
  const attempt: SignInAttempt = { kind: 'customer', email: emailKey(input.email), client: input.client, passwordGeneration: usable?.password_hash?.slice(-16) ?? '' };
  await refuseWhileLockedOut(engine, attempt);
  if (!usable || !(await passwordMatches(usable.password_hash, input.password))) {
    // Unknown emails spend the time of a real check, and count as known ones do.
    if (!usable) await passwordMatches(null, input.password);
    return failedSignIn(engine, attempt);
  }
  await clearFailedSignIns(engine, attempt);
  const account = usable;
  return transact(engine, async (trx) => {
    // A login is not a change of the profile: updated_at moves only when a sleeping account wakes.
    const wakes = account.status !== 'active';
    if (wakes) await trx.updateTable('users').set({ status: 'active', updated_at: now }).where('id', '=', account.id).execute();
    const link = await confirmMembership(trx, await linkUserToVendor(trx, engine, { userId: account.id, vendorId: input.vendorId, via: 'app' }));
    const firstLogin = link.first_login_at === null;
    if (firstLogin) await trx.updateTable('user_vendors').set({ first_login_at: now }).where('id', '=', link.id).execute();
    // Waking is the undoing of a deactivation, which every program heard of: they hear of this too.
    if (wakes) {
      for (const vendorId of await programsOfPerson(trx, account.id, input.vendorId)) {
        await recordCustomerEvent(trx, engine, 'customer.updated', { vendorId, userId: account.id });
      }
    }
    const session = await createSession(trx, engine, { userId: account.id, vendorId: input.vendorId });
    return {
      user: { ...account, status: 'active', updated_at: wakes ? now : account.updated_at },
      link: { ...link, first_login_at: link.first_login_at ?? now },
      firstLogin,
      sessionKey: session.sessionKey,
      onlineOrderToken: session.onlineOrderToken,
    };
  });
}
