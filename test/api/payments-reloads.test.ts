import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Customer, FORM, legacyErrorCheck, ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { expectBalancesAddUp } from '../support/in-store';
import { CARDS, DECLINED_AT_CHARGE, paymentsApi } from '../support/payments';
import { http, startTestNode, type TestNode } from '../support/test-node';

// POST /user/billing-profile/reload and GET /user/billing-profile/reload/status over real HTTP:
// a success credits the quick-pay balance once (ledger entry + history record `quickpay.loaded`);
// each decline reason is a 422 with its own code after which nothing moved; a late result answers
// Pending and the status poll completes it (polled again, credited once); idempotency keys never
// charge twice.

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});

afterAll(async () => {
  await node?.close();
});

afterEach(async () => {
  await expectBalancesAddUp(node);
});

const expectLegacyError = legacyErrorCheck({ noStackTrace: true });
const api = paymentsApi(() => node);
const nowSec = () => Math.floor(node.clock.now() / 1000);
let vendorCount = 0;

/** A fresh vendor, a customer there and a saved card (Visa unless told). */
async function customerWithCard(card: string = CARDS.visa): Promise<{ c: Customer; profile: any; v: Awaited<ReturnType<TestNode['addVendor']>> }> {
  const v = await node.addVendor(`Payments reloads ${++vendorCount}`);
  const c = await signUpAt(node, v.vendorId);
  const profile = await api.addProfileOk(c.key, card);
  return { c, profile, v };
}

/** Everything a refused reload must leave untouched for the customer. */
async function moneyState(userId: number) {
  const db = node.engine.db;
  return {
    entries: (await db.selectFrom('ledger_entries as e').innerJoin('ledger_accounts as a', 'a.id', 'e.account_id').select('e.id').where('a.holder_id', '=', userId).execute()).length,
    balances: await db.selectFrom('ledger_accounts').select(['currency_id', 'balance']).where('holder_id', '=', userId).orderBy('id').execute(),
    history: (await db.selectFrom('transactions').select('id').where('user_id', '=', userId).execute()).length,
  };
}

describe('POST /user/billing-profile/reload: success', () => {
  it('charges the card and adds the same amount to quick pay: reply Complete, one ledger entry, one history record', async () => {
    const { c, profile, v } = await customerWithCard();
    const reply = await api.reload(c.key, { user_billingprofile: profile.id, amount: 25.5 });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const currency = { id: v.quickPayCurrencyId, name: 'Quick Pay USD', code: 'USD', object: 'currency' };
    expect(reply.body).toEqual({
      object: 'reload',
      id: expect.any(Number),
      transaction: reply.body.id,
      amount: 25.5,
      currency,
      transaction_status: { id: 1, name: 'Complete' },
      decline_reason: null,
      history_id: expect.any(Number),
      automatic: false,
      user_billingprofile: profile,
      quick_pay_balance: { amount: 25.5, currency },
      created: nowSec(),
      updated: nowSec(),
    });
    expect(await api.quickPay(c.key)).toBe(25.5);
    const entries = await node.engine.db.selectFrom('ledger_entries').selectAll().where('reference_type', '=', 'payment_charge').where('reference_id', '=', String(reply.body.id)).execute();
    expect(entries.map((e) => [e.amount, e.kind])).toEqual([[2550, 'reload']]);
    const history = await api.history(c.key);
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({
      object: 'reload',
      id: reply.body.history_id,
      date: nowSec(),
      total: 25.5,
      quickpay: { object: 'quickpay', used: 0, loaded: 25.5, balance: 25.5 },
      receipts: [{ object: 'receipt', type: 'reload', payment_method: 'card', card: 'xxxx xxxx xxxx 4242', card_type: 'Visa', user_billingprofile: profile.id, transaction: reply.body.id }],
      status: 'Complete',
    });
    expect(await api.gatewayCharges(profile.id)).toBe(1);
  });

  it('adds up over several reloads, takes user_billingProfile_id and a form body', async () => {
    const { c, profile } = await customerWithCard(CARDS.amex);
    await api.reloadOk(c.key, { user_billingProfile_id: profile.id, amount: 10 });
    const form = await api.reload(c.key, `user_billingprofile=${profile.id}&amount=2.25`, FORM);
    expect(form.status, JSON.stringify(form.body)).toBe(200);
    expect(form.body.quick_pay_balance.amount).toBe(12.25);
    expect(await api.quickPay(c.key)).toBe(12.25);
    expect((await api.history(c.key)).map((h) => h.quickpay.loaded)).toEqual([2.25, 10]);
  });
});

