import { type Kysely, sql } from 'kysely';
import type { DB } from '../storage/schema';

/** A ledger entry as the back office lists it, with where it happened when an order says so. */
export interface CustomerLedgerEntry {
  id: number;
  currencyId: string;
  amount: number;
  kind: string;
  referenceType: string | null;
  referenceId: string | null;
  createdAt: number;
  /** The store of the order the entry came from (its void's too); null for entries of no order (reloads, adjustments, expiry…). */
  storeId: number | null;
  storeName: string | null;
  /** The order's receipt number; on a reversal, the receipt it reverses. */
  receiptNumber: string | null;
  /** The entry this one reverses (a void's reversal, a refused pay-back), when it is one. */
  reversesId: number | null;
}

/** How many of a customer's latest entries the back office shows. */
export const LEDGER_SHOWN = 50;

/**
 * A customer's latest entries in the program, each with its order's store and receipt, in one
 * query: an order's entries (and its void's reversals) carry the order's id as text; the CASE
 * casts only those, so PostgreSQL never reads another reference (a promotion's id) as a number,
 * and the order and store are each one lookup by primary key. Exported for the plan test.
 */
export const customerLedgerQuery = (db: Kysely<DB>, vendorId: number, userId: number) =>
  db
    .selectFrom('ledger_entries as e')
    .innerJoin('ledger_accounts as a', 'a.id', 'e.account_id')
    .innerJoin('currencies as c', 'c.id', 'a.currency_id')
    .leftJoin('orders as o', (join) => join.on('o.id', '=', sql<number>`case when ${sql.ref('e.reference_type')} = 'order' then cast(${sql.ref('e.reference_id')} as bigint) end`))
    .leftJoin('stores as s', 's.id', 'o.store_id')
    .select(['e.id', 'c.public_id', 'e.amount', 'e.kind', 'e.reference_type', 'e.reference_id', 'e.created_at', 'e.reverses_id', 'o.receipt_number', 'o.store_id', 's.name as store_name'])
    .where('a.vendor_id', '=', vendorId)
    .where('a.holder_type', '=', 'user')
    .where('a.holder_id', '=', userId)
    .orderBy('e.created_at', 'desc')
    .orderBy('e.id', 'desc')
    .limit(LEDGER_SHOWN);

export async function customerLedger(db: Kysely<DB>, vendorId: number, userId: number): Promise<CustomerLedgerEntry[]> {
  const rows = await customerLedgerQuery(db, vendorId, userId).execute();
  return rows.map((e) => ({
    id: Number(e.id),
    currencyId: e.public_id,
    amount: Number(e.amount),
    kind: e.kind,
    referenceType: e.reference_type,
    referenceId: e.reference_id,
    createdAt: Number(e.created_at),
    storeId: e.store_id === null ? null : Number(e.store_id),
    storeName: e.store_name,
    receiptNumber: e.receipt_number,
    reversesId: e.reverses_id === null ? null : Number(e.reverses_id),
  }));
}
