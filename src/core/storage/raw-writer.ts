import type BetterSqlite3 from 'better-sqlite3';
import type { DialectAdapter, Kysely } from 'kysely';
import type { ObjectIdCounter } from './object-id-counter';
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
  /**
   * A statement whose parameters are a row's `columns`, in order, each through `value`: for runs of
   * thousands of rows alike, it binds them without an array of parameters per row.
   */
  rowRunner(text: string, columns: readonly string[], value: (v: unknown) => unknown): (row: Readonly<Record<string, unknown>>) => void;
}

/** A statement run on the write connection: its rows (none for a statement that returns none). */
export type RunStatement = (text: string, parameters: readonly unknown[]) => unknown[];

/** What openSqlite registers of a database's write connection, per database handle. */
interface WriteConnection {
  raw: RawWriter;
  /** A statement through the statement cache Kysely's driver uses, as that driver runs it. */
  run: RunStatement;
  inTransaction: () => boolean;
  ids: ObjectIdCounter;
}

// Keyed by the dialect adapter, which the database handle and all its transactions share.
const connections = new WeakMap<DialectAdapter, WriteConnection>();

export function attachWriteConnection(db: Kysely<DB>, sqlite: BetterSqlite3.Database, run: RunStatement, ids: ObjectIdCounter, capacity = 200): void {
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
  connections.set(db.getExecutor().adapter, {
    raw: {
      run: (text, parameters) => statement(text).run(...parameters).changes,
      rowRunner: (text, columns, value) => compileRowRunner(columns)(statement(text), value),
    },
    run,
    inTransaction: () => sqlite.inTransaction,
    ids,
  });
}

type RowRunnerFactory = (statement: BetterSqlite3.Statement, value: (v: unknown) => unknown) => (row: Readonly<Record<string, unknown>>) => void;

// Compiled once per column list (a table's columns, a handful of lists in all), not on every run.
const rowRunnerFactories = new Map<string, RowRunnerFactory>();

/** `(statement, value) => (row) => statement.run(value(row[c1]), value(row[c2]), …)`, compiled for these columns. */
function compileRowRunner(columns: readonly string[]): RowRunnerFactory {
  const args = columns.map((column) => `value(row[${JSON.stringify(column)}])`).join(', ');
  let factory = rowRunnerFactories.get(args);
  if (!factory) {
    factory = new Function('statement', 'value', `return (row) => { statement.run(${args}); };`) as RowRunnerFactory;
    rowRunnerFactories.set(args, factory);
  }
  return factory;
}

/** The raw writer of an SQLite database handle (openSqlite attaches it), for code that runs only there. */
export function writeConnectionOf(db: Kysely<DB>): RawWriter {
  const connection = connections.get(db.getExecutor().adapter);
  if (!connection) throw new Error('no SQLite write connection on this database handle (databases are opened by openSqlite)');
  return connection.raw;
}

/** The write connection of `db` when it is a transaction of an SQLite database and that transaction is open. */
function openTransactionOf(db: Kysely<DB>): WriteConnection | undefined {
  if (!db.isTransaction) return undefined;
  const connection = connections.get(db.getExecutor().adapter);
  return connection?.inTransaction() ? connection : undefined;
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
  return openTransactionOf(db)?.run;
}

/** The open object id counter of the SQLite transaction `db` (object-id-counter.ts); undefined for anything else: take ids from the row. */
export function objectIdCounterOf(db: Kysely<DB>): ObjectIdCounter | undefined {
  const ids = openTransactionOf(db)?.ids;
  return ids?.isOpen ? ids : undefined;
}
