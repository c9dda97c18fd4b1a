import { ServiceError } from '../../shared/errors';
import { STAFF_ROLES, type StaffRole } from '../../shared/staff-roles';
import { recordAudit } from '../audit/record-audit';
import { cleanEmail } from '../customers/contact';
import { loadVendor } from '../customers/customer-store';
import { type Engine, transact } from '../engine';
import { queueMessage } from '../messaging/queue-message';
import { nextObjectId } from '../storage/ids';
import { staffAudit } from './add-owner';
import { actorOf } from './authorize';
import { checkRoleStore, findStaffByEmail, insertStaffAccount, type StaffMember, toStaffMember } from './staff-accounts';
import type { StaffPrincipal } from './staff-sessions';
import { issueStaffToken, STAFF_TOKEN_HOURS } from './staff-tokens';

export interface Invitation {
  email: string;
  name: string;
  role: string;
  storeId?: number | null | undefined;
  /** The back office's address as the inviter reached it (e.g. http://10.0.0.5:4321/admin). */
  linkBase: string;
}

export function checkRole(role: string): StaffRole {
  if (!(STAFF_ROLES as readonly string[]).includes(role)) throw new ServiceError('validation_failed', `role must be one of ${STAFF_ROLES.join(', ')}.`, 'role');
  return role as StaffRole;
}

/** An owner invites a staff member: the account waits as `invited` until the emailed link is used. */
export async function inviteStaff(engine: Engine, inviter: StaffPrincipal, input: Invitation): Promise<StaffMember> {
  const email = cleanEmail(input.email, 'email');
  const name = input.name.trim();
  if (name.length === 0 || name.length > 100) throw new ServiceError('validation_failed', 'name must be 1 to 100 characters.', 'name');
  const role = checkRole(input.role);
  return transact(engine, async (trx) => {
    const vendor = await loadVendor(trx, inviter.vendorId);
    const storeId = await checkRoleStore(trx, vendor.id, role, input.storeId);
    if (await findStaffByEmail(trx, email)) throw new ServiceError('staff_email_taken', undefined, 'email');
    const now = engine.clock.now();
    const row = {
      id: await nextObjectId(trx, engine.nodeId),
      vendor_id: vendor.id,
      email,
      email_key: email.toLowerCase(),
      name,
      role,
      store_id: storeId,
      password_hash: null,
      status: 'invited',
      failed_logins: 0,
      locked_until: null,
      created_at: now,
      updated_at: now,
    };
    await insertStaffAccount(trx, row);
    const token = await issueStaffToken(trx, engine, row, 'invitation');
    await queueMessage(trx, engine, {
      vendorId: vendor.id,
      channel: 'email',
      to: email,
      template: 'staff_invitation',
      locale: vendor.language,
      params: { name, vendor_name: vendor.name, inviter: inviter.email, link: `${input.linkBase}#/accept?token=${token}`, code: token, expires_hours: String(STAFF_TOKEN_HOURS.invitation) },
    });
    const staff = toStaffMember(row);
    await recordAudit(trx, engine, actorOf(inviter), { action: 'staff.invite', objectType: 'staff', objectId: row.id, before: null, after: staffAudit(staff) });
    return staff;
  });
}
