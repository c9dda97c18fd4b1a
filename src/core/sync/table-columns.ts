import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../storage/dialect';
import { mapPerDatabase } from '../storage/per-database';
import type { DB } from '../storage/schema';

const columnsOf = mapPerDatabase<string, Set<string>>();

/**
 * The columns a table has in this database. Rows from another node may carry columns this one does
 * not know (a newer version): only known columns are written.
 */
export async function tableColumns(db: Kysely<DB>, dialect: Dialect, table: string): Promise<Set<string>> {
  const tables = columnsOf(db.getExecutor().adapter);
  const known = tables.get(table);
  if (known) return known;
  const rows =
    dialect === 'postgres'
      ? (await sql<{ name: string }>`select column_name as name from information_schema.columns where table_name = ${table} and table_schema = current_schema()`.execute(db)).rows
      : (await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db)).rows;
  const columns = new Set(rows.map((r) => r.name));
  tables.set(table, columns);
  return columns;
}

/** Keeps only the columns the table has here, over `defaults` (values of columns the data may lack). */
export function pickColumns(data: Record<string, unknown>, columns: Set<string>, defaults?: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const row: Record<string, unknown> = defaults ? { ...defaults } : {};
  for (const key in data) if (columns.has(key)) row[key] = data[key];
  return row;
}

/** Whether every column of `data` is one the table has here: the row can then be written as it is. */
export function hasOnlyKnownColumns(data: Readonly<Record<string, unknown>>, columns: Set<string>): boolean {
  for (const key in data) if (!columns.has(key)) return false;
  return true;
}
