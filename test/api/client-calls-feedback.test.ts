import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { type Customer, legacyErrorCheck, ROOMY_RATE_LIMITS, signUpAt, withSessionKey } from '../support/customers';
import { inStoreApi } from '../support/in-store';
import { http, type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// Rating and tipping a purchase (issue 12), over real HTTP: POST /user/transaction/rate and
// /user/transaction/tip with the customer's session, their windows (rating 7 days, changeable;
// tip 24 h, once, at most the total, no money moves), both shown in the history's `rating` and `tip`.

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});

afterAll(async () => {
  await node?.close();
});

const expectLegacyError = legacyErrorCheck({ depth: 'basic', noStackTrace: true });
const { orderOk, voidOk, credit, balanceOf } = inStoreApi(() => node);
const DAY = 86_400;
let receiptCount = 0;

async function purchase(v: VendorCredentials, c: Customer, subtotal = 20): Promise<{ id: number; receipt: string }> {
  const receipt = `FB-${++receiptCount}`;
  const order = await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal, total: subtotal });
  expect(order.transaction_id).toEqual(expect.any(Number));
  return { id: order.transaction_id, receipt };
}

const rate = (c: Customer, body: unknown) => http(`${node.url}${withSessionKey('/user/transaction/rate', c.key)}`, { method: 'POST', body });
const tip = (c: Customer, body: unknown) => http(`${node.url}${withSessionKey('/user/transaction/tip', c.key)}`, { method: 'POST', body });

async function record(c: Customer, id: number): Promise<any> {
  const reply = await http(`${node.url}${withSessionKey('/user/transaction/list', c.key)}`);
  expect(reply.status).toBe(200);
  return reply.body.data.find((r: { id: number }) => r.id === id);
}

function ok(reply: HttpReply): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  expect(reply.body).toStrictEqual({});
}

describe('POST /user/transaction/rate', () => {
  it('rates a purchase, shows it in the history with the seconds left, and can change it within 7 days', async () => {
    const v = await node.addVendor();
    const c = await signUpAt(node, v.vendorId);
    const p = await purchase(v, c);
    expect((await record(c, p.id)).rating).toEqual({ comment: null, value: 0, window: 7 * DAY });

    node.clock.advance(3_600_000);
    ok(await rate(c, { transaction: p.id, rating: 4, comment: '  Great latte ' }));
    expect((await record(c, p.id)).rating).toEqual({ comment: 'Great latte', value: 4, window: 7 * DAY - 3_600 });

    ok(await rate(c, { transaction: { id: String(p.id) }, rating: '5' }));
    expect((await record(c, p.id)).rating).toEqual({ comment: null, value: 5, window: 7 * DAY - 3_600 });

    node.clock.advance(7 * DAY * 1000);
    expectLegacyError(await rate(c, { transaction: p.id, rating: 1 }), 422, 'rating_window_closed');
    expect((await record(c, p.id)).rating).toEqual({ comment: null, value: 5, window: 0 });
  });

  it('refuses bad input, changing nothing', async () => {
    const v = await node.addVendor();
    const c = await signUpAt(node, v.vendorId);
    const p = await purchase(v, c);
    for (const body of [{ transaction: p.id, rating: 0 }, { transaction: p.id, rating: 6 }, { transaction: p.id, rating: 4.5 }, { transaction: p.id }, { rating: 3 }, { transaction: 'abc', rating: 3 }, { transaction: p.id, rating: 3, comment: 'x'.repeat(1001) }]) {
      expectLegacyError(await rate(c, body), 400, 'validation_failed');
    }
    expectLegacyError(await rate(c, { transaction: 999_999_999, rating: 3 }), 404, 'transaction_not_found');
    expectLegacyError(await http(`${node.url}/user/transaction/rate`, { method: 'POST', body: { transaction: p.id, rating: 3 } }), 401, 'missing_credentials');
    expect((await record(c, p.id)).rating.value).toBe(0);
  });

  it("refuses another customer's and another vendor's purchase (404) and records that are not store purchases (422)", async () => {
    const v = await node.addVendor();
    const owner = await signUpAt(node, v.vendorId);
    const p = await purchase(v, owner);
    const neighbour = await signUpAt(node, v.vendorId);
    expectLegacyError(await rate(neighbour, { transaction: p.id, rating: 1 }), 404, 'transaction_not_found');
    expectLegacyError(await tip(neighbour, { transaction: p.id, amount: 1 }), 404, 'transaction_not_found');
    const other = await node.addVendor();
    const stranger = await signUpAt(node, other.vendorId);
    expectLegacyError(await rate(stranger, { transaction: p.id, rating: 1 }), 404, 'transaction_not_found');
    expectLegacyError(await tip(stranger, { transaction: p.id, amount: 1 }), 404, 'transaction_not_found');
    expect((await record(owner, p.id)).tip).toEqual({ amount: 0, window: DAY });

    // A voided purchase and its void record cannot be rated or tipped.
    const voided = await purchase(v, owner, 5);
    await voidOk(v.apiKey, voided.receipt);
    const voidRecord = await node.engine.db.selectFrom('transactions').select('id').where('kind', '=', 'void').where('user_id', '=', owner.userId).executeTakeFirstOrThrow();
    expectLegacyError(await rate(owner, { transaction: voided.id, rating: 2 }), 422, 'not_rateable');
    expectLegacyError(await rate(owner, { transaction: voidRecord.id, rating: 2 }), 422, 'not_rateable');
    expectLegacyError(await tip(owner, { transaction: voidRecord.id, amount: 1 }), 422, 'not_rateable');
    expect((await record(owner, voided.id)).rating).toEqual({ comment: null, value: 0, window: 0 });
    expect((await record(owner, p.id)).rating.value).toBe(0);
  });
});