describe('POST /user/billing-profile/reload: refused', () => {
  it.each(DECLINED_AT_CHARGE)('a card that now declines ($scenario) is 422 $code and nothing moves', async ({ scenario, code }) => {
    const { c, profile } = await customerWithCard();
    await api.reloadOk(c.key, { user_billingprofile: profile.id, amount: 5 });
    await api.gateway().setCardScenario(await api.tokenOf(profile.id), scenario);
    const before = await moneyState(c.userId);
    expectLegacyError(await api.reload(c.key, { user_billingprofile: profile.id, amount: 20 }), 422, code, 'user_billingprofile');
    expect(await moneyState(c.userId)).toEqual(before);
    expect(await api.quickPay(c.key)).toBe(5);
    expect((await api.history(c.key)).map((h) => h.status)).toEqual(['Complete']);
  });

  it('the card that attaches but declines every charge (4000 0000 0000 0341) is 422 card_declined', async () => {
    const { c, profile } = await customerWithCard(CARDS.chargeDeclined);
    const before = await moneyState(c.userId);
    expectLegacyError(await api.reload(c.key, { user_billingprofile: profile.id, amount: 20 }), 422, 'card_declined');
    expect(await moneyState(c.userId)).toEqual(before);
    expect(await api.quickPay(c.key)).toBe(0);
  });

  it('refuses bad amounts with 400 and charges nothing', async () => {
    const { c, profile } = await customerWithCard();
    for (const amount of [0, -5, 1.234, 100_001, 'ten']) {
      expectLegacyError(await api.reload(c.key, { user_billingprofile: profile.id, amount }), 400, 'validation_failed', 'amount');
    }
    expectLegacyError(await api.reload(c.key, { user_billingprofile: profile.id }), 400, 'validation_failed', 'amount');
    expectLegacyError(await api.reload(c.key, { amount: 5 }), 400, 'validation_failed', 'user_billingprofile');
    expect(await api.gatewayCharges(profile.id)).toBe(0);
    expect(await api.quickPay(c.key)).toBe(0);
  });

  it('needs a session', async () => {
    const { profile } = await customerWithCard();
    expectLegacyError(await http(`${node.url}/user/billing-profile/reload`, { method: 'POST', body: { user_billingprofile: profile.id, amount: 5 } }), 401, 'missing_credentials');
  });
});

