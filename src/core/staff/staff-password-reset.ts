import { loadVendor } from '../customers/customer-store';
import { hashPassword } from '../customers/passwords';
import { type Engine, transact } from '../engine';
import { queueMessage } from '../messaging/queue-message';
import { findStaffByEmail, staffTurn } from './staff-accounts';
import { endAllStaffSessions } from './staff-sessions';
import { consumeStaffToken, issueStaffToken, STAFF_TOKEN_HOURS } from './staff-tokens';

/**
 * Emails a reset link when the address belongs to an active staff account. The reply is the same
 * either way, so the call does not tell who is staff.
 */
export function requestStaffPasswordReset(engine: Engine, input: { email: string; linkBase: string }): Promise<void> {
  return transact(engine, async (trx) => {
    const found = await findStaffByEmail(trx, input.email);
    if (!found || found.status !== 'active') return;
    // After the program's staff changes: a disable meanwhile voids this link, or went first (read again).
    await staffTurn(trx, engine, found.vendor_id);
    const staff = await findStaffByEmail(trx, input.email);
    if (!staff || staff.status !== 'active') return;
    const vendor = await loadVendor(trx, staff.vendor_id);
    const { token } = await issueStaffToken(trx, engine, staff, 'password_reset');
    await queueMessage(trx, engine, {
      vendorId: vendor.id,
      channel: 'email',
      to: staff.email,
      template: 'staff_password_reset',
      locale: vendor.language,
      params: { name: staff.name, vendor_name: vendor.name, link: `${input.linkBase}#/reset?token=${token}`, code: token, expires_hours: String(STAFF_TOKEN_HOURS.password_reset) },
    });
  });
}

/** Sets the new password with the emailed token (once), lifts a lockout and ends every session. */
export async function applyStaffPasswordReset(engine: Engine, input: { token: string; password: string }): Promise<void> {
  const passwordHash = await hashPassword(input.password);
  await transact(engine, async (trx) => {
    const account = await consumeStaffToken(trx, engine, 'password_reset', input.token);
    await trx
      .updateTable('staff_accounts')
      .set({ password_hash: passwordHash, failed_logins: 0, locked_until: null, updated_at: engine.clock.now() })
      .where('id', '=', account.id)
      .execute();
    await endAllStaffSessions(trx, engine, account.id);
  });
}
