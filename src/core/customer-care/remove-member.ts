import type { Kysely } from 'kysely';
import { ServiceError } from '../../shared/errors';
import type { DB } from '../storage/schema';
import { recordAudit } from '../audit/record-audit';
import { holderAccounts } from '../balances/balance-store';
import { afterLeaving, leaveProgram } from '../customers/account-deletion';
import { survivingCustomerId } from '../customers/customer-store';
import { type Engine, ownsProgramData, transact } from '../engine';
import { actorOf } from '../staff/authorize';
import type { StaffPrincipal } from '../staff/staff-sessions';
import { checkCustomerAccess } from './customer-access';

export interface RemovalRequest {
  /** Why, for the audit log: who asked, and how (the person is gone from everything else). */
  reason: string;
  /** The person gives up what they still hold here; without it a balance refuses the removal. */
  forfeitBalances: boolean;
}

/**
 * Staff remove a member at their request (by phone, letter or at the counter: someone with no app,
 * or who cannot use it), as the customer's own confirmed deletion does (leaveProgram): the
 * membership and what the program keeps of the person go, and when no other program holds the
 * account the person is erased. A balance left (quick-pay money, points) must be forfeited in so
 * many words. Audited with the reason and what was forfeited; never undone.
 */
export async function removeMemberOnRequest(engine: Engine, staff: StaffPrincipal, requestedId: number, request: RemovalRequest): Promise<{ erased: boolean }> {
  // Memberships travel central → store; a store's removal would come back with the next pull.
  if (!ownsProgramData(engine)) throw new ServiceError('removal_managed_by_central');
  const reason = request.reason.trim();
  if (reason.length < 3 || reason.length > 500) throw new ServiceError('validation_failed', 'reason must be 3 to 500 characters.', 'reason');
  const departure = await transact(engine, async (trx) => {
    const userId = await survivingCustomerId(trx, requestedId);
    await checkCustomerAccess(trx, staff.vendorId, null, userId);
    const held = [...(await holderAccounts(trx, staff.vendorId, 'user', userId)).values()].filter((account) => account.balance !== 0);
    if (held.length > 0 && !request.forfeitBalances) throw new ServiceError('balance_remaining', undefined, 'forfeit_balances');
    const forfeited = await namedBalances(trx, held);
    const left = await leaveProgram(trx, engine, userId, staff.vendorId);
    await recordAudit(trx, engine, actorOf(staff), {
      action: 'customer.remove',
      objectType: 'customer',
      objectId: userId,
      before: { member: true, balances: forfeited },
      after: { member: false, erased: left.erased, reason },
    });
    return left;
  });
  afterLeaving(engine, departure);
  return { erased: departure.erased };
}

/** Balances as the audit log keeps them: the currency's public id and the amount in minor units. */
async function namedBalances(db: Kysely<DB>, held: Array<{ currencyId: number; balance: number }>): Promise<Array<{ currency: string; amount: number }>> {
  if (held.length === 0) return [];
  const currencies = await db.selectFrom('currencies').select(['id', 'public_id']).where('id', 'in', held.map((account) => account.currencyId)).execute();
  const publicId = new Map(currencies.map((currency) => [currency.id, currency.public_id]));
  return held.map((account) => ({ currency: publicId.get(account.currencyId) ?? String(account.currencyId), amount: account.balance }));
}
