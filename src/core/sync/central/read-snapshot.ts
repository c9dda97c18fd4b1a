import { type Kysely, type RawBuilder, sql } from 'kysely';
import { type Dialect, noIndexOn } from '../../storage/dialect';
import type { DB } from '../../storage/schema';
import { ServiceError } from '../../../shared/errors';
import { pgRowJson, rowArrayOf, sqliteColumns, sqliteRowJson } from '../capture/install-capture';
import type { SnapshotPage, SnapshotRequest } from '../protocol';
import { REPLICATED_TABLES, type ReplicatedTable } from '../replicated-tables';
import type { PairedNode } from './apply-push';
import { countSnapshot } from './count-snapshot';
import { formerMembersOf, withoutPerson } from './former-members';
import { SELF_REFERENCES, targetsAheadOf } from './snapshot-targets-ahead';

/** The tables a snapshot walks, in REPLICATED_TABLES order: identifiers and balances before history. */
export const SNAPSHOT_TABLES: readonly string[] = REPLICATED_TABLES.filter((t) => t.pull).map((t) => t.name);

export const SNAPSHOT_PAGE_MAX = 10_000;

/**
 * A page of a store's first-sync snapshot (docs/sync.md, "First sync"): the vendor's current rows
 * of one table after `after` by id, each shaped exactly as the capture triggers log it (the same
 * omitted columns; ledger entries with their account's holder and currency), and the customers who
 * joined the vendor (or whose survivor did). The log head is read before the rows: every change
 * after it is still in the log, so the store pulls the log from the first page's head once the
 * snapshot is in, and rows are upserts, so what changed meanwhile converges.
 */
export async function readSnapshotPage(db: Kysely<DB>, dialect: Dialect, node: PairedNode, request: SnapshotRequest): Promise<SnapshotPage> {
  const { page, rows } = await readSnapshotRows(db, dialect, node, request);
  return { ...page, rows: rows.map((row) => JSON.parse(row) as Record<string, unknown>) };
}

/** How a page's rows travel over HTTP: objects, as the log ships them, or value arrays under one list of columns. */
export type SnapshotFormat = 'objects' | 'columns';

/**
 * The same page as JSON text for the HTTP reply: the rows are already JSON in the database's
 * answer, so they are joined, not parsed and written again (most of central's work per page).
 */
export async function readSnapshotPageJson(db: Kysely<DB>, dialect: Dialect, node: PairedNode, request: SnapshotRequest, format: SnapshotFormat = 'objects'): Promise<string> {
  const { page, rows, columns } = await readSnapshotRows(db, dialect, node, request, format);
  const { rows: _none, ...rest } = page;
  return `{${columns ? `"columns":${JSON.stringify(columns)},` : ''}"rows":[${rows.join(',')}],${JSON.stringify(rest).slice(1)}`;
}

async function readSnapshotRows(db: Kysely<DB>, dialect: Dialect, node: PairedNode, request: SnapshotRequest, format: SnapshotFormat = 'objects'): Promise<{ page: SnapshotPage; rows: string[]; columns: string[] | null }> {
  const table = REPLICATED_TABLES.find((t) => t.pull && t.name === request.table);
  if (!table) throw new ServiceError('validation_failed', `table must be one of ${SNAPSHOT_TABLES.join(', ')}.`, 'table');
  if (!Number.isSafeInteger(request.after) || request.after < 0) throw new ServiceError('validation_failed', 'after must be an id (0 or more).', 'after');
  if (!Number.isSafeInteger(request.limit) || request.limit < 1 || request.limit > SNAPSHOT_PAGE_MAX) {
    throw new ServiceError('validation_failed', `limit must be between 1 and ${SNAPSHOT_PAGE_MAX}.`, 'limit');
  }
  const head = await logHead(db);
  const { query, columns, json } = await snapshotPageQuery(db, dialect, node.vendorId, table, request, format);
  const found = (await query.execute(db)).rows;
  const last = found.length > 0 ? Number(found[found.length - 1]!.id) : request.after;
  const more = found.length === request.limit;
  // Rows of later pages that this page's rows point at go first (snapshot-targets-ahead.ts); the
  // last page has none after it. `last` and `more` stay the page's own.
  const selfReference = SELF_REFERENCES[table.name];
  let ahead: Array<{ id: number; data: string }> = [];
  if (selfReference && more) {
    const targets = targetsAheadOf(table.name, selfReference, vendorFilter(table, node.vendorId, dialect, 'e'), request.after, last);
    ahead = await selectRows(db, table, json, sql`${vendorFilter(table, node.vendorId, dialect)} and ${targets}`);
  }
  let rows = [...ahead, ...found];
  if (table.name === 'users') rows = await withoutFormerMembers(db, node.vendorId, rows, columns);
  const page: SnapshotPage = { table: table.name, rows: [], last, more, head };
  if (request.estimate) {
    // Counted after the head (the cursor, when this is the first page): a store skips the tables counted empty.
    page.counts = await countSnapshot(db, node.vendorId);
    page.estimate = Object.values(page.counts).reduce((sum, n) => sum + n, 0);
  }
  return { page, rows: rows.map((row) => row.data), columns };
}

