import type BetterSqlite3 from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { DB } from './schema';

/**
 * A second, read-only SQLite connection of a node's database file (issue 13). Hot-path reads made
 * outside a transaction run on it, synchronously: in WAL mode they read committed state only, so
 * they never see a group transaction's uncommitted commands and never wait for the writer. Reads
 * inside a transaction keep going through the transaction (they see its writes).
 *
 * The reads of one event-loop turn share one read transaction (a snapshot): outside a transaction
 * each statement takes and releases WAL read locks of its own, which cost more than a point read,
 * and one turn serves many requests' reads at once under load. The snapshot ends when the turn
 * does (setImmediate) and before any statement of this database's write connection (the function
 * attachReader returns), so a read after a write or commit of this process always sees it. A
 * write by another process (the CLI) is seen from the next turn on.
 */
export interface Reader {
  all(text: string, parameters: readonly unknown[]): unknown[];
  /** Runs `start` with the reads it makes synchronously in one read transaction (see inOneSnapshot). */
  together<T>(start: () => T): T;
  /**
   * A value derived from reads of the current snapshot, computed by `read` once per snapshot and
   * `key` (a vendor's version, read by every counter call: twice per request before).
   */
  once<T>(key: string, read: () => T): T;
}

const readers = new WeakMap<Kysely<DB>, Reader>();

/** Attaches the read connection; returns what ends its current snapshot (called before each write). */
export function attachReader(db: Kysely<DB>, sqlite: BetterSqlite3.Database): () => void {
  sqlite.pragma('query_only = ON');
  sqlite.pragma('busy_timeout = 5000');
  // Sorts and aggregates that need a temporary b-tree keep it in memory, as on the write connection:
  // with the default (a temporary file) a card list's page cost a third more (issue 13).
  sqlite.pragma('temp_store = MEMORY');
  const statements = new Map<string, RowStatement>();
  const derived = new Map<string, unknown>();
  const begin = sqlite.prepare('begin');
  const commit = sqlite.prepare('commit');
  const endSnapshot = () => {
    derived.clear();
    if (sqlite.inTransaction) commit.run();
  };
  const startSnapshot = () => {
    if (sqlite.inTransaction) return;
    begin.run();
    setImmediate(endSnapshot);
  };
  readers.set(db, {
    all(text, parameters) {
      let statement = statements.get(text);
      if (!statement) {
        statement = withRowsBuiltInJs(sqlite.prepare(text));
        statements.set(text, statement);
      }
      startSnapshot();
      return statement.all(...parameters);
    },
    together(start) {
      startSnapshot();
      return start();
    },
    once<T>(key: string, read: () => T): T {
      if (derived.has(key)) return derived.get(key) as T;
      // The value belongs to this snapshot: started here, so its end (which drops it) is scheduled.
      startSnapshot();
      const value = read();
      derived.set(key, value);
      return value;
    },
  });
  return endSnapshot;
}

/** What Kysely's SQLite driver and the read connection use of a statement. */
export type RowStatement = Pick<BetterSqlite3.Statement, 'reader' | 'all' | 'run' | 'iterate'>;

/** The statement with its rows built by rowBuilder (below) when it returns rows; else itself. */
export function withRowsBuiltInJs(statement: BetterSqlite3.Statement): RowStatement {
  const row = rowBuilder(statement);
  if (!row) return statement;
  statement.raw(true);
  return {
    reader: true,
    all: (...parameters: unknown[]) => (statement.all(...parameters) as unknown[][]).map(row),
    run: (...parameters: unknown[]) => statement.run(...parameters),
    *iterate(...parameters: unknown[]) {
      for (const values of statement.iterate(...parameters) as IterableIterator<unknown[]>) yield row(values);
    },
  } as RowStatement;
}

/**
 * Rows as better-sqlite3 returns them (an object per row, a property per column, in column order,
 * a later column of the same name winning), built in JavaScript from its arrays (raw mode): its
 * native object building cost more than the query on rows of many columns (issue 13: 14 µs of the
 * queue's ten rows). None for a column named __proto__, which an object literal would not keep.
 */
function rowBuilder(statement: BetterSqlite3.Statement): ((values: unknown[]) => unknown) | null {
  if (!statement.reader) return null;
  const names = statement.columns().map((column) => column.name);
  if (names.includes('__proto__')) return null;
  // A literal of fixed keys gives every row of the statement one shape (one hidden class).
  return new Function('v', `return {${names.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ')}};`) as (values: unknown[]) => unknown;
}

/** The reader of this database handle; none for a transaction, PostgreSQL or an in-memory SQLite. */
export function readerOf(db: Kysely<DB>): Reader | undefined {
  return readers.get(db);
}

/**
 * Runs `start`, which starts several prepared reads at once (`Promise.all([...])`), with the reads
 * it makes synchronously on the read connection in one snapshot (the turn's, see Reader above), so
 * they see one state of the database. No reader (PostgreSQL, a transaction, in-memory): just
 * `start()`.
 */
export function inOneSnapshot<T>(db: Kysely<DB>, start: () => T): T {
  const reader = readers.get(db);
  return reader ? reader.together(start) : start();
}
