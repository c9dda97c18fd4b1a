import type BetterSqlite3 from 'better-sqlite3';
import type { DialectAdapter, Kysely } from 'kysely';
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

/** A statement run on the write connection: its rows (none for a statement that returns none). */
export type RunStatement = (text: string, parameters: readonly unknown[]) => unknown[];

const transactionStatements = new WeakMap<DialectAdapter, { run: RunStatement; active: () => boolean }>();

/** Registers how statements of this SQLite database's transactions run directly (openSqlite). */
export function attachTransactionStatements(db: Kysely<DB>, run: RunStatement, active: () => boolean): void {
  transactionStatements.set(db.getExecutor().adapter, { run, active });
}

/**
 * For a transaction of an SQLite database while it is open: runs a statement in it synchronously on
 * the write connection, through the same statement cache as Kysely's driver but without its
 * executor (a connection lease, a promise chain and result plugins per statement: ~3.5 µs of a
 * ~3 µs point read; an order runs ~25 statements). SQLite has one write connection, and an open
 * transaction holds it, so the statement is part of that transaction. Undefined for anything else
 * (the database handle itself, PostgreSQL): run it through Kysely.
 */
export function transactionStatementsOf(db: Kysely<DB>): RunStatement | undefined {
  if (!db.isTransaction) return undefined;
  const found = transactionStatements.get(db.getExecutor().adapter);
  return found?.active() ? found.run : undefined;
}
