import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { transact } from '../../src/core/engine';
import { openAccount, postEntry } from '../../src/core/ledger/ledger';
import { tierPoints } from '../../src/core/orders/tier-points';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { type Customer, legacyErrorCheck, loginOkAt, PASSWORD, ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { type Cur, DEFAULT_RULE, expectBalancesAddUp, inStoreApi, pointsOf, quickPayOf, tierRulesOf } from '../support/in-store';
import { http, startTestNode, type TestNode } from '../support/test-node';

// POST /order over real HTTP, the earning side: points by the vendor's earning rules on the
// subtotal (points per per_amount, rounding floor/round/ceil, max_award, start/end dates, rule
// and currency status), several rules adding up, nothing earned and nothing recorded for a zero
// subtotal, points expiry (vendors.points_expiry_days) shown in the retrieve-customer reply, and
// tier promotion once the points earned reach a tier's threshold.

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

const enc = encodeURIComponent;
const DAY = 86_400_000;
const nowSec = () => Math.floor(node.clock.now() / 1000);
const sec = (ms: number) => Math.floor(ms / 1000);
const EMPTY_EXPIRING = { data: [], page_size: 25, count: 0, page: 1 };
const TIER_TEXT = { summary: 'Welcome to the program.', description: 'Every member earns points on every visit.' };


let vendorCount = 0;
const addVendor = () => node.addVendor(`Orders earn ${++vendorCount}`);
const signUp = (vendorId: number) => signUpAt(node, vendorId);

let receiptCount = 0;
const newReceipt = () => `E-${++receiptCount}`;

const { checkInSessionOk: checkInOk, balanceOf, addRule, addTier, addLoyaltyCurrency, setCurrencyStatus } = inStoreApi(() => node);
const orderOk = (apiKey: string, body: Record<string, unknown>) => inStoreApi(() => node).orderOk(apiKey, body, { contentType: true });



/** An order of `subtotal` for the customer (by email) with a fresh receipt number. */
const buy = (v: VendorCredentials, c: Customer, subtotal: number, extra: Record<string, unknown> = {}) =>
  orderOk(v.apiKey, { card_number: c.email, receipt_number: newReceipt(), subtotal, ...extra });


/** Checks the customer in and answers the retrieve-customer reply. */
async function retrieveOk(v: VendorCredentials, c: Customer): Promise<any> {
  const session = await checkInOk(v.apiKey, c.email);
  const reply = await http(`${node.url}/onscreen?pos_session_hash=${session.hash}&api_key=${enc(v.apiKey)}`);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body;
}


const orderEntries = (orderId: number) =>
  node.engine.db
    .selectFrom('ledger_entries as e')
    .innerJoin('ledger_accounts as a', 'a.id', 'e.account_id')
    .select(['a.currency_id', 'a.holder_id', 'e.amount', 'e.kind', 'e.reference_type', 'e.reference_id', 'e.reverses_id', 'e.created_at', 'e.expires_at'])
    .where('e.reference_type', '=', 'order')
    .where('e.reference_id', '=', String(orderId))
    .orderBy('e.id')
    .execute();

const transactionsOf = (userId: number) => node.engine.db.selectFrom('transactions').selectAll().where('user_id', '=', userId).orderBy('id').execute();

interface Expected {
  receipt: string;
  earned?: Array<{ rule: string; currency: Cur; points: number }>;
  /** The Points balance after, or the whole loyalty list. */
  loyalty: number | Array<{ currency: Cur; amount: number }>;
  quickPay?: number;
}

/** The exact order reply: id and transaction_id are the rows the order wrote. */
async function expectReply(body: any, v: VendorCredentials, c: Customer, x: Expected): Promise<void> {
  const row = await node.engine.db.selectFrom('orders').selectAll().where('store_id', '=', v.storeId).where('receipt_number', '=', x.receipt).executeTakeFirstOrThrow();
  const earned = x.earned ?? [];
  const pointsEarned = earned.reduce((sum, e) => sum + e.points, 0);
  const record = await node.engine.db.selectFrom('transactions').select('id').where('order_id', '=', row.id).where('kind', '=', 'order').executeTakeFirst();
  // a history record exactly when value moved
  expect(record !== undefined).toBe(pointsEarned > 0);
  expect(body).toStrictEqual({
    object: 'order',
    id: row.id,
    receipt_number: x.receipt,
    status: 'Complete',
    date: nowSec(),
    user: { user_id: String(c.userId), first_name: 'Ana', last_name: 'López' },
    points_earned: pointsEarned,
    points_spent: 0,
    quick_pay_used: 0,
    earned,
    redeemed: [],
    balances: {
      loyalty: typeof x.loyalty === 'number' ? [{ currency: pointsOf(v), amount: x.loyalty }] : x.loyalty,
      quick_pay: { currency: quickPayOf(v), amount: x.quickPay ?? 0 },
    },
    transaction_id: record?.id ?? null,
    tier: await tierRulesOf(node.engine.db, v.vendorId, c.userId),
    auto_reload_queued: false,
  });
  expect(row).toMatchObject({ vendor_id: v.vendorId, store_id: v.storeId, user_id: c.userId, points_earned: pointsEarned, points_spent: 0, status: 'complete' });
}


/** Pauses the vendor's default rule (1 point per 1.00, floor) so a test's own rule is the only one. */
async function pauseDefaultRule(v: VendorCredentials): Promise<void> {
  await node.engine.db.updateTable('earning_rules').set({ status: 'INACTIVE' }).where('vendor_id', '=', v.vendorId).where('name', '=', DEFAULT_RULE).execute();
}




async function memberTier(v: VendorCredentials) {
  const row = await node.engine.db.selectFrom('tiers').selectAll().where('vendor_id', '=', v.vendorId).where('threshold', '=', 0).executeTakeFirstOrThrow();
  return { id: row.id, name: 'Member', ...TIER_TEXT, threshold: 0 };
}

const tierRef = (t: { id: number; name: string; summary: string; description: string; threshold: number }) => ({ object: 'tier', ...t });

// ---------------------------------------------------------------------------------------------

describe('POST /order: earning by the default rule', () => {
  it('earns floor(subtotal) points: 12.75 -> 12, with the exact reply, an earn entry and one history record', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    node.clock.advance(1_000);
    const receipt = newReceipt();
    const body = await orderOk(v.apiKey, {
      card_number: c.email,
      receipt_number: receipt,
      till: 3,
      subtotal: 12.75,
      taxes: [{ name: 'VAT', amount: 1.02 }],
      total: 13.77,
      payment_method: 'cash',
      items: [{ name: 'Latte', quantity: 1, price: 12.75, sku: 'LAT-1' }],
    });
    await expectReply(body, v, c, { receipt, earned: [{ rule: DEFAULT_RULE, currency: pointsOf(v), points: 12 }], loyalty: 12 });
    expect(Number.isSafeInteger(body.id)).toBe(true);
    expect(await orderEntries(body.id)).toStrictEqual([
      { currency_id: v.loyaltyCurrencyId, holder_id: c.userId, amount: 12, kind: 'earn', reference_type: 'order', reference_id: String(body.id), reverses_id: null, created_at: node.clock.now(), expires_at: null },
    ]);
    expect(await balanceOf(v.loyaltyCurrencyId, c.userId)).toBe(12);
    const records = await transactionsOf(c.userId);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ id: body.transaction_id, kind: 'order', order_id: body.id, total: 1377, status: 'Complete' });
    // the order row keeps what the POS sent, in minor units
    const row = await node.engine.db.selectFrom('orders').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ till: 3, subtotal: 1275, total: 1377, payment_method: 'cash', quick_pay_used: 0, ordered_at: node.clock.now() });
  });

  it('a second order adds up (12.99 -> 12 more: 24); whole amounts earn exactly (7 -> 7: 31)', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    await buy(v, c, 12.75);
    const receipt = newReceipt();
    const second = await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 12.99 });
    await expectReply(second, v, c, { receipt, earned: [{ rule: DEFAULT_RULE, currency: pointsOf(v), points: 12 }], loyalty: 24 });
    const third = await buy(v, c, 7);
    expect(third.earned).toStrictEqual([{ rule: DEFAULT_RULE, currency: pointsOf(v), points: 7 }]);
    expect(third.balances.loyalty).toStrictEqual([{ currency: pointsOf(v), amount: 31 }]);
    expect(await balanceOf(v.loyaltyCurrencyId, c.userId)).toBe(31);
    expect(await transactionsOf(c.userId)).toHaveLength(3);
  });

  it('the order date (Unix seconds) is the reply date and the history date', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const date = nowSec() - 3_600;
    const body = await buy(v, c, 10, { date });
    expect(body.date).toBe(date);
    expect((await transactionsOf(c.userId))[0]!.occurred_at).toBe(date * 1000);
  });
});

