import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { inStoreApi } from '../support/in-store';
import { http, startTestNode, type TestNode } from '../support/test-node';

// POST /order's `date` (Unix seconds, the sale's time as the till says) may be earlier than the
// node's clock — a till sending queued sales late — and a few minutes later; further ahead (a till
// whose clock is wrong, or one sending local time as UTC) the sale is dated by the node's clock: it
// used to be recorded as sent, up to 2100, atop the customer's history with its rating and tip
// windows open for decades. Refusing it would leave a counter with a fast till unable to sell.

let node: TestNode;
const store = inStoreApi(() => node);
const nowSec = () => Math.floor(node.clock.now() / 1000);
let receipts = 0;
const newReceipt = () => `D-${++receipts}`;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});

afterAll(async () => {
  await node?.close();
});

async function customerAt() {
  const vendor = await node.addVendor(`Till clocks ${receipts}`);
  const customer = await signUpAt(node, vendor.vendorId);
  const history = async () => {
    const reply = await http(`${node.url}/user/transaction/list?user=${customer.userId}&api_key=${encodeURIComponent(vendor.apiKey)}`);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body.data as Array<{ date: number; receipts: Array<{ receipt_number: string }> }>;
  };
  const orders = () => node.engine.db.selectFrom('orders').select('receipt_number').where('vendor_id', '=', vendor.vendorId).execute();
  return { vendor, customer, history, orders };
}

describe('a sale dated ahead of the node’s clock', () => {
  it('a day ahead (a till’s wrong clock) is taken, dated by the node’s clock, and earns as any sale', async () => {
    const { vendor, customer, history } = await customerAt();
    const now = nowSec();
    const placed = await store.orderOk(vendor.apiKey, { card_number: customer.email, receipt_number: 'day-ahead', subtotal: 10, date: now + 86_400 });
    expect(placed.date).toBe(now);
    expect(placed.points_earned).toBeGreaterThan(0);
    expect((await history()).map((t) => t.date)).toEqual([now]);
  });

  it('Madrid’s local time sent as UTC (an hour ahead in winter) and 2100, the schema’s bound, are dated now; a resend of either is the same sale', async () => {
    const { vendor, customer, history } = await customerAt();
    const now = nowSec();
    const hourAhead = { card_number: customer.email, receipt_number: 'hour-ahead', subtotal: 10, date: now + 3_600 };
    const far = { card_number: customer.email, receipt_number: 'year-2100', subtotal: 10, date: 4_102_444_800 };
    expect((await store.orderOk(vendor.apiKey, hourAhead)).date).toBe(now);
    expect((await store.orderOk(vendor.apiKey, far)).date).toBe(now);
    // The till sends them again (its answer was lost): the recorded sales, not new ones.
    expect((await store.orderOk(vendor.apiKey, hourAhead)).date).toBe(now);
    expect((await store.orderOk(vendor.apiKey, far)).date).toBe(now);
    expect(await history()).toHaveLength(2);
  });

  it('a till a few minutes fast is accepted, its date kept as sent (integer Unix seconds)', async () => {
    const { vendor, customer } = await customerAt();
    const date = nowSec() + 4 * 60;
    const placed = await store.orderOk(vendor.apiKey, { card_number: customer.email, receipt_number: newReceipt(), subtotal: 10, date });
    expect(placed.date).toBe(date);
  });

  it('sales sent late (dated hours or years back) are accepted and take their place in the history, newest first', async () => {
    const { vendor, customer, history } = await customerAt();
    const now = nowSec();
    await store.orderOk(vendor.apiKey, { card_number: customer.email, receipt_number: 'late-hours', subtotal: 10, date: now - 5 * 3_600 });
    await store.orderOk(vendor.apiKey, { card_number: customer.email, receipt_number: 'now', subtotal: 10 });
    await store.orderOk(vendor.apiKey, { card_number: customer.email, receipt_number: 'late-years', subtotal: 10, date: now - 3 * 365 * 86_400 });
    const listed = await history();
    expect(listed.map((t) => t.receipts[0]!.receipt_number)).toEqual(['now', 'late-hours', 'late-years']);
    expect(listed.map((t) => t.date)).toEqual([now, now - 5 * 3_600, now - 3 * 365 * 86_400]);
  });
});
