import type { Kysely, Selectable } from 'kysely';
import { ServiceError } from '../../shared/errors';
import { mapPerDatabase } from '../storage/per-database';
import { prepared } from '../storage/prepared';
import { readerOf } from '../storage/reader';
import type { CurrenciesTable, DB, EarningRulesTable, PointsOfSaleTable, SpendingRulesTable, StoresTable, TiersTable, VendorsTable } from '../storage/schema';

/**
 * A vendor's program data — settings, stores, points of sale, currencies, earning rules, rewards,
 * tiers — kept in memory per database (issue 13). It changes rarely and every counter call reads it.
 *
 * Invalidation: triggers (migration 0017) give `vendor_versions` a new random value on every write to
 * those tables, whoever writes (a use case, a pulled sync change on a store, the CLI, another central
 * process on the same PostgreSQL). Each call reads that one row and reloads the vendor's data when it
 * moved, so a change is in force on the next call of every process. Rows are as stored: callers
 * filter (ACTIVE, deleted, time windows) as their queries did.
 */
export interface ProgramData {
  vendor: Selectable<VendorsTable>;
  stores: Map<number, Selectable<StoresTable>>;
  /** Oldest first. */
  pointsOfSale: Array<Selectable<PointsOfSaleTable>>;
  /** Oldest first (created_at, id), deleted ones included. */
  currencies: Array<Selectable<CurrenciesTable>>;
  /** By id. */
  earningRules: Array<Selectable<EarningRulesTable>>;
  /** By cost, then id. */
  spendingRules: Array<Selectable<SpendingRulesTable>>;
  /** By threshold, then id. */
  tiers: Array<Selectable<TiersTable>>;
}

interface Cached {
  version: number;
  data: ProgramData;
}

const cacheOf = mapPerDatabase<number, Cached>();

const versionRow = prepared((db, vendorId: number) => db.selectFrom('vendor_versions').select('version').where('vendor_id', '=', vendorId));

/**
 * The vendor's version (0 before the first write since migration 0017): one primary-key read, once
 * per read snapshot on the read connection (a request's key check and program data share it). Also
 * what cached api keys are checked against (migration 0021).
 */
export async function versionOf(db: Kysely<DB>, vendorId: number): Promise<number> {
  const reader = readerOf(db);
  if (reader) return reader.once(`version:${vendorId}`, () => versionIn(versionRow.now(db, vendorId)!));
  // Elsewhere as any prepared read: in a command's SQLite transaction (every check-in and order
  // reads it there), on its statements without Kysely's executor.
  return versionIn(await versionRow(db, vendorId));
}

function versionIn(rows: unknown[]): number {
  return Number((rows[0] as { version: number } | undefined)?.version ?? 0);
}

/**
 * The vendor's program data, from memory when no write moved it since it was read. `cacheOwner` is
 * the node's database handle (engine.db); `db` may be a transaction of it (reads see its writes).
 */
export async function programData(cacheOwner: Kysely<DB>, vendorId: number, db: Kysely<DB> = cacheOwner): Promise<ProgramData> {
  const cache = cacheOf(cacheOwner);
  // The version is read before the data: data newer than its label only costs a reload later.
  const version = await versionOf(db, vendorId);
  const hit = cache.get(vendorId);
  if (hit && hit.version === version) return hit.data;
  const data = await loadProgram(db, vendorId);
  cache.set(vendorId, { version, data });
  return data;
}

async function loadProgram(db: Kysely<DB>, vendorId: number): Promise<ProgramData> {
  const [vendor, stores, pointsOfSale, currencies, earningRules, spendingRules, tiers] = await Promise.all([
    db.selectFrom('vendors').selectAll().where('id', '=', vendorId).executeTakeFirst(),
    db.selectFrom('stores').selectAll().where('vendor_id', '=', vendorId).execute(),
    db.selectFrom('points_of_sale').selectAll().where('vendor_id', '=', vendorId).orderBy('id').execute(),
    db.selectFrom('currencies').selectAll().where('vendor_id', '=', vendorId).orderBy('created_at').orderBy('id').execute(),
    db.selectFrom('earning_rules').selectAll().where('vendor_id', '=', vendorId).orderBy('id').execute(),
    db.selectFrom('spending_rules').selectAll().where('vendor_id', '=', vendorId).orderBy('cost').orderBy('id').execute(),
    db.selectFrom('tiers').selectAll().where('vendor_id', '=', vendorId).orderBy('threshold').orderBy('id').execute(),
  ]);
  if (!vendor) throw new ServiceError('vendor_not_found', undefined, 'vendor');
  return { vendor, stores: new Map(stores.map((s) => [s.id, s])), pointsOfSale, currencies, earningRules, spendingRules, tiers };
}

/** Inside [starts_at, ends_at): the window test the rule queries made in SQL. */
export function inWindow(row: { starts_at: number | null; ends_at: number | null }, now: number): boolean {
  return (row.starts_at === null || row.starts_at <= now) && (row.ends_at === null || row.ends_at > now);
}
