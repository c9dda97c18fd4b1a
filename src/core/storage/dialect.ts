import { type Kysely, SqliteAdapter, type SqlBool, sql, type RawBuilder } from 'kysely';
import type { DB } from './schema';

export type Dialect = 'sqlite' | 'postgres';

export function dialectOf(db: Kysely<unknown>): Dialect {
  return db.getExecutor().adapter instanceof SqliteAdapter ? 'sqlite' : 'postgres';
}

/**
 * Takes a row until the transaction ends, on PostgreSQL (`for update`): a writer that reads what it
 * then decides on goes after another process's writer of the same row. SQLite already runs one
 * writer at a time (BEGIN IMMEDIATE).
 */
export async function lockRow(db: Kysely<DB>, dialect: Dialect, table: 'vendors' | 'ledger_accounts' | 'user_vendors' | 'orders' | 'payment_charges', id: number): Promise<void> {
  if (dialect !== 'postgres') return;
  await db.selectFrom(table as 'vendors').select('id').where('id', '=', id).forUpdate().execute();
}

/**
 * Takes a named lock until the transaction ends, on PostgreSQL (a transaction-scoped advisory lock
 * on the key's hash): for a decision on rows that may not exist yet, such as a receipt number two
 * tills send at once. A statement after it sees what the holder committed (READ COMMITTED). Two
 * keys sharing a hash only wait for each other. SQLite already runs one writer at a time.
 */
export async function lockKey(db: Kysely<DB>, dialect: Dialect, key: string): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(db);
}

/**
 * A column a condition reads without letting SQLite pick an index on it (`+column`): SQLite plans
 * without statistics, and for an equality on a column like vendor_id it walks that column's index
 * through every row of the vendor even where another index would read a range (a page after a
 * cursor, a name prefix). PostgreSQL, which has statistics, gets the plain column.
 */
export function noIndexOn(dialect: Dialect, column: string): RawBuilder<unknown> {
  return dialect === 'sqlite' ? sql`+${sql.ref(column)}` : sql.ref(column);
}

/**
 * `column in (values)` for a long list. PostgreSQL takes the list as one array parameter, which it
 * parses and plans faster than a thousand parameters, and as a set to join (`in (select unnest …)`):
 * it then looks each value up in an index on the column even when its statistics are stale, where
 * `= any` of a thousand values had it read every row matching the other conditions (a store's
 * orders, to find a page's receipts: 19 ms a page at 20,000 orders, growing with the table).
 */
export function inList<T>(db: Kysely<T>, column: string, values: readonly (number | string)[], type: 'bigint' | 'text'): RawBuilder<SqlBool> {
  if (dialectOf(db as Kysely<unknown>) === 'postgres') return sql<SqlBool>`${sql.ref(column)} in (select unnest(${values}::${sql.raw(type)}[]))`;
  return sql<SqlBool>`${sql.ref(column)} in (${sql.join(values)})`;
}

/**
 * Column type for normalised lookup keys (names, card numbers). Prefix filters compare them with
 * plain `>=`/`<` ranges, which only mean "starts with" under byte order: PostgreSQL must use the
 * C collation for these columns; SQLite compares bytes already.
 */
export function keyColumnType(dialect: Dialect): RawBuilder<unknown> {
  return dialect === 'postgres' ? sql`text collate "C"` : sql`text`;
}

/** The smallest string greater than every string starting with `prefix` (byte order). */
export function prefixUpperBound(prefix: string): string {
  return `${prefix}\u{10FFFF}`;
}
