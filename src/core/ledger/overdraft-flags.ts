import type { ExpressionBuilder, Kysely } from 'kysely';
import { customerSubject, overdraftSubject, overdraftSubjectsOf } from '../../shared/exception-subject';
import type { Engine } from '../engine';
import type { DB } from '../storage/schema';
import { forgetAcceptedOverdraft } from './overdraft-resolved';

/**
 * A customer flagged because spends at nodes that had not heard of each other left a negative balance (sync/central/settle-accounts)
 * has an open exception per currency that went below zero. A credit that brings a currency's balance
 * back to zero or more, wherever it came from (a store's sale, a reload or adjustment made at
 * central), resolves that currency's exception. The flag is the membership's: it lifts only when every
 * balance of theirs in the program is back to zero or more (points earned used to clear a quick-pay
 * debt), and with it any exception still open — one written before the fourteenth round names no
 * currency ("user 123") and is settled only then, as it was.
 */
export async function clearSettledOverdraft(db: Kysely<DB>, engine: Engine, member: { vendorId: number; userId: number; currencyId: number }): Promise<void> {
  const flagged = await db
    .selectFrom('user_vendors')
    .select('id')
    .where('user_id', '=', member.userId)
    .where('vendor_id', '=', member.vendorId)
    .where('flagged_reason', '=', 'offline_overdraft')
    .executeTakeFirst();
  // Every overdraft exception opens with the flag and closes no later than it: nothing to settle.
  if (!flagged) return;
  const now = engine.clock.now();
  await openOverdrafts(db, member.vendorId)
    .set({ resolved_at: now })
    .where('subject', '=', overdraftSubject(member.userId, member.currencyId))
    .where(({ exists, not, selectFrom }) => not(exists(negativeAccounts(selectFrom, member).where('currency_id', '=', member.currencyId))))
    .execute();
  // Settled: a debt staff had resolved by hand is paid; the next overdraft of this currency is news.
  await forgetAcceptedOverdraft(db, member.vendorId, member.userId, member.currencyId);
  const cleared = await db
    .updateTable('user_vendors')
    .set({ flagged: 0, flagged_reason: null, updated_at: now })
    .where('id', '=', flagged.id)
    .where('flagged_reason', '=', 'offline_overdraft')
    .where(({ exists, not, selectFrom }) => not(exists(negativeAccounts(selectFrom, member))))
    .executeTakeFirst();
  if (Number(cleared.numUpdatedRows) === 0) return;
  await openOverdrafts(db, member.vendorId)
    .set({ resolved_at: now })
    .where((eb) => eb.or([eb('subject', '=', customerSubject(member.userId)), eb('subject', 'like', overdraftSubjectsOf(member.userId))]))
    .execute();
}

function openOverdrafts(db: Kysely<DB>, vendorId: number) {
  return db.updateTable('sync_exceptions').where('vendor_id', '=', vendorId).where('kind', '=', 'offline_overdraft').where('resolved_at', 'is', null);
}

function negativeAccounts(selectFrom: ExpressionBuilder<DB, 'user_vendors' | 'sync_exceptions'>['selectFrom'], member: { vendorId: number; userId: number }) {
  return selectFrom('ledger_accounts')
    .select('id')
    .where('holder_type', '=', 'user')
    .where('holder_id', '=', member.userId)
    .where('vendor_id', '=', member.vendorId)
    .where('balance', '<', 0);
}
