import type BetterSqlite3 from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { DB } from './schema';

/**
 * A second, read-only SQLite connection of a node's database file (issue 13). Hot-path reads made
 * outside a transaction run on it, synchronously: in WAL mode each statement reads the last
 * committed state, so it never sees a group transaction's uncommitted commands and never waits for
 * the writer. Reads inside a transaction keep going through the transaction (they see its writes).
 */
export interface Reader {
  all(text: string, parameters: readonly unknown[]): unknown[];
}

const readers = new WeakMap<Kysely<DB>, Reader>();

export function attachReader(db: Kysely<DB>, sqlite: BetterSqlite3.Database): void {
  sqlite.pragma('query_only = ON');
  sqlite.pragma('busy_timeout = 5000');
  const statements = new Map<string, BetterSqlite3.Statement>();
  readers.set(db, {
    all(text, parameters) {
      let statement = statements.get(text);
      if (!statement) {
        statement = sqlite.prepare(text);
        statements.set(text, statement);
      }
      return statement.all(...parameters);
    },
  });
}

/** The reader of this database handle; none for a transaction, PostgreSQL or an in-memory SQLite. */
export function readerOf(db: Kysely<DB>): Reader | undefined {
  return readers.get(db);
}
