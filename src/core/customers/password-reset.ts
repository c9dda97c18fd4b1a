import { type Engine, transact } from '../engine';
import { queueMessage } from '../messaging/queue-message';
import { recordCustomerEvent } from '../webhooks/events';
import { findUserByTypedEmail, findUserVendor, loadVendor, messageLocale } from './customer-store';
import { CODE_POLICY, consumeCode, issueCode } from './one-time-codes';
import { hashPassword } from './passwords';
import { endAllSessions } from './sessions';

/**
 * Emails a reset token when the address has an account. The reply is the same either way, so the
 * call cannot be used to find out who has an account.
 */
export function requestPasswordReset(engine: Engine, input: { email: string; vendorId: number }): Promise<void> {
  return transact(engine, async (trx) => {
    const vendor = await loadVendor(trx, input.vendorId);
    const user = await findUserByTypedEmail(trx, input.email);
    if (!user?.email || user.status === 'deleted') return;
    const token = await issueCode(trx, engine, { userId: user.id, vendorId: vendor.id, purpose: 'password_reset' });
    await queueMessage(trx, engine, {
      vendorId: vendor.id,
      channel: 'email',
      to: user.email,
      userId: user.id,
      template: 'password_reset',
      locale: await messageLocale(trx, user.id, vendor),
      params: { first_name: user.first_name, token, vendor_name: vendor.name, expires_minutes: String(CODE_POLICY.password_reset.ttlMinutes) },
    });
  });
}

/**
 * Sets the new password with an emailed token (once), ends every session and lifts a lockout. This
 * is also how a guest opened at a counter (no password yet) is claimed for the app: the token went
 * to the guest's email, so whoever uses it owns that mailbox (a sign-up with the email is a 409).
 * The program the reset was asked at hears `customer.updated` then, if the guest is its member.
 * Using the token proves the mailbox, so the email counts as verified from then on (a token dies
 * when the email changes: withdrawEmailedCodes). The same goes for an account someone else opened
 * with this email: its owner takes it back, password and all, by a reset.
 */
export async function applyPasswordReset(engine: Engine, input: { token: string; password: string }): Promise<void> {
  // Checked before the token is used up: a too-short password must not burn it.
  const passwordHash = await hashPassword(input.password);
  await transact(engine, async (trx) => {
    const { userId, vendorId } = await consumeCode(trx, engine, 'password_reset', input.token, 'token');
    const before = await trx.selectFrom('users').select(['password_hash', 'email_verified_at']).where('id', '=', userId).executeTakeFirst();
    const now = engine.clock.now();
    await trx
      .updateTable('users')
      .set({ password_hash: passwordHash, failed_logins: 0, locked_until: null, email_verified_at: before?.email_verified_at ?? now, updated_at: now })
      .where('id', '=', userId)
      .execute();
    await endAllSessions(trx, engine, userId);
    if (before && before.password_hash === null && (await findUserVendor(trx, userId, vendorId))) {
      await recordCustomerEvent(trx, engine, 'customer.updated', { vendorId, userId });
    }
  });
}
