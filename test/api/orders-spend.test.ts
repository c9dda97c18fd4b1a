import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addApiKey } from '../../src/core/credentials/api-keys';
import { transact } from '../../src/core/engine';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ERROR_CODES } from '../../src/shared/errors';
import { type Customer, legacyErrorCheck, ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { type Cur, DEFAULT_RULE, expectBalancesAddUp, inStoreApi, pointsOf, quickPayOf, tierRulesOf } from '../support/in-store';
import { http, type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// POST /order over real HTTP, the spending side: quick pay (stored value, never below zero),
// reward redemptions (spending rules costed in a loyalty currency), every business error as a 422
// with a stable code after which NOTHING has changed, the `success_false` error mode of an api
// key, request validation, and which keys may take orders.

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
const DAY = 86_400_000;
const nowSec = () => Math.floor(node.clock.now() / 1000);


let vendorCount = 0;
const addVendor = () => node.addVendor(`Orders spend ${++vendorCount}`);
const signUp = (vendorId: number) => signUpAt(node, vendorId);

let receiptCount = 0;
const newReceipt = () => `S-${++receiptCount}`;

const { postOrder, deleteOrder, orderOk, checkInSessionOk: checkInOk, credit, balanceOf, addReward, setCurrencyStatus, addLoyaltyCurrency } = inStoreApi(() => node);






const orderEntries = (orderId: number) =>
  node.engine.db
    .selectFrom('ledger_entries as e')
    .innerJoin('ledger_accounts as a', 'a.id', 'e.account_id')
    .select(['a.currency_id', 'e.amount', 'e.kind', 'e.reverses_id', 'e.expires_at'])
    .where('e.reference_type', '=', 'order')
    .where('e.reference_id', '=', String(orderId))
    .orderBy('e.id')
    .execute();

/** Everything a refused order must leave untouched. */
async function snapshot(userId: number) {
  const db = node.engine.db;
  const count = async (table: 'orders' | 'ledger_entries' | 'ledger_accounts' | 'transactions') => (await db.selectFrom(table).select('id').execute()).length;
  return {
    orders: await count('orders'),
    entries: await count('ledger_entries'),
    accounts: await count('ledger_accounts'),
    transactions: await count('transactions'),
    balances: await db.selectFrom('ledger_accounts').select(['currency_id', 'balance', 'updated_at']).where('holder_id', '=', userId).orderBy('id').execute(),
    links: await db.selectFrom('user_vendors').select(['vendor_id', 'tier_id', 'updated_at']).where('user_id', '=', userId).orderBy('id').execute(),
    sessions: await db.selectFrom('pos_sessions').select(['hash', 'status', 'closed_reason', 'updated_at']).where('user_id', '=', userId).orderBy('id').execute(),
  };
}

/** Runs a refused call and expects that it changed nothing at all. */
async function expectNothingChanges(userId: number, call: () => Promise<void>): Promise<void> {
  const before = await snapshot(userId);
  await call();
  expect(await snapshot(userId)).toStrictEqual(before);
}

interface Expected {
  receipt: string;
  earned?: Array<{ rule: string; currency: Cur; points: number }>;
  redeemed?: Array<{ reward: string; name: string; currency: Cur; cost: number }>;
  quickPayUsed?: number;
  /** The Points balance after, or the whole loyalty list. */
  loyalty: number | Array<{ currency: Cur; amount: number }>;
  /** The quick-pay balance after, major units. */
  quickPay: number;
  quickPayCurrency?: Cur | null;
}

/** The exact order reply: id and transaction_id are the rows the order wrote. */
async function expectReply(body: any, v: VendorCredentials, c: Customer, x: Expected): Promise<void> {
  const row = await node.engine.db.selectFrom('orders').selectAll().where('store_id', '=', v.storeId).where('receipt_number', '=', x.receipt).executeTakeFirstOrThrow();
  const earned = x.earned ?? [];
  const redeemed = x.redeemed ?? [];
  const pointsEarned = earned.reduce((sum, e) => sum + e.points, 0);
  const pointsSpent = redeemed.reduce((sum, r) => sum + r.cost, 0);
  const record = await node.engine.db.selectFrom('transactions').select('id').where('order_id', '=', row.id).where('kind', '=', 'order').executeTakeFirst();
  expect(record !== undefined).toBe(pointsEarned > 0 || pointsSpent > 0 || (x.quickPayUsed ?? 0) > 0);
  expect(body).toStrictEqual({
    object: 'order',
    id: row.id,
    receipt_number: x.receipt,
    status: 'Complete',
    date: nowSec(),
    user: { user_id: String(c.userId), first_name: 'Ana', last_name: 'López' },
    points_earned: pointsEarned,
    points_spent: pointsSpent,
    quick_pay_used: x.quickPayUsed ?? 0,
    earned,
    redeemed,
    balances: {
      loyalty: typeof x.loyalty === 'number' ? [{ currency: pointsOf(v), amount: x.loyalty }] : x.loyalty,
      quick_pay: { currency: x.quickPayCurrency === undefined ? quickPayOf(v) : x.quickPayCurrency, amount: x.quickPay },
    },
    transaction_id: record?.id ?? null,
    tier: await tierRulesOf(node.engine.db, v.vendorId, c.userId),
    auto_reload_queued: false,
  });
}




function expectSuccessFalse(reply: HttpReply, code: string, message: string, field: string): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
  expect(reply.body).toStrictEqual({ success: false, error: { code, message, field } });
}

// ---------------------------------------------------------------------------------------------

describe('POST /order: quick pay', () => {
  it('spends quick pay: the balance goes down, points are still earned on the subtotal, a spend entry and one history record', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    await credit(v, v.quickPayCurrencyId, c.userId, 2_000);
    const receipt = newReceipt();
    const body = await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 12.75, total: 13.5, quick_pay: 5.25, payment_method: 'quick pay + cash' });
    await expectReply(body, v, c, { receipt, quickPayUsed: 5.25, earned: [{ rule: DEFAULT_RULE, currency: pointsOf(v), points: 12 }], loyalty: 12, quickPay: 14.75 });
    expect(await orderEntries(body.id)).toStrictEqual([
      { currency_id: v.quickPayCurrencyId, amount: -525, kind: 'spend', reverses_id: null, expires_at: null },
      { currency_id: v.loyaltyCurrencyId, amount: 12, kind: 'earn', reverses_id: null, expires_at: null },
    ]);
    expect(await balanceOf(v.quickPayCurrencyId, c.userId)).toBe(1_475);
    const record = await node.engine.db.selectFrom('transactions').selectAll().where('id', '=', body.transaction_id).executeTakeFirstOrThrow();
    expect(record).toMatchObject({ kind: 'order', total: 1_350, quick_pay_used: 525, quick_pay_loaded: 0, quick_pay_balance: 1_475, status: 'Complete' });
    expect((await node.engine.db.selectFrom('orders').select('quick_pay_used').where('id', '=', body.id).executeTakeFirstOrThrow()).quick_pay_used).toBe(525);
  });

  it('exactly the balance is allowed and leaves 0.00; a later order can pay nothing more by quick pay', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    await credit(v, v.quickPayCurrencyId, c.userId, 1_000);
    const receipt = newReceipt();
    await expectReply(await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 10, quick_pay: 10 }), v, c, {
      receipt,
      quickPayUsed: 10,
      earned: [{ rule: DEFAULT_RULE, currency: pointsOf(v), points: 10 }],
      loyalty: 10,
      quickPay: 0,
    });
    expect(await balanceOf(v.quickPayCurrencyId, c.userId)).toBe(0);
    await expectNothingChanges(c.userId, async () => {
      expectLegacyError(await postOrder(v.apiKey, { card_number: c.email, receipt_number: newReceipt(), subtotal: 1, quick_pay: 0.01 }), 422, 'insufficient_balance', 'quick_pay');
    });
  });

  it('more than the balance: 422 insufficient_balance (quick_pay) and NOTHING changes: no order, no entries, the session stays open; the receipt is still free', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    await credit(v, v.quickPayCurrencyId, c.userId, 500);
    await credit(v, v.loyaltyCurrencyId, c.userId, 40);
    const reward = await addReward(v, { cost: 10 });
    const session = await checkInOk(v.apiKey, c.email);
    const receipt = newReceipt();
    await expectNothingChanges(c.userId, async () => {
      const reply = await postOrder(v.apiKey, { pos_session_hash: session.hash, receipt_number: receipt, subtotal: 20, quick_pay: 5.01, redemptions: [reward.id] });
      expectLegacyError(reply, 422, 'insufficient_balance', 'quick_pay');
      expect(reply.body.error.errors[0].message).toBe(ERROR_CODES.insufficient_balance.message);
    });
    expect(await node.engine.db.selectFrom('orders').select('id').where('receipt_number', '=', receipt).execute()).toEqual([]);
    // the session is still open: in the queue and retrievable
    const queue = await http(`${node.url}/onscreen/queue?api_key=${enc(v.apiKey)}`);
    expect(queue.body.map((e: any) => e.pos_session.hash)).toEqual([session.hash]);
    expect((await http(`${node.url}/onscreen?pos_session_hash=${session.hash}&api_key=${enc(v.apiKey)}`)).status).toBe(200);

    // the same receipt, paid within the balance, goes through
    const body = await orderOk(v.apiKey, { pos_session_hash: session.hash, receipt_number: receipt, subtotal: 20, quick_pay: 5, redemptions: [reward.id] });
    await expectReply(body, v, c, {
      receipt,
      quickPayUsed: 5,
      redeemed: [{ reward: reward.id, name: 'Free coffee', currency: pointsOf(v), cost: 10 }],
      earned: [{ rule: DEFAULT_RULE, currency: pointsOf(v), points: 20 }],
      loyalty: 50,
      quickPay: 0,
    });
  });

  it('a customer with no quick-pay balance at all: 422 insufficient_balance, nothing changes', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    await expectNothingChanges(c.userId, async () => {
      expectLegacyError(await postOrder(v.apiKey, { card_number: c.email, receipt_number: newReceipt(), subtotal: 3, quick_pay: 0.5 }), 422, 'insufficient_balance', 'quick_pay');
    });
  });

  it('quick_pay above the total is 400 validation_failed (quick_pay), also when total defaults to the subtotal; negative or sub-cent amounts too', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    await credit(v, v.quickPayCurrencyId, c.userId, 10_000);
    await expectNothingChanges(c.userId, async () => {
      for (const body of [
        { subtotal: 5, total: 5, quick_pay: 5.01 },
        { subtotal: 5, quick_pay: 6 },
        { subtotal: 5, total: 4, quick_pay: 4.5 },
        { subtotal: 5, quick_pay: -1 },
        { subtotal: 5, quick_pay: 1.005 },
      ]) {
        expectLegacyError(await postOrder(v.apiKey, { card_number: c.email, receipt_number: newReceipt(), ...body }), 400, 'validation_failed', 'quick_pay');
      }
    });
    // quick_pay equal to the total is fine
    expect((await orderOk(v.apiKey, { card_number: c.email, receipt_number: newReceipt(), subtotal: 5, total: 4, quick_pay: 4 })).quick_pay_used).toBe(4);
  });

  it('a paused or archived quick-pay currency: 422 currency_not_active (quick_pay), nothing changes; orders without quick pay still go through', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    await credit(v, v.quickPayCurrencyId, c.userId, 1_000);
    for (const status of ['INACTIVE', 'ARCHIVED']) {
      await setCurrencyStatus(v.quickPayCurrencyId, status);
      await expectNothingChanges(c.userId, async () => {
        expectLegacyError(await postOrder(v.apiKey, { card_number: c.email, receipt_number: newReceipt(), subtotal: 3, quick_pay: 1 }), 422, 'currency_not_active', 'quick_pay');
      });
    }
    await setCurrencyStatus(v.quickPayCurrencyId, 'INACTIVE');
    const receipt = newReceipt();
    // a paused currency is not shown among the balances (as in GET /onscreen)
    await expectReply(await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 3 }), v, c, {
      receipt,
      earned: [{ rule: DEFAULT_RULE, currency: pointsOf(v), points: 3 }],
      loyalty: 3,
      quickPay: 0,
      quickPayCurrency: null,
    });
    expect(await balanceOf(v.quickPayCurrencyId, c.userId)).toBe(1_000);
    await setCurrencyStatus(v.quickPayCurrencyId, 'ACTIVE');
    expect((await orderOk(v.apiKey, { card_number: c.email, receipt_number: newReceipt(), subtotal: 3, quick_pay: 1 })).balances.quick_pay).toStrictEqual({ currency: quickPayOf(v), amount: 9 });
  });
});

