import type { Kysely } from 'kysely';
import type { Engine } from '../../engine';
import type { DB } from '../../storage/schema';
import type { MovedRowId, PushedEvent } from '../protocol';

// The rows a store moved to new ids when it followed central after a restore, as its events said
// (migration 0037). A folder restored again from an older backup sends such an event with the rows'
// first ids; central answers it as a repeat (sync-event-ids.ts) and tells it where those rows are
// (docs/sync.md, "Restored twice from one backup").

/** Keeps the moved ids of the events that carry any: only events sent after their store followed central. */
export async function rememberMovedRows(trx: Kysely<DB>, engine: Engine, nodeId: number, events: readonly PushedEvent[]): Promise<void> {
  const rows = events
    .filter((event) => (event.moved_ids?.length ?? 0) > 0)
    .map((event) => ({ node_id: nodeId, event_id: event.event_id, moved_ids: JSON.stringify(event.moved_ids), recorded_at: engine.clock.now() }));
  if (rows.length === 0) return;
  await trx
    .insertInto('sync_moved_rows')
    .values(rows)
    .onConflict((conflict) => conflict.columns(['node_id', 'event_id']).doUpdateSet((eb) => ({ moved_ids: eb.ref('excluded.moved_ids'), recorded_at: eb.ref('excluded.recorded_at') })))
    .execute();
}

/** The moved ids central keeps for these events of a node, by event id. */
export async function movedRowsOf(trx: Kysely<DB>, nodeId: number, eventIds: readonly string[]): Promise<Map<string, MovedRowId[]>> {
  if (eventIds.length === 0) return new Map();
  const rows = await trx.selectFrom('sync_moved_rows').select(['event_id', 'moved_ids']).where('node_id', '=', nodeId).where('event_id', 'in', eventIds).execute();
  return new Map(rows.map((row) => [row.event_id, JSON.parse(row.moved_ids) as MovedRowId[]]));
}

/** Forgets a node's moved rows recorded before `before` (with its event ids: sync-event-ids.ts). */
export async function forgetMovedRowsBefore(db: Kysely<DB>, nodeId: number, before: number): Promise<void> {
  await db.deleteFrom('sync_moved_rows').where('node_id', '=', nodeId).where('recorded_at', '<', before).execute();
}
