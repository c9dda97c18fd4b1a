import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { drainAutoReloads } from '../../src/core/payments/auto-reload/auto-reloads';
import { ownerOf, type SignedInStaff, staffCall } from '../support/backoffice';
import { type Customer, freshEmail, legacyErrorCheck, ROOMY_RATE_LIMITS, signUpAt, withSessionKey } from '../support/customers';
import { expectBalancesAddUp, inStoreApi, receiptCounter } from '../support/in-store';
import { CARDS, cardBody, paymentsApi } from '../support/payments';
import { http, startTestNode, type TestNode } from '../support/test-node';

// A customer the program blocked (back office, "fraud suspected") cannot turn cards into stored
// value or gifts: a manual reload, a paid eGift (saved card or typed), an auto reload and adding a
// card are refused with 403 customer_blocked and change nothing; what they hold stays readable.

let node: TestNode;
beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});
afterAll(() => node?.close());
afterEach(() => expectBalancesAddUp(node));

const expectLegacyError = legacyErrorCheck({ noStackTrace: true });
const api = paymentsApi(() => node);
const store = inStoreApi(() => node);
const receipt = receiptCounter('BLK');

/** Everything a refused card payment must leave as it was. */
async function footprint() {
  const count = async (table: 'payment_charges' | 'test_gateway_charges' | 'test_gateway_cards' | 'egifts' | 'messages_outbox' | 'ledger_entries' | 'billing_profiles') =>
    Number((await node.engine.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  return {
    charges: await count('payment_charges'),
    atGateway: await count('test_gateway_charges'),
    cards: await count('test_gateway_cards'),
    egifts: await count('egifts'),
    outbox: await count('messages_outbox'),
    ledger: await count('ledger_entries'),
    profiles: await count('billing_profiles'),
  };
}

const gift = (c: Customer, vendorId: number, pay: Record<string, unknown>) =>
  http(`${node.url}${withSessionKey(`/vendor/${vendorId}/egift`, c.key)}`, {
    method: 'POST',
    body: { amount: 20, recipient: { name: 'Mule', email: freshEmail('mule') }, ...pay },
    headers: { 'idempotency-key': `blocked-${Math.random()}` },
  });

describe('a customer blocked in the program', () => {
  let owner: SignedInStaff;
  let c: Customer;
  let profile: any;
  let vendorId: number;
  let apiKey: string;

  beforeAll(async () => {
    const v = await node.addVendor('Blocked payments');
    vendorId = v.vendorId;
    apiKey = v.apiKey;
    owner = await ownerOf(node, vendorId);
    c = await signUpAt(node, vendorId);
    profile = await api.addProfileOk(c.key, CARDS.visa);
    await api.reloadOk(c.key, { user_billingprofile: profile.id, amount: 30 });
    await api.putSettingsOk(c.key, { amount: 25, threshold: 10, user_billingprofile: profile.id });
    // A spend crosses the threshold: an auto reload is queued, not yet charged, when staff block.
    await store.orderOk(apiKey, { card_number: c.email, receipt_number: receipt(), subtotal: 22, total: 22, quick_pay: 22 });
    const blocked = await staffCall(node, owner.token, 'POST', `/backoffice/customers/${c.userId}/block`, { reason: 'fraud suspected' });
    expect(blocked.status, JSON.stringify(blocked.body)).toBe(200);
  });

  it('cannot reload, buy an eGift with a saved or a typed card, or add a card: 403 customer_blocked, nothing changes', async () => {
    const before = await footprint();
    expectLegacyError(await api.reload(c.key, { user_billingprofile: profile.id, amount: 50 }, { 'Idempotency-Key': 'blocked-reload' }), 403, 'customer_blocked');
    expectLegacyError(await gift(c, vendorId, { user_billingprofile: profile.id }), 403, 'customer_blocked');
    const typed = { billing: { name: 'Ana', number: CARDS.mastercard, expiry: { month: '12', year: '2030' }, cvv: '123', zip_code: '10001' } };
    expectLegacyError(await gift(c, vendorId, typed), 403, 'customer_blocked');
    expectLegacyError(await api.addProfile(c.key, cardBody(node, CARDS.mastercard)), 403, 'customer_blocked');
    const reply = await api.reload(c.key, { user_billingprofile: profile.id, amount: 50 });
    expect(reply.body.error.errors[0].message).toMatch(/blocked/);
    expect(await footprint()).toEqual(before);
  });

  it('gets no auto reload: the one queued before the block is cancelled uncharged', async () => {
    const before = await footprint();
    await drainAutoReloads(node.engine);
    const rows = await node.engine.db.selectFrom('auto_reloads').select(['status', 'last_error', 'charge_id']).where('user_id', '=', c.userId).execute();
    expect(rows).toEqual([{ status: 'cancelled', last_error: 'customer_blocked', charge_id: null }]);
    expect(await footprint()).toEqual(before);
    expect(await api.quickPay(c.key)).toBe(8);
  });

  it('still reads what they hold: balance, cards, settings, history', async () => {
    expect(await api.quickPay(c.key)).toBe(8);
    expect((await api.listOk(c.key)).data.map((p: any) => p.id)).toEqual([profile.id]);
    expect((await api.getSettingsOk(c.key)).enabled).toBe(true);
    expect((await api.history(c.key)).length).toBeGreaterThan(0);
  });

  it('pays again once unblocked', async () => {
    expect((await staffCall(node, owner.token, 'POST', `/backoffice/customers/${c.userId}/unblock`)).status).toBe(200);
    await api.reloadOk(c.key, { user_billingprofile: profile.id, amount: 5 });
    expect((await gift(c, vendorId, { user_billingprofile: profile.id })).status).toBe(200);
    expect(await api.quickPay(c.key)).toBe(13);
  });
});

describe('a reload whose gateway answer was lost before the block', () => {
  it('is only looked up by the status poll while blocked, never re-sent; re-sent once unblocked', async () => {
    const v = await node.addVendor('Blocked poll');
    const owner = await ownerOf(node, v.vendorId);
    const c = await signUpAt(node, v.vendorId);
    const profile = await api.addProfileOk(c.key, CARDS.visa);
    api.gateway().refuseNextRequests(1);
    expectLegacyError(await api.reload(c.key, { user_billingprofile: profile.id, amount: 9 }), 503, 'payment_gateway_unavailable');
    const charge = await node.engine.db.selectFrom('payment_charges').select('id').where('user_id', '=', c.userId).executeTakeFirstOrThrow();
    expect((await staffCall(node, owner.token, 'POST', `/backoffice/customers/${c.userId}/block`, { reason: 'fraud suspected' })).status).toBe(200);
    expect(await api.statusOk(c.key, charge.id)).toMatchObject({ transaction_status: { name: 'Pending' } });
    expect(await api.gatewayCharges(profile.id)).toBe(0);
    expect((await staffCall(node, owner.token, 'POST', `/backoffice/customers/${c.userId}/unblock`)).status).toBe(200);
    expect(await api.statusOk(c.key, charge.id)).toMatchObject({ transaction_status: { name: 'Complete' } });
    expect(await api.gatewayCharges(profile.id)).toBe(1);
    expect(await api.quickPay(c.key)).toBe(9);
  });
});

describe('a customer blocked in another program', () => {
  it('still pays in this one: blocking is per program', async () => {
    const here = await node.addVendor('Not blocked here');
    const there = await node.addVendor('Blocked there');
    const c = await signUpAt(node, here.vendorId);
    const elsewhere = await signUpAt(node, there.vendorId, { email: c.email });
    const owner = await ownerOf(node, there.vendorId);
    expect((await staffCall(node, owner.token, 'POST', `/backoffice/customers/${elsewhere.userId}/block`, { reason: 'fraud suspected' })).status).toBe(200);
    const profile = await api.addProfileOk(c.key, CARDS.visa);
    await api.reloadOk(c.key, { user_billingprofile: profile.id, amount: 7 });
    expectLegacyError(await api.addProfile(elsewhere.key, cardBody(node, CARDS.visa)), 403, 'customer_blocked');
  });
});
