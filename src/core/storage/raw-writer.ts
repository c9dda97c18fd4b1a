import type BetterSqlite3 from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { DB } from './schema';

/**
 * The write connection of an SQLite database, for bulk work (central applying a store's push) that
 * runs thousands of one-row statements: through Kysely each costs an async round of its own, run
 * here synchronously each costs microseconds. Only for code inside a transaction of this database:
 * SQLite has one write connection, so that transaction holds it and these statements are part of it.
 */
export interface RawWriter {
  /** Runs a statement (prepared once per text) with its parameters; returns how many rows it changed. */
  run(text: string, parameters: readonly unknown[]): number;
  all(text: string, parameters: readonly unknown[]): unknown[];
}

const writers = new WeakMap<Kysely<DB>, RawWriter>();

export function attachRawWriter(db: Kysely<DB>, sqlite: BetterSqlite3.Database, capacity = 200): void {
  const statements = new Map<string, BetterSqlite3.Statement>();
  const statement = (text: string) => {
    if (!sqlite.inTransaction) throw new Error('the raw writer runs only inside a transaction');
    let found = statements.get(text);
    if (!found) {
      found = sqlite.prepare(text);
      if (statements.size >= capacity) statements.delete(statements.keys().next().value as string);
      statements.set(text, found);
    }
    return found;
  };
  writers.set(db, {
    run: (text, parameters) => statement(text).run(...parameters).changes,
    all: (text, parameters) => statement(text).all(...parameters),
  });
}

/** The raw writer of an SQLite database handle (openSqlite attaches it), for code that runs only there. */
export function writeConnectionOf(db: Kysely<DB>): RawWriter {
  const writer = writers.get(db);
  if (!writer) throw new Error('no SQLite write connection on this database handle (databases are opened by openSqlite)');
  return writer;
}
