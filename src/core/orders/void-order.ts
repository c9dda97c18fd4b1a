import type { Kysely, Selectable } from 'kysely';
import { ServiceError } from '../../shared/errors';
import type { StoreScope } from '../credentials/authenticate';
import { type Engine, transact } from '../engine';
import { recordOrderEvent } from '../webhooks/events';
import { postEntry } from '../ledger/ledger';
import { balancesAfter } from './balances-after';
import type { OrderResult } from './order-result';
import { lockRow } from '../storage/dialect';
import type { DB, OrdersTable } from '../storage/schema';
import { findOrder, lockReceipt } from './place-order';
import { recordTransaction } from './record-transaction';
import { takeBackTier } from './tier-progress';

/**
 * DELETE /order: every ledger entry of the order gets a compensating entry (points earned go, points
 * and quick pay spent come back), the history record is marked Voided and a void record is added.
 * Points earned and already spent elsewhere leave the balance negative: the merchant's refund
 * stands, and the customer's next earnings settle it. A tier the order's points got is taken back
 * (takeBackTier). Voiding twice answers the same result.
 */
export async function voidOrder(engine: Engine, scope: StoreScope, receiptNumber: string): Promise<OrderResult> {
  const { result, published } = await transact(engine, async (trx) => {
    // Two voids of one receipt at once (a retry after a timeout) must not reverse it twice.
    await lockReceipt(trx, engine, scope.storeId, receiptNumber.trim());
    let order = await findOrder(trx, scope.storeId, receiptNumber.trim());
    if (!order || order.vendor_id !== scope.vendorId) throw orderNotFound(engine);
    if (engine.dialect === 'postgres') {
      // A store's void of it may be arriving in a push at central: the row's lock orders the two,
      // and it is read again after (a void the push applied first answers its stored reply).
      await lockRow(trx, engine.dialect, 'orders', order.id);
      order = (await findOrder(trx, scope.storeId, receiptNumber.trim()))!;
    }
    return reverseOrder(trx, engine, order);
  });
  if (published) engine.events.publish({ type: 'order.voided', vendorId: scope.vendorId, storeId: scope.storeId, sessionId: null, orderId: result.orderId, at: engine.clock.now() });
  return result;
}

/**
 * The order is not here. A store node cut off from central holds only the sales its own counters
 * made since: one sold at another node of the store reaches it with central. Said so, not "no such
 * order", to a cashier voiding it there (same code: a POS handles both alike).
 */
function orderNotFound(engine: Engine): ServiceError {
  if (engine.programRole !== 'replica' || engine.centralLink.reachable) return new ServiceError('order_not_found', undefined, 'receipt_number');
  return new ServiceError(
    'order_not_found',
    'No order with that receipt number is at this store node. The store cannot reach central now: a sale made at another node of the store arrives when it can; void it there, or again later.',
    'receipt_number',
  );
}

/**
 * Reverses a placed order in the caller's transaction (its row read, and on PostgreSQL locked, by
 * the caller): the void of DELETE /order, and central's of a sale a store sent again
 * (sync/central/repeated-sale.ts). An order already voided answers its stored void.
 */
export async function reverseOrder(trx: Kysely<DB>, engine: Engine, order: Selectable<OrdersTable>): Promise<{ result: OrderResult; published: boolean }> {
  const placed = JSON.parse(order.reply) as OrderResult;
  const now = engine.clock.now();
  if (order.status === 'voided') {
    const again = order.void_reply ? (JSON.parse(order.void_reply) as OrderResult) : withoutPlacedState({ ...placed, status: 'Voided' as const });
    return { result: again, published: false };
  }

  const entries = await trx
    .selectFrom('ledger_entries')
    .select(['id', 'account_id', 'amount', 'kind'])
    .where('reference_type', '=', 'order')
    .where('reference_id', '=', String(order.id))
    .where('reverses_id', 'is', null)
    .orderBy('id')
    .execute();
  for (const entry of entries) {
    await postEntry(trx, engine, entry.account_id, {
      amount: -entry.amount,
      kind: `${entry.kind}_reversal`,
      referenceType: 'order',
      referenceId: String(order.id),
      reversesId: entry.id,
    });
  }
  const balances = await balancesAfter(trx, { vendorId: order.vendor_id, userId: order.user_id }, placed.balances.quickPay.currency?.id ?? null);
  const voided: OrderResult = withoutPlacedState({ ...placed, status: 'Voided', balances });
  await trx.updateTable('orders').set({ status: 'voided', voided_at: now, void_reply: JSON.stringify(voided) }).where('id', '=', order.id).execute();
  await recordOrderEvent(trx, engine, 'order.voided', { id: order.id, vendorId: order.vendor_id });
  if (placed.transactionId !== null) {
    await trx.updateTable('transactions').set({ status: 'Voided' }).where('id', '=', placed.transactionId).execute();
    await recordTransaction(trx, engine, {
      vendorId: order.vendor_id,
      userId: order.user_id,
      storeId: order.store_id,
      orderId: order.id,
      kind: 'void',
      occurredAt: now,
      total: -order.total,
      quickPayUsed: 0,
      quickPayLoaded: order.quick_pay_used,
      quickPayBalance: balances.quickPay.amount,
      items: JSON.parse(order.items) as unknown[],
      taxes: JSON.parse(order.taxes) as unknown[],
      receipts: [{ receipt_number: order.receipt_number, till: order.till, payment_method: order.payment_method, voids: placed.transactionId }],
      rewards: [
        ...placed.earned.map((e) => ({ object: 'reward', kind: 'earned_reversed', name: e.ruleName, amount: -e.points, currency: e.currency.name })),
        ...placed.redeemed.map((r) => ({ object: 'reward', kind: 'redeemed_reversed', id: r.rewardId, name: r.name, amount: r.cost, currency: r.currency.name })),
      ],
      status: 'Voided',
    });
  }
  // A tier the order's points got goes with them (an order that earned nothing costs no read).
  if (placed.pointsEarned > 0) {
    await takeBackTier(trx, engine, { vendorId: order.vendor_id, userId: order.user_id }, {
      orderId: order.id,
      storeId: order.store_id,
      placedAt: order.created_at,
      tierBefore: placed.tierBefore,
      receipt: { receipt_number: order.receipt_number, till: order.till, payment_method: order.payment_method },
      quickPayBalance: balances.quickPay.amount,
    });
  }
  return { result: voided, published: true };
}

/** A void's reply tells the balances after it; the tier, auto reload and expirations the order left are not the void's to repeat. */
function withoutPlacedState(result: OrderResult): OrderResult {
  const { tierAfter: _tier, autoReloadQueued: _reload, loyaltyExpiring: _expiring, ...rest } = result;
  return rest;
}
