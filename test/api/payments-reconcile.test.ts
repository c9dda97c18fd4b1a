import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCurrency } from '../../src/core/currencies/create-currency';
import { CHARGE_GIVE_UP_MS, RECONCILE_GRACE_MS, reconcileCharges } from '../../src/core/payments/reconcile/reconcile-charges';
import { expectLegacyError, ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { CARDS, paymentsApi } from '../support/payments';
import { startTestNode, type TestNode } from '../support/test-node';

// Charges whose outcome was lost, over real HTTP: the reconciliation job (run by the node's jobs
// every 5 minutes) credits a reload the gateway made although the customer only saw a 503, once;
// gives up a charge the gateway never saw after its deadline (a retry then answers the processing
// error); and a reload settling late after the program switched its quick-pay currency is refused.

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});

afterAll(async () => {
  await node?.close();
});

const api = paymentsApi(() => node);

describe('reconciling charges whose answer was lost', () => {
  it('credits a reload the gateway made although the customer saw a 503, once, without a retry', async () => {
    const v = await node.addVendor('Reconcile HTTP');
    const c = await signUpAt(node, v.vendorId);
    const visa = await api.addProfileOk(c.key, CARDS.visa);
    api.gateway().loseNextAnswers(1);
    const lost = await api.reload(c.key, { user_billingprofile: visa.id, amount: 40 }, { 'Idempotency-Key': 'lost-http' });
    expectLegacyError(lost, 503, 'payment_gateway_unavailable');
    expect(await api.quickPay(c.key)).toBe(0);
    const charge = await node.engine.db.selectFrom('payment_charges').select(['id', 'status']).where('user_id', '=', c.userId).executeTakeFirstOrThrow();
    expect(charge.status).toBe('created');

    node.clock.advance(RECONCILE_GRACE_MS + 1000);
    await reconcileCharges(node.engine);
    await reconcileCharges(node.engine);
    expect(await api.quickPay(c.key)).toBe(40);
    const status = await api.statusOk(c.key, charge.id);
    expect(status).toMatchObject({ id: charge.id, transaction_status: { id: 1, name: 'Complete' }, history_id: expect.any(Number), quick_pay_balance: { amount: 40 } });
    const history = await api.history(c.key);
    expect(history.filter((h: any) => h.object === 'reload')).toHaveLength(1);
    expect(await api.gatewayCharges(visa.id)).toBe(1);
  });

  it('gives up a charge the gateway never saw after the deadline: the status says Declined, a retry answers card_processing_error', async () => {
    const v = await node.addVendor('Reconcile never');
    const c = await signUpAt(node, v.vendorId);
    const visa = await api.addProfileOk(c.key, CARDS.visa);
    api.gateway().refuseNextRequests(1);
    expectLegacyError(await api.reload(c.key, { user_billingprofile: visa.id, amount: 10 }, { 'Idempotency-Key': 'never-http' }), 503, 'payment_gateway_unavailable');
    const charge = await node.engine.db.selectFrom('payment_charges').select('id').where('user_id', '=', c.userId).executeTakeFirstOrThrow();
    node.clock.advance(CHARGE_GIVE_UP_MS + RECONCILE_GRACE_MS);
    await reconcileCharges(node.engine);
    expect(await api.statusOk(c.key, charge.id)).toMatchObject({ transaction_status: { id: 3, name: 'Declined' }, decline_reason: 'card_processing_error', history_id: null });
    expectLegacyError(await api.reload(c.key, { user_billingprofile: visa.id, amount: 10 }, { 'Idempotency-Key': 'never-http' }), 422, 'card_processing_error', 'user_billingprofile');
    expect(await api.gatewayCharges(visa.id)).toBe(0);
    expect(await api.quickPay(c.key)).toBe(0);
  });

  it('refuses a late reload once the program switched its quick-pay currency: 422 currency_not_active, nothing credited', async () => {
    const v = await node.addVendor('Reconcile currency');
    const c = await signUpAt(node, v.vendorId);
    const late = await api.addProfileOk(c.key, CARDS.late);
    const pending = await api.reloadOk(c.key, { user_billingprofile: late.id, amount: 12 });
    expect(pending.transaction_status.name).toBe('Pending');
    const other = await createCurrency(node.engine, { vendorId: v.vendorId }, { name: 'Store dollars', code: 'USD' });
    await node.engine.db.updateTable('vendors').set({ quick_pay_currency_id: other.id }).where('id', '=', v.vendorId).execute();
    node.clock.advance(61_000);
    expectLegacyError(await api.status(c.key, pending.transaction), 422, 'currency_not_active', 'transaction');
    expect(await api.quickPay(c.key)).toBe(0);

    await node.engine.db.updateTable('vendors').set({ quick_pay_currency_id: v.quickPayCurrencyId }).where('id', '=', v.vendorId).execute();
    expect(await api.statusOk(c.key, pending.transaction)).toMatchObject({ transaction_status: { name: 'Complete' }, quick_pay_balance: { amount: 12 } });
  });
});
