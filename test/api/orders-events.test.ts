import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { eventStreams, expectQuiet, storeEvent } from '../support/event-stream';
import { expectBalancesAddUp, inStoreApi } from '../support/in-store';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Orders on the store's event stream (GET /app/events?api_key, Server-Sent Events): POST /order
// publishes `session.closed` for the session it closes and then `order.completed` (with order_id
// and the closed session's id, or null), DELETE /order publishes `order.voided`; a resend, a
// second void and a refused order publish nothing, and no other store hears of them.

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});

afterAll(async () => {
  await node?.close();
});

// Every stream a test opens is closed at its end, even when the test fails.
const { events, closeAll } = eventStreams(() => node);
afterEach(async () => {
  closeAll();
  await expectBalancesAddUp(node);
});

// ---------------------------------------------------------------------------------------------
// helpers (each orders-* file keeps its own: test files share no module but test/support)

const enc = encodeURIComponent;
let vendorCount = 0;
const addVendor = () => node.addVendor(`Orders events ${++vendorCount}`);
const signUp = (vendorId: number) => signUpAt(node, vendorId);

let receiptCount = 0;
const newReceipt = () => `EV-${++receiptCount}`;

const { postOrder, orderOk, voidOk, checkInSessionOk: checkInOk } = inStoreApi(() => node);
const addStore = (v: { vendorId: number }, name: string) => inStoreApi(() => node).addStore(v, name, { pointOfSale: false });

// ---------------------------------------------------------------------------------------------

describe('orders on GET /app/events', () => {
  it('an order on a session publishes session.closed, then order.completed with order_id and the session id', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const session = await checkInOk(v.apiKey, c.email);
    const stream = await events(v.apiKey);
    node.clock.advance(2_000);
    const body = await orderOk(v.apiKey, { pos_session_hash: session.hash, receipt_number: newReceipt(), subtotal: 5 });
    const at = node.clock.now();
    expect(await stream.next()).toStrictEqual(storeEvent('session.closed', v, session.id, at));
    expect(await stream.next()).toStrictEqual(storeEvent('order.completed', v, session.id, at, body.id));
    expect(stream.text()).toContain(`event: order.completed\ndata: ${JSON.stringify({ type: 'order.completed', vendor_id: v.vendorId, store_id: v.storeId, pos_session_id: session.id, order_id: body.id, at })}\n\n`);
    await expectQuiet(stream);
  });

  it('an order by card_number with no open session publishes order.completed only, with pos_session_id null; a resend publishes nothing', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const stream = await events(v.apiKey);
    const order = { card_number: c.email, receipt_number: newReceipt(), subtotal: 5 };
    const body = await orderOk(v.apiKey, order);
    expect(await stream.next()).toStrictEqual(storeEvent('order.completed', v, null, node.clock.now(), body.id));
    node.clock.advance(1_000);
    expect(await orderOk(v.apiKey, order)).toStrictEqual(body);
    await expectQuiet(stream);
  });

  it('a void publishes order.voided (pos_session_id null); a second void publishes nothing', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const receipt = newReceipt();
    const body = await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 5 });
    const stream = await events(v.apiKey);
    node.clock.advance(3_000);
    await voidOk(v.apiKey, receipt);
    expect(await stream.next()).toStrictEqual(storeEvent('order.voided', v, null, node.clock.now(), body.id));
    node.clock.advance(1_000);
    await voidOk(v.apiKey, receipt);
    await expectQuiet(stream);
  });

  it('refused orders and voids publish nothing (422, 404, 403) and the session stays open', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const session = await checkInOk(v.apiKey, c.email);
    const stream = await events(v.apiKey);
    expect((await postOrder(v.apiKey, { pos_session_hash: session.hash, receipt_number: newReceipt(), subtotal: 5, quick_pay: 1 })).status).toBe(422);
    expect((await postOrder(v.apiKey, { card_number: 'nobody@example.com', receipt_number: newReceipt(), subtotal: 5 })).status).toBe(404);
    expect((await postOrder(v.kioskApiKey, { pos_session_hash: session.hash, receipt_number: newReceipt(), subtotal: 5 })).status).toBe(403);
    expect((await http(`${node.url}/order?api_key=${enc(v.apiKey)}`, { method: 'DELETE', body: { receipt_number: 'never-sold' } })).status).toBe(404);
    await expectQuiet(stream);
    // the next real order is the next event
    const body = await orderOk(v.apiKey, { pos_session_hash: session.hash, receipt_number: newReceipt(), subtotal: 5 });
    expect(await stream.next()).toStrictEqual(storeEvent('session.closed', v, session.id, node.clock.now()));
    expect(await stream.next()).toStrictEqual(storeEvent('order.completed', v, session.id, node.clock.now(), body.id));
  });

  it("another store's and another vendor's streams hear nothing of the order", async () => {
    const v = await addVendor();
    const north = await addStore(v, 'North Store');
    const w = await addVendor();
    const c = await signUp(v.vendorId);
    const main = await events(v.apiKey);
    const northStream = await events(north.apiKey);
    const wStream = await events(w.apiKey);
    const receipt = newReceipt();
    const body = await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 5 });
    await voidOk(v.apiKey, receipt);
    expect(await main.next()).toStrictEqual(storeEvent('order.completed', v, null, node.clock.now(), body.id));
    expect(await main.next()).toStrictEqual(storeEvent('order.voided', v, null, node.clock.now(), body.id));
    await expectQuiet(northStream);
    await expectQuiet(wStream);
    // the north store hears its own order
    const own = await orderOk(north.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 5 });
    expect(await northStream.next()).toStrictEqual(storeEvent('order.completed', north, null, node.clock.now(), own.id));
    await expectQuiet(main);
  });
});