describe('late results: GET /user/billing-profile/reload/status', () => {
  it('answers Pending with a transaction id; polling completes it once; polling again changes nothing', async () => {
    const { c, profile } = await customerWithCard(CARDS.late);
    const first = await api.reloadOk(c.key, { user_billingprofile: profile.id, amount: 30 });
    expect(first).toMatchObject({ transaction_status: { id: 2, name: 'Pending' }, history_id: null, decline_reason: null, quick_pay_balance: { amount: 0 } });
    expect(await api.quickPay(c.key)).toBe(0);
    expect(await api.history(c.key)).toEqual([]);

    // The test gateway completes a late charge at its second status poll.
    const poll1 = await api.statusOk(c.key, first.transaction);
    expect(poll1).toMatchObject({ id: first.id, transaction_status: { name: 'Pending' }, quick_pay_balance: { amount: 0 } });
    node.clock.advance(1000);
    const poll2 = await api.statusOk(c.key, first.transaction);
    expect(poll2).toMatchObject({ id: first.id, transaction_status: { id: 1, name: 'Complete' }, history_id: expect.any(Number), quick_pay_balance: { amount: 30 } });
    const poll3 = await api.statusOk(c.key, first.transaction);
    expect(poll3).toEqual(poll2);
    expect(await api.quickPay(c.key)).toBe(30);
    expect((await api.history(c.key)).map((h) => [h.object, h.quickpay.loaded, h.status])).toEqual([['reload', 30, 'Complete']]);
  });

  it('two polls at once credit once', async () => {
    const { c, profile } = await customerWithCard(CARDS.late);
    const first = await api.reloadOk(c.key, { user_billingprofile: profile.id, amount: 12 });
    await api.statusOk(c.key, first.transaction);
    const polls = await Promise.all([api.statusOk(c.key, first.transaction), api.statusOk(c.key, first.transaction), api.statusOk(c.key, first.transaction)]);
    expect(polls.map((p) => p.transaction_status.name)).toEqual(['Complete', 'Complete', 'Complete']);
    expect(await api.quickPay(c.key)).toBe(12);
    expect(await api.history(c.key)).toHaveLength(1);
  });

  it('completes by time too: a poll after the gateway’s delay finds it done at once', async () => {
    const { c, profile } = await customerWithCard(CARDS.late);
    const first = await api.reloadOk(c.key, { user_billingprofile: profile.id, amount: 7 });
    node.clock.advance(61_000);
    expect(await api.statusOk(c.key, first.transaction)).toMatchObject({ transaction_status: { name: 'Complete' } });
    expect(await api.quickPay(c.key)).toBe(7);
  });

  it('a late decline is reported as Declined with its reason, and nothing moves', async () => {
    const { c, profile } = await customerWithCard(CARDS.lateDeclined);
    const first = await api.reloadOk(c.key, { user_billingprofile: profile.id, amount: 9 });
    expect(first.transaction_status.name).toBe('Pending');
    const before = await moneyState(c.userId);
    await api.statusOk(c.key, first.transaction);
    const done = await api.statusOk(c.key, first.transaction);
    expect(done).toMatchObject({ transaction_status: { id: 3, name: 'Declined' }, decline_reason: 'card_declined', history_id: null });
    expect(await moneyState(c.userId)).toEqual(before);
  });

  it("answers 404 reload_not_found for another customer's transaction, an unknown one, and a bad one 400", async () => {
    const { c, profile } = await customerWithCard(CARDS.late);
    const first = await api.reloadOk(c.key, { user_billingprofile: profile.id, amount: 3 });
    const other = await signUpAt(node, (await node.addVendor(`Payments reloads ${++vendorCount}`)).vendorId);
    const sameVendor = await signUpAt(node, (await node.engine.db.selectFrom('users').select('first_vendor_id').where('id', '=', c.userId).executeTakeFirstOrThrow()).first_vendor_id);
    expectLegacyError(await api.status(other.key, first.transaction), 404, 'reload_not_found', 'transaction');
    expectLegacyError(await api.status(sameVendor.key, first.transaction), 404, 'reload_not_found', 'transaction');
    expectLegacyError(await api.status(c.key, first.transaction + 999_999), 404, 'reload_not_found');
    expectLegacyError(await api.status(c.key, 'abc'), 400, 'validation_failed', 'transaction');
    // None of those polls moved the charge on.
    expect(await api.statusOk(c.key, first.transaction)).toMatchObject({ transaction_status: { name: 'Pending' } });
  });
});

