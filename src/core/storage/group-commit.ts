import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import { isTransientFailure } from './errors';
import { objectIdCounterOf, transactionStatementsOf } from './raw-writer';
import type { DB } from './schema';

/**
 * Group commit for SQLite (issue 13): commands that arrive together share one transaction and so one
 * fsync. A single writer takes what is queued, runs each command in its own savepoint (a command
 * that throws is rolled back alone and its caller gets its error), commits once, and only then
 * settles every command's promise — a reply is never sent before its write is durable.
 *
 * Batching costs a lone command nothing: the writer starts on the next turn of the event loop
 * (setImmediate), after the requests already read from the sockets have queued their commands.
 * PostgreSQL keeps one transaction per command (its commits run concurrently on a pool).
 *
 * A command marked `alone` (a store's push at central: thousands of rows, per-event savepoints of
 * its own) takes a transaction by itself, without a savepoint: SQLite keeps a savepoint's journal in
 * memory (temp_store = MEMORY) and walks it from the start at the end of every statement inside it,
 * so a big command inside one pays for everything it already wrote on each statement (a push whose
 * events each take their own path applied 2.2x slower; docs/speed.md). Alone, its
 * outermost savepoints are its own small ones, and rolling back the transaction undoes it whole.
 */

/** Most commands one transaction takes: bounds the wait of the first one. */
const MAX_BATCH = 64;

// Two of them run around every command: directly on the write connection (transactionStatementsOf).
const SAVEPOINT = 'savepoint command';
const RELEASE = 'release command';
const ROLLBACK = 'rollback to command';

async function execute(trx: Transaction<DB>, text: string): Promise<void> {
  const inTransaction = transactionStatementsOf(trx);
  if (inTransaction) inTransaction(text, []);
  else await trx.executeQuery(CompiledQuery.raw(text));
}

interface Command {
  work: (trx: Transaction<DB>) => Promise<unknown>;
  alone: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export interface GroupCommitStats {
  /** Transactions committed (or failed) by the writer. */
  batches: number;
  /** Commands run in them. */
  commands: number;
  /** The largest batch so far. */
  largest: number;
}

class GroupWriter {
  readonly #db: Kysely<DB>;
  #queue: Command[] = [];
  #scheduled = false;
  #running = false;
  readonly stats: GroupCommitStats = { batches: 0, commands: 0, largest: 0 };

  constructor(db: Kysely<DB>) {
    this.#db = db;
  }

  run<T>(work: (trx: Transaction<DB>) => Promise<T>, alone: boolean): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, alone, resolve: resolve as (value: unknown) => void, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#running) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#running = true;
    try {
      while (this.#queue.length > 0) {
        await this.#commit(this.#queue.splice(0, this.#nextBatchSize()));
      }
    } finally {
      this.#running = false;
    }
  }

  /** How many queued commands the next transaction takes: one that must be alone is a batch by itself, and ends the batch before it. */
  #nextBatchSize(): number {
    const alone = this.#queue.findIndex((command) => command.alone);
    if (alone === 0) return 1;
    return alone === -1 ? MAX_BATCH : Math.min(MAX_BATCH, alone);
  }

  /** One command in a transaction of its own: no savepoint; it commits whole or not at all. */
  async #commitAlone(command: Command): Promise<void> {
    let value: unknown;
    try {
      value = await this.#db.transaction().execute((trx) => command.work(trx));
    } catch (error) {
      command.reject(error);
      return;
    }
    command.resolve(value);
  }

  async #commit(batch: Command[]): Promise<void> {
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    this.stats.batches += 1;
    this.stats.commands += batch.length;
    this.stats.largest = Math.max(this.stats.largest, batch.length);
    if (batch[0]!.alone) return this.#commitAlone(batch[0]!);
    try {
      await this.#db.transaction().execute(async (trx) => {
        const ids = objectIdCounterOf(trx);
        for (const command of batch) {
          await execute(trx, SAVEPOINT);
          const idsBefore = ids?.mark();
          try {
            const value = await command.work(trx);
            await execute(trx, RELEASE);
            outcomes.push({ ok: true, value });
          } catch (error) {
            // Undoes this command's writes only; its neighbours' stay in the transaction.
            try {
              await execute(trx, ROLLBACK);
              // Its ids are free again: the next command takes them (ids stay gapless).
              if (idsBefore !== undefined) ids!.restore(idsBefore);
              await execute(trx, RELEASE);
            } catch (rollbackFailure) {
              // No savepoint left: SQLite ended the whole transaction itself (a full disk, an I/O
              // error). The batch fails with that cause, not with the rollback's complaint.
              throw isTransientFailure(error) ? error : rollbackFailure;
            }
            outcomes.push({ ok: false, error });
          }
        }
      });
    } catch (error) {
      // The transaction itself failed (begin, a savepoint, or the commit): nothing of it is durable.
      for (const command of batch) command.reject(error);
      return;
    }
    batch.forEach((command, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) command.resolve(outcome.value);
      else command.reject(outcome.error);
    });
  }
}

const writers = new WeakMap<Kysely<DB>, GroupWriter>();

function writerOf(db: Kysely<DB>): GroupWriter {
  let writer = writers.get(db);
  if (!writer) {
    writer = new GroupWriter(db);
    writers.set(db, writer);
  }
  return writer;
}

/**
 * Runs `work` as one command of the next group transaction on this SQLite database, or with
 * `alone`, in a transaction of its own taken in its turn.
 */
export function groupCommit<T>(db: Kysely<DB>, work: (trx: Transaction<DB>) => Promise<T>, options: { alone?: boolean } = {}): Promise<T> {
  return writerOf(db).run(work, options.alone ?? false);
}

/** How the writer of this database has batched so far (tests, diagnostics). */
export function groupCommitStats(db: Kysely<DB>): GroupCommitStats {
  return { ...writerOf(db).stats };
}