describe('POST /order: quick pay never goes below zero', () => {
  it('five simultaneous orders of 5.00 against 10.00: two go through, three get 422 insufficient_balance, the balance ends at 0.00', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    await credit(v, v.quickPayCurrencyId, c.userId, 1_000);
    const replies = await Promise.all(Array.from({ length: 5 }, () => postOrder(v.apiKey, { card_number: c.email, receipt_number: newReceipt(), subtotal: 5, quick_pay: 5 })));
    const ok = replies.filter((r) => r.status === 200);
    const refused = replies.filter((r) => r.status !== 200);
    expect(ok).toHaveLength(2);
    expect(ok.map((r) => r.body.balances.quick_pay.amount).sort()).toStrictEqual([0, 5]);
    for (const reply of refused) expectLegacyError(reply, 422, 'insufficient_balance', 'quick_pay');
    expect(await balanceOf(v.quickPayCurrencyId, c.userId)).toBe(0);
    expect(await node.engine.db.selectFrom('orders').select('id').where('user_id', '=', c.userId).execute()).toHaveLength(2);
  });
});

describe('POST /order: a program without quick pay', () => {
  it('orders without quick pay go through (quick_pay balance: no currency, 0); quick pay is refused with 422 quick_pay_not_offered', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    await node.engine.db.updateTable('vendors').set({ quick_pay_currency_id: null }).where('id', '=', v.vendorId).execute();
    const receipt = newReceipt();
    await expectReply(await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 6.5 }), v, c, {
      receipt,
      earned: [{ rule: DEFAULT_RULE, currency: pointsOf(v), points: 6 }],
      loyalty: 6,
      quickPay: 0,
      quickPayCurrency: null,
    });
    // the code GET /user/quick-pay/balance answers for the same situation
    await expectNothingChanges(c.userId, async () => {
      expectLegacyError(await postOrder(v.apiKey, { card_number: c.email, receipt_number: newReceipt(), subtotal: 5, quick_pay: 1 }), 422, 'quick_pay_not_offered', 'quick_pay');
    });
  });
});