describe('POST /user/transaction/tip', () => {
  it('records one tip within 24 h, shown in the history; no balance moves', async () => {
    const v = await node.addVendor();
    const c = await signUpAt(node, v.vendorId);
    await credit(v, v.quickPayCurrencyId, c.userId, 5_000);
    const p = await purchase(v, c, 20);
    const quickPay = await balanceOf(v.quickPayCurrencyId, c.userId);
    const points = await balanceOf(v.loyaltyCurrencyId, c.userId);
    expect((await record(c, p.id)).tip).toEqual({ amount: 0, window: DAY });

    node.clock.advance(600_000);
    ok(await tip(c, { transaction: p.id, amount: 2.5 }));
    expect((await record(c, p.id)).tip).toEqual({ amount: 2.5, window: 0 });
    expect(await balanceOf(v.quickPayCurrencyId, c.userId)).toBe(quickPay);
    expect(await balanceOf(v.loyaltyCurrencyId, c.userId)).toBe(points);

    expectLegacyError(await tip(c, { transaction: p.id, amount: 1 }), 409, 'already_tipped');
    expect((await record(c, p.id)).tip.amount).toBe(2.5);
  });

  it('refuses a late tip, a bad amount and one above the total, changing nothing', async () => {
    const v = await node.addVendor();
    const c = await signUpAt(node, v.vendorId);
    const p = await purchase(v, c, 10);
    for (const amount of [0, -1, 1.234, 'lots']) expectLegacyError(await tip(c, { transaction: p.id, amount }), 400, 'validation_failed');
    expectLegacyError(await tip(c, { transaction: p.id, amount: 10.01 }), 400, 'validation_failed');
    expectLegacyError(await tip(c, { transaction: p.id }), 400, 'validation_failed');
    expectLegacyError(await tip(c, { transaction: 999_999_999, amount: 1 }), 404, 'transaction_not_found');
    expectLegacyError(await http(`${node.url}/user/transaction/tip`, { method: 'POST', body: { transaction: p.id, amount: 1 } }), 401, 'missing_credentials');
    node.clock.advance(DAY * 1000);
    expectLegacyError(await tip(c, { transaction: p.id, amount: 1 }), 422, 'tip_window_closed');
    expect((await record(c, p.id)).tip).toEqual({ amount: 0, window: 0 });
  });
});
