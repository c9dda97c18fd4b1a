import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequester } from '../../src/renderer/src/api/client';
import { createHistoryApi } from '../../src/renderer/src/api/history-api';
import { createOrdersApi } from '../../src/renderer/src/api/orders-api';
import { createTerminalApi } from '../../src/renderer/src/api/terminal-api';
import { createCashier } from '../../src/renderer/src/cashier/cashier-controller';
import type { StoreEventMessage } from '../../src/renderer/src/events/event-stream';
import { ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { inStoreApi } from '../support/in-store';
import { startTestNode, type TestNode } from '../support/test-node';

// A cashier reads the order's result (points earned, an auto reload on its way) while the next
// customer checks in at the kiosk: the result holds the panel a while, then the kiosk's customer
// opens by itself; a customer the cashier identifies at the counter opens at once.
const HOLD_MS = 1_500;
let node: TestNode;
const { checkInSessionOk } = inStoreApi(() => node);

async function waitFor(what: string, done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});

afterAll(async () => {
  await node?.close();
});

/**
 * A started cashier screen whose event stream the test plays: the customers in `next` are checked in
 * first (their events held back), then Ana's order ends her session; `arrive(i)` delivers the i-th
 * check-in's event as it came from `by`, right after the order's result shows.
 */
async function counterAfterAnOrder(next: { firstName: string; by: string }[]) {
  const v = await node.addVendor();
  const api = createTerminalApi(createRequester({ baseUrl: node.url, credential: null }), v.apiKey);
  let deliver: (event: StoreEventMessage) => void = () => undefined;
  const events = {
    subscribe: (listener: (event: StoreEventMessage) => void) => {
      deliver = listener;
      return () => undefined;
    },
    onResync: () => () => undefined,
  };
  const cashier = createCashier({ api, orders: createOrdersApi(api.request, api.apiKey), history: createHistoryApi(api.request, api.apiKey), events, resultHoldMs: HOLD_MS });
  const stop = cashier.start();
  const ana = await signUpAt(node, v.vendorId, { first_name: 'Ana', last_name: 'Served' });
  const served = await checkInSessionOk(v.apiKey, ana.email);
  const waiting: number[] = [];
  for (const person of next) {
    const signedUp = await signUpAt(node, v.vendorId, { first_name: person.firstName, last_name: 'Next' });
    waiting.push((await checkInSessionOk(v.apiKey, signedUp.email)).id);
  }
  await cashier.openSession(served.hash, served.id);
  expect(await cashier.customer.getState().placeOrder({ receipt_number: 'HOLD-1', subtotal: 12 })).not.toBeNull();
  expect(cashier.customer.getState().ended).toBe('order');
  const resultShownAt = Date.now();
  const arrive = (i: number): number => {
    deliver({ type: 'session.opened', vendor_id: v.vendorId, store_id: v.storeId, pos_session_id: waiting[i]!, by: next[i]!.by, at: Date.now() });
    return waiting[i]!;
  };
  return { cashier, stop, servedId: served.id, arrive, resultShownAt };
}

const shown = (cashier: Awaited<ReturnType<typeof counterAfterAnOrder>>['cashier']) => cashier.customer.getState().sessionId;

describe("an order's result holds the panel", () => {
  it('a kiosk check-in waits for the hold to end, then opens by itself', async () => {
    const { cashier, stop, servedId, arrive, resultShownAt } = await counterAfterAnOrder([{ firstName: 'Ben', by: 'kiosk' }]);
    const ben = arrive(0);
    await new Promise((resolve) => setTimeout(resolve, 100));
    if (Date.now() - resultShownAt < HOLD_MS) expect({ session: shown(cashier), ended: cashier.customer.getState().ended }).toEqual({ session: servedId, ended: 'order' });
    await waitFor('the kiosk customer in the panel', () => shown(cashier) === ben, HOLD_MS + 5_000);
    expect(Date.now() - resultShownAt).toBeGreaterThanOrEqual(HOLD_MS - 20);
    stop();
  });

  it('the first of two check-ins away from the counter opens once the hold ends', async () => {
    const { cashier, stop, arrive } = await counterAfterAnOrder([
      { firstName: 'Ben', by: 'kiosk' },
      { firstName: 'Cleo', by: 'app' },
    ]);
    const ben = arrive(0);
    arrive(1);
    await waitFor('the first customer in the panel', () => shown(cashier) === ben, HOLD_MS + 5_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(shown(cashier)).toBe(ben);
    stop();
  });

  it('a customer identified at the counter opens at once', async () => {
    const { cashier, stop, arrive, resultShownAt } = await counterAfterAnOrder([{ firstName: 'Dee', by: 'cashier' }]);
    const dee = arrive(0);
    await waitFor('the counter customer in the panel', () => shown(cashier) === dee, 5_000);
    expect(Date.now() - resultShownAt).toBeLessThan(HOLD_MS);
    stop();
  });
});
