import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { DB } from '../../storage/schema';

/**
 * Erasure reaches central's change log: every version of the given rows says what the newest one
 * (just captured) says. The log keeps each row's first version so a store receives parents before
 * the rows that point at them (compact-change-log.ts), and that version held what an erasure wipes
 * (a name, an email, a reply naming the customer). Overwritten in place, the versions keep their
 * seqs, so that order stands. On a node without capture the log has none of these rows: nothing moves.
 */
export async function overwriteOlderVersions(db: Kysely<DB>, table: 'users' | 'orders' | 'transactions', userId: number): Promise<void> {
  // The person's row, and the copies of them merged into it (a store's registration of someone central knew).
  const rowIds =
    table === 'users'
      ? db.selectFrom('users').select('id').where((eb) => eb.or([eb('id', '=', userId), eb('merged_into', '=', userId)]))
      : db.selectFrom(table).select('id').where('user_id', '=', userId);
  await overwriteOlderVersionsOf(db, table, rowIds);
}

/** The same for rows named by id (another customer's rows that named the person: a referral record). */
export async function overwriteOlderVersionsOf(
  db: Kysely<DB>,
  table: 'users' | 'orders' | 'transactions',
  rowIds: readonly number[] | SelectQueryBuilder<DB, keyof DB, { id: number }>,
): Promise<void> {
  if (Array.isArray(rowIds) && rowIds.length === 0) return;
  await db
    .updateTable('sync_changes')
    .set((eb) => ({
      data: eb
        .selectFrom('sync_changes as newest')
        .select('newest.data')
        .whereRef('newest.tbl', '=', 'sync_changes.tbl')
        .whereRef('newest.row_id', '=', 'sync_changes.row_id')
        .orderBy('newest.seq', 'desc')
        .limit(1),
    }))
    .where('tbl', '=', table)
    .where('row_id', 'in', rowIds)
    .execute();
}
