import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastDays } from '../../src/core/dashboard/time-zone-days';
import { ownerOf, staffCall } from '../support/backoffice';
import { ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { inStoreApi, receiptCounter } from '../support/in-store';
import { startTestNode, type TestNode } from '../support/test-node';

// The dashboard's days are the store's local days, each from its own midnight to the next, also on
// the days a daylight-saving change makes 23 or 25 hours long (it used to count every day with
// today's offset, so a sale late on the evening before a change fell on the wrong day). Over real
// HTTP on a real SQLite file, the node's clock set by the test.

let node: TestNode;
const store = inStoreApi(() => node);
const newReceipt = receiptCounter('dst');
const at = (iso: string) => Date.parse(iso);

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});

afterAll(async () => {
  await node?.close();
});

/** A program whose only store is in `timeZone`, with orders placed at the given instants; the clock left at `now`. */
async function programIn(name: string, timeZone: string, sales: string[], now: string) {
  node.clock.set(at(now));
  const vendor = await node.addVendor(name);
  const owner = await ownerOf(node, vendor.vendorId);
  const zoned = await staffCall(node, owner.token, 'PUT', `/backoffice/stores/${vendor.storeId}`, { time_zone: timeZone });
  expect(zoned.status, JSON.stringify(zoned.body)).toBe(200);
  const customer = await signUpAt(node, vendor.vendorId);
  for (const sale of sales) {
    node.clock.set(at(sale));
    await store.orderOk(vendor.apiKey, { card_number: customer.email, receipt_number: newReceipt(), subtotal: 1 });
  }
  node.clock.set(at(now));
  return { vendor, owner };
}

async function dashboardOf(owner: { token: string }) {
  const reply = await staffCall(node, owner.token, 'GET', '/backoffice/dashboard');
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body;
}

const ordersByDay = (d: { days: Array<{ day: string; orders: number }> }) => Object.fromEntries(d.days.filter((x) => x.orders > 0).map((x) => [x.day, x.orders]));

describe('dashboard days across daylight-saving changes', () => {
  it('New York, spring forward (Sunday 8 March 2026): a sale at 23:30 on Saturday is Saturday’s, one at 23:30 on Sunday is Sunday’s', async () => {
    const { owner } = await programIn('Bodega NYC', 'America/New_York', [
      '2026-03-08T04:30:00Z', // Saturday 7 March, 23:30 EST
      '2026-03-09T03:30:00Z', // Sunday 8 March, 23:30 EDT
      '2026-03-09T16:00:00Z', // Monday 9 March, 12:00 EDT
    ], '2026-03-09T18:00:00Z');
    const d = await dashboardOf(owner);
    expect(d.time_zone).toBe('America/New_York');
    expect(ordersByDay(d)).toEqual({ '2026-03-07': 1, '2026-03-08': 1, '2026-03-09': 1 });
    expect(d.today.orders).toBe(1);
  });

  it('Madrid, fall back (Sunday 25 October 2026): a sale at 00:30 on Sunday is Sunday’s, and the 25-hour day keeps its last hour', async () => {
    const { owner } = await programIn('Churrería Sol', 'Europe/Madrid', [
      '2026-10-24T22:30:00Z', // Sunday 25 October, 00:30 CEST
      '2026-10-25T22:30:00Z', // Sunday 25 October, 23:30 CET
      '2026-10-26T09:00:00Z', // Monday 26 October, 10:00 CET
    ], '2026-10-26T12:00:00Z');
    const d = await dashboardOf(owner);
    expect(ordersByDay(d)).toEqual({ '2026-10-25': 2, '2026-10-26': 1 });
  });

  it('the days are cut at each local midnight, as long as the day was (23, 24 or 25 hours; Kathmandu at +05:45, Chatham at +13:45, Kiritimati at +14)', () => {
    const hours = (zone: string, now: string) => {
      const w = lastDays(zone, at(now), 30);
      return w.bounds.slice(1).map((b, i) => (b - w.bounds[i]!) / 3600_000);
    };
    expect(hours('America/New_York', '2026-03-09T18:00:00Z').slice(-3)).toEqual([24, 23, 24]);
    expect(hours('Europe/Madrid', '2026-10-26T12:00:00Z').slice(-3)).toEqual([24, 25, 24]);
    expect(new Set(hours('Asia/Kathmandu', '2026-03-09T18:00:00Z'))).toEqual(new Set([24]));
    expect(lastDays('Asia/Kathmandu', at('2026-03-09T18:00:00Z'), 1).bounds).toEqual([at('2026-03-08T18:15:00Z'), at('2026-03-09T18:15:00Z')]);
    expect(lastDays('Pacific/Chatham', at('2026-01-10T00:00:00Z'), 1).bounds[0]).toBe(at('2026-01-09T10:15:00Z'));
    expect(lastDays('Pacific/Kiritimati', at('2026-01-10T00:00:00Z'), 1).bounds[0]).toBe(at('2026-01-09T10:00:00Z'));
    expect(lastDays('Etc/GMT+12', at('2026-01-10T00:00:00Z'), 1).bounds[0]).toBe(at('2026-01-09T12:00:00Z'));
    // Santiago springs forward at midnight: Sunday 6 September 2026 starts at 01:00 local.
    expect(lastDays('America/Santiago', at('2026-09-06T12:00:00Z'), 1).bounds[0]).toBe(at('2026-09-06T04:00:00Z'));
  });
});

describe('dashboard zones this node cannot read, and sales dated after today', () => {
  it('a store whose zone this node cannot read (written by a newer node, or before zones were checked) is counted in UTC and says so, never a 500', async () => {
    const { vendor, owner } = await programIn('Tienda Rara', 'UTC', ['2026-05-01T10:00:00Z'], '2026-05-01T12:00:00Z');
    await node.engine.db.updateTable('stores').set({ time_zone: 'Mars/Olympus_Mons' }).where('id', '=', vendor.storeId).execute();
    const d = await dashboardOf(owner);
    expect(d.time_zone).toBe('UTC');
    expect(d.today.orders).toBe(1);
  });

  it('a sale dated after today (a store whose clock ran ahead, synced here) counts today: it is in the database, so it was made by now', async () => {
    const { owner } = await programIn('Reloj Adelantado', 'UTC', ['2026-06-01T10:00:00Z', '2026-06-03T10:00:00Z'], '2026-06-01T12:00:00Z');
    const d = await dashboardOf(owner);
    expect(d.today.orders).toBe(2);
    expect(d.last_30_days.orders).toBe(2);
    expect(d.stores.map((s: { orders: number }) => s.orders)).toEqual([2]);
  });
});
