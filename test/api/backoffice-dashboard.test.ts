import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openParams } from '../../src/core/messaging/sealed-params';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { invitedStaff, ownerOf, type SignedInStaff, staffCall } from '../support/backoffice';
import { ROOMY_RATE_LIMITS, signUpAt, withSessionKey } from '../support/customers';
import { type AddedStore, inStoreApi, receiptCounter } from '../support/in-store';
import { CARDS, paymentsApi } from '../support/payments';
import { http, startTestNode, type TestNode } from '../support/test-node';

// The dashboard over real HTTP, with exact figures from real check-ins, orders, a reload and an
// adjustment spread over days: today, the last 30 days, per day, per store, the liability.

let node: TestNode;
let vendor: VendorCredentials;
let second: AddedStore;
let owner: SignedInStaff;
let storeManager: SignedInStaff;
const DAY = 86_400_000;
const store = inStoreApi(() => node);
const pay = paymentsApi(() => node);
const newReceipt = receiptCounter('dash');

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
  vendor = await node.addVendor('Café Andino');
  second = await store.addStore(vendor, 'Norte');
  owner = await ownerOf(node, vendor.vendorId);
  pointsCurrency = (await node.engine.db.selectFrom('currencies').select('public_id').where('id', '=', vendor.loyaltyCurrencyId).executeTakeFirstOrThrow()).public_id;
  storeManager = await invitedStaff(node, owner, 'store_manager', second.storeId);
  const today = node.clock.now();

  // Three days ago: Ana signs up, reloads 30.00, checks in at Main and orders 10.00, paying 5.00 with quick pay.
  node.clock.set(today - 3 * DAY);
  const ana = await signUpAt(node, vendor.vendorId, { first_name: 'Ana' });
  const profile = await pay.addProfileOk(ana.key);
  await pay.reloadOk(ana.key, { user_billingprofile: profile.id, amount: 30 });
  await store.checkInOk(vendor.apiKey, ana.email);
  await store.orderOk(vendor.apiKey, { card_number: ana.email, receipt_number: newReceipt(), subtotal: 10, quick_pay: 5 });
  // 40 days ago (outside the window): an order at Main.
  node.clock.set(today - 40 * DAY);
  await store.orderOk(vendor.apiKey, { card_number: ana.email, receipt_number: newReceipt(), subtotal: 7 });

  // Today: Ana checks in at Norte and orders 20.00 paying 2.50; Beto checks in at Norte and orders 4.00; a voided order does not count.
  node.clock.set(today);
  const beto = await signUpAt(node, vendor.vendorId, { first_name: 'Beto' });
  await store.checkInOk(second.apiKey, ana.email);
  await store.orderOk(second.apiKey, { card_number: ana.email, receipt_number: newReceipt(), subtotal: 20, quick_pay: 2.5 });
  await store.checkInOk(second.apiKey, beto.email);
  await store.orderOk(second.apiKey, { card_number: beto.email, receipt_number: newReceipt(), subtotal: 4 });
  const voided = newReceipt();
  await store.orderOk(second.apiKey, { card_number: beto.email, receipt_number: voided, subtotal: 50 });
  await store.voidOk(second.apiKey, voided);
});

afterAll(async () => {
  await node?.close();
});

const dashboard = async (who: SignedInStaff, query = '') => {
  const reply = await staffCall(node, who.token, 'GET', `/backoffice/dashboard${query}`);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body;
};

let pointsCurrency = '';
/** The figures with these values, the rest zero; its one loyalty currency (Points) issued and redeemed what points_issued and points_redeemed say. */
const figures = (f: Partial<Record<string, number>>) => ({
  loyalty: [{ currency: pointsCurrency, name: 'Points', issued: f.points_issued ?? 0, redeemed: f.points_redeemed ?? 0 }],
  check_ins: 0,
  orders: 0,
  points_issued: 0,
  points_redeemed: 0,
  stored_value_loaded: 0,
  stored_value_spent: 0,
  stored_value_returned: 0,
  stored_value_adjusted: 0,
  stored_value_forfeited: 0,
  stored_value_paid_back: 0,
  reloads: 0,
  reload_amount: 0,
  egifts: 0,
  egift_amount: 0,
  ...f,
});