describe('POST /order: rounding and maximum of a rule', () => {
  it("'round' rounds half up: 12.49 -> 12, 12.50 -> 13; 3 points per 2.00 on 5.00 -> 9", async () => {
    const v = await addVendor();
    await pauseDefaultRule(v);
    await addRule(v, { name: 'Rounded', points: 1, per_amount: 100, rounding: 'round' });
    const c = await signUp(v.vendorId);
    const r1 = newReceipt();
    await expectReply(await orderOk(v.apiKey, { card_number: c.email, receipt_number: r1, subtotal: 12.49 }), v, c, {
      receipt: r1,
      earned: [{ rule: 'Rounded', currency: pointsOf(v), points: 12 }],
      loyalty: 12,
    });
    const r2 = newReceipt();
    await expectReply(await orderOk(v.apiKey, { card_number: c.email, receipt_number: r2, subtotal: 12.5 }), v, c, {
      receipt: r2,
      earned: [{ rule: 'Rounded', currency: pointsOf(v), points: 13 }],
      loyalty: 25,
    });

    const w = await addVendor();
    await pauseDefaultRule(w);
    await addRule(w, { name: 'Three per two', points: 3, per_amount: 200, rounding: 'round' });
    const d = await signUp(w.vendorId);
    const r3 = newReceipt();
    await expectReply(await orderOk(w.apiKey, { card_number: d.email, receipt_number: r3, subtotal: 5 }), w, d, {
      receipt: r3,
      earned: [{ rule: 'Three per two', currency: pointsOf(w), points: 9 }],
      loyalty: 9,
    });
  });

  it("'ceil' rounds up: 12.01 -> 13, 12.00 -> 12, 0.01 -> 1", async () => {
    const v = await addVendor();
    await pauseDefaultRule(v);
    await addRule(v, { name: 'Generous', points: 1, per_amount: 100, rounding: 'ceil' });
    const c = await signUp(v.vendorId);
    let total = 0;
    for (const [subtotal, points] of [
      [12.01, 13],
      [12, 12],
      [0.01, 1],
    ] as const) {
      total += points;
      const receipt = newReceipt();
      await expectReply(await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal }), v, c, {
        receipt,
        earned: [{ rule: 'Generous', currency: pointsOf(v), points }],
        loyalty: total,
      });
    }
    expect(await balanceOf(v.loyaltyCurrencyId, c.userId)).toBe(26);
  });

  it("'floor' with per_amount 5.00: 14.99 -> 2 points per 5.00 -> 4; 4.99 earns nothing", async () => {
    const v = await addVendor();
    await pauseDefaultRule(v);
    await addRule(v, { name: 'Two per five', points: 2, per_amount: 500, rounding: 'floor' });
    const c = await signUp(v.vendorId);
    const r1 = newReceipt();
    await expectReply(await orderOk(v.apiKey, { card_number: c.email, receipt_number: r1, subtotal: 14.99 }), v, c, {
      receipt: r1,
      earned: [{ rule: 'Two per five', currency: pointsOf(v), points: 4 }],
      loyalty: 4,
    });
    const r2 = newReceipt();
    await expectReply(await orderOk(v.apiKey, { card_number: c.email, receipt_number: r2, subtotal: 4.99 }), v, c, { receipt: r2, loyalty: 4 });
  });

  it('max_award caps the points of one order: 2 per 1.00 capped at 50 gives 50 for 100.00 and 40 for 20.00', async () => {
    const v = await addVendor();
    await pauseDefaultRule(v);
    await addRule(v, { name: 'Double, capped', points: 2, per_amount: 100, rounding: 'floor', max_award: 50 });
    const c = await signUp(v.vendorId);
    const r1 = newReceipt();
    await expectReply(await orderOk(v.apiKey, { card_number: c.email, receipt_number: r1, subtotal: 100 }), v, c, {
      receipt: r1,
      earned: [{ rule: 'Double, capped', currency: pointsOf(v), points: 50 }],
      loyalty: 50,
    });
    const r2 = newReceipt();
    await expectReply(await orderOk(v.apiKey, { card_number: c.email, receipt_number: r2, subtotal: 20 }), v, c, {
      receipt: r2,
      earned: [{ rule: 'Double, capped', currency: pointsOf(v), points: 40 }],
      loyalty: 90,
    });
    // the cap is per order: exactly 25.00 reaches it
    expect((await buy(v, c, 25)).points_earned).toBe(50);
  });

  it('points a balance cannot hold exactly (a huge rule on a huge subtotal) are 400 validation_failed (subtotal), and nothing moves', async () => {
    const v = await addVendor();
    await pauseDefaultRule(v);
    await addRule(v, { name: 'Million per cent', points: 1_000_000, per_amount: 1, rounding: 'floor' });
    const c = await signUp(v.vendorId);
    const reply = await inStoreApi(() => node).postOrder(v.apiKey, { card_number: c.email, receipt_number: newReceipt(), subtotal: 999_999_999 });
    legacyErrorCheck({ noStackTrace: true })(reply, 400, 'validation_failed', 'subtotal');
    expect(await balanceOf(v.loyaltyCurrencyId, c.userId)).toBe(0);
  });

  it('an order that would take a balance past 2^53 − 1 (each order within it) is 422 balance_limit, and nothing of it stays', async () => {
    const v = await addVendor();
    await pauseDefaultRule(v);
    await addRule(v, { name: 'Billion per cent', points: 1_000_000_000, per_amount: 1, rounding: 'floor' });
    const c = await signUp(v.vendorId);
    // 80,000.00 earns 8 × 10^15 points: a safe integer; a second one would make 1.6 × 10^16.
    const first = await buy(v, c, 80_000);
    expect(first.points_earned).toBe(8_000_000_000_000_000);
    const receipt = newReceipt();
    const reply = await inStoreApi(() => node).postOrder(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 80_000 });
    legacyErrorCheck({ noStackTrace: true })(reply, 422, 'balance_limit');
    expect(await balanceOf(v.loyaltyCurrencyId, c.userId)).toBe(8_000_000_000_000_000);
    expect(await node.engine.db.selectFrom('orders').select('id').where('receipt_number', '=', receipt).execute()).toEqual([]);
    // A sale that fits still goes through.
    expect((await buy(v, c, 1)).points_earned).toBe(100_000_000_000);
  });
});

