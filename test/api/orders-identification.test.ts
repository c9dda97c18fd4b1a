import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newPublicId, nextObjectId } from '../../src/core/storage/ids';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { legacyErrorCheck, PASSWORD, ROOMY_RATE_LIMITS, signUpAt, withSessionKey } from '../support/customers';
import { DEFAULT_RULE, expectBalancesAddUp, inStoreApi, pointsOf, quickPayOf, tierRulesOf } from '../support/in-store';
import { http, startTestNode, type TestNode } from '../support/test-node';

// POST /order over real HTTP: who the order is for (an open session's pos_session_hash, or any
// identification check-in accepts in card_number), which session the order closes, and the
// idempotent resend: receipt_number is unique per store, so the same receipt again answers the
// first reply and moves nothing, while the same number at another store is another order.

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});

afterAll(async () => {
  await node?.close();
});

// The ledger check of the in-store issue: every cached balance equals the sum of its entries.
afterEach(async () => {
  await expectBalancesAddUp(node);
});

// ---------------------------------------------------------------------------------------------
// helpers (each orders-* file keeps its own: test files share no module but test/support)

const expectLegacyError = legacyErrorCheck({ noStackTrace: true });
const nowSec = () => Math.floor(node.clock.now() / 1000);


let vendorCount = 0;
const addVendor = () => node.addVendor(`Orders identification ${++vendorCount}`);
const signUp = (vendorId: number, overrides: Record<string, unknown> = {}) => signUpAt(node, vendorId, overrides);

let receiptCount = 0;
const newReceipt = () => `I-${++receiptCount}`;

const { postOrder, orderOk, checkInSessionOk: checkInOk, credit, retrieve, sessionRow, addStoreWithKiosk: addStore } = inStoreApi(() => node);
const queueHashes = (apiKey: string) => inStoreApi(() => node).queueHashes(apiKey);

/** A store: the vendor's credentials with this store's id and keys. */
type Store = VendorCredentials;







const orderRow = (storeId: number, receipt: string) => node.engine.db.selectFrom('orders').selectAll().where('store_id', '=', storeId).where('receipt_number', '=', receipt).executeTakeFirstOrThrow();


/** The ledger, history and order counts of the node and the customer's balances: what a resend must not move. */
async function snapshot(userId: number) {
  const db = node.engine.db;
  const count = async (table: 'orders' | 'ledger_entries' | 'ledger_accounts' | 'transactions') => (await db.selectFrom(table).select('id').execute()).length;
  return {
    orders: await count('orders'),
    entries: await count('ledger_entries'),
    accounts: await count('ledger_accounts'),
    transactions: await count('transactions'),
    balances: await db.selectFrom('ledger_accounts').select(['currency_id', 'balance', 'updated_at']).where('holder_id', '=', userId).orderBy('id').execute(),
    sessions: await db.selectFrom('pos_sessions').select(['hash', 'status', 'updated_at']).where('user_id', '=', userId).orderBy('id').execute(),
  };
}

/** The exact reply of an order that earned `points` by the default rule and left `balance` points. */
async function expectEarnReply(body: any, store: Store, c: { userId: number; first?: string; last?: string }, receipt: string, points: number, balance: number): Promise<void> {
  const row = await orderRow(store.storeId, receipt);
  const record = await node.engine.db.selectFrom('transactions').select('id').where('order_id', '=', row.id).where('kind', '=', 'order').executeTakeFirstOrThrow();
  expect(body).toStrictEqual({
    object: 'order',
    id: row.id,
    receipt_number: receipt,
    status: 'Complete',
    date: nowSec(),
    user: { user_id: String(c.userId), first_name: c.first ?? 'Ana', last_name: c.last ?? 'López' },
    points_earned: points,
    points_spent: 0,
    quick_pay_used: 0,
    earned: [{ rule: DEFAULT_RULE, currency: pointsOf(store), points }],
    redeemed: [],
    balances: { loyalty: [{ currency: pointsOf(store), amount: balance }], quick_pay: { currency: quickPayOf(store), amount: 0 } },
    transaction_id: record.id,
    tier: await tierRulesOf(node.engine.db, store.vendorId, c.userId),
    auto_reload_queued: false,
  });
}

// ---------------------------------------------------------------------------------------------

