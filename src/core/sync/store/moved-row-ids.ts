import type { Kysely } from 'kysely';
import type { Engine } from '../../engine';
import { nodeOfId } from '../../storage/ids';
import type { DB } from '../../storage/schema';
import type { EventVerdict, MovedRowId } from '../protocol';
import { replicatedTable } from '../replicated-tables';
import { moveObjectCounterPast } from './object-counter';
import { listIn } from '../bulk-lists';
import { addMove, type IdMoves, moveRowIds, newIdsFor } from './reassign-row-ids';

// The rows a store moves when it follows central after a restore travel with their events as
// `moved_ids` (central keeps them: central/moved-rows.ts). A folder restored again from a backup
// taken before that move sends those events with the rows' first ids; central answers them as
// repeats with the ids the rows have there, and the store moves its copies the same way before the
// pull brings central's (docs/sync.md, "Restored twice from one backup").

/** The payload of an outbox event, as record-event.ts wrote it. */
type Payload = Record<string, unknown> & { moved_ids?: MovedRowId[] };

/**
 * Adds moves to the payloads of the events that made those rows (events from `fromSeq` on; rows
 * not in an event yet were never sent under their old ids). A row moved before keeps every id it
 * had: each pointing at its new one.
 */
async function recordMovedIds(trx: Kysely<DB>, moves: IdMoves, fromSeq: number): Promise<void> {
  if (moves.size === 0) return;
  const made = await trx
    .selectFrom('sync_changes')
    .select(['tbl', 'row_id', 'event_seq'])
    .where('op', '=', 'insert')
    .where('event_seq', '>=', fromSeq)
    .execute();
  const byEvent = new Map<number, MovedRowId[]>();
  for (const change of made) {
    const to = moves.get(change.tbl)?.get(Number(change.row_id));
    if (to !== undefined) listIn(byEvent, Number(change.event_seq)).push([change.tbl, Number(change.row_id), to]);
  }
  for (const [seq, added] of byEvent) {
    const event = await trx.selectFrom('sync_events').select('payload').where('node_seq', '=', seq).executeTakeFirstOrThrow();
    const payload = (JSON.parse(event.payload) as Payload | null) ?? {};
    const earlier = (payload.moved_ids ?? []).map(([table, from, now]): MovedRowId => [table, from, moves.get(table)?.get(now) ?? now]);
    payload.moved_ids = [...earlier, ...added];
    await trx.updateTable('sync_events').set({ payload: JSON.stringify(payload) }).where('node_seq', '=', seq).execute();
  }
}

/**
 * Central's verdicts say where the rows of some events are at central (`moved_ids`: events it took
 * at another number, or from another copy that moved them otherwise; unlisted rows are at the ids
 * they were made with). This store's copies of the rows those events made move there (their
 * references, unsent events and replies with them), in the caller's transaction, before the
 * verdicts are recorded. A row of this store's own holding one of those ids (made since, not sent)
 * moves out of the way first; the id counter moves past them. Returns how many rows moved.
 */
export async function takeMovedIds(trx: Kysely<DB>, engine: Engine, verdicts: readonly EventVerdict[]): Promise<number> {
  const told = verdicts.filter((v) => v.moved_ids !== undefined);
  if (told.length === 0) return 0;
  const moves: IdMoves = new Map();
  for (const verdict of told) {
    const event = await trx.selectFrom('sync_events').select(['event_id', 'payload']).where('node_seq', '=', verdict.node_seq).executeTakeFirst();
    if (!event || event.event_id !== verdict.event_id) continue;
    for (const [table, now, there] of await whereCentralHas(trx, engine, verdict, event.payload)) if (now !== there) addMove(moves, table, now, there);
  }
  const targets = [...moves].flatMap(([table, ids]) => [...ids.values()].map((id) => ({ table, id })));
  if (targets.length === 0) return 0;
  const fromSeq = Math.min(...told.map((v) => v.node_seq));
  await moveObjectCounterPast(trx, engine, Math.max(...targets.map((target) => target.id)));
  const squatters = await ownRowsHolding(trx, targets, moves, fromSeq);
  if (squatters.length > 0) await moveUnsentRows(trx, engine, await newIdsFor(trx, engine, squatters), fromSeq);
  await moveRowIds(trx, engine, moves, fromSeq);
  return targets.length;
}

/** Moves rows the store made in events not sent yet, those events telling where (central keeps it). */
export async function moveUnsentRows(trx: Kysely<DB>, engine: Engine, moves: IdMoves, fromSeq: number): Promise<void> {
  await recordMovedIds(trx, moves, fromSeq);
  await moveRowIds(trx, engine, moves, fromSeq);
}

/**
 * [table, its id here, its id at central] for each row the event made here. A row this copy moved
 * itself is known by every id it had (the event's own `moved_ids`); at central it is where
 * central's list sends any of them, else at the id it was made with (the lowest: moves only go up).
 */
async function whereCentralHas(trx: Kysely<DB>, engine: Engine, verdict: EventVerdict, payload: string): Promise<MovedRowId[]> {
  const made = await trx.selectFrom('sync_changes').select(['tbl', 'row_id']).where('event_seq', '=', verdict.node_seq).where('op', '=', 'insert').execute();
  const idsHad = new Map<string, number[]>(made.map((c) => [`${c.tbl}:${Number(c.row_id)}`, [Number(c.row_id)]]));
  for (const [table, from, now] of (JSON.parse(payload) as Payload | null)?.moved_ids ?? []) idsHad.get(`${table}:${now}`)?.push(from);
  const atCentral = new Map<string, number>();
  for (const [table, from, to] of verdict.moved_ids!) {
    // Only ids of this node's range, in tables a store writes: nothing else of this store moves.
    if (replicatedTable(table) && nodeOfId(from) === engine.nodeId && nodeOfId(to) === engine.nodeId) atCentral.set(`${table}:${from}`, to);
  }
  return made.map((change): MovedRowId => {
    const table = change.tbl;
    const ids = idsHad.get(`${table}:${Number(change.row_id)}`)!;
    const there = ids.map((id) => atCentral.get(`${table}:${id}`)).find((id) => id !== undefined) ?? Math.min(...ids);
    return [table, Number(change.row_id), there];
  });
}

/**
 * This store's rows that hold one of the target ids and are not moving themselves: rows it made in
 * events not sent yet (from `fromSeq` on). Any other row there is one central has under that id
 * for another row of this node, which cannot be: the move is refused (the push is tried again).
 */
async function ownRowsHolding(trx: Kysely<DB>, targets: ReadonlyArray<{ table: string; id: number }>, moves: IdMoves, fromSeq: number): Promise<Array<{ table: string; id: number }>> {
  const held: Array<{ table: string; id: number }> = [];
  for (const target of targets) {
    if (moves.get(target.table)?.has(target.id)) continue;
    const row = await trx.selectFrom(target.table as 'users').select('id').where('id', '=', target.id).executeTakeFirst();
    if (!row) continue;
    const madeHere = await trx
      .selectFrom('sync_changes')
      .select('seq')
      .where('tbl', '=', target.table)
      .where('row_id', '=', target.id)
      .where('op', '=', 'insert')
      .where((eb) => eb.or([eb('event_seq', '>=', fromSeq), eb('event_seq', 'is', null)]))
      .executeTakeFirst();
    if (!madeHere) throw new Error(`central places a row of ${target.table} at ${target.id}, where this store holds another it did not make since: not moved`);
    held.push(target);
  }
  return held.sort((a, b) => a.id - b.id);
}