describe('POST /order: reward redemptions', () => {
  it('redeems a reward: its cost leaves the balance, it is listed in `redeemed`, a redeem entry; points are earned after', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    await credit(v, v.loyaltyCurrencyId, c.userId, 100);
    const reward = await addReward(v, { name: 'Free coffee', cost: 30 });
    const receipt = newReceipt();
    const body = await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 4.5, redemptions: [reward.id] });
    await expectReply(body, v, c, {
      receipt,
      redeemed: [{ reward: reward.id, name: 'Free coffee', currency: pointsOf(v), cost: 30 }],
      earned: [{ rule: DEFAULT_RULE, currency: pointsOf(v), points: 4 }],
      loyalty: 74,
      quickPay: 0,
    });
    expect(await orderEntries(body.id)).toStrictEqual([
      { currency_id: v.loyaltyCurrencyId, amount: -30, kind: 'redeem', reverses_id: null, expires_at: null },
      { currency_id: v.loyaltyCurrencyId, amount: 4, kind: 'earn', reverses_id: null, expires_at: null },
    ]);
    expect(await balanceOf(v.loyaltyCurrencyId, c.userId)).toBe(74);
    const row = await node.engine.db.selectFrom('orders').select(['points_earned', 'points_spent']).where('id', '=', body.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ points_earned: 4, points_spent: 30 });
  });

  it('a reward redeemed twice in one order costs twice, in two entries; a redemption alone (subtotal 0) is recorded', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    await credit(v, v.loyaltyCurrencyId, c.userId, 70);
    const reward = await addReward(v, { name: 'Muffin', cost: 30 });
    const receipt = newReceipt();
    const body = await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 0, redemptions: [reward.id, reward.id] });
    const line = { reward: reward.id, name: 'Muffin', currency: pointsOf(v), cost: 30 };
    await expectReply(body, v, c, { receipt, redeemed: [line, line], loyalty: 10, quickPay: 0 });
    expect((await orderEntries(body.id)).map((e) => [e.amount, e.kind])).toStrictEqual([
      [-30, 'redeem'],
      [-30, 'redeem'],
    ]);
    expect(body.transaction_id).not.toBeNull();
  });

  it('a reward costed in a second loyalty currency spends that currency only', async () => {
    const v = await addVendor();
    const starsId = await addLoyaltyCurrency(v, 'Stars');
    const c = await signUp(v.vendorId);
    await credit(v, starsId, c.userId, 5);
    await credit(v, v.loyaltyCurrencyId, c.userId, 100);
    const reward = await addReward(v, { name: 'Star treat', cost: 3, currency_id: starsId });
    const stars = { id: starsId, name: 'Stars', code: null };
    const receipt = newReceipt();
    await expectReply(await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 2, redemptions: [reward.id] }), v, c, {
      receipt,
      redeemed: [{ reward: reward.id, name: 'Star treat', currency: stars, cost: 3 }],
      earned: [{ rule: DEFAULT_RULE, currency: pointsOf(v), points: 2 }],
      loyalty: [
        { currency: pointsOf(v), amount: 102 },
        { currency: stars, amount: 2 },
      ],
      quickPay: 0,
    });
  });

  it('not enough points: 422 insufficient_points (redemptions) and nothing changes, also when only the second unit is short or the order itself would earn enough', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const reward = await addReward(v, { name: 'Sandwich', cost: 30 });
    await credit(v, v.loyaltyCurrencyId, c.userId, 29);
    await expectNothingChanges(c.userId, async () => {
      const reply = await postOrder(v.apiKey, { card_number: c.email, receipt_number: newReceipt(), subtotal: 1, redemptions: [reward.id] });
      expectLegacyError(reply, 422, 'insufficient_points', 'redemptions');
      expect(reply.body.error.errors[0].message).toBe('Not enough points for "Sandwich".');
    });
    await credit(v, v.loyaltyCurrencyId, c.userId, 21); // 50: one unit, not two
    await expectNothingChanges(c.userId, async () => {
      expectLegacyError(await postOrder(v.apiKey, { card_number: c.email, receipt_number: newReceipt(), subtotal: 1, redemptions: [reward.id, reward.id] }), 422, 'insufficient_points', 'redemptions');
    });
    // rewards are redeemed before the order earns: 100.00 would earn 100, but the 50 held cannot pay 2 x 30
    await expectNothingChanges(c.userId, async () => {
      expectLegacyError(await postOrder(v.apiKey, { card_number: c.email, receipt_number: newReceipt(), subtotal: 100, redemptions: [reward.id, reward.id] }), 422, 'insufficient_points', 'redemptions');
    });
    expect(await balanceOf(v.loyaltyCurrencyId, c.userId)).toBe(50);
  });

  it('unknown, INACTIVE, ARCHIVED, deleted, expired, future and other-vendor rewards: 422 reward_not_available (redemptions), nothing changes', async () => {
    const v = await addVendor();
    const w = await addVendor();
    const c = await signUp(v.vendorId);
    await credit(v, v.loyaltyCurrencyId, c.userId, 1_000);
    const now = node.clock.now();
    const unavailable = [
      { id: 'rwd_doesnotexist00000000', name: 'unknown' },
      await addReward(v, { name: 'Paused', cost: 1, status: 'INACTIVE' }),
      await addReward(v, { name: 'Archived', cost: 1, status: 'ARCHIVED' }),
      await addReward(v, { name: 'Deleted', cost: 1, deleted_at: now - 1_000 }),
      await addReward(v, { name: 'Expired', cost: 1, starts_at: now - 10 * DAY, ends_at: now - DAY }),
      await addReward(v, { name: 'Ends now', cost: 1, ends_at: now }),
      await addReward(v, { name: 'Future', cost: 1, starts_at: now + DAY }),
      await addReward(w, { name: 'Other vendor', cost: 1 }),
    ];
    const good = await addReward(v, { name: 'Good', cost: 1, starts_at: now, ends_at: now + DAY });
    for (const reward of unavailable) {
      await expectNothingChanges(c.userId, async () => {
        // an available reward before it in the same order is not redeemed either
        const reply = await postOrder(v.apiKey, { card_number: c.email, receipt_number: newReceipt(), subtotal: 5, redemptions: [good.id, reward.id] });
        expectLegacyError(reply, 422, 'reward_not_available', 'redemptions');
        expect(reply.body.error.errors[0].message, reward.name).toBe(`The reward ${reward.id} is not available.`);
      });
    }
    // the reward that starts now is available
    expect((await orderOk(v.apiKey, { card_number: c.email, receipt_number: newReceipt(), subtotal: 0, redemptions: [good.id] })).points_spent).toBe(1);
  });

  it('a reward whose currency is paused: 422 currency_not_active (redemptions), nothing changes', async () => {
    const v = await addVendor();
    const starsId = await addLoyaltyCurrency(v, 'Stars');
    const c = await signUp(v.vendorId);
    await credit(v, starsId, c.userId, 50);
    const reward = await addReward(v, { name: 'Star treat', cost: 3, currency_id: starsId });
    await setCurrencyStatus(starsId, 'INACTIVE');
    await expectNothingChanges(c.userId, async () => {
      expectLegacyError(await postOrder(v.apiKey, { card_number: c.email, receipt_number: newReceipt(), subtotal: 5, redemptions: [reward.id] }), 422, 'currency_not_active', 'redemptions');
    });
  });

  it('a reward whose currency was deleted: 422 reward_not_available (redemptions), nothing changes', async () => {
    const v = await addVendor();
    const starsId = await addLoyaltyCurrency(v, 'Stars');
    const c = await signUp(v.vendorId);
    await credit(v, starsId, c.userId, 50);
    const reward = await addReward(v, { name: 'Star treat', cost: 3, currency_id: starsId });
    const stars = await node.engine.db.selectFrom('currencies').select('public_id').where('id', '=', starsId).executeTakeFirstOrThrow();
    // The API no longer deletes a currency customers hold balances in (409 currency_in_use); one
    // deleted before that rule still exists in older data.
    expect((await http(`${node.url}/currencies/${stars.public_id}`, { method: 'DELETE', token: v.accessToken })).status).toBe(409);
    await node.engine.db.updateTable('currencies').set({ deleted_at: node.clock.now() }).where('id', '=', starsId).execute();
    await expectNothingChanges(c.userId, async () => {
      expectLegacyError(await postOrder(v.apiKey, { card_number: c.email, receipt_number: newReceipt(), subtotal: 5, redemptions: [reward.id] }), 422, 'reward_not_available', 'redemptions');
    });
  });

  it('a reward priced in a cash currency (a loyalty currency given a code before that was refused, or the quick-pay currency): 422 reward_not_available, no money leaves', async () => {
    const v = await addVendor();
    const starsId = await addLoyaltyCurrency(v, 'Stars');
    const c = await signUp(v.vendorId);
    await credit(v, starsId, c.userId, 50);
    await credit(v, v.quickPayCurrencyId, c.userId, 5_000);
    const inStars = await addReward(v, { name: 'Star treat', cost: 3, currency_id: starsId });
    const inDollars = await addReward(v, { name: 'Dollar treat', cost: 300, currency_id: v.quickPayCurrencyId });
    await node.engine.db.updateTable('currencies').set({ code: 'EUR' }).where('id', '=', starsId).execute();
    for (const reward of [inStars, inDollars]) {
      await expectNothingChanges(c.userId, async () => {
        expectLegacyError(await postOrder(v.apiKey, { card_number: c.email, receipt_number: newReceipt(), subtotal: 5, redemptions: [reward.id] }), 422, 'reward_not_available', 'redemptions');
      });
    }
    expect(await balanceOf(v.quickPayCurrencyId, c.userId)).toBe(5_000);
  });
});