describe('POST /order: which rules apply', () => {
  it('a rule not started yet, one that ended (ends_at now or before) and an INACTIVE one do nothing; one starting now applies', async () => {
    const v = await addVendor();
    const now = node.clock.now();
    await addRule(v, { name: 'Future promo', points: 5, per_amount: 100, rounding: 'floor', starts_at: now + DAY });
    await addRule(v, { name: 'Past promo', points: 5, per_amount: 100, rounding: 'floor', starts_at: now - 10 * DAY, ends_at: now - DAY });
    await addRule(v, { name: 'Ends now', points: 5, per_amount: 100, rounding: 'floor', ends_at: now });
    await addRule(v, { name: 'Paused promo', points: 5, per_amount: 100, rounding: 'floor', status: 'INACTIVE' });
    await addRule(v, { name: 'Archived promo', points: 5, per_amount: 100, rounding: 'floor', status: 'ARCHIVED' });
    await addRule(v, { name: 'Starts now', points: 2, per_amount: 100, rounding: 'floor', starts_at: now, ends_at: now + 2 * DAY });
    const c = await signUp(v.vendorId);
    const receipt = newReceipt();
    await expectReply(await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 10 }), v, c, {
      receipt,
      earned: [
        { rule: DEFAULT_RULE, currency: pointsOf(v), points: 10 },
        { rule: 'Starts now', currency: pointsOf(v), points: 20 },
      ],
      loyalty: 30,
    });
    expect(await orderEntries((await node.engine.db.selectFrom('orders').select('id').where('receipt_number', '=', receipt).executeTakeFirstOrThrow()).id)).toHaveLength(2);

    // a day and a bit later the future promo has started (and the one that started "now" still runs)
    node.clock.advance(DAY + 1);
    const later = newReceipt();
    await expectReply(await orderOk(v.apiKey, { card_number: c.email, receipt_number: later, subtotal: 1 }), v, c, {
      receipt: later,
      earned: [
        { rule: DEFAULT_RULE, currency: pointsOf(v), points: 1 },
        { rule: 'Future promo', currency: pointsOf(v), points: 5 },
        { rule: 'Starts now', currency: pointsOf(v), points: 2 },
      ],
      loyalty: 38,
    });
  });

  it('two rules add up, each listed in `earned` (rule order), in Points and in a second loyalty currency', async () => {
    const v = await addVendor();
    const starsId = await addLoyaltyCurrency(v, 'Stars');
    await addRule(v, { name: 'Half-unit bonus', points: 1, per_amount: 50, rounding: 'floor' });
    await addRule(v, { name: 'Stars per 10.00', points: 1, per_amount: 1000, rounding: 'ceil', currency_id: starsId });
    const c = await signUp(v.vendorId);
    const stars = { id: starsId, name: 'Stars', code: null };
    const receipt = newReceipt();
    const body = await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 12.75 });
    await expectReply(body, v, c, {
      receipt,
      earned: [
        { rule: DEFAULT_RULE, currency: pointsOf(v), points: 12 },
        { rule: 'Half-unit bonus', currency: pointsOf(v), points: 25 },
        { rule: 'Stars per 10.00', currency: stars, points: 2 },
      ],
      loyalty: [
        { currency: pointsOf(v), amount: 37 },
        { currency: stars, amount: 2 },
      ],
    });
    expect((await orderEntries(body.id)).map((e) => [e.currency_id, e.amount, e.kind])).toStrictEqual([
      [v.loyaltyCurrencyId, 12, 'earn'],
      [v.loyaltyCurrencyId, 25, 'earn'],
      [starsId, 2, 'earn'],
    ]);
    expect(await balanceOf(v.loyaltyCurrencyId, c.userId)).toBe(37);
    expect(await balanceOf(starsId, c.userId)).toBe(2);
    // one history record for the order, whatever the number of rules
    expect(await transactionsOf(c.userId)).toHaveLength(1);
  });

  it('a rule whose currency is INACTIVE (or ARCHIVED) earns nothing; once ACTIVE again it earns', async () => {
    const v = await addVendor();
    const starsId = await addLoyaltyCurrency(v, 'Stars');
    await addRule(v, { name: 'Stars per unit', points: 1, per_amount: 100, rounding: 'floor', currency_id: starsId });
    const c = await signUp(v.vendorId);
    const stars = { id: starsId, name: 'Stars', code: null };

    for (const status of ['INACTIVE', 'ARCHIVED']) {
      await setCurrencyStatus(starsId, status);
      const receipt = newReceipt();
      const body = await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 8 });
      const points = status === 'INACTIVE' ? 8 : 16;
      await expectReply(body, v, c, { receipt, earned: [{ rule: DEFAULT_RULE, currency: pointsOf(v), points: 8 }], loyalty: points });
      expect((await orderEntries(body.id)).map((e) => e.currency_id)).toStrictEqual([v.loyaltyCurrencyId]);
    }
    expect(await balanceOf(starsId, c.userId)).toBe(0);

    await setCurrencyStatus(starsId, 'ACTIVE');
    const receipt = newReceipt();
    await expectReply(await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 8 }), v, c, {
      receipt,
      earned: [
        { rule: DEFAULT_RULE, currency: pointsOf(v), points: 8 },
        { rule: 'Stars per unit', currency: stars, points: 8 },
      ],
      loyalty: [
        { currency: pointsOf(v), amount: 24 },
        { currency: stars, amount: 8 },
      ],
    });
  });

  it('a rule counting in a cash currency (a loyalty currency given a code before that was refused, or the quick-pay currency) earns nothing: no money paid out as points', async () => {
    const v = await addVendor();
    const starsId = await addLoyaltyCurrency(v, 'Stars');
    await addRule(v, { name: 'Stars per unit', points: 1, per_amount: 100, rounding: 'floor', currency_id: starsId });
    await addRule(v, { name: 'Cash back', points: 10, per_amount: 100, rounding: 'floor', currency_id: v.quickPayCurrencyId });
    await node.engine.db.updateTable('currencies').set({ code: 'EUR' }).where('id', '=', starsId).execute();
    const c = await signUp(v.vendorId);
    const receipt = newReceipt();
    const body = await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 8 });
    await expectReply(body, v, c, { receipt, earned: [{ rule: DEFAULT_RULE, currency: pointsOf(v), points: 8 }], loyalty: 8 });
    expect((await orderEntries(body.id)).map((e) => e.currency_id)).toStrictEqual([v.loyaltyCurrencyId]);
    expect(await balanceOf(starsId, c.userId)).toBe(0);
    expect(await balanceOf(v.quickPayCurrencyId, c.userId)).toBe(0);
  });

  it("another vendor's rules never apply", async () => {
    const v = await addVendor();
    const w = await addVendor();
    await addRule(w, { name: 'Other program bonus', points: 100, per_amount: 100, rounding: 'floor', currency_id: w.loyaltyCurrencyId });
    const c = await signUp(v.vendorId);
    const receipt = newReceipt();
    await expectReply(await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 3 }), v, c, {
      receipt,
      earned: [{ rule: DEFAULT_RULE, currency: pointsOf(v), points: 3 }],
      loyalty: 3,
    });
    expect(await balanceOf(w.loyaltyCurrencyId, c.userId)).toBe(0);
  });
});

