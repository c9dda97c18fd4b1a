import type { Kysely } from 'kysely';
import { ServiceError } from '../../shared/errors';
import { STAFF_ROLES, type StaffRole } from '../../shared/staff-roles';
import { recordAudit } from '../audit/record-audit';
import { cleanEmail } from '../customers/contact';
import { loadVendor } from '../customers/customer-store';
import { type Engine, transact } from '../engine';
import { queueMessage } from '../messaging/queue-message';
import { nextObjectId } from '../storage/ids';
import type { DB } from '../storage/schema';
import { staffAudit } from './add-owner';
import { actorOf } from './authorize';
import { checkRoleStore, findStaffByEmail, insertStaffAccount, type StaffMember, type StaffRow, staffTurn, toStaffMember } from './staff-accounts';
import type { StaffPrincipal } from './staff-sessions';
import { issueStaffToken, type PendingInvitation, STAFF_TOKEN_HOURS, voidStaffTokens } from './staff-tokens';

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

export interface InvitedStaff extends StaffMember {
  /** The email already had an invitation waiting in this program: it was sent again. */
  resent: boolean;
  /** The invitation just sent: when its link expires. */
  invitation: PendingInvitation;
}

/**
 * An owner invites a staff member: the account waits as `invited` until the emailed link is used.
 * Inviting an email whose invitation to this program is still waiting (expired or not) sends it
 * again: the account takes the new name, role and store, a new token with a new 72 hours, and
 * every older link is dead. An email with any other account (active, disabled, another program's)
 * is 409 `staff_email_taken`.
 */
export async function inviteStaff(engine: Engine, inviter: StaffPrincipal, input: Invitation): Promise<InvitedStaff> {
  const email = cleanEmail(input.email, 'email');
  const name = input.name.trim();
  // In the words the request schema uses for its own limit (validation-message.ts).
  if (name.length === 0) throw new ServiceError('validation_failed', 'name must not be empty.', 'name');
  if (name.length > 100) throw new ServiceError('validation_failed', 'name must be at most 100 characters.', 'name');
  const role = checkRole(input.role);
  return transact(engine, async (trx) => {
    // After the program's staff changes (a disable voids the link sent again, or went first).
    await staffTurn(trx, engine, inviter.vendorId);
    const vendor = await loadVendor(trx, inviter.vendorId);
    const storeId = await checkRoleStore(trx, vendor.id, role, input.storeId);
    const existing = await findStaffByEmail(trx, email);
    const now = engine.clock.now();
    let row: StaffRow;
    if (existing) {
      if (existing.vendor_id !== vendor.id || existing.status !== 'invited') throw new ServiceError('staff_email_taken', undefined, 'email');
      // The older links first, then the account: the order every use of a link takes (token, then
      // account), so a re-send and an accept of the old link never wait on each other in a cycle.
      await voidStaffTokens(trx, engine, existing.id, 'invitation');
      // Conditional: an invitation accepted meanwhile has nothing left to re-send (and the void above
      // is rolled back with the refusal).
      const updated = await trx
        .updateTable('staff_accounts')
        .set({ name, role, store_id: storeId, updated_at: now })
        .where('id', '=', existing.id)
        .where('status', '=', 'invited')
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) !== 1) throw new ServiceError('staff_email_taken', undefined, 'email');
      row = { ...existing, name, role, store_id: storeId, updated_at: now };
    } else {
      row = {
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
    }
    // A new token voids the older invitation tokens of the account.
    const { token, expiresAt } = await issueStaffToken(trx, engine, row, 'invitation');
    await queueMessage(trx, engine, {
      vendorId: vendor.id,
      channel: 'email',
      to: row.email,
      template: 'staff_invitation',
      locale: vendor.language,
      // The role and, for a store manager, the store: the person invited knows what they are asked to run.
      params: { name, vendor_name: vendor.name, role, store_name: await storeNameOf(trx, storeId), inviter: inviter.email, link: `${input.linkBase}#/accept?token=${token}`, code: token, expires_hours: String(STAFF_TOKEN_HOURS.invitation) },
    });
    const staff = toStaffMember(row);
    await recordAudit(trx, engine, actorOf(inviter), {
      action: existing ? 'staff.reinvite' : 'staff.invite',
      objectType: 'staff',
      objectId: row.id,
      before: existing ? staffAudit(toStaffMember(existing)) : null,
      after: staffAudit(staff),
    });
    return { ...staff, resent: existing !== undefined, invitation: { expiresAt, expired: false } };
  });
}

/** A store's name for the invitation; '' when the role has no store. */
async function storeNameOf(db: Kysely<DB>, storeId: number | null): Promise<string> {
  if (storeId === null) return '';
  return (await db.selectFrom('stores').select('name').where('id', '=', storeId).executeTakeFirstOrThrow()).name;
}
