import { ServiceError } from '../../shared/errors';
import { recordAudit } from '../audit/record-audit';
import { type Engine, ownsProgramData, transact } from '../engine';
import { actorOf } from '../staff/authorize';
import type { StaffPrincipal } from '../staff/staff-sessions';
import { checkCustomerAccess } from './customer-access';

export interface BlockState {
  blocked: boolean;
  reason: string | null;
  blockedAt: number | null;
}

/**
 * Blocks a customer in the staff member's program (with a required reason) or unblocks them; a
 * blocked customer is refused at check-in, at orders and at card payments (`customer_blocked`,
 * payments: refuseBlockedPayer). Their balances and history stay as they are. Each change is audited with the state before and after.
 */
export async function setCustomerBlocked(engine: Engine, staff: StaffPrincipal, userId: number, change: { blocked: true; reason: string } | { blocked: false }): Promise<BlockState> {
  // The block travels central → store with the membership; central ignores a store's, and its next
  // pull would quietly undo it.
  if (!ownsProgramData(engine)) throw new ServiceError('blocking_managed_by_central');
  const reason = change.blocked ? change.reason.trim() : null;
  if (change.blocked && (reason === null || reason.length < 3 || reason.length > 500)) throw new ServiceError('validation_failed', 'reason must be 3 to 500 characters.', 'reason');
  return transact(engine, async (trx) => {
    const link = await checkCustomerAccess(trx, staff.vendorId, null, userId);
    const before: BlockState = { blocked: link.blocked_at !== null, reason: link.blocked_reason, blockedAt: link.blocked_at === null ? null : Number(link.blocked_at) };
    if (before.blocked === change.blocked) throw new ServiceError('invalid_status_transition', change.blocked ? 'This customer is already blocked.' : 'This customer is not blocked.');
    const now = engine.clock.now();
    const after: BlockState = change.blocked ? { blocked: true, reason, blockedAt: now } : { blocked: false, reason: null, blockedAt: null };
    await trx.updateTable('user_vendors').set({ blocked_at: after.blockedAt, blocked_reason: after.reason, updated_at: now }).where('id', '=', link.id).execute();
    await recordAudit(trx, engine, actorOf(staff), {
      action: change.blocked ? 'customer.block' : 'customer.unblock',
      objectType: 'customer',
      objectId: userId,
      before: { blocked: before.blocked, reason: before.reason },
      after: { blocked: after.blocked, reason: after.reason },
    });
    return after;
  });
}
