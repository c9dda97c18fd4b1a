import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addApiKey } from '../../src/core/credentials/api-keys';
import { transact } from '../../src/core/engine';
import { nextObjectId } from '../../src/core/storage/ids';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { type Customer, legacyErrorCheck, ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { DEFAULT_RULE, expectBalancesAddUp, inStoreApi } from '../support/in-store';
import { http, type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// GET /user/transaction/list over real HTTP, filled by real orders: the store variant (api_key +
// user) and the customer's own (session_key) show the same records, newest first, only orders
// that moved value, voided orders marked Voided and followed by a 'void' record, every field of
// the contract's record, and the envelope's paging with absolute next/previous URLs.

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
const enc = encodeURIComponent;
const nowSec = () => Math.floor(node.clock.now() / 1000);
// Voided purchases and their void records cannot be rated or tipped: both windows 0.
const RATING = { comment: null, value: 0, window: 0 };
const TIP = { amount: 0, window: 0 };
const MAIN = { name: 'Main Store', address: '1 Main Street, Springfield' };

let vendorCount = 0;
const addVendor = () => node.addVendor(`Orders history ${++vendorCount}`);
const signUp = (vendorId: number) => signUpAt(node, vendorId);

let receiptCount = 0;
const newReceipt = () => `H-${++receiptCount}`;

const { orderOk, voidOk, credit } = inStoreApi(() => node);
const addReward = async (v: VendorCredentials, name: string, cost: number) => (await inStoreApi(() => node).addReward(v, { name, cost })).id;





const storeHistory = (apiKey: string, query: string) => http(`${node.url}/user/transaction/list?${query}&api_key=${enc(apiKey)}`);

async function storeHistoryOk(apiKey: string, userId: number, extra = ''): Promise<any> {
  const reply = await storeHistory(apiKey, `user=${userId}${extra}`);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
  return reply.body;
}

/** The query parameters of a paging URL, after checking it is an absolute URL of this same path. */
function linkParams(url: string): Record<string, string> {
  const parsed = new URL(url);
  expect(`${parsed.protocol}//${parsed.host}`).toBe(node.url);
  expect(parsed.pathname).toBe('/user/transaction/list');
  return Object.fromEntries(parsed.searchParams);
}


/** 30 one-unit orders a second apart: their receipts, oldest first. */
async function thirtyOrders(v: VendorCredentials, c: Customer): Promise<string[]> {
  const receipts: string[] = [];
  for (let i = 0; i < 30; i++) {
    node.clock.advance(1_000);
    const receipt = newReceipt();
    await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 1 });
    receipts.push(receipt);
  }
  return receipts;
}

// ---------------------------------------------------------------------------------------------

