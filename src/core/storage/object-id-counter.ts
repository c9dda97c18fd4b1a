/**
 * The node's object sequence (`id_sequences.objects`) held in memory for the length of one SQLite
 * write transaction (issue 13: an order took four UPDATE … RETURNING of that row, ~14 µs each).
 *
 * The driver opens it right after `begin immediate` with the row's value — the write lock keeps
 * every other connection and process off the row until the commit — hands ids out from memory,
 * and writes the high-water mark into the row just before COMMIT, in the same transaction: ids and
 * mark are durable together or not at all. A rollback closes it (the next transaction reads the
 * row again). Ids therefore follow creation order within the node, as with one UPDATE per id. The
 * group writer puts the counter back when it rolls a command back to its savepoint, so ids stay
 * gapless as before. Outside a transaction (an autocommit write) and on PostgreSQL, ids come from
 * the row as before.
 */
export class ObjectIdCounter {
  /** The row's value when the transaction began; null while closed. */
  #start: number | null = null;
  /** The last value handed out. */
  #last = 0;

  open(rowValue: number): void {
    this.#start = rowValue;
    this.#last = rowValue;
  }

  close(): void {
    this.#start = null;
  }

  get isOpen(): boolean {
    return this.#start !== null;
  }

  /** The first of `count` consecutive values. */
  take(count = 1): number {
    if (this.#start === null) throw new Error('the object id counter is closed');
    const first = this.#last + 1;
    this.#last += count;
    return first;
  }

  /** Where the counter is now, to put it back with `restore` when the work after it is undone. */
  mark(): number {
    return this.#last;
  }

  restore(mark: number): void {
    if (this.#start !== null && mark >= this.#start && mark <= this.#last) this.#last = mark;
  }

  /** The value to write into the row before COMMIT; null when nothing was taken. */
  highWater(): number | null {
    return this.#start !== null && this.#last > this.#start ? this.#last : null;
  }
}