describe('the dashboard', () => {
  it('counts today, the last 30 days, each day and each store exactly; the liability is every quick-pay balance', async () => {
    const d = await dashboard(owner);
    expect(d.time_zone).toBe('UTC');
    expect(d.quick_pay_currency).toBe('USD');
    // Today at Norte: 2 check-ins, 2 orders (the voided one left out), 20 + 4 points, 2.50 spent.
    expect(d.today).toEqual(figures({ check_ins: 2, orders: 2, points_issued: 24, stored_value_spent: 250 }));
    // Plus three days ago at Main: a check-in, an order of 10 points paying 5.00, and the 30.00 reload.
    expect(d.last_30_days).toEqual(figures({ check_ins: 3, orders: 3, points_issued: 34, stored_value_spent: 750, stored_value_loaded: 3000, reloads: 1, reload_amount: 3000 }));
    // 30.00 loaded, 5.00 and 2.50 spent.
    expect(d.outstanding_stored_value).toBe(2250);
    expect(d.days).toHaveLength(30);
    expect(d.days[29]).toMatchObject({ day: '2026-11-21', orders: 2, outstanding_stored_value: 2250 });
    expect(d.days[26]).toMatchObject({ day: '2026-11-18', orders: 1, check_ins: 1, reloads: 1, outstanding_stored_value: 2500 });
    expect(d.days[25]).toMatchObject({ day: '2026-11-17', orders: 0, outstanding_stored_value: 0 });
    expect(d.stores).toEqual([
      { id: vendor.storeId, name: 'Main Store', ...figures({ check_ins: 1, orders: 1, points_issued: 10, stored_value_spent: 500 }) },
      { id: second.storeId, name: 'Norte', ...figures({ check_ins: 2, orders: 2, points_issued: 24, stored_value_spent: 250 }) },
    ]);
  });

  it('a store manager sees their store only, without the program-wide liability or reloads', async () => {
    const d = await dashboard(storeManager);
    expect(d.store).toBe(second.storeId);
    expect(d.last_30_days).toEqual(figures({ check_ins: 2, orders: 2, points_issued: 24, stored_value_spent: 250 }));
    expect(d.outstanding_stored_value).toBeNull();
    expect(d.stores.map((s: { id: number }) => s.id)).toEqual([second.storeId]);
    const refused = await staffCall(node, storeManager.token, 'GET', `/backoffice/dashboard?store=${vendor.storeId}`);
    expect([refused.status, refused.body.code]).toEqual([403, 'forbidden']);
  });

  it('an adjustment of quick pay moves the liability, is not a load, and is shown as adjusted (today, the 30 days, its day)', async () => {
    const d0 = await dashboard(owner);
    const hit = (await staffCall(node, owner.token, 'GET', '/backoffice/customers?q=Beto')).body.items[0];
    const usd = (await staffCall(node, owner.token, 'GET', '/backoffice/program')).body.currencies.find((c: { code: string | null }) => c.code === 'USD');
    const made = await staffCall(node, owner.token, 'POST', `/backoffice/customers/${hit.id}/adjustments`, { currency: usd.id, amount: 125, reason: 'Goodwill credit' });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const d = await dashboard(owner);
    expect(d.outstanding_stored_value).toBe(d0.outstanding_stored_value + 125);
    expect(d.last_30_days.stored_value_loaded).toBe(3000);
    expect([d.today.stored_value_adjusted, d.last_30_days.stored_value_adjusted, d.days[29].stored_value_adjusted]).toEqual([
      d0.today.stored_value_adjusted + 125,
      d0.last_30_days.stored_value_adjusted + 125,
      d0.days[29].stored_value_adjusted + 125,
    ]);
    // the liability's move of the day is explained: loaded − spent + returned + adjusted
    const day = d.days[29];
    expect(day.outstanding_stored_value - d.days[28].outstanding_stored_value).toBe(day.stored_value_loaded - day.stored_value_spent + day.stored_value_returned + day.stored_value_adjusted);
    // an adjustment is program-wide: no store's figures move
    expect(d.stores).toEqual(d0.stores);
  });

  it('a sale paid with quick pay and voided days later: spent on its day, returned on the void’s; every day’s liability move adds up', async () => {
    const today = node.clock.now();
    const ana = (await staffCall(node, owner.token, 'GET', '/backoffice/customers?q=Ana')).body.items[0];
    const receipt = newReceipt();
    node.clock.set(today - 2 * DAY);
    await store.orderOk(vendor.apiKey, { card_number: ana.email, receipt_number: receipt, subtotal: 8, quick_pay: 3 });
    node.clock.set(today);
    const d0 = await dashboard(owner);
    await store.voidOk(vendor.apiKey, receipt);
    const d = await dashboard(owner);
    expect(d.days[27].stored_value_spent).toBe(300);
    expect(d.days[27].orders).toBe(0); // orders count those not voided
    expect(d.today.stored_value_returned).toBe(d0.today.stored_value_returned + 300);
    expect(d.outstanding_stored_value).toBe(d0.outstanding_stored_value + 300);
    for (let i = 1; i < d.days.length; i += 1) {
      const day = d.days[i];
      const move = day.outstanding_stored_value - d.days[i - 1].outstanding_stored_value;
      expect(move, day.day).toBe(day.stored_value_loaded - day.stored_value_spent + day.stored_value_returned + day.stored_value_adjusted);
    }
    // The day of the sale, by store: what left the balances there.
    expect(d.stores.find((s: { id: number }) => s.id === vendor.storeId).stored_value_spent).toBe(d0.stores.find((s: { id: number }) => s.id === vendor.storeId).stored_value_spent);
  });
});

