import type { Kysely } from 'kysely';
import { prepared } from './prepared';
import type { DB } from './schema';

/**
 * Object ids taken from memory instead of one `id_sequences` UPDATE each (issue 13: an order took
 * three to four). The SQLite group writer (group-commit.ts) reserves a block of the node's `objects`
 * sequence at the start of a group transaction, before any command's savepoint, so the reservation
 * commits or fails with the transaction as a whole and no savepoint can undo it under ids already
 * handed out. Its commands take ids from the block; one that finds it empty falls back to the
 * table. Ids of a block left unused (the process stopped, a command rolled back) are gaps, never
 * reuse: another process on the same file bumps the table past every reserved block.
 */
export class IdBlock {
  #next = 1;
  #end = 0;
  /** Reserved by the group transaction now open: given back if it fails. */
  #uncommitted = false;

  /** At the start of a group transaction: a new block when fewer than LOW_WATER ids are left. */
  async refill(trx: Kysely<DB>): Promise<void> {
    if (this.#end - this.#next + 1 >= LOW_WATER) return;
    const [row] = await reserveObjects(trx, BLOCK_SIZE);
    if (!row) throw new Error('id sequence objects is missing');
    this.#end = Number(row.value);
    this.#next = this.#end - BLOCK_SIZE + 1;
    this.#uncommitted = true;
  }

  /** The next id of the block, or undefined when it is used up. */
  take(): number | undefined {
    return this.#next <= this.#end ? this.#next++ : undefined;
  }

  /** The group transaction committed: its reservation is durable. */
  committed(): void {
    this.#uncommitted = false;
  }

  /** The group transaction failed: a block it reserved was never reserved. */
  failed(): void {
    if (this.#uncommitted) this.#end = this.#next - 1;
    this.#uncommitted = false;
  }
}

const BLOCK_SIZE = 4096;
/** More than a full batch of orders uses (64 × ~4 ids), so a batch seldom falls back to the table. */
const LOW_WATER = 512;

const reserveObjects = prepared((db, size: number) =>
  db
    .updateTable('id_sequences')
    .set((eb) => ({ value: eb('value', '+', size) }))
    .where('name', '=', 'objects')
    .returning('value'),
);

const lent = new WeakMap<Kysely<DB>, IdBlock>();

/** Commands run on `trx` take object ids from `block` (until the transaction ends). */
export function lendIdBlock(trx: Kysely<DB>, block: IdBlock): void {
  lent.set(trx, block);
}

/** An id from the block lent to this transaction, if any is left. */
export function idFromBlock(db: Kysely<DB>): number | undefined {
  return lent.get(db)?.take();
}
