import { type Kysely, sql } from 'kysely';
import type { Engine } from '../../engine';
import { insertReplicatedEntry } from '../replicated-entry';
import { setMeta } from '../../storage/node-meta';
import type { DB } from '../../storage/schema';
import type { PulledChange } from '../protocol';
import { replicatedTable, STORE_CLEARED_COLUMNS } from '../replicated-tables';
import { pickColumns, tableColumns } from '../table-columns';
import { withCaptureQuiet } from '../capture/capture-quiet';
import { highestOwnId, moveObjectCounterPast } from './object-counter';

/**
 * Applies a page pulled from central in the caller's transaction, with this node's capture
 * triggers quiet (central's rows are not this node's news). A row this node changed and has not
 * yet pushed is skipped: central sends it again after applying the push. Central's version wins
 * a unique key: the local row holding it steps aside (its own central version follows).
 */
export async function applyPulledChanges(trx: Kysely<DB>, engine: Engine, vendorId: number, changes: PulledChange[], cursor: number): Promise<void> {
  await withCaptureQuiet(trx, async () => {
    if (engine.dialect === 'sqlite') await sql`pragma defer_foreign_keys = on`.execute(trx);
    const pending = await pendingRows(trx);
    for (const change of changes) {
      if (!replicatedTable(change.tbl)?.pull) continue;
      const id = Number(change.data['id']);
      if (pending.has(`${change.tbl}:${id}`)) continue;
      if (change.op === 'delete') {
        if (change.tbl !== 'ledger_entries') await trx.deleteFrom(change.tbl as 'users').where('id', '=', id).execute();
        continue;
      }
      if (change.tbl === 'ledger_entries') await insertEntryIfAbsent(trx, engine, change.data);
      else await upsertRow(trx, engine, vendorId, change.tbl, change.data);
    }
  });
  // This node's own rows come back too; one above its counter means it was restored from a backup.
  const ownHighest = highestOwnId(engine, changes.map((c) => c.data['id']));
  if (ownHighest !== null) await moveObjectCounterPast(trx, engine, ownHighest);
  await setMeta(trx, 'sync_cursor', String(cursor));
}

export async function pendingRows(trx: Kysely<DB>): Promise<Set<string>> {
  const rows = await trx.selectFrom('sync_changes').select(['tbl', 'row_id']).distinct().execute();
  return new Set(rows.map((r) => `${r.tbl}:${Number(r.row_id)}`));
}

export async function insertEntryIfAbsent(trx: Kysely<DB>, engine: Engine, data: Record<string, unknown>): Promise<void> {
  const exists = await trx.selectFrom('ledger_entries').select('id').where('id', '=', Number(data['id'])).executeTakeFirst();
  if (!exists) await insertReplicatedEntry(trx, engine, Number(data['vendor_id']), data);
}

export async function upsertRow(trx: Kysely<DB>, engine: Engine, vendorId: number, table: string, data: Record<string, unknown>): Promise<void> {
  const row = pickColumns(data, await tableColumns(trx, engine.dialect, table));
  for (const column of STORE_CLEARED_COLUMNS[table] ?? []) row[column] = null;
  // Whatever central's row says (a log version written before the column was masked, a central of
  // an earlier version): the store's copy holds the fixed value, and loses an older one it held.
  Object.assign(row, replicatedTable(table)?.masked);
  // A customer who first joined another vendor points at a vendor this store never sees.
  if (table === 'users' && row['first_vendor_id'] !== vendorId) {
    const known = await trx.selectFrom('vendors').select('id').where('id', '=', row['first_vendor_id'] as number).executeTakeFirst();
    if (!known) row['first_vendor_id'] = vendorId;
  }
  await displaceLocalHolder(trx, engine, table, row);
  const { id: _id, ...rest } = row;
  const cleared = Object.fromEntries((replicatedTable(table)?.clearedWhenTouched ?? []).map((c) => [c, sql`case when ${sql.ref('excluded.updated_at')} <= ${sql.ref(`${table}.${c}`)} then ${sql.ref(`${table}.${c}`)} end`]));
  await trx
    .insertInto(table as 'users')
    .values({ ...replicatedTable(table)?.insertDefaults, ...row } as never)
    .onConflict((oc) => oc.column('id').doUpdateSet({ ...rest, ...cleared } as never))
    .execute();
}

/** Frees a unique key central's row needs from a different local row. */
async function displaceLocalHolder(trx: Kysely<DB>, engine: Engine, table: string, row: Record<string, unknown>): Promise<void> {
  const id = row['id'] as number;
  const now = engine.clock.now();
  if (table === 'users' && row['email_key']) {
    await trx.updateTable('users').set({ email_key: null }).where('email_key', '=', row['email_key'] as string).where('id', '!=', id).execute();
  } else if (table === 'user_vendors' && row['removed_at'] == null) {
    await trx
      .updateTable('user_vendors')
      .set({ removed_at: now })
      .where('user_id', '=', row['user_id'] as number)
      .where('vendor_id', '=', row['vendor_id'] as number)
      .where('removed_at', 'is', null)
      .where('id', '!=', id)
      .execute();
  } else if (table === 'user_cards' && row['removed_at'] == null) {
    await trx
      .updateTable('user_cards')
      .set({ removed_at: now, status: 'removed' })
      .where('card_id', '=', row['card_id'] as number)
      .where('removed_at', 'is', null)
      .where('id', '!=', id)
      .execute();
  } else if (table === 'pos_sessions' && row['status'] === 'active') {
    await trx
      .updateTable('pos_sessions')
      .set({ status: 'closed', closed_at: now, closed_reason: 'moved', updated_at: now })
      .where('user_id', '=', row['user_id'] as number)
      .where('status', '=', 'active')
      .where('id', '!=', id)
      .execute();
  } else if (table === 'orders') {
    await trx
      .updateTable('orders')
      .set({ receipt_number: sql<string>`receipt_number || '~local'` })
      .where('store_id', '=', row['store_id'] as number)
      .where('receipt_number', '=', row['receipt_number'] as string)
      .where('id', '!=', id)
      .execute();
  } else if (table === 'cards' && row['deleted_at'] == null) {
    await trx
      .updateTable('cards')
      .set({ deleted_at: now })
      .where('vendor_id', '=', row['vendor_id'] as number)
      .where('number_key', '=', row['number_key'] as string)
      .where('deleted_at', 'is', null)
      .where('id', '!=', id)
      .execute();
  }
}
