import { ServiceError } from '../../shared/errors';
import { actorWithoutStaff, recordAudit } from '../audit/record-audit';
import { cleanEmail } from '../customers/contact';
import { loadVendor } from '../customers/customer-store';
import { hashPassword } from '../customers/passwords';
import { type Engine, transact } from '../engine';
import { nextObjectId } from '../storage/ids';
import { findStaffByEmail, insertStaffAccount, type StaffMember, toStaffMember } from './staff-accounts';
import { issueStaffToken } from './staff-tokens';

export interface NewOwner {
  vendorId: number;
  email: string;
  name?: string;
  /** Set now; without it the owner signs in once with the returned link token and sets one later. */
  password?: string | undefined;
}

/**
 * An owner made on the node's own machine (`punchcard init`, `punchcard staff owner`): active at
 * once, with a password or a one-time sign-in link token (24 h). Audited as "cli".
 */
export async function addOwner(engine: Engine, input: NewOwner): Promise<{ staff: StaffMember; signInToken: string | null }> {
  const email = cleanEmail(input.email, 'email');
  const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
  return transact(engine, async (trx) => {
    await loadVendor(trx, input.vendorId);
    if (await findStaffByEmail(trx, email)) throw new ServiceError('staff_email_taken', undefined, 'email');
    const now = engine.clock.now();
    const row = {
      id: await nextObjectId(trx, engine.nodeId),
      vendor_id: input.vendorId,
      email,
      email_key: email.toLowerCase(),
      name: input.name?.trim() || email.split('@')[0]!,
      role: 'owner',
      store_id: null,
      password_hash: passwordHash,
      status: 'active',
      failed_logins: 0,
      locked_until: null,
      created_at: now,
      updated_at: now,
    };
    await insertStaffAccount(trx, row);
    const staff = toStaffMember(row);
    await recordAudit(trx, engine, actorWithoutStaff(input.vendorId, 'cli'), { action: 'staff.create', objectType: 'staff', objectId: row.id, before: null, after: staffAudit(staff) });
    const signInToken = passwordHash === null ? (await issueStaffToken(trx, engine, row, 'sign_in_link')).token : null;
    return { staff, signInToken };
  });
}

/** What the audit log keeps of a staff account (never its password). */
export function staffAudit(staff: StaffMember) {
  return { email: staff.email, name: staff.name, role: staff.role, store_id: staff.storeId, status: staff.status };
}
