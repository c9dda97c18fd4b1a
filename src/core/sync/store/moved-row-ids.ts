import type { Kysely } from 'kysely';
import type { Engine } from '../../engine';
import type { DB } from '../../storage/schema';
import type { EventVerdict, MovedRowId } from '../protocol';
import { replicatedTable } from '../replicated-tables';
import { moveObjectCounterPast } from './object-counter';
import { type IdMoves, moveRowIds, newIdsFor } from './reassign-row-ids';

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
export async function recordMovedIds(trx: Kysely<DB>, moves: IdMoves, fromSeq: number): Promise<void> {
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
    if (to === undefined) continue;
    const list = byEvent.get(Number(change.event_seq)) ?? [];
    list.push([change.tbl, Number(change.row_id), to]);
    byEvent.set(Number(change.event_seq), list);
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
 * Central's verdicts name rows of events it took elsewhere under other ids: this store's copies of
 * the rows those events made move there (their references, unsent events and replies with them),
 * in the caller's transaction, before the verdicts are recorded. A row of this store's holding one
 * of those ids (made since, not sent) moves out of the way first; the id counter moves past them.
 * Returns how many rows moved.
 */
export async function takeMovedIds(trx: Kysely<DB>, engine: Engine, verdicts: readonly EventVerdict[]): Promise<number> {
  const told = verdicts.filter((v) => (v.moved_ids?.length ?? 0) > 0);
  if (told.length === 0) return 0;
  const fromSeq = Math.min(...told.map((v) => v.node_seq));
  const moves: IdMoves = new Map();
  const targets: Array<{ table: string; id: number }> = [];
  for (const verdict of told) {
    // Only rows this event made here, under the id central names: nothing else of this store moves.
    const made = await trx.selectFrom('sync_changes').select(['tbl', 'row_id']).where('event_seq', '=', verdict.node_seq).where('op', '=', 'insert').execute();
    const madeHere = new Set(made.map((c) => `${c.tbl}:${Number(c.row_id)}`));
    for (const [table, from, to] of verdict.moved_ids!) {
      if (!replicatedTable(table) || !madeHere.has(`${table}:${from}`) || from === to) continue;
      const table_ = moves.get(table) ?? new Map<number, number>();
      table_.set(from, to);
      moves.set(table, table_);
      targets.push({ table, id: to });
    }
  }
  if (targets.length === 0) return 0;
  for (const target of targets) await moveObjectCounterPast(trx, engine, target.id);
  const squatters = await ownRowsHolding(trx, targets, moves);
  if (squatters.length > 0) {
    const aside = await newIdsFor(trx, engine, squatters);
    await recordMovedIds(trx, aside, fromSeq);
    await moveRowIds(trx, engine, aside, fromSeq);
  }
  await moveRowIds(trx, engine, moves, fromSeq);
  return targets.length;
}

/** This store's rows that hold one of the target ids and are not moving themselves. */
async function ownRowsHolding(trx: Kysely<DB>, targets: ReadonlyArray<{ table: string; id: number }>, moves: IdMoves): Promise<Array<{ table: string; id: number }>> {
  const held: Array<{ table: string; id: number }> = [];
  for (const target of targets) {
    if (moves.get(target.table)?.has(target.id)) continue;
    const row = await trx.selectFrom(target.table as 'users').select('id').where('id', '=', target.id).executeTakeFirst();
    if (row) held.push(target);
  }
  return held.sort((a, b) => a.id - b.id);
}
