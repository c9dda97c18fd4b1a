import { type Kysely, SqliteAdapter, sql, type RawBuilder } from 'kysely';

export type Dialect = 'sqlite' | 'postgres';

export function dialectOf(db: Kysely<unknown>): Dialect {
  return db.getExecutor().adapter instanceof SqliteAdapter ? 'sqlite' : 'postgres';
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
