import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CurrencyInfo } from '../../core/balances/balance-store';
import type { ExpiringAmount } from '../../core/balances/expirations';
import { toMajorUnits } from '../../shared/money';
import type { Engine } from '../../core/engine';
import type { OrderResult, TierShown } from '../../core/orders/order-result';
import { placeOrder } from '../../core/orders/place-order';
import { voidOrder } from '../../core/orders/void-order';
import { isServiceError } from '../../shared/errors';
import { Type } from 'typebox';
import { ApiKeyQuery, OrderBody, OrderReplySchema, SuccessFalseSchema, VoidOrderBody } from '../../shared/schemas/onscreen';
import { toUnixSeconds } from '../../shared/time';
import { requireApiKey, storeOf } from '../auth/api-key';

const tags = ['Orders'];

const currencyWire = (c: CurrencyInfo) => ({ id: c.id, name: c.name, code: c.code });

/** The order reply: what moved, and the balances after (points as integers, money in major units). */
export function orderWire(r: OrderResult) {
  const major = (minor: number) => toMajorUnits(minor, r.digits);
  return {
    object: 'order' as const,
    id: r.orderId,
    receipt_number: r.receiptNumber,
    status: r.status,
    date: toUnixSeconds(r.orderedAt),
    user: { user_id: String(r.user.id), first_name: r.user.firstName, last_name: r.user.lastName },
    points_earned: r.pointsEarned,
    points_spent: r.pointsSpent,
    quick_pay_used: major(r.quickPayUsed),
    earned: r.earned.map((e) => ({ rule: e.ruleName, currency: currencyWire(e.currency), points: e.points })),
    redeemed: r.redeemed.map((x) => ({ reward: x.rewardId, name: x.name, currency: currencyWire(x.currency), cost: x.cost })),
    balances: {
      // What still expires, as the retrieve reply shows it (only where something does; absent on voids and older replies).
      loyalty: r.balances.loyalty.map((b) => {
        const expiring = r.loyaltyExpiring?.[b.currency.id];
        return { currency: currencyWire(b.currency), amount: b.amount, ...(expiring ? { expiring: expiringWire(expiring) } : {}) };
      }),
      quick_pay: { currency: r.balances.quickPay.currency && currencyWire(r.balances.quickPay.currency), amount: major(r.balances.quickPay.amount) },
    },
    transaction_id: r.transactionId,
    // The tier after the order and the next one (absent on voids and replies stored before), and an auto reload on its way.
    ...(r.tierAfter ? { tier: { object: 'tier_rules' as const, current: tierRef(r.tierAfter.current), next: tierRef(r.tierAfter.next) } } : {}),
    auto_reload_queued: r.autoReloadQueued ?? false,
  };
}

const tierRef = (tier: TierShown | null) => tier && { object: 'tier' as const, ...tier };

const expiringWire = (days: ExpiringAmount[]) => {
  const data = days.map((e) => ({ date: toUnixSeconds(e.at), amount: e.amount }));
  return { data, page_size: Math.max(data.length, 25), count: data.length, page: 1 };
};

/**
 * Some POS systems cannot handle an error status on an order. For an API key whose error mode is
 * `success_false`, business errors (422) answer 200 `{"success": false, "error": {code, message}}`.
 */
async function businessErrorsAsSuccessFalse(request: FastifyRequest, reply: FastifyReply, error: unknown) {
  if (request.store?.errorMode === 'success_false' && isServiceError(error) && error.status === 422) {
    return reply.code(200).send({ success: false, error: { code: error.code, message: error.message, ...(error.field ? { field: error.field } : {}) } });
  }
  throw error;
}

/** In-store ordering: POST /order places (earn, spend, redeem), DELETE /order voids. */
export const orderRoutes: FastifyPluginAsyncTypebox<{ engine: Engine }> = async (app, { engine }) => {
  // Kiosks check customers in; only a counter or an integration takes orders.
  const counterKey = requireApiKey(engine, ['cashier', 'integration']);
  const config = { style: 'legacy' as const };
  const response = { 200: Type.Union([OrderReplySchema, SuccessFalseSchema]) };

  app.post('/order', { config: { ...config, nullAsAbsent: true }, preValidation: counterKey, schema: { tags, querystring: ApiKeyQuery, body: OrderBody, response } }, async (request, reply) => {
    const b = request.body;
    try {
      const result = await placeOrder(engine, storeOf(request), {
        identification: b.card_number,
        sessionHash: b.pos_session_hash,
        receiptNumber: b.receipt_number,
        till: b.till,
        subtotal: b.subtotal,
        total: b.total,
        taxes: b.taxes,
        paymentMethod: b.payment_method,
        date: b.date,
        items: b.items,
        quickPay: b.quick_pay,
        redemptions: b.redemptions,
      });
      return orderWire(result);
    } catch (error) {
      return businessErrorsAsSuccessFalse(request, reply, error);
    }
  });

  app.delete('/order', { config, preValidation: counterKey, schema: { tags, querystring: ApiKeyQuery, body: VoidOrderBody, response } }, async (request, reply) => {
    try {
      return orderWire(await voidOrder(engine, storeOf(request), request.body.receipt_number));
    } catch (error) {
      return businessErrorsAsSuccessFalse(request, reply, error);
    }
  });
};
