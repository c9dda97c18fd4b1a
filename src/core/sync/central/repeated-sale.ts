import type { Kysely, Selectable } from 'kysely';
import { survivingCustomerId } from '../../customers/customer-store';
import type { Engine } from '../../engine';
import { type RecordedSale, sameSaleFigures } from '../../orders/receipt-reuse';
import { reverseOrder } from '../../orders/void-order';
import { preparedRowById } from '../../storage/prepared';
import type { DB, OrdersTable } from '../../storage/schema';
import type { PairedNode } from './apply-push';
import { recordSyncException } from './sync-exceptions';

// Receipt numbers are unique per store, but each node of a store only knows its own until central
// sees them. A till that fails over between two nodes of its store (its first try answered, the reply
// lost) records one sale at both; so may a node restored from a backup that the till sends its retry
// to. Either way both copies earned and spent. One node would have answered the retry with the first
// reply and moved nothing (orders/receipt-reuse.ts); central judges the copy the same way — the same
// customer, subtotal, total, quick pay and rewards, dated within 12 hours — keeps it renamed, like any
// reused receipt, and voids it, so the chain ends as one node would. A different sale on the number
// is kept and renamed only. The void flows to every node with the next pull.

type StoreOrder = Record<string, unknown>;

/**
 * A store's new order whose receipt number central already holds for the store: renamed
 * `<receipt>~<node>`, with an exception for staff. Returns true when it repeats the sale that holds
 * the number, to be voided once its event is applied (voidRepeatedSale).
 */
export async function renameReusedReceipt(trx: Kysely<DB>, engine: Engine, node: PairedNode, row: StoreOrder): Promise<boolean> {
  const receipt = String(row['receipt_number']);
  const earlier = await trx.selectFrom('orders').selectAll().where('store_id', '=', Number(row['store_id'])).where('receipt_number', '=', receipt).executeTakeFirst();
  if (!earlier) return false;
  const renamed = `${receipt}~${node.id}`;
  row['receipt_number'] = renamed;
  if (await isSameSale(trx, earlier, row)) {
    await recordSyncException(
      trx,
      engine,
      node,
      'sale_repeated',
      `order ${String(row['id'])}`,
      `receipt ${receipt} came again with the sale of order ${earlier.id} (same customer, amounts and rewards within 12 hours: a till that sent it to two nodes); kept as ${renamed} and voided, order ${earlier.id} stands`,
    );
    return true;
  }
  await recordSyncException(trx, engine, node, 'receipt_reused', `order ${String(row['id'])}`, `receipt ${receipt} was already used by order ${earlier.id}; kept as ${renamed}`);
  return false;
}

async function isSameSale(trx: Kysely<DB>, earlier: RecordedSale, row: StoreOrder): Promise<boolean> {
  // A store's row as it sent it: the columns of an order, checked by the figures' comparison.
  if (typeof row['redemptions'] !== 'string' || !sameSaleFigures(earlier, row as unknown as RecordedSale)) return false;
  // The row's customer is already the survivor of any merge (apply-push.ts); the earlier one may predate it.
  return (await survivingCustomerId(trx, Number(earlier.user_id))) === Number(row['user_id']);
}

/** Voids at central the repeat of a sale (renameReusedReceipt), once every row of its event is in. */
export async function voidRepeatedSale(trx: Kysely<DB>, engine: Engine, orderId: number): Promise<void> {
  const [order] = await preparedRowById('orders')(trx, orderId);
  if (order) await reverseOrder(trx, engine, order as Selectable<OrdersTable>);
}
