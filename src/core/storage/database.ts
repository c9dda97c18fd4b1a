import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import { resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  Kysely,
  Migrator,
  PostgresDialect,
  SqliteDialect,
  type SqliteDatabase,
  type SqliteDialectConfig,
  SqliteDriver,
  sql,
} from 'kysely';
import type { CustomTypesConfig } from 'pg';
import { type Dialect, dialectOf } from './dialect';
import { lowerAsPostgres } from './folded-names';
import { migrations } from './migrations/index';
import { ObjectIdCounter } from './object-id-counter';
import { startCheckpointer } from './checkpointer';
import { asideFileOf, isExistingSqliteFile, isNewSqliteFile, moveIntoPlace, removeLeftoverBuilds } from './fresh-file';
import { attachWriteConnection } from './raw-writer';
import { withLazyWriteLock } from './write-lock';
import { attachReader, type RowStatement, withRowsBuiltInJs } from './reader';
import { endOffLoopSnapshots } from './off-loop-snapshot';
import { offerPostgresSnapshots, offerSqliteSnapshots } from './read-snapshot';
import type { DB } from './schema';

export interface Database {
  db: Kysely<DB>;
  dialect: Dialect;
  close(): Promise<void>;
}

/**
 * Writers take the write lock when their transaction starts ("begin immediate"), so a transaction
 * that read first can never fail later on a lock upgrade when another process (the CLI) has written.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  readonly #connection: WriteConnectionHooks;
  constructor(config: SqliteDialectConfig, connection: WriteConnectionHooks) {
    super(config);
    this.#connection = connection;
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    const sequence = await objectSequenceOf(connection);
    if (sequence !== null) this.#connection.ids.open(sequence);
  }

  // The ids handed out from memory become durable with the transaction (object-id-counter.ts).
  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const { ids } = this.#connection;
    const highWater = ids.highWater();
    ids.close();
    if (highWater !== null) await connection.executeQuery(CompiledQuery.raw(RAISE_OBJECT_SEQUENCE, [highWater]));
    await super.commitTransaction(connection);
    this.#connection.committed();
  }

  // SQLite ends a transaction itself on some failures (a full disk, an I/O error): rolling back
  // again would throw "no transaction is active" in place of the error that ended it.
  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    this.#connection.ids.close();
    if (this.#connection.inTransaction()) await super.rollbackTransaction(connection);
  }
}

const READ_OBJECT_SEQUENCE = CompiledQuery.raw("select value from id_sequences where name = 'objects'");
// max(): never lowers the row, whatever else wrote it in this transaction.
const RAISE_OBJECT_SEQUENCE = "update id_sequences set value = max(value, ?) where name = 'objects'";

/** The object sequence's value; null before the first migration made its table. */
async function objectSequenceOf(connection: DatabaseConnection): Promise<number | null> {
  try {
    const [row] = (await connection.executeQuery<{ value: number }>(READ_OBJECT_SEQUENCE)).rows;
    return row === undefined ? null : Number(row.value);
  } catch (error) {
    if (error instanceof Error && /no such table/.test(error.message)) return null;
    throw error;
  }
}

