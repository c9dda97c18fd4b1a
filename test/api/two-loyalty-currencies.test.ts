import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverDueWebhooks } from '../../src/core/webhooks/deliver';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ownerOf, type SignedInStaff, staffCall } from '../support/backoffice';
import { ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { inStoreApi, receiptCounter } from '../support/in-store';
import { http, startTestNode, type TestNode } from '../support/test-node';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

// Nineteenth round: a café whose program has two loyalty currencies, "Points" (1 per dollar, the
// program's own) and "Stamps" (1 per 5 dollars, made over the bearer API), with a reward priced in
// each. Played over real HTTP on a real SQLite file. The counter's replies already told each
// currency apart; the back office's figures and the order webhooks added them up: an order earning
// 40 points and 8 stamps was "48 points issued" on the dashboard and the period statement, and
// `points_earned: 48` in `order.placed` with nothing saying which was which.

let node: TestNode;
let vendor: VendorCredentials;
let owner: SignedInStaff;
let hooks: WebhookReceiver;
let points: { id: string; legacyId: number };
let stamps: { id: string; legacyId: number };
let coffee: string;
let muffin: string;
let customer: { email: string; userId: number };
const store = inStoreApi(() => node);
const receipt = receiptCounter('two');

/** The café's day: 40.00 (40 points, 8 stamps); 10.00 redeeming a coffee (5 stamps) and a muffin (30 points), then voided; 25.00 (25 points, 5 stamps). */
const sales: string[] = [];

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS, webhooksAllowPrivate: true });
  vendor = await node.addVendor('Café de Dos');
  owner = await ownerOf(node, vendor.vendorId);
  hooks = await startWebhookReceiver();
  const subscribed = await staffCall(node, owner.token, 'POST', '/backoffice/webhooks', { url: hooks.url, events: ['order.placed', 'order.voided'] });
  expect(subscribed.status, JSON.stringify(subscribed.body)).toBe(201);

  const bearer = { token: vendor.accessToken };
  const made = await http(`${node.url}/currencies`, { method: 'POST', ...bearer, body: { name: 'Stamps' } });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  const listed = (await http(`${node.url}/currencies`, bearer)).body.items as Array<{ id: string; name: string }>;
  const legacyIdOf = async (publicId: string) => Number((await node.engine.db.selectFrom('currencies').select('id').where('public_id', '=', publicId).executeTakeFirstOrThrow()).id);
  const pointsId = listed.find((c) => c.name === 'Points')!.id;
  points = { id: pointsId, legacyId: await legacyIdOf(pointsId) };
  stamps = { id: made.body.id, legacyId: await legacyIdOf(made.body.id) };
  const rule = await http(`${node.url}/earning-rules`, { method: 'POST', ...bearer, body: { name: '1 stamp per 5 dollars', currency: stamps.id, points: 1, per_amount: 5 } });
  expect(rule.status, JSON.stringify(rule.body)).toBe(201);
  coffee = (await http(`${node.url}/rewards`, { method: 'POST', ...bearer, body: { name: 'Free coffee', cost: 5, currency: stamps.id } })).body.id;
  muffin = (await http(`${node.url}/rewards`, { method: 'POST', ...bearer, body: { name: 'Muffin', cost: 30, currency: points.id } })).body.id;

  const ana = await signUpAt(node, vendor.vendorId, { first_name: 'Ana' });
  customer = { email: ana.email, userId: ana.userId };
  for (const sale of [{ subtotal: 40 }, { subtotal: 10, redemptions: [coffee, muffin] }, { subtotal: 25 }]) {
    const number = receipt();
    await store.orderOk(vendor.apiKey, { card_number: customer.email, receipt_number: number, ...sale });
    sales.push(number);
  }
  await store.voidOk(vendor.apiKey, sales[1]!);
});

afterAll(async () => {
  await hooks?.close();
  await node?.close();
});

