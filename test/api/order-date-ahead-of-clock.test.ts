import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { legacyErrorCheck, ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { inStoreApi } from '../support/in-store';
import { http, startTestNode, type TestNode } from '../support/test-node';

// POST /order's `date` (Unix seconds, the sale's time as the till says) may be earlier than the
// node's clock — a till sending queued sales late — but not later than a few minutes: a till whose
// clock is wrong, or one sending local time as UTC, used to record a sale dated up to 2100 that
// sat atop the customer's history and kept its rating and tip windows open for decades.

let node: TestNode;
const store = inStoreApi(() => node);
const expectLegacyError = legacyErrorCheck({ noStackTrace: true });
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
  it('a day ahead (a till’s wrong clock) is refused on `date`, and nothing moves', async () => {
    const { vendor, customer, orders, history } = await customerAt();
    const reply = await store.postOrder(vendor.apiKey, { card_number: customer.email, receipt_number: newReceipt(), subtotal: 10, date: nowSec() + 86_400 });
    expectLegacyError(reply, 400, 'validation_failed', 'date');
    expect(reply.body.error.errors[0].message).toMatch(/later than this node's clock/);
    expect(await orders()).toEqual([]);
    expect(await history()).toEqual([]);
  });

  it('Madrid’s local time sent as UTC (an hour ahead in winter) is refused; 2100, the schema’s bound, too', async () => {
    const { vendor, customer, orders } = await customerAt();
    expectLegacyError(await store.postOrder(vendor.apiKey, { card_number: customer.email, receipt_number: newReceipt(), subtotal: 10, date: nowSec() + 3_600 }), 400, 'validation_failed', 'date');
    expectLegacyError(await store.postOrder(vendor.apiKey, { card_number: customer.email, receipt_number: newReceipt(), subtotal: 10, date: 4_102_444_800 }), 400, 'validation_failed', 'date');
    expect(await orders()).toEqual([]);
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
