import { ServiceError } from '../../shared/errors';
import { recordAudit } from '../audit/record-audit';
import { cleanEmail, emailKey } from '../customers/contact';
import { findUserByEmail } from '../customers/customer-store';
import { mayVouchForContacts } from '../customers/other-programs';
import { type Engine, ownsProgramData, transact } from '../engine';
import { actorOf } from '../staff/authorize';
import type { StaffPrincipal } from '../staff/staff-sessions';
import { onceMoreOnClash } from '../storage/once-more-on-clash';
import { recordCustomerEvent } from '../webhooks/events';
import { checkCustomerAccess } from './customer-access';

/**
 * Gives a customer who has no email one, from the back office. A guest the counter registered by
 * phone had no way into the app: an app account is claimed with a password reset, whose token goes
 * by email. Staff vouch for the address as the counter does for a guest registered by email; the
 * customer then claims the account with a reset to it (using the token proves the mailbox). An
 * address once there is the customer's to change (their profile), so one that has any is refused.
 */
export async function addCustomerEmail(engine: Engine, staff: StaffPrincipal, userId: number, input: { email: string }): Promise<{ email: string }> {
  // The customer's row is the chain's: central's, sent to every store.
  if (!ownsProgramData(engine)) throw new ServiceError('customer_email_managed_by_central');
  const email = cleanEmail(input.email, 'email');
  const key = emailKey(email);
  // A lost race for the address (two staff, or a sign-up at once) runs again and finds its holder.
  return onceMoreOnClash(engine.dialect, () =>
    transact(engine, async (trx) => {
      await checkCustomerAccess(trx, staff.vendorId, null, userId);
      const user = await trx.selectFrom('users').select(['email', 'status']).where('id', '=', userId).executeTakeFirstOrThrow();
      if (user.status === 'deleted') throw new ServiceError('customer_not_found');
      if (user.status !== 'active') throw new ServiceError('account_inactive');
      if (user.email !== null) throw new ServiceError('invalid_status_transition', 'This customer already has an email address: they change it in the app.', 'email');
      if (!(await mayVouchForContacts(trx, userId, staff.vendorId))) {
        throw new ServiceError('forbidden', "This customer's account is another program's too: only they (in the app) or the program that registered them can add an email to it.", 'email');
      }
      const holder = await findUserByEmail(trx, key);
      if (holder) throw new ServiceError('email_taken', 'Another customer already has that email address.', 'email');
      await trx.updateTable('users').set({ email, email_key: key, email_verified_at: null, updated_at: engine.clock.now() }).where('id', '=', userId).execute();
      await recordAudit(trx, engine, actorOf(staff), { action: 'customer.email_added', objectType: 'customer', objectId: userId, before: { email: null }, after: { email } });
      await recordCustomerEvent(trx, engine, 'customer.updated', { vendorId: staff.vendorId, userId });
      return { email };
    }),
  );
}