describe('POST /order by pos_session_hash', () => {
  it('is the checked-in customer; the session closes (reason order), leaves the queue, and its hash is 404 afterwards', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const other = await signUp(v.vendorId, { first_name: 'Ben', last_name: 'Ortiz' });
    const session = await checkInOk(v.apiKey, c.email);
    const stays = await checkInOk(v.apiKey, other.email);
    node.clock.advance(30_000);
    const receipt = newReceipt();
    const body = await orderOk(v.apiKey, { pos_session_hash: session.hash, receipt_number: receipt, subtotal: 8.4 });
    await expectEarnReply(body, v, c, receipt, 8, 8);
    expect(await sessionRow(session.hash)).toMatchObject({ status: 'closed', closed_reason: 'order', closed_at: node.clock.now(), updated_at: node.clock.now() });
    expect((await orderRow(v.storeId, receipt)).session_id).toBe(session.id);
    expect(await queueHashes(v.apiKey)).toEqual([stays.hash]);
    expectLegacyError(await retrieve(v.apiKey, session.hash), 404, 'session_not_found', 'pos_session_hash');
    // another order on the closed session is refused and moves nothing
    const before = await snapshot(c.userId);
    expectLegacyError(await postOrder(v.apiKey, { pos_session_hash: session.hash, receipt_number: newReceipt(), subtotal: 5 }), 404, 'session_not_found', 'pos_session_hash');
    expect(await snapshot(c.userId)).toStrictEqual(before);
    // the other customer's session is untouched
    expect((await sessionRow(stays.hash)).status).toBe('active');
  });

  it('a session the customer opened in the app works the same', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const app = await http(`${node.url}${withSessionKey('/vendor/store/check-in', c.key)}`, { method: 'POST', body: { store: v.storeId } });
    expect(app.status, JSON.stringify(app.body)).toBe(201);
    const receipt = newReceipt();
    await expectEarnReply(await orderOk(v.apiKey, { pos_session_hash: app.body.pos_session.hash, receipt_number: receipt, subtotal: 3 }), v, c, receipt, 3, 3);
    expect(await sessionRow(app.body.pos_session.hash)).toMatchObject({ status: 'closed', closed_reason: 'order' });
  });

  it("an unknown hash, another store's session and another vendor's session: 404 session_not_found; those sessions stay open", async () => {
    const v = await addVendor();
    const north = await addStore(v, 'North Store');
    const w = await addVendor();
    const a = await signUp(v.vendorId);
    const b = await signUp(w.vendorId);
    const atNorth = await checkInOk(north.apiKey, a.email);
    const atW = await checkInOk(w.apiKey, b.email);
    for (const [hash, who] of [
      ['0'.repeat(32), a],
      [atNorth.hash, a],
      [atW.hash, b],
    ] as const) {
      const before = await snapshot(who.userId);
      expectLegacyError(await postOrder(v.apiKey, { pos_session_hash: hash, receipt_number: newReceipt(), subtotal: 5 }), 404, 'session_not_found', 'pos_session_hash');
      expect(await snapshot(who.userId)).toStrictEqual(before);
    }
    expect(await queueHashes(north.apiKey)).toEqual([atNorth.hash]);
    expect(await queueHashes(w.apiKey)).toEqual([atW.hash]);
  });
});

describe('POST /order by pos_session_hash for an account that changed after the check-in', () => {
  it('a deactivated account: 422 account_inactive, as by card_number; nothing moves and the session stays open', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const session = await checkInOk(v.apiKey, c.email);
    const deactivate = await http(`${node.url}${withSessionKey('/user/account/deactivate', c.key)}`, { method: 'POST', body: { password: PASSWORD } });
    expect(deactivate.status, JSON.stringify(deactivate.body)).toBe(200);
    const before = await snapshot(c.userId);
    expectLegacyError(await postOrder(v.apiKey, { pos_session_hash: session.hash, receipt_number: newReceipt(), subtotal: 5 }), 422, 'account_inactive', 'pos_session_hash');
    expectLegacyError(await postOrder(v.apiKey, { card_number: c.email, receipt_number: newReceipt(), subtotal: 5 }), 422, 'account_inactive', 'card_number');
    expect(await snapshot(c.userId)).toStrictEqual(before);
    expect((await sessionRow(session.hash)).status).toBe('active');
  });

  it('a deleted account: 404 customer_not_found, as identifying it is; nothing moves', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const session = await checkInOk(v.apiKey, c.email);
    await node.engine.db.updateTable('users').set({ status: 'deleted' }).where('id', '=', c.userId).execute();
    const before = await snapshot(c.userId);
    expectLegacyError(await postOrder(v.apiKey, { pos_session_hash: session.hash, receipt_number: newReceipt(), subtotal: 5 }), 404, 'customer_not_found', 'pos_session_hash');
    expect(await snapshot(c.userId)).toStrictEqual(before);
  });
});

