import type { Engine } from '../engine';
import { noIndexOn } from '../storage/dialect';

/** A sale an exception names ("order 123" as its subject, or in its message), as the chain page shows it. */
export interface ExceptionOrder {
  id: number;
  /** Its receipt number as central holds it now: the cashier's, or `R-9~5` once central renamed a reused one. */
  receiptNumber: string;
  /** Its customer, where the back office shows the sale (their ledger, by receipt); null when they are not a member of the program now. */
  customer: number | null;
}

// The subject and the message keep orders' ids (shared/exception-subject.ts): receipts repeat
// across stores and central renames a reused one. A chain operator finds a sale by its receipt and
// its customer, so the listing looks them up: one read of the page's orders by their keys,
// exceptions stored before included.

/** The orders of these ids, by id; an order central does not hold (or another program's) is left out. */
export async function ordersNamed(engine: Engine, vendorId: number, orderIds: readonly number[]): Promise<Map<number, ExceptionOrder>> {
  const ids = [...new Set(orderIds.filter((id) => Number.isSafeInteger(id)))];
  if (ids.length === 0) return new Map();
  const rows = await ordersNamedQuery(engine, vendorId, ids).execute();
  return new Map(rows.map((r) => [Number(r.id), { id: Number(r.id), receiptNumber: r.receipt_number, customer: r.member === null ? null : Number(r.member) }]));
}

/**
 * The page's orders by their keys. `+vendor_id` on SQLite: through the (vendor_id, created_at) index
 * it read every order of the program to find a page's few (2.5 s for the chain page of a year-old
 * central, nineteenth round). Exported for the plan test.
 */
export const ordersNamedQuery = (engine: Engine, vendorId: number, ids: readonly number[]) =>
  engine.db
    .selectFrom('orders as o')
    .leftJoin('user_vendors as m', (join) => join.onRef('m.user_id', '=', 'o.user_id').on('m.vendor_id', '=', vendorId).on('m.removed_at', 'is', null))
    .select(['o.id', 'o.receipt_number', 'm.user_id as member'])
    .where(noIndexOn(engine.dialect, 'o.vendor_id'), '=', vendorId)
    .where('o.id', 'in', ids);
