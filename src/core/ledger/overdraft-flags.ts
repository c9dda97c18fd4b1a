import type { Kysely } from 'kysely';
import type { Engine } from '../engine';
import type { DB } from '../storage/schema';

/**
 * A customer flagged because spends at nodes that had not heard of each other left a negative balance (sync/central/settle-accounts)
 * is unflagged once credits bring every balance of theirs in the program back to zero or more,
 * wherever the credits came from: a store's sale, a reload or adjustment made at central. Its open
 * exception is resolved too. The flag is the membership's, so a credit in one currency settles
 * nothing while another is still below zero (points earned used to clear a quick-pay debt).
 */
export async function clearSettledOverdraft(db: Kysely<DB>, engine: Engine, member: { vendorId: number; userId: number }): Promise<void> {
  const now = engine.clock.now();
  const cleared = await db
    .updateTable('user_vendors')
    .set({ flagged: 0, flagged_reason: null, updated_at: now })
    .where('user_id', '=', member.userId)
    .where('vendor_id', '=', member.vendorId)
    .where('flagged_reason', '=', 'offline_overdraft')
    .where(({ exists, not, selectFrom }) =>
      not(
        exists(
          selectFrom('ledger_accounts')
            .select('id')
            .where('holder_type', '=', 'user')
            .where('holder_id', '=', member.userId)
            .where('vendor_id', '=', member.vendorId)
            .where('balance', '<', 0),
        ),
      ),
    )
    .executeTakeFirst();
  if (Number(cleared.numUpdatedRows) === 0) return;
  await db
    .updateTable('sync_exceptions')
    .set({ resolved_at: now })
    .where('vendor_id', '=', member.vendorId)
    .where('kind', '=', 'offline_overdraft')
    .where('subject', '=', `user ${member.userId}`)
    .where('resolved_at', 'is', null)
    .execute();
}