describe('POST /order with both card_number and pos_session_hash', () => {
  it('naming different customers: 400 identification_conflict (card_number); nobody is charged and the session stays open', async () => {
    const v = await addVendor();
    const ana = await signUp(v.vendorId);
    const ben = await signUp(v.vendorId, { first_name: 'Ben', last_name: 'Ortiz' });
    await credit(v, v.quickPayCurrencyId, ana.userId, 2_000);
    await credit(v, v.quickPayCurrencyId, ben.userId, 2_000);
    const session = await checkInOk(v.apiKey, ben.email);
    const [anaBefore, benBefore] = [await snapshot(ana.userId), await snapshot(ben.userId)];
    const order = { card_number: ana.email, pos_session_hash: session.hash, receipt_number: newReceipt(), subtotal: 8, quick_pay: 5 };
    const refused = await postOrder(v.apiKey, order);
    expectLegacyError(refused, 400, 'identification_conflict', 'card_number');
    expect(refused.body.error.errors[0].message).toContain('card_number and pos_session_hash name different customers');
    // A card_number naming nobody beside a session is refused as it is alone.
    expectLegacyError(await postOrder(v.apiKey, { ...order, card_number: 'nobody@example.com' }), 404, 'customer_not_found', 'card_number');
    expect([await snapshot(ana.userId), await snapshot(ben.userId)]).toStrictEqual([anaBefore, benBefore]);
    expect((await sessionRow(session.hash)).status).toBe('active');
    expect(await node.engine.db.selectFrom('orders').select('id').where('vendor_id', '=', v.vendorId).execute()).toEqual([]);

    // Naming the same customer: the order is Ben's, as before.
    const placed = await orderOk(v.apiKey, { ...order, card_number: ben.email });
    expect(placed).toMatchObject({ user: { user_id: String(ben.userId) }, quick_pay_used: 5 });
    expect((await sessionRow(session.hash)).status).toBe('closed');
    expect((await orderRow(v.storeId, order.receipt_number)).user_id).toBe(ben.userId);
    // Its resend: the same with Ben's card, refused with Ana's (never answered with Ben's sale).
    expect(await orderOk(v.apiKey, { ...order, card_number: ben.email })).toStrictEqual(placed);
    expectLegacyError(await postOrder(v.apiKey, order), 400, 'identification_conflict', 'card_number');
    // A blank card_number is as if absent.
    const blank = await checkInOk(v.apiKey, ben.email);
    expect(await orderOk(v.apiKey, { ...order, card_number: '  ', pos_session_hash: blank.hash, receipt_number: newReceipt() })).toMatchObject({ user: { user_id: String(ben.userId) } });
    expect((await snapshot(ana.userId)).balances).toStrictEqual(anaBefore.balances);
  });
});

