import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCurrency } from '../../src/core/currencies/create-currency';
import { RECONCILE_GRACE_MS, reconcileCharges } from '../../src/core/payments/reconcile/reconcile-charges';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { buyGuestGift } from '../support/payment-exceptions';
import { expectResourceError } from '../support/resource-api';
import { expectLegacyError, ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { CARDS, paymentsApi } from '../support/payments';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Payment exceptions (issue 17, item 8) over real HTTP: what the reconciliation job cannot settle
// (an eGift charge paid without a gift row, a late reload refused after a quick-pay currency switch)
// is listed for an admin, who refunds it through the gateway or credits the customer.

let node: TestNode;
let v: VendorCredentials;
const pay = paymentsApi(() => node);

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
  v = await node.addVendor('Exception Café');
});
afterAll(() => node?.close());

const list = (token = v.accessToken, query = '') => http(`${node.url}/payment-exceptions${query}`, { token });
const resolve = (id: string, body: unknown, token = v.accessToken) => http(`${node.url}/payment-exceptions/${id}/resolve`, { method: 'POST', token, body });

/** A guest's eGift of `amount` dollars paid by a test Visa (with an Idempotency-Key when given). */
const buyGift = (amount: number, buyer: { name: string; email: string }, key?: string) => buyGuestGift(node, v.vendorId, amount, buyer, key);

