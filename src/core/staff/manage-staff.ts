import type { Kysely } from 'kysely';
import { ServiceError } from '../../shared/errors';
import type { StaffRole } from '../../shared/staff-roles';
import { recordAudit } from '../audit/record-audit';
import { type Engine, transact } from '../engine';
import type { DB } from '../storage/schema';
import { staffAudit } from './add-owner';
import { actorOf } from './authorize';
import { checkRoleStore, loadStaff, type StaffMember, type StaffRow, staffTurn, toStaffMember } from './staff-accounts';
import { checkRole } from './invite-staff';
import { endAllStaffSessions, type StaffPrincipal } from './staff-sessions';
import { type PendingInvitation, pendingInvitations, voidAllStaffTokens } from './staff-tokens';

export interface StaffChange {
  name?: string | undefined;
  role?: string | undefined;
  storeId?: number | null | undefined;
  /**
   * active or disabled. An invited account becomes active only by accepting; one disabled before it
   * accepted goes back to `invited` when enabled (it has no password to sign in with).
   */
  status?: 'active' | 'disabled' | undefined;
}

export interface ListedStaff extends StaffMember {
  /** Null unless the account is `invited`. */
  invitation: PendingInvitation | null;
}

/** The program's staff, oldest first (a program has few: no paging), with each waiting invitation. */
export async function listStaff(engine: Engine, vendorId: number): Promise<ListedStaff[]> {
  const rows = await engine.db.selectFrom('staff_accounts').selectAll().where('vendor_id', '=', vendorId).orderBy('created_at').orderBy('id').execute();
  const staff = rows.map(toStaffMember);
  const invitations = await pendingInvitations(engine.db, engine, vendorId, staff);
  return staff.map((member) => ({ ...member, invitation: invitations.get(member.id) ?? null }));
}

/**
 * An owner changes a staff member's name, role, store or status. Disabling ends their sessions and
 * revokes every emailed link (invitation, sign-in link, reset); the last active owner can be neither demoted nor disabled.
 */
export async function updateStaff(engine: Engine, by: StaffPrincipal, staffId: number, change: StaffChange): Promise<StaffMember> {
  return transact(engine, async (trx) => {
    // Two owners demoting each other at once would each count the other still active: on
    // PostgreSQL one program's staff changes take turns (SQLite runs one writer at a time), and so
    // do they with a link being issued (a reset asked for, an invitation sent again: staffTurn), so a
    // disable's voiding sees every token issued before it and none is issued after it.
    await staffTurn(trx, engine, by.vendorId);
    const row = await loadStaff(trx, by.vendorId, staffId);
    const before = toStaffMember(row);
    const role: StaffRole = change.role !== undefined ? checkRole(change.role) : before.role;
    const storeId = await checkRoleStore(trx, by.vendorId, role, change.storeId !== undefined ? change.storeId : role === 'store_manager' ? row.store_id : null);
    const name = change.name !== undefined ? change.name.trim() : row.name;
    // In the words the request schema uses for its own limit (validation-message.ts).
    if (name.length === 0) throw new ServiceError('validation_failed', 'name must not be empty.', 'name');
    if (name.length > 100) throw new ServiceError('validation_failed', 'name must be at most 100 characters.', 'name');
    let status = row.status;
    if (change.status !== undefined && change.status !== row.status) {
      if (row.status === 'invited' && change.status === 'active') throw new ServiceError('invalid_status_transition', 'An invited staff member becomes active by accepting the invitation.', 'status');
      status = change.status === 'active' && (await neverAccepted(trx, row)) ? 'invited' : change.status;
    }
    const losesOwner = before.role === 'owner' && before.status === 'active' && (role !== 'owner' || status !== 'active');
    if (losesOwner) {
      const owners = await trx.selectFrom('staff_accounts').select('id').where('vendor_id', '=', by.vendorId).where('role', '=', 'owner').where('status', '=', 'active').execute();
      if (owners.length <= 1) throw new ServiceError('last_owner');
    }
    const now = engine.clock.now();
    // Disabling revokes every link the account was sent — an invitation, punchcard init's sign-in
    // link, a password reset — for good (before the account row: a racing accept waits on the token
    // row and then finds it used); enabled again, it needs a new one.
    if (status === 'disabled' && row.status !== 'disabled') await voidAllStaffTokens(trx, engine, row.id);
    await trx.updateTable('staff_accounts').set({ name, role, store_id: storeId, status, updated_at: now }).where('id', '=', row.id).execute();
    // Sessions carry no role: a changed role or store takes effect at the next call. Disabling ends them.
    if (status === 'disabled' && row.status !== 'disabled') await endAllStaffSessions(trx, engine, row.id);
    const after = toStaffMember({ ...row, name, role, store_id: storeId, status, updated_at: now });
    await recordAudit(trx, engine, actorOf(by), { action: 'staff.update', objectType: 'staff', objectId: row.id, before: staffAudit(before), after: staffAudit(after) });
    return after;
  });
}

/**
 * Invited and never chose a password (accepting sets one). An owner made by `punchcard init` with a
 * sign-in link has no password either, but no invitation: it was active from the start.
 */
async function neverAccepted(db: Kysely<DB>, row: StaffRow): Promise<boolean> {
  if (row.password_hash !== null) return false;
  const invitation = await db.selectFrom('staff_tokens').select('id').where('staff_id', '=', row.id).where('purpose', '=', 'invitation').executeTakeFirst();
  return invitation !== undefined;
}
