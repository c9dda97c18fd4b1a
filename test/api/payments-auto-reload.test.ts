import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { drainAutoReloads } from '../../src/core/payments/auto-reload/auto-reloads';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { startAutoReloadWorker } from '../../src/server/payments/auto-reload-worker';
import { type Customer, legacyErrorCheck, loginOkAt, PASSWORD, ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { expectBalancesAddUp, inStoreApi, receiptCounter } from '../support/in-store';
import { CARDS, paymentsApi } from '../support/payments';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Auto reload over real HTTP: GET/PUT /user/reload/settings (enabled only with amount, threshold and
// a profile; disabled by 0, 0 or null), the settings in the profile, login and onscreen replies, and
// the reload an order paying with quick pay queues when it takes the balance to or below the
// threshold: charged by the outbox worker, once per crossing, visible in history.

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
const store = inStoreApi(() => node);
const newReceipt = receiptCounter('AR');
let vendorCount = 0;

interface Setup {
  v: VendorCredentials;
  c: Customer;
  profile: any;
}

async function customerWithCard(card: string = CARDS.visa): Promise<Setup> {
  const v = await node.addVendor(`Auto reload ${++vendorCount}`);
  const c = await signUpAt(node, v.vendorId);
  const profile = await api.addProfileOk(c.key, card);
  return { v, c, profile };
}

/** A customer with `balance` of quick pay (reloaded by card) and auto reload of `amount` at `threshold`. */
async function enabled(balance: number, threshold: number, amount: number, card: string = CARDS.visa): Promise<Setup> {
  const s = await customerWithCard(card);
  if (balance > 0) {
    const funding = card === CARDS.visa ? s.profile : await api.addProfileOk(s.c.key, CARDS.mastercard);
    await api.reloadOk(s.c.key, { user_billingprofile: funding.id, amount: balance });
  }
  await api.putSettingsOk(s.c.key, { amount, threshold, user_billingprofile: s.profile.id });
  return s;
}

/** An order at the vendor's counter paying `quickPay` with quick pay. */
const spend = (s: Setup, quickPay: number) => store.orderOk(s.v.apiKey, { card_number: s.c.email, receipt_number: newReceipt(), subtotal: quickPay, total: quickPay, quick_pay: quickPay });

const autoReloadRows = (userId: number) => node.engine.db.selectFrom('auto_reloads').selectAll().where('user_id', '=', userId).orderBy('id').execute();
const automaticHistory = async (s: Setup) => (await api.history(s.c.key)).filter((h) => h.object === 'reload' && h.receipts[0]?.type === 'auto_reload');

describe('GET /user/reload/settings and PUT /user/reload/settings', () => {
  it('starts disabled, all zero', async () => {
    const { c } = await customerWithCard();
    expect(await api.getSettingsOk(c.key)).toEqual({ object: 'reload_settings', enabled: false, amount: 0, threshold: 0, user_billingprofile: null, billing_profile: null });
  });

  it('is enabled by amount, threshold and a profile together, and answers the settings', async () => {
    const { c, profile } = await customerWithCard();
    const reply = await api.putSettingsOk(c.key, { amount: 25, threshold: 10.5, user_billingprofile: profile.id });
    expect(reply).toEqual({ object: 'reload_settings', enabled: true, amount: 25, threshold: 10.5, user_billingprofile: profile.id, billing_profile: profile });
    expect(await api.getSettingsOk(c.key)).toEqual(reply);
  });

  it.each([
    ['amount 0', { amount: 0 }],
    ['threshold 0', { threshold: 0 }],
    ['profile null', { user_billingprofile: null }],
    ['profile "" in a form', 'user_billingprofile='],
    ['profile "null" in a form', 'user_billingprofile=null'],
  ])('is disabled by %s', async (_name, change) => {
    const { c, profile } = await customerWithCard();
    await api.putSettingsOk(c.key, { amount: 25, threshold: 10, user_billingprofile: profile.id });
    const reply = typeof change === 'string' ? await api.putSettings(c.key, change) : await api.putSettings(c.key, change);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.enabled).toBe(false);
    expect((await api.getSettingsOk(c.key)).enabled).toBe(false);
  });

  it('keeps what is not sent, and selects the default profile when none is selected', async () => {
    const { c, profile } = await customerWithCard();
    expect(await api.putSettingsOk(c.key, { amount: 20, threshold: 5 })).toMatchObject({ enabled: true, user_billingprofile: profile.id });
    expect(await api.putSettingsOk(c.key, { amount: 30 })).toMatchObject({ enabled: true, amount: 30, threshold: 5, user_billingprofile: profile.id });
    const form = await api.putSettings(c.key, 'threshold=7.5');
    expect(form.status, JSON.stringify(form.body)).toBe(200);
    expect(form.body).toMatchObject({ amount: 30, threshold: 7.5, enabled: true });
  });

  it('refuses negative or over-precise amounts and another customer’s profile, changing nothing', async () => {
    const { c, profile, v } = await customerWithCard();
    await api.putSettingsOk(c.key, { amount: 25, threshold: 10, user_billingprofile: profile.id });
    const before = await api.getSettingsOk(c.key);
    expectLegacyError(await api.putSettings(c.key, { amount: -1 }), 400, 'validation_failed', 'amount');
    expectLegacyError(await api.putSettings(c.key, { threshold: 1.005 }), 400, 'validation_failed', 'threshold');
    expectLegacyError(await api.putSettings(c.key, { user_billingprofile: 'x' }), 400, 'validation_failed');
    const other = await signUpAt(node, v.vendorId);
    const theirs = await api.addProfileOk(other.key, CARDS.mastercard);
    expectLegacyError(await api.putSettings(c.key, { user_billingprofile: theirs.id }), 404, 'billing_profile_not_found', 'user_billingprofile');
    expect(await api.getSettingsOk(c.key)).toEqual(before);
  });

  it('shows the settings in the profile, the login reply and the onscreen retrieve reply; billing_profile null while disabled', async () => {
    const { c, profile, v } = await customerWithCard();
    const profileReply = async () => (await node.app.inject({ method: 'GET', url: `/user/profile?session_key=${encodeURIComponent(c.key)}` })).json();
    expect(await profileReply()).toMatchObject({ billing_profile: null, reload_amount: 0, reload_threshold: 0 });

    await api.putSettingsOk(c.key, { amount: 25, threshold: 10, user_billingprofile: profile.id });
    expect(await profileReply()).toMatchObject({ billing_profile: profile, reload_amount: 25, reload_threshold: 10 });
    const login = await loginOkAt(node, c.email, PASSWORD, v.vendorId);
    expect(login.user_vendor).toMatchObject({ billing_profile: profile, reload_amount: 25, reload_threshold: 10 });
    const session = await store.checkInSessionOk(v.apiKey, c.email);
    expect((await store.retrieveOk(v.apiKey, session.hash)).reload).toEqual({ amount: 25, threshold: 10, billing_profile: profile });

    await api.putSettingsOk(c.key, { amount: 0 });
    expect(await profileReply()).toMatchObject({ billing_profile: null, reload_amount: 0, reload_threshold: 10 });
    expect((await store.retrieveOk(v.apiKey, session.hash)).reload).toEqual({ amount: 0, threshold: 10, billing_profile: null });
  });

  it('deleting the selected profile disables auto reload', async () => {
    const { c, profile } = await customerWithCard();
    await api.putSettingsOk(c.key, { amount: 25, threshold: 10, user_billingprofile: profile.id });
    expect((await api.remove(c.key, { user_billingProfile_id: profile.id })).status).toBe(200);
    expect(await api.getSettingsOk(c.key)).toMatchObject({ enabled: false, user_billingprofile: null, billing_profile: null });
  });
});

describe('auto reload on a spend that crosses the threshold', () => {
  it('reloads once per crossing, again after going back above and crossing again; visible in history', async () => {
    const s = await enabled(20, 10, 25);
    expect((await spend(s, 5)).auto_reload_queued).toBe(false); // 20 -> 15: above the threshold
    await drainAutoReloads(node.engine);
    expect(await autoReloadRows(s.c.userId)).toHaveLength(0);
    expect(await api.quickPay(s.c.key)).toBe(15);

    // The order's reply tells the counter a reload is on its way; the one above did not cross.
    expect((await spend(s, 6)).auto_reload_queued).toBe(true); // 15 -> 9: crosses
    expect(await autoReloadRows(s.c.userId)).toMatchObject([{ status: 'queued', amount: 2500, threshold: 1000 }]);
    expect(await api.quickPay(s.c.key)).toBe(9); // asynchronous: nothing charged in the order
    await drainAutoReloads(node.engine);
    expect(await api.quickPay(s.c.key)).toBe(34);
    expect(await autoReloadRows(s.c.userId)).toMatchObject([{ status: 'completed', charge_id: expect.any(Number) }]);
    const [auto] = await automaticHistory(s);
    expect(auto).toMatchObject({ object: 'reload', total: 25, quickpay: { used: 0, loaded: 25, balance: 34 }, status: 'Complete' });
    expect(auto.receipts[0]).toMatchObject({ type: 'auto_reload', card: 'xxxx xxxx xxxx 4242', user_billingprofile: s.profile.id });
    await drainAutoReloads(node.engine);
    expect(await api.quickPay(s.c.key)).toBe(34);

    await spend(s, 4); // 34 -> 30: above
    await drainAutoReloads(node.engine);
    expect(await autoReloadRows(s.c.userId)).toHaveLength(1);

    await spend(s, 20); // 30 -> 10: to the threshold exactly: crosses again
    await drainAutoReloads(node.engine);
    expect(await api.quickPay(s.c.key)).toBe(35);
    expect(await autoReloadRows(s.c.userId)).toHaveLength(2);
    expect((await automaticHistory(s)).map((h) => h.quickpay.balance)).toEqual([35, 34]);
    expect(await api.gatewayCharges(s.profile.id)).toBe(3); // the funding reload and two auto reloads
  });

  it('reloads no more than the program’s largest reload, lowered after the customer saved a bigger amount', async () => {
    const s = await enabled(50, 10, 40);
    const lowered = await http(`${node.url}/program/settings`, { method: 'PUT', token: s.v.accessToken, body: { reload_max_amount: 2_500 } });
    expect(lowered.status, JSON.stringify(lowered.body)).toBe(200);
    expect((await spend(s, 45)).auto_reload_queued).toBe(true); // 50 -> 5: crosses
    expect(await autoReloadRows(s.c.userId)).toMatchObject([{ status: 'queued', amount: 2500 }]);
    await drainAutoReloads(node.engine);
    expect(await api.quickPay(s.c.key)).toBe(30);
    // The customer's own setting is kept: raised again, the limit lets the full amount through.
    expect(await api.getSettingsOk(s.c.key)).toMatchObject({ amount: 40 });
  });

  it('a spend that stays below the threshold does not reload again; a declined auto reload shows as Declined', async () => {
    const s = await enabled(20, 10, 25);
    await api.gateway().setCardScenario(await api.tokenOf(s.profile.id), 'decline:generic_decline');
    await spend(s, 12); // 20 -> 8: crosses
    await drainAutoReloads(node.engine);
    expect(await api.quickPay(s.c.key)).toBe(8);
    expect(await autoReloadRows(s.c.userId)).toMatchObject([{ status: 'declined' }]);
    const [declined] = await automaticHistory(s);
    expect(declined).toMatchObject({ object: 'reload', total: 25, quickpay: { used: 0, loaded: 0, balance: 8 }, status: 'Declined' });
    expect(declined.receipts[0].decline_reason).toBe('card_declined'); // the API's code, as the reload reply says it

    await spend(s, 3); // 8 -> 5: still below, no crossing
    await drainAutoReloads(node.engine);
    expect(await autoReloadRows(s.c.userId)).toHaveLength(1);

    // Back above by hand, then a crossing reloads again.
    await api.gateway().setCardScenario(await api.tokenOf(s.profile.id), 'success');
    await api.reloadOk(s.c.key, { user_billingprofile: s.profile.id, amount: 10 }); // 15
    await spend(s, 6); // 15 -> 9
    await drainAutoReloads(node.engine);
    expect(await api.quickPay(s.c.key)).toBe(34);
    expect((await autoReloadRows(s.c.userId)).map((r) => r.status)).toEqual(['declined', 'completed']);
  });

  it('a late result stays pending until the gateway completes it, then credits once', async () => {
    const s = await enabled(20, 10, 25, CARDS.late);
    await spend(s, 15); // 20 -> 5
    await drainAutoReloads(node.engine);
    const [row] = await autoReloadRows(s.c.userId);
    expect(row).toMatchObject({ status: 'pending', charge_id: expect.any(Number) });
    expect(await api.quickPay(s.c.key)).toBe(5);
    // The customer's app may poll it like any reload.
    expect(await api.statusOk(s.c.key, row!.charge_id!)).toMatchObject({ automatic: true, transaction_status: { name: 'Pending' } });
    node.clock.advance(31_000);
    await drainAutoReloads(node.engine);
    expect(await autoReloadRows(s.c.userId)).toMatchObject([{ status: 'completed' }]);
    expect(await api.quickPay(s.c.key)).toBe(30);
    expect(await api.statusOk(s.c.key, row!.charge_id!)).toMatchObject({ automatic: true, transaction_status: { name: 'Complete' } });
    node.clock.advance(31_000);
    await drainAutoReloads(node.engine);
    expect(await api.quickPay(s.c.key)).toBe(30);
    expect(await automaticHistory(s)).toHaveLength(1);
  });

  it('does nothing while disabled, for orders without quick pay, or for a resent receipt', async () => {
    const s = await enabled(20, 10, 25);
    await api.putSettingsOk(s.c.key, { threshold: 0 });
    await spend(s, 15); // 20 -> 5, disabled
    await drainAutoReloads(node.engine);
    expect(await autoReloadRows(s.c.userId)).toHaveLength(0);

    const t = await enabled(20, 10, 25);
    await store.orderOk(t.v.apiKey, { card_number: t.c.email, receipt_number: newReceipt(), subtotal: 50, total: 50 });
    const receipt = newReceipt();
    const order = { card_number: t.c.email, receipt_number: receipt, subtotal: 15, total: 15, quick_pay: 15 };
    await store.orderOk(t.v.apiKey, order);
    await store.orderOk(t.v.apiKey, order); // resent: the first reply, nothing moves again
    await drainAutoReloads(node.engine);
    expect(await autoReloadRows(t.c.userId)).toHaveLength(1);
    expect(await api.quickPay(t.c.key)).toBe(30);
  });

  it('a profile deleted before the worker runs is never charged: the queued reload is cancelled', async () => {
    const s = await enabled(20, 10, 25);
    await spend(s, 15);
    const charges = await api.gatewayCharges(s.profile.id);
    expect((await api.remove(s.c.key, { user_billingProfile_id: s.profile.id })).status).toBe(200);
    await drainAutoReloads(node.engine);
    expect(await autoReloadRows(s.c.userId)).toMatchObject([{ status: 'cancelled' }]);
    expect(await api.gatewayCharges(s.profile.id)).toBe(charges);
    expect(await api.quickPay(s.c.key)).toBe(5);
  });

  it("the node's worker runs the outbox", async () => {
    const s = await enabled(20, 10, 25);
    const worker = startAutoReloadWorker(node.engine, { intervalMs: 3_600_000 });
    try {
      await spend(s, 15);
      await worker.drain();
      expect(await api.quickPay(s.c.key)).toBe(30);
    } finally {
      await worker.stop();
    }
  });

  it('takes form bodies for the settings like JSON', async () => {
    const s = await customerWithCard();
    const reply = await api.putSettings(s.c.key, `amount=25&threshold=10&user_billingprofile=${s.profile.id}`);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ enabled: true, amount: 25, threshold: 10 });
  });
});
