import type BetterSqlite3 from 'better-sqlite3';
import { type ControlledTransaction, Kysely, SqliteDialect, sql } from 'kysely';
import type { OffLoopFile } from './off-loop-snapshot';
import type { DB } from './schema';

// A long read that must see one state of the database from its first statement to its last (the
// members export: pages read while the counters keep selling), without holding up any writer.
// PostgreSQL: one REPEATABLE READ READ ONLY transaction on one connection of the pool. SQLite (WAL):
// one read transaction on a connection of its own, opened for the read (under a millisecond; the
// file's hot-path reader cannot hold one: its snapshot ends before every write, reader.ts), so
// commits go on beside it. A held snapshot keeps what it reads from being cleaned away — SQLite's
// checkpoints stop at it and the WAL grows, PostgreSQL's vacuum keeps old row versions — so every
// snapshot has a time limit, after which it is released whoever holds it. An SQLite snapshot may be
// opened elsewhere instead (`openSqlite`: on a worker thread, off-loop-snapshot.ts), so that a
// report reading for seconds holds no other request up.

export interface ReadSnapshot {
  /** The snapshot's reads: every query on it sees the state of the database when it was opened. */
  db: Kysely<DB>;
  /** False once released (by its reader, or at its time limit): a query then fails. */
  readonly open: boolean;
  /** Ends the transaction and gives the connection back (closes it, on SQLite). Safe to call again. */
  release(): Promise<void>;
}

type SnapshotSource = { kind: 'postgres' } | { kind: 'sqlite'; connect(): BetterSqlite3.Database; file: OffLoopFile };

const sources = new WeakMap<Kysely<DB>, SnapshotSource>();
/** Snapshots open per database, and who waits for none to be (forgetOldPages). */
const opened = new WeakMap<Kysely<DB>, { count: number; ended: Array<() => void> }>();

/** A pool of PostgreSQL connections (openPostgres) offers snapshots. */
export function offerPostgresSnapshots(db: Kysely<DB>): void {
  sources.set(db, { kind: 'postgres' });
}

/** An SQLite file offers snapshots on read connections `connect` opens (or one `openSqlite` opens on `file`). */
export function offerSqliteSnapshots(db: Kysely<DB>, connect: () => BetterSqlite3.Database, file: OffLoopFile): void {
  sources.set(db, { kind: 'sqlite', connect, file });
}

/**
 * Opens a snapshot of `db`'s database, taken now, released after `limitMs` at the latest (then
 * `onLimit`: its reader, perhaps waiting on a client that stopped reading, is told to stop). A
 * database that offers none (an in-memory SQLite, an embedded PGlite with its one connection,
 * which a held transaction would take from every other query) reads outside any snapshot, as `db`.
 * `openSqlite`: opens an SQLite file's snapshot in place of a read connection of this thread (a
 * worker's: PostgreSQL's queries are asynchronous already).
 */
export async function openReadSnapshot(db: Kysely<DB>, limitMs: number, onLimit: () => void = () => {}, options: { openSqlite?: (file: OffLoopFile) => Promise<Kysely<DB>> } = {}): Promise<ReadSnapshot> {
  const source = sources.get(db);
  if (!source) return { db, open: true, release: async () => {} };
  let reads: Kysely<DB> | null = null;
  let trx: ControlledTransaction<DB> | null = null;
  if (source.kind === 'postgres') {
    trx = await db.startTransaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute();
  } else if (options.openSqlite) {
    // Taken as it opens.
    reads = await options.openSqlite(source.file);
  } else {
    const connection = source.connect();
    // As the file's hot-path reader (reader.ts): reads only, waits out a checkpoint's moment, sorts in memory.
    connection.pragma('query_only = ON');
    connection.pragma('busy_timeout = 5000');
    connection.pragma('temp_store = MEMORY');
    reads = new Kysely<DB>({ dialect: new SqliteDialect({ database: connection }) });
    trx = await reads.startTransaction().execute();
  }
  let open = true;
  const release = async () => {
    if (!open) return;
    open = false;
    clearTimeout(limit);
    try {
      await trx?.rollback().execute();
    } finally {
      await reads?.destroy();
      snapshotEnded(db);
    }
  };
  const limit = setTimeout(() => {
    void release()
      .catch(() => undefined)
      .finally(onLimit);
  }, limitMs);
  limit.unref();
  const count = opened.get(db) ?? { count: 0, ended: [] };
  count.count += 1;
  opened.set(db, count);
  try {
    // Both engines take the snapshot at the transaction's first read, not at its begin.
    if (trx) await sql`select 1 from schema_migrations limit 1`.execute(trx);
  } catch (error) {
    await release();
    throw error;
  }
  return {
    db: trx ?? reads!,
    get open() {
      return open;
    },
    release,
  };
}

function snapshotEnded(db: Kysely<DB>): void {
  const count = opened.get(db);
  if (!count) return;
  count.count -= 1;
  if (count.count > 0) return;
  for (const resume of count.ended.splice(0)) resume();
}

/** Resolves once no snapshot of `db` is open (at once when none is). */
export function readSnapshotsEnded(db: Kysely<DB>): Promise<void> {
  const count = opened.get(db);
  if (!count || count.count === 0) return Promise.resolve();
  return new Promise((resolve) => count.ended.push(resolve));
}