describe('POST /order by card_number (any identification)', () => {
  it('finds the customer by email, linked card, phone, app barcode token, cedula and passport', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    // a linked card
    const card = `Ord${Date.now().toString(36)}`;
    expect((await http(`${node.url}/cards`, { method: 'POST', token: v.accessToken, body: { number: card } })).status).toBe(201);
    expect((await http(`${node.url}${withSessionKey('/user/card/add', c.key)}`, { method: 'POST', body: { number: card } })).status).toBe(200);
    // a phone
    const put = await http(`${node.url}${withSessionKey('/user/profile', c.key)}`, { method: 'PUT', body: { phone_number: { number: '(202) 555-0143', code: '1' } } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    // national ids
    await node.engine.db.updateTable('users').set({ cedula: '1710034065', passport_number: 'XK7734912' }).where('id', '=', c.userId).execute();
    // the app's barcode token
    const token = await http(`${node.url}${withSessionKey('/user/token/request', c.key)}`, { method: 'POST', body: { token_type: 2 } });
    expect(token.status, JSON.stringify(token.body)).toBe(200);

    const typed = [c.email.toUpperCase(), card.toLowerCase(), '202-555-0143', '+1 202 555 0143', token.body.token, '1710034065', 'xk7734912'];
    let balance = 0;
    for (const [i, identification] of typed.entries()) {
      const receipt = newReceipt();
      const reply = await postOrder(v.apiKey, { card_number: identification, receipt_number: receipt, subtotal: i + 1 });
      expect(reply.status, `${identification}: ${JSON.stringify(reply.body)}`).toBe(200);
      balance += i + 1;
      await expectEarnReply(reply.body, v, c, receipt, i + 1, balance);
      // nobody was checked in: the order closed no session
      expect((await orderRow(v.storeId, receipt)).session_id).toBeNull();
    }
    expect(await node.engine.db.selectFrom('pos_sessions').select('id').where('user_id', '=', c.userId).execute()).toEqual([]);
  });

  it("the customer's open session at this store closes too (and it is the order's session)", async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const session = await checkInOk(v.apiKey, c.email);
    const receipt = newReceipt();
    await expectEarnReply(await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 6 }), v, c, receipt, 6, 6);
    expect(await sessionRow(session.hash)).toMatchObject({ status: 'closed', closed_reason: 'order' });
    expect((await orderRow(v.storeId, receipt)).session_id).toBe(session.id);
    expect(await queueHashes(v.apiKey)).toEqual([]);
    expectLegacyError(await retrieve(v.apiKey, session.hash), 404, 'session_not_found', 'pos_session_hash');
  });

  it('a customer of another program joins this one with their first order', async () => {
    const home = await addVendor();
    const here = await addVendor();
    const c = await signUp(home.vendorId);
    const receipt = newReceipt();
    // Until they confirm in this program, the counter sees their first name and initial (docs/decisions.md, Hardening).
    await expectEarnReply(await orderOk(here.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 4 }), here, { ...c, last: 'L.' }, receipt, 4, 4);
    const link = await node.engine.db.selectFrom('user_vendors').select('id').where('user_id', '=', c.userId).where('vendor_id', '=', here.vendorId).executeTakeFirst();
    expect(link).toBeDefined();
  });

  it('neither card_number nor pos_session_hash: 400 validation_failed (card_number); an unknown identification: 404 customer_not_found', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const before = await snapshot(c.userId);
    expectLegacyError(await postOrder(v.apiKey, { receipt_number: newReceipt(), subtotal: 5 }), 400, 'validation_failed', 'card_number');
    expectLegacyError(await postOrder(v.apiKey, { card_number: '   ', receipt_number: newReceipt(), subtotal: 5 }), 400, 'validation_failed', 'card_number');
    for (const unknown of ['nobody@example.com', 'NOCARD123', '+1 202 555 0199', 'PC0123456789ABCDEF']) {
      expectLegacyError(await postOrder(v.apiKey, { card_number: unknown, receipt_number: newReceipt(), subtotal: 5 }), 404, 'customer_not_found', 'card_number');
    }
    expect(await snapshot(c.userId)).toStrictEqual(before);
    expect(await node.engine.db.selectFrom('orders').select('id').where('vendor_id', '=', v.vendorId).execute()).toEqual([]);
  });
});