describe('payment exceptions', () => {
  it('an eGift charge paid without a gift is listed and refunded through the gateway, once', async () => {
    expect((await list()).body.items).toEqual([]);
    pay.gateway().loseNextAnswers(1);
    const gift = await buyGift(12, { name: 'Gus Guest', email: 'gus@example.com' });
    expect(gift.status).toBe(503);
    node.clock.advance(RECONCILE_GRACE_MS + 1000);
    expect((await reconcileCharges(node.engine)).paidWithoutGift).toHaveLength(1);
    await reconcileCharges(node.engine);

    const [exception] = (await list()).body.items;
    expect((await list()).body.items).toHaveLength(1);
    expect(exception).toMatchObject({ kind: 'paid_without_gift', status: 'open', purpose: 'egift', amount: 12, currency: 'USD', user_id: null, resolution: null, date_resolved: null });
    // No account behind a guest's charge: it can only be refunded. Another program sees nothing.
    expectResourceError(await resolve(exception.id, { action: 'credit' }), 422, 'business_rule');
    const other = await node.addVendor('Other Program');
    expect((await list(other.accessToken)).body.items).toEqual([]);
    expectResourceError(await resolve(exception.id, { action: 'refund' }, other.accessToken), 404, 'payment_exception_not_found');
    expectResourceError(await resolve(exception.id, { action: 'shrug' }), 400, 'validation_failed', 'action');

    const refunded = await resolve(exception.id, { action: 'refund' });
    expect(refunded.status, JSON.stringify(refunded.body)).toBe(200);
    expect(refunded.body).toMatchObject({ status: 'refunded', resolution: 'refund', date_resolved: expect.any(String) });
    const charge = await node.engine.db.selectFrom('payment_charges').select(['status', 'gateway_charge_id']).where('id', '=', exception.charge_id).executeTakeFirstOrThrow();
    expect(charge.status).toBe('refunded');
    const atGateway = await node.engine.db.selectFrom('test_gateway_charges').select('refunded_at').where('id', '=', charge.gateway_charge_id!).executeTakeFirstOrThrow();
    expect(atGateway.refunded_at).not.toBeNull();
    expectResourceError(await resolve(exception.id, { action: 'refund' }), 409, 'invalid_status_transition');
    expect((await list()).body.items).toEqual([]);
    expect((await list(v.accessToken, '?status=all')).body.items).toHaveLength(1);
  });

  it('an eGift charge the buyer\'s retry settled is closed as settled: it can no longer be refunded', async () => {
    const sendGift = () => buyGift(9, { name: 'Rita Retry', email: 'rita@example.com' }, 'rita-gift-1');
    pay.gateway().loseNextAnswers(1);
    expect((await sendGift()).status).toBe(503);
    node.clock.advance(RECONCILE_GRACE_MS + 1000);
    expect((await reconcileCharges(node.engine)).paidWithoutGift).toHaveLength(1);
    const exception = (await list()).body.items.find((x: any) => x.kind === 'paid_without_gift' && x.amount === 9);
    expect(exception).toMatchObject({ status: 'open' });

    const retried = await sendGift();
    expect(retried.status, JSON.stringify(retried.body)).toBeLessThan(300);
    expect((await list()).body.items.find((x: any) => x.id === exception.id)).toBeUndefined();
    expect((await list(v.accessToken, '?status=settled')).body.items.find((x: any) => x.id === exception.id)).toMatchObject({ status: 'settled', resolution: 'settled', date_resolved: expect.any(String) });
    expectResourceError(await resolve(exception.id, { action: 'refund' }), 409, 'invalid_status_transition');

    // An exception recorded before settling was closed this way is found settled when resolved.
    await node.engine.db.updateTable('payment_exceptions').set({ status: 'open', resolution: null, resolved_at: null }).where('id', '=', Number(exception.id)).execute();
    expectResourceError(await resolve(exception.id, { action: 'refund' }), 409, 'invalid_status_transition');
    expect((await list(v.accessToken, '?status=settled')).body.items.find((x: any) => x.id === exception.id)).toMatchObject({ status: 'settled' });
    const charge = await node.engine.db.selectFrom('payment_charges').select('gateway_charge_id').where('id', '=', exception.charge_id).executeTakeFirstOrThrow();
    const atGateway = await node.engine.db.selectFrom('test_gateway_charges').select('refunded_at').where('id', '=', charge.gateway_charge_id!).executeTakeFirstOrThrow();
    expect(atGateway.refunded_at).toBeNull();
  });

  it('a refund and a credit of one exception asked at once: exactly one pays the customer back', async () => {
    const c = await signUpAt(node, v.vendorId);
    const profile = await pay.addProfileOk(c.key, CARDS.late);
    await pay.reloadOk(c.key, { user_billingprofile: profile.id, amount: 20 });
    const usd = await node.engine.db.selectFrom('vendors').select('quick_pay_currency_id').where('id', '=', v.vendorId).executeTakeFirstOrThrow();
    const other = await createCurrency(node.engine, { vendorId: v.vendorId }, { name: 'Race dollars', code: 'USD' });
    await node.engine.db.updateTable('vendors').set({ quick_pay_currency_id: other.id }).where('id', '=', v.vendorId).execute();
    node.clock.advance(61_000);
    await reconcileCharges(node.engine);
    const exception = (await list()).body.items.find((x: any) => x.kind === 'reload_refused' && x.user_id === c.userId);
    expect(exception).toMatchObject({ status: 'open', amount: 20 });

    const replies = await Promise.all([resolve(exception.id, { action: 'refund' }), resolve(exception.id, { action: 'credit' })]);
    expect(replies.map((r) => r.status).sort()).toEqual([200, 409]);
    const charge = await node.engine.db.selectFrom('payment_charges').select('gateway_charge_id').where('id', '=', exception.charge_id).executeTakeFirstOrThrow();
    const atGateway = await node.engine.db.selectFrom('test_gateway_charges').select('refunded_at').where('id', '=', charge.gateway_charge_id!).executeTakeFirstOrThrow();
    const refunded = atGateway.refunded_at !== null;
    expect(await pay.quickPay(c.key)).toBe(refunded ? 0 : 20);
    await node.engine.db.updateTable('vendors').set({ quick_pay_currency_id: usd.quick_pay_currency_id }).where('id', '=', v.vendorId).execute();
  });

  it('a refund whose answer the gateway lost stays refunding, listed with the open ones: only a refund may follow, and the money goes back once', async () => {
    const buyLou = () => buyGift(7, { name: 'Lou Lost', email: 'lou@example.com' }, 'lou-gift-1');
    pay.gateway().loseNextAnswers(1);
    const gift = await buyLou();
    expect(gift.status).toBe(503);
    node.clock.advance(RECONCILE_GRACE_MS + 1000);
    await reconcileCharges(node.engine);
    const exception = (await list()).body.items.find((x: any) => x.kind === 'paid_without_gift' && x.amount === 7);
    pay.gateway().loseNextAnswers(1);
    const lost = await resolve(exception.id, { action: 'refund' });
    expect([lost.status, lost.body.code]).toEqual([503, 'payment_gateway_unavailable']);
    expect((await list()).body.items.find((x: any) => x.id === exception.id)).toMatchObject({ status: 'refunding' });
    expectResourceError(await resolve(exception.id, { action: 'credit' }), 409, 'invalid_status_transition');
    // The buyer's retry meanwhile sends no gift: the refund may have gone through.
    expectLegacyError(await buyLou(), 409, 'payment_refund_pending');
    const refunded = await resolve(exception.id, { action: 'refund' });
    expect([refunded.status, refunded.body.status]).toEqual([200, 'refunded']);
    expectLegacyError(await buyLou(), 409, 'payment_refunded');
    expect(await node.engine.db.selectFrom('egifts').select('id').where('charge_id', '=', Number(exception.charge_id)).execute()).toEqual([]);
  });

  it('a late reload refused after a currency switch is credited in the current quick-pay currency', async () => {
    const c = await signUpAt(node, v.vendorId);
    const profile = await pay.addProfileOk(c.key, CARDS.late);
    const reload = await pay.reloadOk(c.key, { user_billingprofile: profile.id, amount: 30 });
    expect(reload).toBeDefined();
    const other = await createCurrency(node.engine, { vendorId: v.vendorId }, { name: 'Store dollars', code: 'USD' });
    await node.engine.db.updateTable('vendors').set({ quick_pay_currency_id: other.id }).where('id', '=', v.vendorId).execute();
    node.clock.advance(61_000);
    expect((await reconcileCharges(node.engine)).refused).toHaveLength(1);
    const exception = (await list()).body.items.find((x: any) => x.kind === 'reload_refused');
    expect(exception).toMatchObject({ status: 'open', purpose: 'reload', amount: 30, user_id: c.userId });
    expect(await pay.quickPay(c.key)).toBe(0);

    const credited = await resolve(exception.id, { action: 'credit' });
    expect(credited.status, JSON.stringify(credited.body)).toBe(200);
    expect(credited.body.status).toBe('credited');
    expect(await pay.quickPay(c.key)).toBe(30);
    expect((await pay.history(c.key))[0]).toMatchObject({ object: 'reload', quickpay: { loaded: 30 } });
    // Settled: the job no longer finds anything to refuse.
    expect((await reconcileCharges(node.engine)).refused).toEqual([]);
  });
});
