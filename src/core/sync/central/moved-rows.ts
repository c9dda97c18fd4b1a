import type { Kysely } from 'kysely';
import type { Engine } from '../../engine';
import { nodeOfId } from '../../storage/ids';
import type { DB } from '../../storage/schema';
import type { MovedRowId, PushedEvent } from '../protocol';

// The rows a store moved to new ids when it followed central after a restore, as its events said
// (migration 0037). A folder restored again from an older backup sends such an event with the rows'
// first ids; central answers it as a repeat (sync-event-ids.ts) and tells it where those rows are
// (docs/sync.md, "Restored twice from one backup").

/**
 * Keeps the moved ids of the events that carry any: only events sent after their store followed
 * central. Only ids of the node's own range count (a store moves only its own rows); an event id
 * given twice in a page keeps its last list.
 */
export async function rememberMovedRows(trx: Kysely<DB>, engine: Engine, nodeId: number, events: readonly PushedEvent[]): Promise<void> {
  const byEvent = new Map<string, MovedRowId[]>();
  for (const event of events) {
    const own = (event.moved_ids ?? []).filter(([, from, to]) => nodeOfId(from) === nodeId && nodeOfId(to) === nodeId);
    if (own.length > 0) byEvent.set(event.event_id, own);
  }
  const rows = [...byEvent].map(([eventId, moved]) => ({ node_id: nodeId, event_id: eventId, moved_ids: JSON.stringify(moved), recorded_at: engine.clock.now() }));
  if (rows.length === 0) return;
  await trx
    .insertInto('sync_moved_rows')
    .values(rows)
    .onConflict((conflict) => conflict.columns(['node_id', 'event_id']).doUpdateSet((eb) => ({ moved_ids: eb.ref('excluded.moved_ids'), recorded_at: eb.ref('excluded.recorded_at') })))
    .execute();
}

/** The moved ids central keeps for these events of a node, by event id. */
async function movedRowsOf(trx: Kysely<DB>, nodeId: number, eventIds: readonly string[]): Promise<Map<string, MovedRowId[]>> {
  if (eventIds.length === 0) return new Map();
  const rows = await trx.selectFrom('sync_moved_rows').select(['event_id', 'moved_ids']).where('node_id', '=', nodeId).where('event_id', 'in', eventIds).execute();
  return new Map(rows.map((row) => [row.event_id, JSON.parse(row.moved_ids) as MovedRowId[]]));
}

/**
 * What central tells a store about where the rows of its repeated events are (node_seq → moves;
 * an empty list: every row at the id it was made with). An event central took at another number
 * is always told; one it took at this number only when the store's own list differs from the one
 * central kept (two copies of one backup renumbered it alike and moved its rows differently).
 */
export async function movesToTell(trx: Kysely<DB>, nodeId: number, repeated: readonly PushedEvent[], takenElsewhere: ReadonlyMap<number, number>): Promise<Map<number, MovedRowId[]>> {
  const asked = repeated.filter((e) => takenElsewhere.has(e.node_seq) || (e.moved_ids?.length ?? 0) > 0);
  const tell = new Map<number, MovedRowId[]>();
  if (asked.length === 0) return tell;
  const kept = await movedRowsOf(trx, nodeId, asked.map((e) => e.event_id));
  const key = (moves: readonly MovedRowId[]) => moves.map((move) => move.join(':')).sort().join(',');
  for (const event of asked) {
    const moves = kept.get(event.event_id) ?? [];
    if (takenElsewhere.has(event.node_seq) || key(moves) !== key(event.moved_ids ?? [])) tell.set(event.node_seq, moves);
  }
  return tell;
}

/** Forgets a node's moved rows recorded before `before` (with its event ids: sync-event-ids.ts). */
export async function forgetMovedRowsBefore(db: Kysely<DB>, nodeId: number, before: number): Promise<void> {
  await db.deleteFrom('sync_moved_rows').where('node_id', '=', nodeId).where('recorded_at', '<', before).execute();
}
