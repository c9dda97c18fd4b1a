import type { Kysely } from 'kysely';
import type { Engine } from '../../engine';
import { nextSequence, nodeOfId, SEQUENCE_SPAN } from '../../storage/ids';
import { objectIdCounterOf } from '../../storage/raw-writer';
import type { DB } from '../../storage/schema';

/** The node's object id counter as the caller's transaction sees it (held in memory inside an SQLite write transaction). */
async function objectCounterNow(trx: Kysely<DB>): Promise<number> {
  const open = objectIdCounterOf(trx);
  if (open) return open.mark();
  const row = await trx.selectFrom('id_sequences').select('value').where('name', '=', 'objects').executeTakeFirstOrThrow();
  return Number(row.value);
}

/**
 * Moves this node's object id counter past `id` when it is an id of this node's range the counter
 * has not reached: only a store restored from a backup sees one (its rows the lost copy pushed,
 * coming back from central), and the ids it hands out next must not be those. In the caller's
 * transaction; through the counter itself, so the in-memory one of an SQLite transaction agrees.
 */
export async function moveObjectCounterPast(trx: Kysely<DB>, engine: Engine, id: number): Promise<void> {
  if (nodeOfId(id) !== engine.nodeId) return;
  const target = id - engine.nodeId * SEQUENCE_SPAN;
  const now = await objectCounterNow(trx);
  if (target > now) await nextSequence(trx, 'objects', target - now);
}

/** The highest id of this node's range among these rows' ids (null when none is). */
export function highestOwnId(engine: Engine, ids: Iterable<unknown>): number | null {
  let highest: number | null = null;
  for (const id of ids) {
    if (typeof id === 'number' && nodeOfId(id) === engine.nodeId && (highest === null || id > highest)) highest = id;
  }
  return highest;
}