describe('eGifts sold and not yet claimed on the dashboard', () => {
  // A gift paid for and not claimed is owed by the program but in no balance yet: shown beside the
  // balances (unclaimed_egifts) and in the liability (outstanding_liability), now and per day.
  const buy = async (vendorId: number, amount: number, recipient: string, extra: Record<string, unknown> = {}) => {
    const card = (extra.card as string | undefined) ?? CARDS.visa;
    const reply = await http(`${node.url}/vendor/${vendorId}/egift`, {
      method: 'POST',
      body: {
        amount,
        buyer: { name: 'Mateo Ruiz', email: 'mateo@example.com' },
        recipient: { name: 'Bea', email: recipient },
        billing: { name: 'Mateo Ruiz', number: card, expiry: { month: '12', year: '2030' }, cvv: '123', zip_code: '10001' },
        ...(extra.send_date === undefined ? {} : { send_date: extra.send_date }),
      },
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body as { id: number; status: string };
  };

  it('counts sent and scheduled gifts until claimed, never pending or declined ones; the liability is balances plus unclaimed gifts', async () => {
    // The claim code is read from the queued email: the outbox worker clears it once the email is sent.
    await node.messaging.stop();
    const today = node.clock.now();
    const v = await node.addVendor('Regalos');
    const boss = await ownerOf(node, v.vendorId);
    const bea = await signUpAt(node, v.vendorId, { first_name: 'Bea' });

    node.clock.set(today - 2 * DAY);
    await buy(v.vendorId, 10, bea.email);
    node.clock.set(today - DAY);
    await buy(v.vendorId, 4, 'someone@example.com');
    node.clock.set(today);
    const scheduled = await buy(v.vendorId, 6, 'later@example.com', { send_date: Math.floor(today / 1000) + 3 * 86_400 });
    expect(scheduled.status).toBe('Scheduled');
    // A card that reports late (and then declines, whenever the node's job asks): not paid, not owed.
    expect((await buy(v.vendorId, 7, 'late@example.com', { card: CARDS.lateDeclined })).status).toBe('Pending');

    const before = await dashboard(boss);
    expect(before.outstanding_stored_value).toBe(0);
    expect(before.unclaimed_egifts).toEqual({ count: 3, amount: 2000 });
    expect(before.outstanding_liability).toBe(2000);
    expect(before.days.slice(26).map((d: { unclaimed_egift_amount: number }) => d.unclaimed_egift_amount)).toEqual([0, 1000, 1400, 2000]);

    // Bea claims the 10.00 gift today: it moves from the gifts into the balances; the liability stays.
    const row = await node.engine.db.selectFrom('messages_outbox').select('params').where('template', '=', 'egift_received').where('recipient', '=', bea.email).executeTakeFirstOrThrow();
    const code = (openParams(node.engine, row.params) as { code: string }).code;
    const claimed = await http(`${node.url}${withSessionKey('/user/egift/claim', bea.key)}`, { method: 'POST', body: { code } });
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
    const after = await dashboard(boss);
    expect(after.outstanding_stored_value).toBe(1000);
    expect(after.unclaimed_egifts).toEqual({ count: 2, amount: 1000 });
    expect(after.outstanding_liability).toBe(2000);
    expect(after.today).toMatchObject({ egifts: 1, egift_amount: 1000 });
    // Past days are as they were: the gift was unclaimed at their end.
    expect(after.days.slice(26).map((d: { unclaimed_egift_amount: number }) => d.unclaimed_egift_amount)).toEqual([0, 1000, 1400, 1000]);

    // A store's view has no program-wide liability.
    const one = await dashboard(boss, `?store=${v.storeId}`);
    expect([one.unclaimed_egifts, one.outstanding_liability, one.days[29].unclaimed_egift_amount]).toEqual([null, null, null]);
  });
});