describe('POST /order: idempotent resend of a receipt', () => {
  it('the same receipt at the same store answers the identical reply and moves nothing (quick pay, reward and points)', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const other = await signUp(v.vendorId);
    await credit(v, v.quickPayCurrencyId, c.userId, 2_000);
    await credit(v, v.loyaltyCurrencyId, c.userId, 50);
    const reward = newPublicId('rwd');
    await node.engine.db
      .insertInto('spending_rules')
      .values({
        id: await nextObjectId(node.engine.db, node.engine.nodeId),
        public_id: reward,
        vendor_id: v.vendorId,
        currency_id: v.loyaltyCurrencyId,
        name: 'Cookie',
        summary: 'A cookie',
        description: 'A cookie for points.',
        cost: 20,
        status: 'ACTIVE',
        starts_at: null,
        ends_at: null,
        created_at: node.clock.now(),
        updated_at: node.clock.now(),
        deleted_at: null,
      })
      .execute();
    const receipt = newReceipt();
    const order = { card_number: c.email, receipt_number: receipt, subtotal: 12.75, total: 13.5, quick_pay: 3.5, redemptions: [reward] };
    const first = await orderOk(v.apiKey, order);
    expect(first).toMatchObject({ points_earned: 12, points_spent: 20, quick_pay_used: 3.5, balances: { loyalty: [{ amount: 42 }], quick_pay: { amount: 16.5 } } });
    const after = await snapshot(c.userId);

    node.clock.advance(60_000);
    expect(await orderOk(v.apiKey, order)).toStrictEqual(first);
    // a till's retry may stamp the date, items, taxes, till and payment method afresh, or pad the number: the same sale
    const restamped = { ...order, date: nowSec(), till: 4, payment_method: 'card', taxes: [{ name: 'VAT', amount: 0.75 }], items: [{ name: 'Tea', quantity: 1, price: 13.5 }] };
    expect(await orderOk(v.apiKey, restamped)).toStrictEqual(first);
    expect(await orderOk(v.apiKey, { ...order, receipt_number: `  ${receipt} `, redemptions: [reward] })).toStrictEqual(first);
    expect(await snapshot(c.userId)).toStrictEqual(after);
    expect(await node.engine.db.selectFrom('ledger_accounts').select('id').where('holder_id', '=', other.userId).execute()).toEqual([]);
  });

  it('the receipt number with a different sale (figures, rewards or customer) is 409 receipt_number_reused, naming what differs; nothing moves', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const other = await signUp(v.vendorId);
    await credit(v, v.quickPayCurrencyId, c.userId, 2_000);
    const receipt = newReceipt();
    const order = { card_number: c.email, receipt_number: receipt, subtotal: 12.75, total: 13.5, quick_pay: 3.5 };
    const first = await orderOk(v.apiKey, order);
    const after = await snapshot(c.userId);
    const reused = async (body: Record<string, unknown>, differs: string) => {
      const reply = await postOrder(v.apiKey, body);
      expectLegacyError(reply, 409, 'receipt_number_reused', 'receipt_number');
      expect(reply.body.error.errors[0].message).toBe(
        `Receipt ${receipt} was already recorded at this store for a different sale (${differs}). Send a new receipt number; a resend of that sale must carry the same customer and amounts.`,
      );
    };
    await reused({ ...order, subtotal: 99 }, 'subtotal 12.75 recorded, 99.00 sent');
    await reused({ ...order, total: 12.75 }, 'total 13.50 recorded, 12.75 sent');
    await reused({ ...order, quick_pay: 0 }, 'quick pay 3.50 recorded, 0.00 sent');
    const cookie = newPublicId('rwd');
    await reused({ ...order, redemptions: [cookie] }, `rewards none recorded, ${cookie} sent`);
    // the same figures for another customer: a POS whose numbering started again (the sale the
    // first reply would answer is not theirs, and they would silently earn nothing)
    await reused({ ...order, card_number: other.email, quick_pay: undefined, total: 13.5 }, 'quick pay 3.50 recorded, 0.00 sent');
    await reused({ ...order, card_number: other.email }, 'another customer');
    const session = await checkInOk(v.apiKey, other.email);
    await reused({ pos_session_hash: session.hash, receipt_number: receipt, subtotal: 12.75, total: 13.5, quick_pay: 3.5 }, 'another customer');
    // the same customer and figures a day apart: a POS numbering afresh each day (retries come within
    // 12 hours). Dated back from the recorded sale: a date ahead of the node's clock is dated now.
    const recordedAt = new Date(node.clock.now()).toISOString();
    const dayBefore = nowSec() - 86_400;
    await reused({ ...order, date: dayBefore }, `date ${recordedAt} recorded, ${new Date(dayBefore * 1000).toISOString()} sent`);
    expect(await orderOk(v.apiKey, { ...order, date: nowSec() - 11 * 3_600 })).toStrictEqual(first);
    // a resend naming nobody is refused as a new order would be, never answered with someone's sale
    expectLegacyError(await postOrder(v.apiKey, { ...order, card_number: 'nobody@example.com' }), 404, 'customer_not_found', 'card_number');
    expectLegacyError(await postOrder(v.apiKey, { ...order, card_number: undefined }), 400, 'validation_failed', 'card_number');
    expectLegacyError(await postOrder(v.apiKey, { ...order, card_number: undefined, pos_session_hash: 'no-such-session' }), 404, 'session_not_found', 'pos_session_hash');
    expect(await snapshot(c.userId)).toStrictEqual(after);
    expect(await node.engine.db.selectFrom('orders').select('id').where('user_id', '=', other.userId).execute()).toEqual([]);
    expect(await orderOk(v.apiKey, order)).toStrictEqual(first);
  });

  it('optional fields sent as null are as if left out (POS serialisers write null); blank reward ids are no reward', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const receipt = newReceipt();
    const nulls = { till: null, total: null, quick_pay: null, date: null, items: null, taxes: null, payment_method: null, pos_session_hash: null, redemptions: null };
    const placed = await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 7, ...nulls });
    await expectEarnReply(placed, v, c, receipt, 7, 7);
    expect(await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 7 })).toStrictEqual(placed);
    const blank = await orderOk(v.apiKey, { card_number: c.email, receipt_number: newReceipt(), subtotal: 1, redemptions: [''] });
    expect(blank.redeemed).toEqual([]);
    const form = await http(`${node.url}/order?api_key=${encodeURIComponent(v.apiKey)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `card_number=${encodeURIComponent(c.email)}&receipt_number=${newReceipt()}&subtotal=1&redemptions=`,
    });
    expect(form.status, JSON.stringify(form.body)).toBe(200);
    // a required field sent as null is still refused by name
    expectLegacyError(await postOrder(v.apiKey, { card_number: c.email, receipt_number: newReceipt(), subtotal: null }), 400, 'validation_failed', 'subtotal');
  });

  it('the resend works after the session closed (the first order closed it)', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const session = await checkInOk(v.apiKey, c.email);
    const receipt = newReceipt();
    const order = { pos_session_hash: session.hash, receipt_number: receipt, subtotal: 9 };
    const first = await orderOk(v.apiKey, order);
    await expectEarnReply(first, v, c, receipt, 9, 9);
    expect((await sessionRow(session.hash)).status).toBe('closed');
    const after = await snapshot(c.userId);
    node.clock.advance(5_000);
    expect(await orderOk(v.apiKey, order)).toStrictEqual(first);
    expect(await snapshot(c.userId)).toStrictEqual(after);
  });

  it('five copies of one receipt sent at once make one order', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const order = { card_number: c.email, receipt_number: newReceipt(), subtotal: 10 };
    const replies = await Promise.all(Array.from({ length: 5 }, () => postOrder(v.apiKey, order)));
    for (const reply of replies) expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    for (const reply of replies) expect(reply.body).toStrictEqual(replies[0]!.body);
    expect(await node.engine.db.selectFrom('orders').select('id').where('user_id', '=', c.userId).execute()).toHaveLength(1);
    expect(replies[0]!.body.balances.loyalty).toStrictEqual([{ currency: pointsOf(v), amount: 10 }]);
  });

  it('the same receipt number at another store of the vendor is another order; at another vendor too', async () => {
    const v = await addVendor();
    const north = await addStore(v, 'North Store');
    const w = await addVendor();
    const c = await signUp(v.vendorId);
    const receipt = newReceipt();
    const main = await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 5 });
    await expectEarnReply(main, v, c, receipt, 5, 5);
    const atNorth = await orderOk(north.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 7 });
    await expectEarnReply(atNorth, north, c, receipt, 7, 12);
    expect(atNorth.id).not.toBe(main.id);
    const atW = await orderOk(w.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 2 });
    await expectEarnReply(atW, w, { ...c, last: 'L.' }, receipt, 2, 2);
    // each store's resend answers its own order
    expect(await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 5 })).toStrictEqual(main);
    expect(await orderOk(north.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 7 })).toStrictEqual(atNorth);
    expect((await orderRow(north.storeId, receipt)).store_id).toBe(north.storeId);
    expect(await node.engine.db.selectFrom('orders').select('id').where('user_id', '=', c.userId).execute()).toHaveLength(3);
  });

  it('a receipt refused with a business error is not taken: the next try with it places the order', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const receipt = newReceipt();
    expectLegacyError(await postOrder(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 5, quick_pay: 1 }), 422, 'insufficient_balance', 'quick_pay');
    await expectEarnReply(await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 5 }), v, c, receipt, 5, 5);
  });
});