describe('a program with Points and Stamps', () => {
  it('the counter tells each loyalty currency apart: one loyalty_balance entry per currency, in the interface’s shape', async () => {
    const session = await store.checkInSessionOk(vendor.apiKey, customer.email);
    const retrieved = await store.retrieveOk(vendor.apiKey, session.hash);
    const nothingExpiring = { data: [], page_size: 25, count: 0, page: 1 };
    // 40 + 25 points and 8 + 5 stamps; the voided sale's moves all undone.
    expect(retrieved.loyalty_balance).toStrictEqual({
      data: [
        { amount: 65, currency: { id: points.legacyId, name: 'Points', code: null }, expiring: nothingExpiring },
        { amount: 13, currency: { id: stamps.legacyId, name: 'Stamps', code: null }, expiring: nothingExpiring },
      ],
    });
    await store.closeOk(vendor.apiKey, session.hash);
  });

  it('the dashboard says each currency’s points issued and redeemed, today and per store; points_issued still adds them up', async () => {
    const d = (await staffCall(node, owner.token, 'GET', '/backoffice/dashboard')).body;
    // The voided sale counts for neither (as for points_issued).
    const loyalty = [
      { currency: points.id, name: 'Points', issued: 65, redeemed: 0 },
      { currency: stamps.id, name: 'Stamps', issued: 13, redeemed: 0 },
    ];
    expect(d.today).toMatchObject({ orders: 2, points_issued: 78, points_redeemed: 0, loyalty });
    expect(d.last_30_days.loyalty).toStrictEqual(loyalty);
    expect(d.stores).toMatchObject([{ id: vendor.storeId, loyalty }]);
    expect(d.days.at(-1).loyalty).toStrictEqual(loyalty);
    expect(d.days[0].loyalty).toStrictEqual(loyalty.map((l) => ({ ...l, issued: 0 })));
  });

  it('redeemed points count per currency too, and a currency archived since stays named while its figures are in the window', async () => {
    const number = receipt();
    await store.orderOk(vendor.apiKey, { card_number: customer.email, receipt_number: number, subtotal: 0, redemptions: [coffee, coffee] });
    const archived = await http(`${node.url}/currencies/${stamps.id}`, { method: 'PUT', token: vendor.accessToken, body: { status: 'ARCHIVED' } });
    expect(archived.status, JSON.stringify(archived.body)).toBe(200);
    try {
      const d = (await staffCall(node, owner.token, 'GET', '/backoffice/dashboard')).body;
      expect(d.today).toMatchObject({ points_issued: 78, points_redeemed: 10 });
      expect(d.today.loyalty).toStrictEqual([
        { currency: points.id, name: 'Points', issued: 65, redeemed: 0 },
        { currency: stamps.id, name: 'Stamps', issued: 13, redeemed: 10 },
      ]);
    } finally {
      await http(`${node.url}/currencies/${stamps.id}`, { method: 'PUT', token: vendor.accessToken, body: { status: 'ACTIVE' } });
      await store.voidOk(vendor.apiKey, number);
    }
  });

  it('an archived currency nothing moved in the window is left out', async () => {
    const made = await http(`${node.url}/currencies`, { method: 'POST', token: vendor.accessToken, body: { name: 'Old beans' } });
    await http(`${node.url}/currencies/${made.body.id}`, { method: 'PUT', token: vendor.accessToken, body: { status: 'ARCHIVED' } });
    const d = (await staffCall(node, owner.token, 'GET', '/backoffice/dashboard')).body;
    expect(d.today.loyalty.map((l: { name: string }) => l.name)).toEqual(['Points', 'Stamps']);
  });

  it('a currency deleted since, once nothing was left in it, stays named while its figures are in the window: the list adds up to the sums', async () => {
    const other = await node.addVendor('Café Borrado');
    const otherOwner = await ownerOf(node, other.vendorId);
    const bearer = { token: other.accessToken };
    const made = await http(`${node.url}/currencies`, { method: 'POST', ...bearer, body: { name: 'Stamps' } });
    const rule = await http(`${node.url}/earning-rules`, { method: 'POST', ...bearer, body: { name: 'stamp', currency: made.body.id, points: 1, per_amount: 5 } });
    const reward = (await http(`${node.url}/rewards`, { method: 'POST', ...bearer, body: { name: 'Coffee', cost: 2, currency: made.body.id } })).body.id;
    const bea = await signUpAt(node, other.vendorId, { first_name: 'Bea' });
    await store.orderOk(other.apiKey, { card_number: bea.email, receipt_number: receipt(), subtotal: 10 });
    await store.orderOk(other.apiKey, { card_number: bea.email, receipt_number: receipt(), subtotal: 1, redemptions: [reward] });
    // Nothing left in Stamps: the program may delete it.
    await http(`${node.url}/earning-rules/${rule.body.id}`, { method: 'DELETE', ...bearer });
    await http(`${node.url}/rewards/${reward}`, { method: 'DELETE', ...bearer });
    const deleted = await http(`${node.url}/currencies/${made.body.id}`, { method: 'DELETE', ...bearer });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);

    const d = (await staffCall(node, otherOwner.token, 'GET', '/backoffice/dashboard')).body;
    expect(d.last_30_days).toMatchObject({ points_issued: 13, points_redeemed: 2 });
    expect(d.last_30_days.loyalty.map((l: { name: string; issued: number; redeemed: number }) => [l.name, l.issued, l.redeemed])).toEqual([
      ['Points', 11, 0],
      ['Stamps', 2, 2],
    ]);
  });

  it('the period statement says each currency’s figures, and its file adds a column pair per currency at the end', async () => {
    const today = new Date(node.clock.now()).toISOString().slice(0, 10);
    const p = (await staffCall(node, owner.token, 'GET', `/backoffice/dashboard/period?from=${today}&to=${today}`)).body;
    const loyalty = [
      { currency: points.id, name: 'Points', issued: 65, redeemed: 0 },
      { currency: stamps.id, name: 'Stamps', issued: 13, redeemed: 0 },
    ];
    expect(p.total).toMatchObject({ points_issued: 78, loyalty });
    expect(p.stores).toMatchObject([{ id: vendor.storeId, loyalty }]);
    expect(p.program.loyalty).toStrictEqual(loyalty.map((l) => ({ ...l, issued: 0 })));

    const file = await fetch(`${node.url}/backoffice/dashboard/period.csv?from=${today}&to=${today}`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(file.status).toBe(200);
    const [header, storeRow] = (await file.text()).replace(/^\uFEFF/, '').split('\r\n').map((line) => line.split(','));
    expect(header!.slice(-4)).toEqual(['points_issued:Points', 'points_redeemed:Points', 'points_issued:Stamps', 'points_redeemed:Stamps']);
    expect(header!.indexOf('points_issued')).toBe(6);
    expect(storeRow![6]).toBe('78');
    expect(storeRow!.slice(-4)).toEqual(['65', '0', '13', '0']);
  });

  it('order.placed and order.voided say what each currency earned and spent', async () => {
    await deliverDueWebhooks(node.engine, { allowPrivate: true });
    await hooks.waitForCount(6);
    const pointsRef = { currency_id: points.legacyId, name: 'Points', code: null };
    const stampsRef = { currency_id: stamps.legacyId, name: 'Stamps', code: null };
    const placed = hooks.ofType('order.placed').map((h) => h.body.data);
    expect(placed.map((o) => [o.receipt_number, o.points_earned, o.points_spent, o.loyalty])).toEqual([
      [sales[0], 48, 0, [{ currency: pointsRef, earned: 40, spent: 0 }, { currency: stampsRef, earned: 8, spent: 0 }]],
      [sales[1], 12, 35, [{ currency: pointsRef, earned: 10, spent: 30 }, { currency: stampsRef, earned: 2, spent: 5 }]],
      [sales[2], 30, 0, [{ currency: pointsRef, earned: 25, spent: 0 }, { currency: stampsRef, earned: 5, spent: 0 }]],
      [expect.any(String), 0, 10, [{ currency: stampsRef, earned: 0, spent: 10 }]],
    ]);
    const voided = hooks.ofType('order.voided').map((h) => h.body.data);
    expect(voided[0]).toMatchObject({ receipt_number: sales[1], loyalty: [{ currency: pointsRef, earned: 10, spent: 30 }, { currency: stampsRef, earned: 2, spent: 5 }] });
  });
});