/** What the driver needs of the write connection it runs on. */
interface WriteConnectionHooks {
  inTransaction(): boolean;
  ids: ObjectIdCounter;
  /** Called after each commit (background checkpoints follow commits). */
  committed(): void;
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  readonly #connection: WriteConnectionHooks;
  constructor(config: SqliteDialectConfig, connection: WriteConnectionHooks) {
    super(config);
    this.#config = config;
    this.#connection = connection;
  }
  override createDriver() {
    return new ImmediateSqliteDriver(this.#config, this.#connection);
  }
}

/**
 * Kysely prepares every statement anew; better-sqlite3 statements can be reused, and the engine
 * runs a small set of distinct SQL texts, so keep the most recent ones (LRU, bounded). Rows are
 * built in JavaScript from raw arrays, as on the read connection (reader.ts: cheaper than
 * better-sqlite3's native objects for rows of many columns, e.g. `select *` of a customer).
 */
function withStatementCache(sqlite: BetterSqlite3.Database, beforeEachStatement: () => void, capacity = 500) {
  const cache = new Map<string, RowStatement>();
  return {
    prepare(text: string) {
      // Kysely prepares each statement right before it runs it, synchronously.
      beforeEachStatement();
      let statement = cache.get(text);
      if (statement) {
        cache.delete(text);
      } else {
        statement = withRowsBuiltInJs(sqlite.prepare(text));
        if (cache.size >= capacity) cache.delete(cache.keys().next().value as string);
      }
      cache.set(text, statement);
      return statement;
    },
    close: () => sqlite.close(),
  };
}

export interface SqliteOptions {
  /**
   * better-sqlite3's compiled addon to load instead of node_modules' copy. The desktop app passes the
   * copy built for Electron's ABI (.native/electron-<version>-<platform>-<arch>/), so node_modules keeps the one built for Node.
   */
  nativeBinding?: string | undefined;
  /** Checkpoint the WAL from a worker thread instead of inside commits (a central node: checkpointer.ts). */
  backgroundCheckpoints?: boolean | undefined;
}

/** Opens (creating if needed) an SQLite file tuned for a till: WAL, durable commits, enforced keys. */
/** `file` may also be a serialized database image (in memory; the sync simulation starts from one). */
/**
 * A file not there yet is built aside at the first query (buildAside): the migrations' ~270
 * commits then cost no fsync, and a crash mid-build leaves no half-made database under the name.
 */
export function openSqlite(file: string | Buffer, options: SqliteOptions = {}): Database {
  if (typeof file === 'string' && isNewSqliteFile(file)) return openSqliteAs(file, options, 'built aside');
  // Builds that crashed or lost the race, or whose unlink a power cut prevented, may lie beside it.
  if (typeof file === 'string' && isExistingSqliteFile(file)) removeLeftoverBuilds(file, building.has(resolve(file)));
  return openSqliteAs(file, options, 'node');
}

/** 'building': the aside copy under construction (no fsyncs, no reader, no checkpointer). */
type SqliteUse = 'node' | 'built aside' | 'building';

interface SqliteConnections {
  sqlite: BetterSqlite3.Database;
  reader: BetterSqlite3.Database | null;
  /** Opens another read connection of the file (a long read's snapshot: read-snapshot.ts); null where there is no reader. */
  openReader: (() => BetterSqlite3.Database) | null;
  statements: ReturnType<typeof withStatementCache>;
  checkpointer: ReturnType<typeof startCheckpointer> | null;
}

function openSqliteAs(file: string | Buffer, options: SqliteOptions, use: SqliteUse): Database {
  let connections: SqliteConnections | null = null;
  let endReadSnapshot = () => {};
  const ids = new ObjectIdCounter();
  const connect = () => {
    connections = connectSqlite(file, options, use, () => endReadSnapshot());
    const { sqlite, reader, statements } = connections;
    if (reader) endReadSnapshot = attachReader(db, reader);
    if (connections.openReader) offerSqliteSnapshots(db, connections.openReader, { file: file as string, nativeBinding: options.nativeBinding });
    // What Kysely's SQLite driver does with a statement, for prepared queries inside a transaction.
    const runStatement = (text: string, parameters: readonly unknown[]) => {
      const statement = statements.prepare(text);
      if (statement.reader) return statement.all(...parameters);
      statement.run(...parameters);
      return [];
    };
    attachWriteConnection(db, sqlite, runStatement, ids);
    return statements;
  };
  const hooks: WriteConnectionHooks = {
    inTransaction: () => connections?.sqlite.inTransaction ?? false,
    ids,
    committed: () => connections?.checkpointer?.committed(),
  };
  // Kysely takes its connection at the first query: a new file is built then, asynchronously.
  let openedNow: SqliteDatabase | undefined;
  const database = use === 'built aside' ? async () => (await buildAside(file as string, options), connect()) : async () => openedNow!;
  const db: Kysely<DB> = new Kysely<DB>({ dialect: new ImmediateSqliteDialect({ database }, hooks) });
  // An existing file is opened now, as before: an error opening it is thrown here.
  if (use !== 'built aside') openedNow = connect();
  return {
    db,
    dialect: 'sqlite',
    close: async () => {
      await connections?.checkpointer?.stop();
      if (connections?.openReader) await endOffLoopSnapshots(file as string);
      await db.destroy();
      connections?.reader?.close();
    },
  };
}

function connectSqlite(file: string | Buffer, options: SqliteOptions, use: SqliteUse, beforeEachStatement: () => void): SqliteConnections {
  if (typeof file === 'string') ownerOnly(file);
  const sqlite = new BetterSqlite3(file, options.nativeBinding ? { nativeBinding: options.nativeBinding } : {});
  if (use === 'building') {
    // Nothing to make durable until the finished file is synced and moved into place; a journal
    // in memory still lets a failed statement roll back.
    sqlite.pragma('journal_mode = MEMORY');
    sqlite.pragma('synchronous = OFF');
  } else {
    sqlite.pragma('journal_mode = WAL');
    // FULL: a sale that was answered survives a power cut.
    sqlite.pragma('synchronous = FULL');
  }
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // Statement journals in memory: once one outgrows its in-memory buffer it becomes a temp file for
  // the rest of the transaction, and every later statement that can fail midway (a table with
  // triggers: capture, the ledger's guards) then pwrites each page it touches there: 15 writes per
  // row of a first sync's customers, three times the insert itself (docs/speed.md).
  sqlite.pragma('temp_store = MEMORY');
  // What a command deletes or overwrites (an erased customer's email) is zeroed in the page it
  // leaves, not left readable in the file's free space; FAST: only where no extra I/O is needed.
  sqlite.pragma('secure_delete = FAST');
  lowerEveryLetter(sqlite);
  // A file has a second connection for hot-path reads outside transactions (storage/reader.ts),
  // whose snapshot every statement of the write connection ends, so that reads after a write see it.
  const onDisk = typeof file === 'string' && file !== ':memory:' && file !== '' && use !== 'building' ? file : null;
  const openReader = onDisk
    ? () => {
        const connection = new BetterSqlite3(onDisk, options.nativeBinding ? { nativeBinding: options.nativeBinding } : {});
        lowerEveryLetter(connection);
        return connection;
      }
    : null;
  const reader = openReader ? openReader() : null;
  const statements = withStatementCache(sqlite, beforeEachStatement);
  const checkpointer = onDisk && options.backgroundCheckpoints ? startCheckpointer(sqlite, onDisk, options.nativeBinding) : null;
  return { sqlite, reader, openReader, statements, checkpointer };
}

/** Builds in progress in this process, by file: a second open of the same new file waits for the first's. */
const building = new Map<string, Promise<void>>();

/**
 * Runs every migration on `<file>.building-<pid>` through the same code as any open (hooks,
 * migrator), switches it to WAL, then syncs it and moves it into place (fresh-file.ts).
 */
function buildAside(file: string, options: SqliteOptions): Promise<void> {
  // One build per file, however the path names it (`./punchcard.db` and its absolute path).
  const key = resolve(file);
  const running = building.get(key);
  if (running) return running;
  const build = (async () => {
    const aside = asideFileOf(file);
    removeLeftoverBuilds(file, false);
    if (existsSync(file)) return;
    const made = openSqliteAs(aside, { nativeBinding: options.nativeBinding }, 'building');
    try {
      await migrateToLatest(made.db);
      await sql`pragma journal_mode = WAL`.execute(made.db);
    } catch (error) {
      await made.close();
      removeLeftoverBuilds(file, false);
      throw error;
    }
    await made.close();
    moveIntoPlace(aside, file);
  })();
  building.set(key, build);
  return build.finally(() => building.delete(key));
}

/**
 * SQLite's own lower() folds ASCII letters only ('Ángela' stays 'Ángela'), PostgreSQL's every
 * letter. Every connection of a node replaces it with PostgreSQL's way (deterministic, so an
 * index may use it), so that `lower(name)` sorts and the folded names of the search
 * (folded-names.ts) mean the same on every node. The folded-name indexes fold the accented letters
 * of both cases themselves, so a name written by another connection (the sqlite3 shell) is found
 * alike, unless it holds a capital beyond those (Ø, Ł, Greek).
 */
function lowerEveryLetter(sqlite: BetterSqlite3.Database): void {
  sqlite.function('lower', { deterministic: true }, (value: unknown) => (value === null ? null : lowerAsPostgres(String(value))));
}

/**
 * The database holds customers' personal data: its file is the owner's alone (0600). SQLite gives
 * the -wal and -shm files it creates the database file's mode; files of an older node are fixed.
 */
function ownerOnly(file: string): void {
  if (file === ':memory:' || file === '') return;
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  for (const path of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(path)) chmodSync(path, 0o600);
}

export interface PostgresOptions {
  /**
   * Told when the server ends an idle connection of the pool (a restart, a failover, an idle
   * timeout, pg_terminate_backend): the pool drops it and the next query connects anew.
   */
  onConnectionLost?: ((error: Error) => void) | undefined;
  /**
   * Tables whose writes the change log's triggers capture (taking the write lock): a write to one
   * outside a transaction runs in one that takes the write lock first (storage/write-lock.ts).
   */
  capturedTables?: ReadonlySet<string> | undefined;
}

/** How long a query waits for a connection of the pool (a new one, or one another query returns). */
const CONNECT_TIMEOUT_MS = 15_000;

export function openPostgres(url: string, poolSize = 10, options: PostgresOptions = {}): Database {
  // The driver is loaded at the first connection, not with the module: an SQLite node never loads
  // it (pg's first load also loads Node's fetch, ~30 ms of every store's and tiny central's start).
  const pool = async () => {
    const { default: pg } = await import('pg');
    /** Reads 64-bit integers and numerics (sums) as JS numbers: every value we store is below 2^53. */
    const types = {
      getTypeParser(oid: number, format?: 'text' | 'binary') {
        if (oid === 20 || oid === 1700) return (value: string) => Number(value);
        return pg.types.getTypeParser(oid, format);
      },
    };
    // JIT off: it compiles a query whose estimated cost is high, and a correlated subquery under a
    // LIMIT is estimated high: a first-sync page of customers spent 18 ms of its 132 compiling, to
    // save nothing. The node's queries are short; an `options` in the URL still wins.
    // A connection not had in 15 s (PostgreSQL out of reach without a refusal, every connection held)
    // fails the request as database_unavailable (storage/unavailable.ts) instead of leaving it hanging.
    const created = new pg.Pool({ connectionString: url, max: poolSize, types: types as CustomTypesConfig, options: '-c jit=off', connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    // Without a listener, the pool's 'error' for an idle connection the server ended is thrown
    // from the event loop and stops the process (a central went down with its database's restart).
    // A connection's end reaches both listeners (the client's, then the pool's for an idle one),
    // and a client may raise a second error as its socket closes: told once per connection.
    const told = new WeakSet<object>();
    const lost = (error: Error, client: object) => {
      if (told.has(client)) return;
      told.add(client);
      options.onConnectionLost?.(error);
    };
    created.on('error', (error, client) => lost(error, client));
    // The pool listens only while a connection is idle in it: one a transaction holds between two
    // statements, ended by the server, raised its 'error' with no listener and stopped central (a
    // CI run under load). Its next query fails, and the transaction with it; the process goes on.
    created.on('connect', (client) => client.on('error', (error) => lost(error, client)));
    return created;
  };
  const db = new Kysely<DB>({ dialect: withLazyWriteLock(new PostgresDialect({ pool }), options.capturedTables) });
  offerPostgresSnapshots(db);
  return { db, dialect: 'postgres', close: () => db.destroy() };
}

/** Wraps a Kysely instance built elsewhere (tests use an embedded PostgreSQL this way). */
export function fromKysely(db: Kysely<DB>): Database {
  return { db, dialect: dialectOf(db as Kysely<unknown>), close: () => db.destroy() };
}

/** Opens an SQLite file path or a postgres:// URL; another URL (mysql://…) is refused, not opened as a file. */
export function openDatabaseUrl(location: string, options: SqliteOptions & PostgresOptions = {}): Database {
  if (/^postgres(ql)?:\/\//.test(location)) return openPostgres(location, undefined, options);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(location)) throw new Error(`${location.split('://')[0]}:// is not a database Punchcard opens: use postgres:// (or postgresql://), or an SQLite file path.`);
  return openSqlite(location, options);
}

export async function migrateToLatest(db: Kysely<DB>): Promise<void> {
  const { error } = await migratorOf(db).migrateToLatest();
  if (error) throw error;
}

/** The migrations this version would still run on the database (none on one already up to date). */
export async function pendingMigrations(db: Kysely<DB>): Promise<string[]> {
  return (await migratorOf(db).getMigrations()).filter((m) => m.executedAt === undefined).map((m) => m.name);
}

function migratorOf(db: Kysely<DB>): Migrator {
  return new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
    // Names start with four digits: plain order. Kysely's default, localeCompare, sets up ICU's
    // collator at every start (~12 ms of a node's cold start).
    nameComparator: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
  });
}