describe('POST /order: nothing earned', () => {
  it('subtotal 0 earns nothing and writes no history record or ledger entry, but the order is kept and the session closes', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const session = await checkInOk(v.apiKey, c.email);
    const entriesBefore = (await node.engine.db.selectFrom('ledger_entries').select('id').execute()).length;
    const receipt = newReceipt();
    const body = await orderOk(v.apiKey, { pos_session_hash: session.hash, receipt_number: receipt, subtotal: 0, total: 0 });
    await expectReply(body, v, c, { receipt, loyalty: 0 });
    expect(body.transaction_id).toBeNull();
    expect(await orderEntries(body.id)).toEqual([]);
    expect((await node.engine.db.selectFrom('ledger_entries').select('id').execute()).length).toBe(entriesBefore);
    expect(await transactionsOf(c.userId)).toEqual([]);
    const row = await node.engine.db.selectFrom('pos_sessions').select(['status', 'closed_reason']).where('hash', '=', session.hash).executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'closed', closed_reason: 'order' });
    // the history over HTTP is empty
    const history = await http(`${node.url}/user/transaction/list?user=${c.userId}&api_key=${enc(v.apiKey)}`);
    expect(history.status, JSON.stringify(history.body)).toBe(200);
    expect(history.body).toMatchObject({ count: 0, data: [] });
  });

  it('a subtotal below one unit (0.99) earns nothing and records nothing either', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const receipt = newReceipt();
    const body = await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 0.99 });
    await expectReply(body, v, c, { receipt, loyalty: 0 });
    expect(await transactionsOf(c.userId)).toEqual([]);
  });
});

