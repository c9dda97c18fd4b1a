import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cashierScreen } from '../support/cashier-screen';
import { type Customer, ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { eventStreams } from '../support/event-stream';
import { inStoreApi } from '../support/in-store';
import { paymentsApi } from '../support/payments';
import { drainAutoReloads } from '../../src/core/payments/auto-reload/auto-reloads';
import { http, startTestNode, type TestNode } from '../support/test-node';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';

// The cashier screen's stores against a real node: the queue and the customer panel follow the
// node's own event stream (read over SSE and handed to the stores as the page's EventSource would),
// orders and closes go through the real endpoints, and errors carry the node's message.

let node: TestNode;
const { events, closeAll } = eventStreams(() => node);
const { credit, checkInSessionOk } = inStoreApi(() => node);

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});

afterAll(async () => {
  await node?.close();
});

const stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
  closeAll();
});

/** A cashier over a fresh vendor's key, fed by that store's real event stream. */
async function counter() {
  const v = await node.addVendor();
  return { v, ...(await cashierScreen(node, v.apiKey, events, stops)) };
}

async function customerWithBalances(v: VendorCredentials, cents: number, points: number): Promise<Customer> {
  const c = await signUpAt(node, v.vendorId, { first_name: 'Ana', last_name: 'López' });
  if (cents) await credit(v, v.quickPayCurrencyId, c.userId, cents);
  if (points) await credit(v, v.loyaltyCurrencyId, c.userId, points);
  return c;
}