describe("POST /order: the api key's success_false error mode", () => {
  it('business errors answer 200 {success:false, error:{code, message, field}}; nothing changes; validation (400) and not-found (404) errors stay HTTP errors', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    await node.engine.db.updateTable('api_keys').set({ error_mode: 'success_false' }).where('vendor_id', '=', v.vendorId).where('role', '=', 'cashier').execute();
    await credit(v, v.quickPayCurrencyId, c.userId, 100);
    const reward = await addReward(v, { name: 'Cookie', cost: 10 });
    const archived = await addReward(v, { name: 'Old cookie', cost: 1, status: 'ARCHIVED' });

    await expectNothingChanges(c.userId, async () => {
      expectSuccessFalse(
        await postOrder(v.apiKey, { card_number: c.email, receipt_number: newReceipt(), subtotal: 5, quick_pay: 2 }),
        'insufficient_balance',
        ERROR_CODES.insufficient_balance.message,
        'quick_pay',
      );
      expectSuccessFalse(
        await postOrder(v.apiKey, { card_number: c.email, receipt_number: newReceipt(), subtotal: 5, redemptions: [reward.id] }),
        'insufficient_points',
        'Not enough points for "Cookie".',
        'redemptions',
      );
      expectSuccessFalse(
        await postOrder(v.apiKey, { card_number: c.email, receipt_number: newReceipt(), subtotal: 5, redemptions: [archived.id] }),
        'reward_not_available',
        `The reward ${archived.id} is not available.`,
        'redemptions',
      );
      // not business errors: the usual statuses and envelope
      expectLegacyError(await postOrder(v.apiKey, { card_number: c.email, receipt_number: newReceipt(), subtotal: 5, quick_pay: 6 }), 400, 'validation_failed', 'quick_pay');
      expectLegacyError(await postOrder(v.apiKey, { card_number: c.email, subtotal: 5 }), 400, 'validation_failed', 'receipt_number');
      expectLegacyError(await postOrder(v.apiKey, { card_number: 'nobody@example.com', receipt_number: newReceipt(), subtotal: 5 }), 404, 'customer_not_found', 'card_number');
      expectLegacyError(await deleteOrder(v.apiKey, { receipt_number: 'never-sold' }), 404, 'order_not_found', 'receipt_number');
    });

    // a good order answers the normal reply
    const receipt = newReceipt();
    await expectReply(await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 5, quick_pay: 1 }), v, c, {
      receipt,
      quickPayUsed: 1,
      earned: [{ rule: DEFAULT_RULE, currency: pointsOf(v), points: 5 }],
      loyalty: 5,
      quickPay: 0,
    });
  });

  it('the mode belongs to the key: another key of the same store still gets 422', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const bridge = await transact(node.engine, (trx) => addApiKey(trx, node.engine, { vendorId: v.vendorId, storeId: v.storeId, posId: null, role: 'integration', label: 'Old POS' }));
    await node.engine.db.updateTable('api_keys').set({ error_mode: 'success_false' }).where('id', '=', bridge.id).execute();
    expectLegacyError(await postOrder(v.apiKey, { card_number: c.email, receipt_number: newReceipt(), subtotal: 5, quick_pay: 1 }), 422, 'insufficient_balance', 'quick_pay');
    expectSuccessFalse(
      await postOrder(bridge.key, { card_number: c.email, receipt_number: newReceipt(), subtotal: 5, quick_pay: 1 }),
      'insufficient_balance',
      ERROR_CODES.insufficient_balance.message,
      'quick_pay',
    );
  });
});