describe('POST /order: points expiry', () => {
  it('with points_expiry_days, earned points carry expires_at = now + N days, and GET /onscreen lists them as expiring', async () => {
    const v = await addVendor();
    await node.engine.db.updateTable('vendors').set({ points_expiry_days: 30 }).where('id', '=', v.vendorId).execute();
    const c = await signUp(v.vendorId);
    const first = await buy(v, c, 12.75);
    const firstExpiry = node.clock.now() + 30 * DAY;
    expect((await orderEntries(first.id)).map((e) => e.expires_at)).toStrictEqual([firstExpiry]);

    node.clock.advance(2 * DAY);
    const second = await buy(v, c, 5);
    const secondExpiry = node.clock.now() + 30 * DAY;
    expect((await orderEntries(second.id)).map((e) => e.expires_at)).toStrictEqual([secondExpiry]);

    const retrieved = await retrieveOk(v, c);
    expect(retrieved.loyalty_balance).toStrictEqual({
      data: [
        {
          amount: 17,
          currency: pointsOf(v),
          expiring: {
            data: [
              { date: sec(firstExpiry), amount: 12 },
              { date: sec(secondExpiry), amount: 5 },
            ],
            page_size: 25,
            count: 2,
            page: 1,
          },
        },
      ],
    });

    // after the first lot's date only the second is listed
    node.clock.advance(29 * DAY);
    const later = await retrieveOk(v, c);
    expect(later.loyalty_balance.data[0].expiring).toStrictEqual({ data: [{ date: sec(secondExpiry), amount: 5 }], page_size: 25, count: 1, page: 1 });
  });

  it('without points_expiry_days earned points never expire: expires_at null, nothing expiring', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const body = await buy(v, c, 9.5);
    expect((await orderEntries(body.id)).map((e) => e.expires_at)).toStrictEqual([null]);
    const retrieved = await retrieveOk(v, c);
    expect(retrieved.loyalty_balance).toStrictEqual({ data: [{ amount: 9, currency: pointsOf(v), expiring: EMPTY_EXPIRING }] });
  });
});

