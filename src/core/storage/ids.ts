import type { Kysely } from 'kysely';
import { prepared } from './prepared';
import { objectIdCounterOf } from './raw-writer';
import type { DB } from './schema';
import { pooledRandomBytes } from './random-pool';

// Legacy-style objects expose integer ids that must be unique across every node of a chain
// without asking central: id = node number × 2^32 + a local sequence. With node numbers below
// 2^21 every id stays under 2^53, so it is exact in JSON and JavaScript.
export const SEQUENCE_SPAN = 2 ** 32;
export const NODE_LIMIT = 2 ** 21;
/** A chain's central node; stores get their numbers from it when they pair. */
export const CENTRAL_NODE_ID = 0;
/** Numbers central hands out when a store pairs; an unpaired node draws one from [2^20, 2^21). */
export const UNPAIRED_NODE_FLOOR = 2 ** 20;

export function composeId(nodeId: number, sequence: number): number {
  if (!Number.isInteger(nodeId) || nodeId < 0 || nodeId >= NODE_LIMIT) throw new RangeError(`bad node id ${nodeId}`);
  if (!Number.isInteger(sequence) || sequence < 1 || sequence >= SEQUENCE_SPAN) {
    throw new RangeError(`id sequence of node ${nodeId} is exhausted`);
  }
  return nodeId * SEQUENCE_SPAN + sequence;
}

export function nodeOfId(id: number): number {
  return Math.floor(id / SEQUENCE_SPAN);
}

/** Moves a named counter on by `count` inside the caller's transaction; returns its new value. */
const bumpSequence = prepared((db, name: string, count: number) =>
  db
    .updateTable('id_sequences')
    .set((eb) => ({ value: eb('value', '+', count) }))
    .where('name', '=', name)
    .returning('value'),
);

/**
 * The first of `count` consecutive values of a named counter, inside the caller's transaction
 * (gapless if it commits). The objects' counter is held in memory inside an SQLite transaction
 * (object-id-counter.ts); everywhere else each call updates its row.
 */
export async function nextSequence(db: Kysely<DB>, name: 'objects' | 'sync_events' | 'sync_nodes', count = 1): Promise<number> {
  const counter = name === 'objects' ? objectIdCounterOf(db) : undefined;
  if (counter) return counter.take(count);
  const [row] = await bumpSequence(db, name, count);
  if (!row) throw new Error(`id sequence ${name} is missing`);
  return Number(row.value) - count + 1;
}

export async function nextObjectId(db: Kysely<DB>, nodeId: number): Promise<number> {
  return composeId(nodeId, await nextSequence(db, 'objects'));
}

/** Ids for `count` new objects at once (a first sync's accounts), in creation order. */
export async function nextObjectIds(db: Kysely<DB>, nodeId: number, count: number): Promise<number[]> {
  if (count === 0) return [];
  const first = await nextSequence(db, 'objects', count);
  return Array.from({ length: count }, (_, i) => composeId(nodeId, first + i));
}

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/** Resource-style id: a prefix and 20 Crockford base32 characters (100 random bits), e.g. `curr_…`. */
export function newPublicId(prefix: 'curr' | 'card' | 'cust' | 'erul' | 'rwd' | 'tier' | 'promo' | 'wh' | 'evt'): string {
  const bytes = pooledRandomBytes(20);
  let out = '';
  for (const byte of bytes) out += CROCKFORD[byte & 31];
  return `${prefix}_${out}`;
}