/** Customers who left the vendor, as its stores receive them (former-members.ts); every other row as it is. */
async function withoutFormerMembers(db: Kysely<DB>, vendorId: number, rows: Array<{ id: number; data: string }>, columns: string[] | null): Promise<Array<{ id: number; data: string }>> {
  const former = await formerMembersOf(db, vendorId, rows.map((row) => Number(row.id)));
  if (former.size === 0) return rows;
  const wipe = (data: string): string => {
    if (!columns) return JSON.stringify(withoutPerson(JSON.parse(data) as Record<string, unknown>));
    const values = JSON.parse(data) as unknown[];
    const wiped = withoutPerson(Object.fromEntries(columns.map((column, i) => [column, values[i]])));
    return JSON.stringify(columns.map((column) => wiped[column]));
  };
  return rows.map((row) => (former.has(Number(row.id)) ? { id: row.id, data: wipe(row.data) } : row));
}

/** The query of a snapshot page: the vendor's rows of `table` after `request.after` by id, each as JSON (tested to read a range of an index, never to sort). */
export async function snapshotPageQuery(db: Kysely<DB>, dialect: Dialect, vendorId: number, table: ReplicatedTable, request: Pick<SnapshotRequest, 'after' | 'limit'>, format: SnapshotFormat) {
  const shape = format === 'columns' ? await rowArrayOf(db, dialect, table, 'r') : null;
  const json = shape?.json ?? (await rowJsonOf(db, dialect, table));
  const query = rowsQuery(table, json, sql`${vendorFilter(table, vendorId, dialect)} and r.id > ${request.after}`, request.limit);
  return { query, columns: shape?.columns ?? null, json };
}

/** The vendor's change-log head; read before rows, every change after it is still in the log. */
export async function logHead(db: Kysely<DB>): Promise<number> {
  const head = await db.selectFrom('sync_changes').select((eb) => eb.fn.max('seq').as('head')).executeTakeFirst();
  return Number(head?.head ?? 0);
}

/** Rows of a replicated table (aliased `r` in `where`) by id, each as the JSON text the capture triggers log. */
export async function rowsAsJson(db: Kysely<DB>, dialect: Dialect, table: ReplicatedTable, where: RawBuilder<unknown>, limit?: number): Promise<Array<{ id: number; data: string }>> {
  return selectRows(db, table, await rowJsonOf(db, dialect, table), where, limit);
}

/** The expression that gives a row (aliased `r`) as the JSON object the capture triggers log. */
async function rowJsonOf(db: Kysely<DB>, dialect: Dialect, table: ReplicatedTable): Promise<string> {
  return dialect === 'postgres' ? `(${pgRowJson(table, 'r')})::text` : sqliteRowJson(table, await sqliteColumns(db, table), 'r');
}

async function selectRows(db: Kysely<DB>, table: ReplicatedTable, json: string, where: RawBuilder<unknown>, limit?: number): Promise<Array<{ id: number; data: string }>> {
  return (await rowsQuery(table, json, where, limit).execute(db)).rows;
}

function rowsQuery(table: ReplicatedTable, json: string, where: RawBuilder<unknown>, limit?: number) {
  return sql<{ id: number; data: string }>`select r.id as id, ${sql.raw(json)} as data from ${sql.table(table.name)} r
    where ${where} order by r.id ${limit === undefined ? sql`` : sql`limit ${limit}`}`;
}

/** The per-vendor filter of read-changes.ts, on current rows (aliased `alias`). */
function vendorFilter(table: ReplicatedTable, vendorId: number, dialect: Dialect, alias = 'r') {
  if (table.vendorColumn === 'id') return sql`${sql.ref(`${alias}.id`)} = ${vendorId}`;
  // SQLite walks the id index from the page's start and keeps the vendor's rows (`+` keeps it off
  // an index on vendor_id: through one, it found all the vendor's rows and sorted them for every
  // page, 143 ms a page of memberships at 1M and 14 s of a first sync). An index on (vendor_id,
  // id) would serve pages too, but without statistics SQLite then prefers it for a customer's own
  // rows in id order and reads every member of the vendor.
  if (table.vendorColumn === 'vendor_id') return sql`${noIndexOn(dialect, `${alias}.vendor_id`)} = ${vendorId}`;
  // Customers belong to no vendor: those who joined this one, and those merged into one who did.
  const r = (column: string) => sql.ref(`${alias}.${column}`);
  return sql`(exists (select 1 from user_vendors uv where uv.user_id = ${r('id')} and uv.vendor_id = ${vendorId})
    or (${r('merged_into')} is not null and exists (select 1 from user_vendors uv where uv.user_id = ${r('merged_into')} and uv.vendor_id = ${vendorId})))`;
}
