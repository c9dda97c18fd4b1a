import type { Kysely, Selectable } from 'kysely';
import { survivingCustomerId } from '../../customers/customer-store';
import type { Engine } from '../../engine';
import { type RecordedSale, sameSaleFigures } from '../../orders/receipt-reuse';
import { findOrder } from '../../orders/place-order';
import { reverseOrder } from '../../orders/void-order';
import { nodeOfId } from '../../storage/ids';
import { preparedRowById } from '../../storage/prepared';
import type { DB, OrdersTable } from '../../storage/schema';
import type { PairedNode } from './apply-push';
import { recordSyncException } from './sync-exceptions';
import { orderSubject } from '../../../shared/exception-subject';

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
  const storeId = Number(row['store_id']);
  const earlier = await findOrder(trx, storeId, receipt);
  if (!earlier) return false;
  const renamed = await freeRenamedReceipt(trx, storeId, receipt, node.id);
  row['receipt_number'] = renamed;
  if (await isSameSale(trx, earlier, row)) {
    await recordSyncException(trx, engine, node, 'sale_repeated', orderSubject(String(row['id'])), { key: 'sale_repeated', params: { receipt, order: Number(earlier.id), renamed } });
    return true;
  }
  await recordSyncException(trx, engine, node, 'receipt_reused', orderSubject(String(row['id'])), { key: 'receipt_reused', params: { receipt, order: Number(earlier.id), renamed } });
  return false;
}

async function isSameSale(trx: Kysely<DB>, earlier: RecordedSale, row: StoreOrder): Promise<boolean> {
  // A store's row as it sent it: the columns of an order, checked by the figures' comparison.
  if (typeof row['redemptions'] !== 'string' || !sameSaleFigures(earlier, row as unknown as RecordedSale)) return false;
  // The row's customer is already the survivor of any merge (apply-push.ts); the earlier one may predate it.
  return (await survivingCustomerId(trx, Number(earlier.user_id))) === Number(row['user_id']);
}

/**
 * `<receipt>~<node>`, or `<receipt>~<node>.2`, `.3`… when that is taken too (a third copy, or a
 * receipt a till sent with the suffix already): a taken name failed the event on the orders'
 * unique key, and its sale never reached central.
 */
async function freeRenamedReceipt(trx: Kysely<DB>, storeId: number, receipt: string, nodeId: number): Promise<string> {
  const base = `${receipt}~${nodeId}`;
  for (let n = 1; ; n += 1) {
    const name = n === 1 ? base : `${base}.${n}`;
    if (!(await findOrder(trx, storeId, name))) return name;
  }
}

/** The order a repeat (renameReusedReceipt) was judged against, when `order` is one. */
async function saleRepeatedBy(trx: Kysely<DB>, order: Selectable<OrdersTable>): Promise<Selectable<OrdersTable> | undefined> {
  const renamed = /^(.*)~(\d+)(?:\.\d+)?$/s.exec(order.receipt_number);
  if (!renamed || Number(renamed[2]) !== nodeOfId(Number(order.id))) return undefined;
  const earlier = await findOrder(trx, Number(order.store_id), renamed[1]!);
  return earlier && (await isSameSale(trx, earlier, order as unknown as StoreOrder)) ? earlier : undefined;
}

/**
 * A store's void of its copy of a sale that central voided as a repeat: the cashier voided the sale,
 * not the copy (one node would have voided the sale the retry was answered with). So the sale's
 * standing order is voided too, unless it is already; the store's reversals of the copy are undone
 * as any repeated void's are (repeated-void.ts), so the copy stays reversed once.
 */
export async function voidSaleOfVoidedRepeat(trx: Kysely<DB>, engine: Engine, node: PairedNode, orderId: number): Promise<void> {
  const [copy] = await preparedRowById('orders')(trx, orderId);
  if (!copy) return;
  const standing = await saleRepeatedBy(trx, copy as Selectable<OrdersTable>);
  if (!standing || standing.status === 'voided') return;
  await reverseOrder(trx, engine, standing);
  await recordSyncException(trx, engine, node, 'sale_repeated', orderSubject(standing.id), { key: 'repeat_voided', params: { order: orderId, receipt: copy.receipt_number as string, node: node.id } });
}

/** Voids at central the repeat of a sale (renameReusedReceipt), once every row of its event is in. */
export async function voidRepeatedSale(trx: Kysely<DB>, engine: Engine, orderId: number): Promise<void> {
  const [order] = await preparedRowById('orders')(trx, orderId);
  if (order) await reverseOrder(trx, engine, order as Selectable<OrdersTable>);
}