describe('cashier stores with a real node', () => {
  it('a check-in made elsewhere (a scan) brings the customer up by itself', async () => {
    const { v, cashier } = await counter();
    const c = await customerWithBalances(v, 2500, 180);
    expect(cashier.queue.getState().entries).toEqual([]);

    const session = await checkInSessionOk(v.apiKey, c.email);

    // The first check-in of the file also opens the stream and warms the node: room for a loaded machine.
    await vi.waitFor(() => expect(cashier.customer.getState().phase).toBe('ready'), { timeout: 5_000 });
    const panel = cashier.customer.getState();
    expect(panel.hash).toBe(session.hash);
    expect(panel.sessionId).toBe(session.id);
    expect(panel.customer?.user.first_name).toBe('Ana');
    expect(panel.customer?.quick_pay_balance.amount).toBe(25);
    expect(panel.customer?.loyalty_balance.data.map((b) => [b.currency.name, b.amount])).toEqual([['Points', 180]]);
    expect(cashier.queue.getState().entries.map((e) => e.hash)).toEqual([session.hash]);
    expect(cashier.queue.getState().cursor).toBe(session.hash);
    await vi.waitFor(() => expect(cashier.customer.getState().historyPhase).toBe('ready'), { timeout: 5_000 });
    expect(cashier.customer.getState().history).toEqual([]);
  });

  it('a customer already waiting comes up when a counter identifies them again (a scan), not when a kiosk does', async () => {
    const { v, cashier, api } = await counter();
    const shown = await customerWithBalances(v, 0, 0);
    const waiting = await signUpAt(node, v.vendorId, { first_name: 'Ben', last_name: 'Okafor' });
    const a = await checkInSessionOk(v.apiKey, shown.email);
    await vi.waitFor(() => expect(cashier.customer.getState().hash).toBe(a.hash));
    const b = await checkInSessionOk(v.kioskApiKey, waiting.email);
    await vi.waitFor(() => expect(cashier.queue.getState().entries).toHaveLength(2));
    expect(await cashier.customer.getState().closeSession()).toBe(true);
    // The kiosk greets them again: the panel stays free.
    await checkInSessionOk(v.kioskApiKey, waiting.email);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(cashier.customer.getState().hash).toBeNull();
    // The cashier screen's scanner reads their card at the counter: the panel shows them.
    await api.scan(waiting.email);
    await vi.waitFor(() => expect(cashier.customer.getState().hash).toBe(b.hash));
  });

  it('a card typed at the counter shows as "Card" in the queue once the panel tells a card matched', async () => {
    const { v, cashier, api } = await counter();
    expect((await http(`${node.url}/cards`, { method: 'POST', token: v.accessToken, body: { number: 'CARD7777' } })).status).toBe(201);
    const registered = await api.register({ email: 'carded@example.com', card_number: 'CARD7777' });
    await api.close(registered.pos_session.hash);
    await vi.waitFor(() => expect(cashier.queue.getState().entries).toEqual([]));
    // What CheckInBox does with a typed identification: its guessed kind, then the panel.
    const typed = await api.checkIn('card7777');
    cashier.queue.getState().noteMethod(typed.pos_session.hash, 'typed');
    await cashier.openSession(typed.pos_session.hash, typed.pos_session.id);
    await vi.waitFor(() => expect(cashier.queue.getState().methods[typed.pos_session.hash]).toBe('card'));
    cashier.queue.getState().noteMethod(typed.pos_session.hash, 'typed');
    expect(cashier.queue.getState().methods[typed.pos_session.hash]).toBe('card');
  });

  it('a second check-in waits in the queue while a customer is shown', async () => {
    const { v, cashier } = await counter();
    const first = await customerWithBalances(v, 0, 0);
    const second = await signUpAt(node, v.vendorId, { first_name: 'Ben', last_name: 'Okafor' });
    const a = await checkInSessionOk(v.apiKey, first.email);
    await vi.waitFor(() => expect(cashier.customer.getState().hash).toBe(a.hash));
    const b = await checkInSessionOk(v.apiKey, second.email);
    await vi.waitFor(() => expect(cashier.queue.getState().entries).toHaveLength(2));
    expect(cashier.customer.getState().hash).toBe(a.hash);

    cashier.queue.getState().moveCursor(1);
    expect(cashier.queue.getState().cursor).toBe(b.hash);
    cashier.queue.getState().moveCursor(5);
    expect(cashier.queue.getState().cursor).toBe(b.hash);
  });

  it('an order shows its result and the balances after it; the session leaves the queue; history shows it', async () => {
    const { v, cashier } = await counter();
    const c = await customerWithBalances(v, 1000, 50);
    await checkInSessionOk(v.apiKey, c.email);
    await vi.waitFor(() => expect(cashier.customer.getState().phase).toBe('ready'));

    const reply = await cashier.customer.getState().placeOrder({ receipt_number: 'T-1', subtotal: 12.5, quick_pay: 5, items: [{ name: 'Latte', quantity: 2, price: 6.25 }] });

    expect(reply?.points_earned).toBe(12);
    const panel = cashier.customer.getState();
    expect(panel.ended).toBe('order');
    expect(panel.lastOrder?.receipt_number).toBe('T-1');
    expect(panel.customer?.quick_pay_balance.amount).toBe(5);
    expect(panel.customer?.loyalty_balance.data[0]?.amount).toBe(62);
    await vi.waitFor(() => expect(cashier.customer.getState().history).toHaveLength(1));
    expect(cashier.customer.getState().history?.[0]?.quickpay).toMatchObject({ used: 5, balance: 5 });
    await vi.waitFor(() => expect(cashier.queue.getState().entries).toEqual([]));
    // The events of our own order (completed, closed) leave the reply's balances as they are.
    expect(cashier.customer.getState().customer?.loyalty_balance.data[0]?.amount).toBe(62);
  });

  it('a sale that promotes the customer shows the new tier and the next one at once', async () => {
    const { v, cashier } = await counter();
    for (const tier of [{ name: 'Gold', threshold: 60 }, { name: 'Platinum', threshold: 500 }]) {
      expect((await http(`${node.url}/tiers`, { method: 'POST', token: v.accessToken, body: tier })).status).toBe(201);
    }
    const c = await customerWithBalances(v, 0, 50);
    await checkInSessionOk(v.apiKey, c.email);
    await vi.waitFor(() => expect(cashier.customer.getState().phase).toBe('ready'));
    expect(cashier.customer.getState().customer?.rules.tier.next?.name).toBe('Gold');

    await cashier.customer.getState().placeOrder({ receipt_number: 'T-G', subtotal: 70 });

    const shown = cashier.customer.getState().customer;
    expect([shown?.user.tier?.name, shown?.rules.tier.current?.name, shown?.rules.tier.next?.name]).toEqual(['Gold', 'Gold', 'Platinum']);
  });

  it('an order whose reply is lost after the node recorded it ends the panel as an order, never "closed elsewhere"', async () => {
    const v = await node.addVendor();
    let recorded: Promise<unknown> | null = null;
    // The node records the sale and its events reach the screen; the reply does not.
    const { cashier } = await cashierScreen(node, v.apiKey, events, stops, {
      orders: (orders) => ({
        ...orders,
        place: async (body) => {
          recorded = orders.place(body);
          await recorded;
          await new Promise((resolve) => setTimeout(resolve, 300));
          throw new Error('The store node did not answer.');
        },
      }),
    });
    const c = await customerWithBalances(v, 1000, 50);
    await checkInSessionOk(v.apiKey, c.email);
    await vi.waitFor(() => expect(cashier.customer.getState().phase).toBe('ready'));

    expect(await cashier.customer.getState().placeOrder({ receipt_number: 'LOST-1', subtotal: 12.5, quick_pay: 5 })).toBeNull();
    await recorded;
    await vi.waitFor(() => expect(cashier.customer.getState().customer?.quick_pay_balance.amount).toBe(5));
    const panel = cashier.customer.getState();
    expect([panel.ended, panel.orderError, panel.busy]).toEqual(['order', null, null]);
    expect(panel.customer?.loyalty_balance.data[0]?.amount).toBe(62);
  });

  it('a reply lost before the order\'s events arrive: the error shows, then the events end the panel as an order', async () => {
    const v = await node.addVendor();
    let release: (() => void) | null = null;
    const { cashier } = await cashierScreen(node, v.apiKey, events, stops, {
      orders: (orders) => ({
        ...orders,
        place: async () => {
          // The screen gives up first; the node records the sale once the screen has.
          await new Promise<void>((resolve) => (release = resolve));
          throw new Error('The store node did not answer.');
        },
      }),
    });
    const c = await customerWithBalances(v, 1000, 0);
    const session = await checkInSessionOk(v.apiKey, c.email);
    await vi.waitFor(() => expect(cashier.customer.getState().phase).toBe('ready'));
    const placing = cashier.customer.getState().placeOrder({ receipt_number: 'LOST-2', subtotal: 4, quick_pay: 4 });
    await vi.waitFor(() => expect(release).not.toBeNull());
    release!();
    await placing;
    expect(cashier.customer.getState().orderError).toBe('The store node did not answer.');
    expect((await http(`${node.url}/order?api_key=${encodeURIComponent(v.apiKey)}`, { method: 'POST', body: { pos_session_hash: session.hash, receipt_number: 'LOST-2', subtotal: 4, quick_pay: 4 } })).status).toBe(200);
    await vi.waitFor(() => expect(cashier.customer.getState().ended).toBe('order'));
    await vi.waitFor(() => expect(cashier.customer.getState().customer?.quick_pay_balance.amount).toBe(6));
    expect(cashier.customer.getState().orderError).toBeNull();
  });

  it("a refused order keeps the panel and carries the node's message", async () => {
    const { v, cashier } = await counter();
    const c = await customerWithBalances(v, 300, 0);
    await checkInSessionOk(v.apiKey, c.email);
    await vi.waitFor(() => expect(cashier.customer.getState().phase).toBe('ready'));

    const reply = await cashier.customer.getState().placeOrder({ receipt_number: 'T-2', subtotal: 10, quick_pay: 9 });

    expect(reply).toBeNull();
    const panel = cashier.customer.getState();
    expect(panel.orderError).toMatch(/balance/i);
    expect(panel.ended).toBeNull();
    expect(panel.busy).toBeNull();
    expect(panel.customer?.quick_pay_balance.amount).toBe(3);
  });

  it('closing the session hides the panel and the session leaves the queue', async () => {
    const { v, cashier } = await counter();
    const c = await customerWithBalances(v, 0, 0);
    const session = await checkInSessionOk(v.apiKey, c.email);
    await vi.waitFor(() => expect(cashier.customer.getState().hash).toBe(session.hash));

    expect(await cashier.customer.getState().closeSession()).toBe(true);

    expect(cashier.customer.getState().hash).toBeNull();
    await vi.waitFor(() => expect(cashier.queue.getState().entries).toEqual([]));
    expect((await http(`${node.url}/onscreen?pos_session_hash=${session.hash}&api_key=${encodeURIComponent(v.apiKey)}`)).status).toBe(404);
  });

  it("a typed check-in of an unknown customer fails with the node's message", async () => {
    const { cashier } = await counter();
    await expect(cashier.api.checkIn('nobody@example.com')).rejects.toThrow(/No customer matches/);
  });

  it('an order placed by the POS for the shown session ends it and moves the balances shown', async () => {
    const { v, cashier } = await counter();
    const c = await customerWithBalances(v, 2000, 10);
    const session = await checkInSessionOk(v.apiKey, c.email);
    await vi.waitFor(() => expect(cashier.customer.getState().historyPhase).toBe('ready'));

    const pos = await http(`${node.url}/order?api_key=${encodeURIComponent(v.apiKey)}`, { method: 'POST', body: { pos_session_hash: session.hash, receipt_number: 'POS-1', subtotal: 20, quick_pay: 7.5 } });
    expect(pos.status).toBe(200);

    await vi.waitFor(() => expect(cashier.customer.getState().history).toHaveLength(1));
    await vi.waitFor(() => expect(cashier.customer.getState().customer?.loyalty_balance.data[0]?.amount).toBe(30));
    const panel = cashier.customer.getState();
    expect(panel.ended).toBe('order');
    expect(panel.customer?.quick_pay_balance.amount).toBe(12.5);
    expect(panel.lastOrder).toBeNull();

    // The POS voids it: the panel says the sale that ended the session was voided.
    expect((await http(`${node.url}/order?api_key=${encodeURIComponent(v.apiKey)}`, { method: 'DELETE', body: { receipt_number: 'POS-1' } })).status).toBe(200);
    await vi.waitFor(() => expect(cashier.customer.getState().ended).toBe('voided'));
    expect(cashier.customer.getState().voidedReceipt).toBe('POS-1');
    expect(cashier.customer.getState().customer?.quick_pay_balance.amount).toBe(20);
  });

  it('an order placed by the POS that promotes the shown customer moves the tier shown', async () => {
    const { v, cashier } = await counter();
    for (const tier of [{ name: 'Silver', threshold: 60 }, { name: 'Gold', threshold: 200 }]) {
      expect((await http(`${node.url}/tiers`, { method: 'POST', token: v.accessToken, body: tier })).status).toBe(201);
    }
    const c = await customerWithBalances(v, 0, 0);
    const session = await checkInSessionOk(v.apiKey, c.email);
    await vi.waitFor(() => expect(cashier.customer.getState().historyPhase).toBe('ready'));
    expect(cashier.customer.getState().customer?.user.tier?.name).toBe('Member');

    const pos = await http(`${node.url}/order?api_key=${encodeURIComponent(v.apiKey)}`, { method: 'POST', body: { pos_session_hash: session.hash, receipt_number: 'POS-S', subtotal: 70 } });
    expect(pos.status).toBe(200);
    await vi.waitFor(() => expect(cashier.customer.getState().customer?.loyalty_balance.data[0]?.amount).toBe(70));
    const shown = cashier.customer.getState().customer;
    // Silver as the last read described it (the next tier up then); what is above it, no reply said.
    expect([shown?.user.tier?.name, shown?.rules.tier.current?.name, shown?.rules.tier.current?.threshold]).toEqual(['Silver', 'Silver', 60]);
    expect(cashier.customer.getState().ended).toBe('order');
  });

  it("a void of the panel's order after the session ended moves the balances back and drops the order's result", async () => {
    const { v, cashier } = await counter();
    const c = await customerWithBalances(v, 1000, 50);
    await checkInSessionOk(v.apiKey, c.email);
    await vi.waitFor(() => expect(cashier.customer.getState().phase).toBe('ready'));
    await cashier.customer.getState().placeOrder({ receipt_number: 'T-9', subtotal: 12.5, quick_pay: 5 });
    expect(cashier.customer.getState().customer?.loyalty_balance.data[0]?.amount).toBe(62);
    expect(cashier.customer.getState().customer?.quick_pay_balance.amount).toBe(5);
    await vi.waitFor(() => expect(cashier.customer.getState().history).toHaveLength(1));

    // The POS voids it: the panel (its session closed by the order) cannot be read again.
    const voided = await http(`${node.url}/order?api_key=${encodeURIComponent(v.apiKey)}`, { method: 'DELETE', body: { receipt_number: 'T-9' } });
    expect(voided.status).toBe(200);
    await vi.waitFor(() => expect(cashier.customer.getState().history?.[0]?.object).toBe('void'));
    await vi.waitFor(() => expect(cashier.customer.getState().customer?.loyalty_balance.data[0]?.amount).toBe(50));
    const panel = cashier.customer.getState();
    expect(panel.customer?.quick_pay_balance.amount).toBe(10);
    expect(panel.lastOrder).toBeNull();
    // The panel no longer says "Order complete": the sale that ended the session was voided.
    expect([panel.ended, panel.voidedReceipt]).toEqual(['voided', 'T-9']);
  });

  it('a void of the panel’s promoting order after the session ended takes the tier shown back, with the next one up as before', async () => {
    const { v, cashier } = await counter();
    for (const tier of [{ name: 'Silver', threshold: 60 }, { name: 'Gold', threshold: 200 }]) {
      expect((await http(`${node.url}/tiers`, { method: 'POST', token: v.accessToken, body: tier })).status).toBe(201);
    }
    const c = await customerWithBalances(v, 0, 0);
    await checkInSessionOk(v.apiKey, c.email);
    await vi.waitFor(() => expect(cashier.customer.getState().phase).toBe('ready'));
    const tierOf = () => {
      const shown = cashier.customer.getState().customer;
      return [shown?.user.tier?.name, shown?.rules.tier.current?.name, shown?.rules.tier.next?.name, shown?.rules.tier.next?.threshold];
    };
    expect(tierOf()).toEqual(['Member', 'Member', 'Silver', 60]);
    await cashier.customer.getState().placeOrder({ receipt_number: 'T-S', subtotal: 70 });
    expect(tierOf()).toEqual(['Silver', 'Silver', 'Gold', 200]);
    await vi.waitFor(() => expect(cashier.customer.getState().history?.some((r) => r.object === 'order')).toBe(true));

    const voided = await http(`${node.url}/order?api_key=${encodeURIComponent(v.apiKey)}`, { method: 'DELETE', body: { receipt_number: 'T-S' } });
    expect(voided.status).toBe(200);
    await vi.waitFor(() => expect(cashier.customer.getState().customer?.loyalty_balance.data[0]?.amount).toBe(0));
    // The void's tier change (Silver → Member) is the newest record: the panel read the tier from it.
    expect(cashier.customer.getState().history?.slice(0, 2).map((r) => r.object)).toEqual(['tier_change', 'void']);
    expect(tierOf()).toEqual(['Member', 'Member', 'Silver', 60]);
    expect(cashier.customer.getState().ended).toBe('voided');
  });

  it("an auto reload the panel's order queued moves the quick-pay balance once its history record arrives, and the result says so", async () => {
    const { v, cashier } = await counter();
    const c = await customerWithBalances(v, 1000, 0);
    const payments = paymentsApi(() => node);
    const profile = await payments.addProfileOk(c.key);
    await payments.putSettingsOk(c.key, { amount: 25, threshold: 5, user_billingprofile: profile.id });
    await checkInSessionOk(v.apiKey, c.email);
    await vi.waitFor(() => expect(cashier.customer.getState().phase).toBe('ready'));

    const reply = await cashier.customer.getState().placeOrder({ receipt_number: 'AR-1', subtotal: 9, quick_pay: 9 });
    expect(reply?.auto_reload_queued).toBe(true);
    expect(cashier.customer.getState().customer?.quick_pay_balance.amount).toBe(1);
    expect(cashier.customer.getState().autoReload).toEqual({ status: 'waiting', receipt: 'AR-1' });
    await vi.waitFor(() => expect(cashier.customer.getState().history?.[0]?.object).toBe('order'));

    // The node charges the card (no event tells the screen): the panel's next look at the history finds it.
    await drainAutoReloads(node.engine);
    await vi.waitFor(() => expect(cashier.customer.getState().autoReload).toEqual({ status: 'arrived', receipt: 'AR-1', amount: 25, balance: 26 }), { timeout: 5_000 });
    const panel = cashier.customer.getState();
    expect(panel.customer?.quick_pay_balance.amount).toBe(26);
    expect(panel.history?.[0]?.object).toBe('reload');
    expect(panel.ended).toBe('order');
  });

  it('a session closed elsewhere ends the panel, and the next check-in comes up', async () => {
    const { v, cashier } = await counter();
    const a = await customerWithBalances(v, 0, 0);
    const b = await signUpAt(node, v.vendorId, { first_name: 'Ben', last_name: 'Okafor' });
    const first = await checkInSessionOk(v.apiKey, a.email);
    await vi.waitFor(() => expect(cashier.customer.getState().hash).toBe(first.hash));

    await http(`${node.url}/onscreen?api_key=${encodeURIComponent(v.apiKey)}`, { method: 'DELETE', body: { pos_session_hash: first.hash } });
    await vi.waitFor(() => expect(cashier.customer.getState().ended).toBe('closed'));

    const second = await checkInSessionOk(v.apiKey, b.email);
    await vi.waitFor(() => expect(cashier.customer.getState().hash).toBe(second.hash));
    await vi.waitFor(() => expect(cashier.customer.getState().customer?.user.first_name).toBe('Ben'));
    expect(cashier.customer.getState().ended).toBeNull();
  });
});