describe('POST /order: tier promotion', () => {
  it('a customer moves from Member to a tier of threshold 50 once the points earned reach 50 (GET /onscreen and the login reply)', async () => {
    const v = await addVendor();
    const member = await memberTier(v);
    const silver = await addTier(v, { name: 'Silver', threshold: 50 });
    const c = await signUp(v.vendorId);

    await buy(v, c, 30);
    const before = await retrieveOk(v, c);
    expect(before.user.tier).toStrictEqual(tierRef(member));
    expect(before.rules.tier).toStrictEqual({ object: 'tier_rules', current: tierRef(member), next: tierRef(silver), currency: { id: v.loyaltyCurrencyId, name: 'Points', code: null } });
    expect((await loginOkAt(node, c.email, PASSWORD, v.vendorId)).user_vendor.tier).toStrictEqual({ object: 'tier', id: member.id, name: 'Member', ...TIER_TEXT });

    node.clock.advance(60_000);
    const promotedAt = nowSec();
    await buy(v, c, 20.5);
    const after = await retrieveOk(v, c);
    expect(after.user.tier).toStrictEqual(tierRef(silver));
    expect(after.rules.tier).toStrictEqual({ object: 'tier_rules', current: tierRef(silver), next: null, currency: { id: v.loyaltyCurrencyId, name: 'Points', code: null } });
    const login = await loginOkAt(node, c.email, PASSWORD, v.vendorId);
    expect(login.user_vendor.tier).toStrictEqual({ object: 'tier', id: silver.id, name: 'Silver', summary: 'Silver summary', description: 'All about Silver.' });
    expect(login.user_vendor.tier_since).toBe(promotedAt);
  });

  it('one order can jump past a tier to the highest one reached', async () => {
    const v = await addVendor();
    await addTier(v, { name: 'Silver', threshold: 50 });
    const gold = await addTier(v, { name: 'Gold', threshold: 100 });
    const c = await signUp(v.vendorId);
    await buy(v, c, 120);
    expect((await retrieveOk(v, c)).rules.tier).toStrictEqual({ object: 'tier_rules', current: tierRef(gold), next: null, currency: { id: v.loyaltyCurrencyId, name: 'Points', code: null } });
  });

  it('with window_days, only points earned inside the window count', async () => {
    const v = await addVendor();
    const member = await memberTier(v);
    const silver = await addTier(v, { name: 'Silver', threshold: 50, window_days: 30 });
    const c = await signUp(v.vendorId);
    await buy(v, c, 40);
    node.clock.advance(31 * DAY);
    await buy(v, c, 20); // 60 ever, 20 in the window
    expect((await retrieveOk(v, c)).rules.tier.current).toStrictEqual(tierRef(member));
    await buy(v, c, 30); // 50 in the window
    expect((await retrieveOk(v, c)).rules.tier.current).toStrictEqual(tierRef(silver));
  });

  it('a void counts on the day of the sale it reverses: voiding an order from before the window leaves the window\'s points', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const old = await buy(v, c, 40);
    node.clock.advance(31 * DAY);
    await buy(v, c, 30);
    const member = { vendorId: v.vendorId, userId: c.userId };
    expect(await tierPoints(node.engine.db, member, 30, node.clock.now())).toBe(30);
    const voided = await inStoreApi(() => node).deleteOrder(v.apiKey, { receipt_number: old.receipt_number });
    expect(voided.status).toBe(200);
    expect(await tierPoints(node.engine.db, member, 30, node.clock.now())).toBe(30);
    expect(await tierPoints(node.engine.db, member, null, node.clock.now())).toBe(30); // all time: 70 earned, 40 voided
  });
});

describe('POST /order: earning onto a balance already held', () => {
  it('the points earned add to what the customer already had (balances after include it)', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    await transact(node.engine, async (trx) => {
      const account = await openAccount(trx, node.engine, { vendorId: v.vendorId, currencyId: v.loyaltyCurrencyId, holderType: 'user', holderId: c.userId });
      await postEntry(trx, node.engine, account, { amount: 5, kind: 'test' });
    });
    const receipt = newReceipt();
    await expectReply(await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 2 }), v, c, {
      receipt,
      earned: [{ rule: DEFAULT_RULE, currency: pointsOf(v), points: 2 }],
      loyalty: 7,
    });
  });
});
