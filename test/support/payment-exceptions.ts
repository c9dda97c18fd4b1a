import { expect } from 'vitest';
import { createCurrency } from '../../src/core/currencies/create-currency';
import { RECONCILE_GRACE_MS, reconcileCharges } from '../../src/core/payments/reconcile/reconcile-charges';
import type { Customer } from './customers';
import { CARDS, paymentsApi } from './payments';
import { http, type TestNode } from './test-node';

// Real payment exceptions, made the way they happen: through the test gateway's failure scenarios
// and the reconciliation job (for the back office's payment-exception tests).

/** A guest's eGift of `amount` dollars paid by a test Visa (with an Idempotency-Key when given). */
export function buyGuestGift(node: TestNode, vendorId: number, amount: number, buyer: { name: string; email: string }, key?: string) {
  return http(`${node.url}/vendor/${vendorId}/egift`, {
    method: 'POST',
    body: {
      amount,
      buyer,
      recipient: { name: 'Rae', email: 'rae@example.com' },
      message: 'Hi',
      image_url: null,
      billing: { name: buyer.name, number: CARDS.visa, expiry: { month: '12', year: '2030' }, cvv: '123', zip_code: '10001' },
    },
    ...(key ? { headers: { 'idempotency-key': key } } : {}),
  });
}

/**
 * A guest's eGift of `amount` dollars whose charge went through while the gateway's answer was
 * lost (the buyer got a 503 and never retried): the job records `paid_without_gift`.
 */
export async function giftPaidWithoutGift(node: TestNode, vendorId: number, amount: number, buyer: { name: string; email: string }): Promise<void> {
  paymentsApi(() => node).gateway().loseNextAnswers(1);
  const gift = await buyGuestGift(node, vendorId, amount, buyer);
  expect(gift.status, JSON.stringify(gift.body)).toBe(503);
  node.clock.advance(RECONCILE_GRACE_MS + 1000);
  expect((await reconcileCharges(node.engine)).paidWithoutGift).toHaveLength(1);
}

/**
 * A customer's reload of `amount` dollars on a card the gateway settles late, refused when it
 * settles because the program switched its quick-pay currency (to another USD one) meanwhile:
 * the job records `reload_refused`. The program's quick pay stays in the new currency.
 */
export async function reloadRefused(node: TestNode, vendorId: number, customer: Customer, amount: number): Promise<void> {
  const pay = paymentsApi(() => node);
  const profile = await pay.addProfileOk(customer.key, CARDS.late);
  await pay.reloadOk(customer.key, { user_billingprofile: profile.id, amount });
  const other = await createCurrency(node.engine, { vendorId }, { name: `Store dollars ${Date.now()}`, code: 'USD' });
  await node.engine.db.updateTable('vendors').set({ quick_pay_currency_id: other.id }).where('id', '=', vendorId).execute();
  node.clock.advance(61_000);
  expect((await reconcileCharges(node.engine)).refused).toHaveLength(1);
}
