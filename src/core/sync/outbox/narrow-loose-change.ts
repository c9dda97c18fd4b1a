import type { Kysely } from 'kysely';
import type { Engine } from '../../engine';
import type { DB } from '../../storage/schema';

/**
 * On a paired store, keeps of the command's captured change to a row central owns (a customer)
 * only the columns the command set on purpose, with the row's id and time. Capture copies the whole
 * row, and the store's copy may not have caught up with central's (the customer cleared their phone
 * or changed their passport at central a moment ago): central, which takes some columns of a store's
 * customer change (sync/central/update-customer-from-store.ts), would take those stale values for the
 * store's. Elsewhere (an owner, whose capture writes central's log, or no capture at all) nothing.
 */
export async function narrowLooseChange(db: Kysely<DB>, engine: Engine, table: 'users', id: number, columns: readonly string[]): Promise<void> {
  if (engine.programRole !== 'replica') return;
  const loose = await db.selectFrom('sync_changes').select(['seq', 'op', 'data']).where('tbl', '=', table).where('row_id', '=', id).where('event_seq', 'is', null).execute();
  // A row the command made travels whole: central takes an event's last version of each row.
  if (loose.some((change) => change.op === 'insert')) return;
  const kept = new Set(['id', ...columns, 'updated_at']);
  for (const change of loose) {
    const data = JSON.parse(change.data) as Record<string, unknown>;
    const narrowed = Object.fromEntries(Object.entries(data).filter(([column]) => kept.has(column)));
    await db.updateTable('sync_changes').set({ data: JSON.stringify(narrowed) }).where('seq', '=', change.seq).execute();
  }
}