describe('idempotency', () => {
  it('the same Idempotency-Key twice charges once and answers the same reload', async () => {
    const { c, profile } = await customerWithCard();
    const headers = { 'idempotency-key': 'reload-abc-1' };
    const first = await api.reloadOk(c.key, { user_billingprofile: profile.id, amount: 15 }, headers);
    node.clock.advance(5000);
    const again = await api.reloadOk(c.key, { user_billingprofile: profile.id, amount: 15 }, headers);
    expect(again.id).toBe(first.id);
    expect(again.history_id).toBe(first.history_id);
    expect(await api.gatewayCharges(profile.id)).toBe(1);
    expect(await api.quickPay(c.key)).toBe(15);
    expect(await api.history(c.key)).toHaveLength(1);
  });

  it('the key may travel in the body; both places must agree', async () => {
    const { c, profile } = await customerWithCard();
    const first = await api.reloadOk(c.key, { user_billingprofile: profile.id, amount: 4, idempotency_key: 'k-body' });
    const viaHeader = await api.reloadOk(c.key, { user_billingprofile: profile.id, amount: 4 }, { 'idempotency-key': 'k-body' });
    expect(viaHeader.id).toBe(first.id);
    expectLegacyError(await api.reload(c.key, { user_billingprofile: profile.id, amount: 4, idempotency_key: 'a' }, { 'idempotency-key': 'b' }), 400, 'validation_failed', 'idempotency_key');
    expect(await api.gatewayCharges(profile.id)).toBe(1);
  });

  it('the same key for a different amount is 409 idempotency_key_reused, and charges nothing', async () => {
    const { c, profile } = await customerWithCard();
    await api.reloadOk(c.key, { user_billingprofile: profile.id, amount: 4, idempotency_key: 'k-409' });
    expectLegacyError(await api.reload(c.key, { user_billingprofile: profile.id, amount: 5, idempotency_key: 'k-409' }), 409, 'idempotency_key_reused', 'idempotency_key');
    expect(await api.gatewayCharges(profile.id)).toBe(1);
    expect(await api.quickPay(c.key)).toBe(4);
  });

  it('retries sent at the same moment charge once', async () => {
    const { c, profile } = await customerWithCard();
    const body = { user_billingprofile: profile.id, amount: 8, idempotency_key: 'k-race' };
    const replies = await Promise.all([api.reload(c.key, body), api.reload(c.key, body), api.reload(c.key, body), api.reload(c.key, body)]);
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(new Set(replies.map((r) => r.body.id)).size).toBe(1);
    expect(await api.gatewayCharges(profile.id)).toBe(1);
    expect(await api.quickPay(c.key)).toBe(8);
  });

  it('a retry of a pending reload answers its current state and charges nothing more; a declined one answers the same decline', async () => {
    const { c, profile } = await customerWithCard(CARDS.late);
    const body = { user_billingprofile: profile.id, amount: 6, idempotency_key: 'k-late' };
    const first = await api.reloadOk(c.key, body);
    const retry = await api.reloadOk(c.key, body);
    expect(retry).toMatchObject({ id: first.id, transaction_status: { name: 'Pending' } });
    await api.statusOk(c.key, first.id);
    await api.statusOk(c.key, first.id);
    expect(await api.reloadOk(c.key, body)).toMatchObject({ id: first.id, transaction_status: { name: 'Complete' } });
    expect(await api.gatewayCharges(profile.id)).toBe(1);
    expect(await api.quickPay(c.key)).toBe(6);

    const declined = await customerWithCard(CARDS.chargeDeclined);
    const d = { user_billingprofile: declined.profile.id, amount: 6, idempotency_key: 'k-late' };
    expectLegacyError(await api.reload(declined.c.key, d), 422, 'card_declined');
    expectLegacyError(await api.reload(declined.c.key, d), 422, 'card_declined');
    expect(await api.gatewayCharges(declined.profile.id)).toBe(1);
  });

  it('without a key, every request is a new charge; keys are per customer', async () => {
    const { c, profile, v } = await customerWithCard();
    await api.reloadOk(c.key, { user_billingprofile: profile.id, amount: 1 });
    await api.reloadOk(c.key, { user_billingprofile: profile.id, amount: 1 });
    expect(await api.gatewayCharges(profile.id)).toBe(2);
    expect(await api.quickPay(c.key)).toBe(2);
    const other = await signUpAt(node, v.vendorId);
    const otherProfile = await api.addProfileOk(other.key, CARDS.mastercard);
    await api.reloadOk(c.key, { user_billingprofile: profile.id, amount: 1, idempotency_key: 'shared' });
    const theirs = await api.reloadOk(other.key, { user_billingprofile: otherProfile.id, amount: 1, idempotency_key: 'shared' });
    expect(theirs.transaction_status.name).toBe('Complete');
    expect(await api.quickPay(other.key)).toBe(1);
  });
});