describe('POST /order: keys and validation', () => {
  it('a kiosk key gets 403 forbidden on POST and DELETE /order, and nothing changes; an integration key may order', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const receipt = newReceipt();
    await expectNothingChanges(c.userId, async () => {
      expectLegacyError(await postOrder(v.kioskApiKey, { card_number: c.email, receipt_number: receipt, subtotal: 5 }), 403, 'forbidden');
    });
    const integration = await transact(node.engine, (trx) => addApiKey(trx, node.engine, { vendorId: v.vendorId, storeId: v.storeId, posId: null, role: 'integration', label: 'POS bridge' }));
    await expectReply(await orderOk(integration.key, { card_number: c.email, receipt_number: receipt, subtotal: 5 }), v, c, {
      receipt,
      earned: [{ rule: DEFAULT_RULE, currency: pointsOf(v), points: 5 }],
      loyalty: 5,
      quickPay: 0,
    });
    await expectNothingChanges(c.userId, async () => {
      expectLegacyError(await deleteOrder(v.kioskApiKey, { receipt_number: receipt }), 403, 'forbidden');
    });
    expect((await node.engine.db.selectFrom('orders').select('status').where('receipt_number', '=', receipt).executeTakeFirstOrThrow()).status).toBe('complete');
  });

  it('401 without an api_key or with an unknown one', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    await expectNothingChanges(c.userId, async () => {
      expectLegacyError(await http(`${node.url}/order`, { method: 'POST', body: { card_number: c.email, receipt_number: newReceipt(), subtotal: 5 } }), 401, 'missing_credentials');
      expectLegacyError(await postOrder('pcak_unknown', { card_number: c.email, receipt_number: newReceipt(), subtotal: 5 }), 401, 'invalid_api_key');
      expectLegacyError(await http(`${node.url}/order`, { method: 'DELETE', body: { receipt_number: 'x' } }), 401, 'missing_credentials');
    });
  });

  it('400 validation_failed naming the field: receipt_number missing, empty, blank or too long; subtotal missing, negative, sub-cent or too large; a total too large; an item without a positive quantity', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ subtotal: 5 }, 'receipt_number'],
      [{ receipt_number: '', subtotal: 5 }, 'receipt_number'],
      [{ receipt_number: '   ', subtotal: 5 }, 'receipt_number'],
      [{ receipt_number: 'R'.repeat(65), subtotal: 5 }, 'receipt_number'],
      [{ receipt_number: newReceipt() }, 'subtotal'],
      [{ receipt_number: newReceipt(), subtotal: -1 }, 'subtotal'],
      [{ receipt_number: newReceipt(), subtotal: 1.234 }, 'subtotal'],
      // A sub-cent part is refused at any size, never rounded away.
      [{ receipt_number: newReceipt(), subtotal: 10000000.001 }, 'subtotal'],
      // Larger than any order can be (MAX_ORDER_AMOUNT): refused, not a 500 further on.
      [{ receipt_number: newReceipt(), subtotal: 1e12 }, 'subtotal'],
      [{ receipt_number: newReceipt(), subtotal: 5, total: 2e9 }, 'total'],
      [{ receipt_number: newReceipt(), subtotal: 5, items: [{ name: 'Tea', quantity: 0, price: 5 }] }, 'items.0.quantity'],
    ];
    await expectNothingChanges(c.userId, async () => {
      for (const [body, field] of cases) {
        expectLegacyError(await postOrder(v.apiKey, { card_number: c.email, ...body }), 400, 'validation_failed', field);
      }
    });
  });
});