describe('GET /user/transaction/list?user&api_key', () => {
  it('lists the orders that moved value, newest first, with every field; a void marks the order Voided and adds a void record', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    await credit(v, v.quickPayCurrencyId, c.userId, 2_000);
    await credit(v, v.loyaltyCurrencyId, c.userId, 50);
    const reward = await addReward(v, 'Cookie', 20);

    node.clock.advance(1_000);
    const latte = newReceipt();
    const first = await orderOk(v.apiKey, {
      card_number: c.email,
      receipt_number: latte,
      till: 4,
      subtotal: 12.75,
      total: 13.5,
      taxes: [{ name: 'VAT', rate: 0.06, amount: 0.75 }],
      payment_method: 'card',
      items: [{ name: 'Latte', quantity: 1, price: 12.75, sku: 'LAT' }],
      quick_pay: 3.5,
      redemptions: [reward],
    });
    const firstAt = nowSec();

    node.clock.advance(60_000);
    // nothing moved: not listed
    const free = await orderOk(v.apiKey, { card_number: c.email, receipt_number: newReceipt(), subtotal: 0, items: [{ name: 'Water', quantity: 1, price: 0 }] });
    expect(free.transaction_id).toBeNull();

    node.clock.advance(60_000);
    const tea = newReceipt();
    const second = await orderOk(v.apiKey, { card_number: c.email, receipt_number: tea, subtotal: 5, items: [{ name: 'Tea', quantity: 2, price: 2.5 }] });
    const secondAt = nowSec();

    node.clock.advance(60_000);
    await voidOk(v.apiKey, tea);
    const voidedAt = nowSec();
    const voidRecord = await node.engine.db.selectFrom('transactions').select('id').where('order_id', '=', second.id).where('kind', '=', 'void').executeTakeFirstOrThrow();

    const body = await storeHistoryOk(v.apiKey, c.userId);
    const teaItems = [{ name: 'Tea', quantity: 2, price: 2.5, sku: null }];
    expect(body).toStrictEqual({
      object: 'list',
      count: 3,
      page: 1,
      page_size: 25,
      total_pages: 1,
      next_page_url: null,
      previous_page_url: null,
      data: [
        {
          object: 'void',
          id: voidRecord.id,
          date: voidedAt,
          total: -5,
          ...MAIN,
          rating: RATING,
          tip: TIP,
          quickpay: { object: 'quickpay', used: 0, loaded: 0, balance: 16.5 },
          items: teaItems,
          taxes: [],
          receipts: [{ receipt_number: tea, till: null, payment_method: null, voids: second.transaction_id }],
          rewards: [{ object: 'reward', kind: 'earned_reversed', name: DEFAULT_RULE, amount: -5, currency: 'Points' }],
          status: 'Voided',
        },
        {
          object: 'order',
          id: second.transaction_id,
          date: secondAt,
          total: 5,
          ...MAIN,
          rating: RATING,
          tip: TIP,
          quickpay: { object: 'quickpay', used: 0, loaded: 0, balance: 16.5 },
          items: teaItems,
          taxes: [],
          receipts: [{ receipt_number: tea, till: null, payment_method: null }],
          rewards: [{ object: 'reward', kind: 'earned', name: DEFAULT_RULE, amount: 5, currency: 'Points' }],
          status: 'Voided',
        },
        {
          object: 'order',
          id: first.transaction_id,
          date: firstAt,
          total: 13.5,
          ...MAIN,
          // A completed store purchase can still be rated (7 days) and tipped (24 h): seconds left.
          rating: { ...RATING, window: 7 * 86_400 - (nowSec() - firstAt) },
          tip: { ...TIP, window: 86_400 - (nowSec() - firstAt) },
          quickpay: { object: 'quickpay', used: 3.5, loaded: 0, balance: 16.5 },
          items: [{ name: 'Latte', quantity: 1, price: 12.75, sku: 'LAT' }],
          taxes: [{ name: 'VAT', rate: 0.06, amount: 0.75 }],
          receipts: [{ receipt_number: latte, till: 4, payment_method: 'card' }],
          rewards: [
            { object: 'reward', kind: 'earned', name: DEFAULT_RULE, amount: 12, currency: 'Points' },
            { object: 'reward', kind: 'redeemed', id: reward, name: 'Cookie', amount: 20, currency: 'Points' },
          ],
          status: 'Complete',
        },
      ],
    });
    // the .json path answers the same
    const json = await http(`${node.url}/user/transaction/list.json?user=${c.userId}&api_key=${enc(v.apiKey)}`);
    expect(json.body).toStrictEqual(body);
  });

  it('a void of a quick-pay order shows the money coming back (loaded) and the balance after', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    await credit(v, v.quickPayCurrencyId, c.userId, 1_000);
    const receipt = newReceipt();
    await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 4, quick_pay: 4 });
    node.clock.advance(1_000);
    await voidOk(v.apiKey, receipt);
    const { data } = await storeHistoryOk(v.apiKey, c.userId);
    expect(data.map((r: any) => [r.object, r.status, r.total, r.quickpay])).toStrictEqual([
      ['void', 'Voided', -4, { object: 'quickpay', used: 0, loaded: 4, balance: 10 }],
      ['order', 'Voided', 4, { object: 'quickpay', used: 4, loaded: 0, balance: 6 }],
    ]);
  });

  it("names the store the order was placed at, for any store of the vendor's", async () => {
    const v = await addVendor();
    const north = await transact(node.engine, async (trx) => {
      const now = node.clock.now();
      const storeId = await nextObjectId(trx, node.engine.nodeId);
      await trx
        .insertInto('stores')
        .values({ id: storeId, vendor_id: v.vendorId, name: 'North Store', address1: '9 Side Street', address2: null, city: 'Shelbyville', region: null, country: 'US', postal_code: null, phone: null, created_at: now, updated_at: now })
        .execute();
      return addApiKey(trx, node.engine, { vendorId: v.vendorId, storeId, posId: null, role: 'cashier', label: 'North counter' });
    });
    const c = await signUp(v.vendorId);
    await orderOk(v.apiKey, { card_number: c.email, receipt_number: newReceipt(), subtotal: 2 });
    node.clock.advance(1_000);
    await orderOk(north.key, { card_number: c.email, receipt_number: newReceipt(), subtotal: 3 });
    for (const key of [v.apiKey, north.key]) {
      const { data } = await storeHistoryOk(key, c.userId);
      expect(data.map((r: any) => [r.name, r.address, r.total])).toStrictEqual([
        ['North Store', '9 Side Street, Shelbyville', 3],
        ['Main Store', '1 Main Street, Springfield', 2],
      ]);
    }
  });

  it('pages 30 orders 10 at a time: absolute next/previous URLs carrying user, api_key, page and limit', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const receipts = await thirtyOrders(v, c);
    const newestFirst = [...receipts].reverse();

    const seen: string[] = [];
    let url: string | null = `${node.url}/user/transaction/list?user=${c.userId}&api_key=${enc(v.apiKey)}&limit=10`;
    for (let page = 1; page <= 3; page++) {
      const reply: HttpReply = await http(url!);
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      const body: any = reply.body;
      const { data: _data, next_page_url: _next, previous_page_url: _previous, ...envelope } = body;
      expect(envelope).toStrictEqual({ object: 'list', count: 30, page, page_size: 10, total_pages: 3 });
      expect(body.data).toHaveLength(10);
      seen.push(...body.data.map((r: any) => r.receipts[0].receipt_number));
      if (page < 3) expect(linkParams(body.next_page_url)).toStrictEqual({ user: String(c.userId), api_key: v.apiKey, page: String(page + 1), limit: '10' });
      else expect(body.next_page_url).toBeNull();
      if (page > 1) expect(linkParams(body.previous_page_url)).toStrictEqual({ user: String(c.userId), api_key: v.apiKey, page: String(page - 1), limit: '10' });
      else expect(body.previous_page_url).toBeNull();
      url = body.next_page_url;
    }
    expect(seen).toStrictEqual(newestFirst);
    // dates never go up along the list
    const page1 = await storeHistoryOk(v.apiKey, c.userId, '&limit=10');
    const dates = page1.data.map((r: any) => r.date);
    expect(dates).toStrictEqual([...dates].sort((a, b) => b - a));
    expect(dates[0]).toBe(nowSec());

    // beyond the last page: no data, a link back, none forward
    const beyond = await storeHistoryOk(v.apiKey, c.userId, '&limit=10&page=4');
    expect(beyond).toMatchObject({ count: 30, page: 4, page_size: 10, total_pages: 3, next_page_url: null, data: [] });
    expect(linkParams(beyond.previous_page_url)).toStrictEqual({ user: String(c.userId), api_key: v.apiKey, page: '3', limit: '10' });

    // the default page size is 25
    const byDefault = await storeHistoryOk(v.apiKey, c.userId);
    expect(byDefault).toMatchObject({ count: 30, page: 1, page_size: 25, total_pages: 2, previous_page_url: null });
    expect(byDefault.data).toHaveLength(25);
    expect(linkParams(byDefault.next_page_url)).toStrictEqual({ user: String(c.userId), api_key: v.apiKey, page: '2', limit: '25' });
  });

  it('the customer sees the same records with their session_key', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    await credit(v, v.quickPayCurrencyId, c.userId, 500);
    await orderOk(v.apiKey, { card_number: c.email, receipt_number: newReceipt(), subtotal: 3, quick_pay: 1 });
    node.clock.advance(1_000);
    const receipt = newReceipt();
    await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 8 });
    node.clock.advance(1_000);
    await voidOk(v.apiKey, receipt);

    const store = await storeHistoryOk(v.apiKey, c.userId, '&limit=2');
    const own = await http(`${node.url}/user/transaction/list?session_key=${enc(c.key)}&limit=2`);
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect({ ...own.body, next_page_url: null }).toStrictEqual({ ...store, next_page_url: null });
    expect(own.body.count).toBe(3);
    expect(linkParams(own.body.next_page_url)).toStrictEqual({ session_key: c.key, page: '2', limit: '2' });
    const ownPage2 = await http(own.body.next_page_url);
    const storePage2 = await http(store.next_page_url);
    expect(ownPage2.body.data).toStrictEqual(storePage2.body.data);
    expect(ownPage2.body.data).toHaveLength(1);
  });

  it("another vendor's key cannot read the customer's history (404 user_not_found); once the customer shops there it sees only its own records", async () => {
    const v = await addVendor();
    const w = await addVendor();
    const c = await signUp(v.vendorId);
    await orderOk(v.apiKey, { card_number: c.email, receipt_number: newReceipt(), subtotal: 6 });
    expectLegacyError(await storeHistory(w.apiKey, `user=${c.userId}`), 404, 'user_not_found', 'user');
    // A kiosk never reads history (docs/decisions.md, Hardening).
    expectLegacyError(await storeHistory(w.kioskApiKey, `user=${c.userId}`), 403, 'forbidden');

    node.clock.advance(1_000);
    await orderOk(w.apiKey, { card_number: c.email, receipt_number: newReceipt(), subtotal: 2 });
    const atW = await storeHistoryOk(w.apiKey, c.userId);
    expect(atW.count).toBe(1);
    expect(atW.data.map((r: any) => r.total)).toStrictEqual([2]);
    const atV = await storeHistoryOk(v.apiKey, c.userId);
    expect(atV.data.map((r: any) => r.total)).toStrictEqual([6]);
  });

  it('answers 400 without user, 404 user_not_found for a user not linked to the vendor or unknown, 400 for a bad page or limit, 401 without credentials', async () => {
    const v = await addVendor();
    const w = await addVendor();
    const stranger = await signUp(w.vendorId);
    expectLegacyError(await http(`${node.url}/user/transaction/list?api_key=${enc(v.apiKey)}`), 400, 'validation_failed', 'user');
    expectLegacyError(await storeHistory(v.apiKey, `user=${stranger.userId}`), 404, 'user_not_found', 'user');
    expectLegacyError(await storeHistory(v.apiKey, 'user=999999'), 404, 'user_not_found', 'user');
    const c = await signUp(v.vendorId);
    expectLegacyError(await storeHistory(v.apiKey, `user=${c.userId}&page=0`), 400, 'validation_failed', 'page');
    expectLegacyError(await storeHistory(v.apiKey, `user=${c.userId}&limit=101`), 400, 'validation_failed', 'limit');
    expectLegacyError(await http(`${node.url}/user/transaction/list?user=${c.userId}`), 401, 'missing_credentials');
    expectLegacyError(await storeHistory('pcak_unknown', `user=${c.userId}`), 401, 'invalid_api_key');
    // a linked customer without orders has an empty history
    expect(await storeHistoryOk(v.apiKey, c.userId)).toStrictEqual({
      object: 'list',
      count: 0,
      page: 1,
      page_size: 25,
      total_pages: 0,
      next_page_url: null,
      previous_page_url: null,
      data: [],
    });
  });
});
