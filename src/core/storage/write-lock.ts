import { CompiledQuery, type DatabaseConnection, type Dialect, type Driver, type Kysely, type QueryResult, type TransactionSettings } from 'kysely';

/**
 * PostgreSQL: the node's write lock, a transaction-level advisory lock. The change log's triggers
 * take it to keep the log in commit order, and the object-id counter's row is another lock every
 * object-making command holds to its commit: a command that locked a row first (a void's ledger
 * account) and then needed either waited on a command holding them and waiting for that row, and
 * PostgreSQL broke the circle by aborting one after its 1 s deadlock timeout. So every transaction
 * takes this lock before it locks anything else: before its first statement that writes or locks
 * (lazily: the reads before it take no lock, and run side by side), and every writer locks in one
 * order. Taken at the transaction's start instead, central's check-ins ran 40 % slower.
 */
export const PG_WRITE_LOCK = 7_301_001;

const TAKE_WRITE_LOCK = CompiledQuery.raw(`select pg_advisory_xact_lock(${PG_WRITE_LOCK})`);
const [BEGIN, COMMIT, ROLLBACK] = ['begin', 'commit', 'rollback'].map((command) => CompiledQuery.raw(command)) as [CompiledQuery, CompiledQuery, CompiledQuery];

/** A statement that writes a row or takes a lock (DDL, `for update`, an advisory lock, a CTE to be safe). */
const WRITES_OR_LOCKS = /^\s*(insert|update|delete|merge|with|create|alter|drop|truncate|lock)\b|\bfor\s+(no\s+key\s+)?update\b|\bfor\s+(key\s+)?share\b|pg_advisory/i;

const ROLLBACK_TO = /^\s*rollback\s+to\b/i;

export function writesOrLocks(sql: string): boolean {
  return WRITES_OR_LOCKS.test(sql);
}

/** The table an INSERT, UPDATE or DELETE statement writes. */
const WRITTEN_TABLE = /^\s*(?:insert\s+into|update|delete\s+from)\s+"?([a-z_][a-z0-9_]*)"?/i;

/**
 * `dialect` whose transactions take the write lock before their first statement that writes or
 * locks. A write outside a transaction to one of `capturedTables` (a key's "last used" minute)
 * runs in a transaction of its own that takes the lock first: its trigger would take it after the
 * row, the other way round from every command.
 */
export function withLazyWriteLock(dialect: Dialect, capturedTables: ReadonlySet<string> = new Set()): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db: Kysely<unknown>) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createDriver: () => new LazyWriteLockDriver(dialect.createDriver(), capturedTables),
  };
}

/** A connection, and whether its open transaction holds the write lock yet. */
class LockingConnection implements DatabaseConnection {
  inTransaction = false;
  locked = false;

  constructor(
    readonly inner: DatabaseConnection,
    private readonly capturedTables: ReadonlySet<string>,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (!this.inTransaction) {
      const table = WRITTEN_TABLE.exec(query.sql)?.[1];
      if (table !== undefined && this.capturedTables.has(table)) return this.inLockedTransaction<R>(query);
      return this.inner.executeQuery<R>(query);
    }
    if (!this.locked && writesOrLocks(query.sql)) {
      await this.inner.executeQuery(TAKE_WRITE_LOCK);
      this.locked = true;
    }
    const result = await this.inner.executeQuery<R>(query);
    // A savepoint rolled back by hand (apply-push.ts) may take a lock taken after it with it.
    if (ROLLBACK_TO.test(query.sql)) this.locked = false;
    return result;
  }

  private async inLockedTransaction<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    await this.inner.executeQuery(BEGIN);
    try {
      await this.inner.executeQuery(TAKE_WRITE_LOCK);
      const result = await this.inner.executeQuery<R>(query);
      await this.inner.executeQuery(COMMIT);
      return result;
    } catch (error) {
      await this.inner.executeQuery(ROLLBACK).catch(() => undefined);
      throw error;
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

class LazyWriteLockDriver implements Driver {
  constructor(
    private readonly inner: Driver,
    private readonly capturedTables: ReadonlySet<string>,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new LockingConnection(await this.inner.acquireConnection(), this.capturedTables);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const c = connection as LockingConnection;
    await this.inner.beginTransaction(c.inner, settings);
    c.inTransaction = true;
    c.locked = false;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as LockingConnection;
    c.inTransaction = false;
    await this.inner.commitTransaction(c.inner);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as LockingConnection;
    c.inTransaction = false;
    await this.inner.rollbackTransaction(c.inner);
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver['savepoint']>>[2]): Promise<void> {
    await this.inner.savepoint!((connection as LockingConnection).inner, name, compile);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver['savepoint']>>[2]): Promise<void> {
    const c = connection as LockingConnection;
    await this.inner.rollbackToSavepoint!(c.inner, name, compile);
    // A lock taken after the savepoint may have gone with it: the next write takes it again (a no-op if held).
    c.locked = false;
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver['savepoint']>>[2]): Promise<void> {
    await this.inner.releaseSavepoint!((connection as LockingConnection).inner, name, compile);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection((connection as LockingConnection).inner);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}
