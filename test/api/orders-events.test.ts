import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addApiKey } from '../../src/core/credentials/api-keys';
import { transact } from '../../src/core/engine';
import { findBalanceMismatches } from '../../src/core/ledger/ledger';
import { nextObjectId } from '../../src/core/storage/ids';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
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
const openStreams: EventStream[] = [];
afterEach(async () => {
  for (const stream of openStreams.splice(0)) stream.close();
  if (node) expect(await findBalanceMismatches(node.engine.db)).toEqual([]);
});

// ---------------------------------------------------------------------------------------------
// an SSE client on fetch

interface SseMessage {
  event: string;
  data: any;
}

interface EventStream {
  response: Response;
  /** Everything received so far, as text. */
  text(): string;
  /** The next event (a block with an `event:` line), waiting up to `timeoutMs`. */
  next(timeoutMs?: number): Promise<SseMessage>;
  /** Events received and not yet taken by `next`. */
  pending(): SseMessage[];
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

function parseBlock(block: string): SseMessage | null {
  let event: string | null = null;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('event: ')) event = line.slice('event: '.length);
    else if (line.startsWith('data: ')) data.push(line.slice('data: '.length));
  }
  if (event === null) return null;
  return { event, data: JSON.parse(data.join('\n')) };
}

async function openStream(url: string): Promise<EventStream> {
  const controller = new AbortController();
  const response = await fetch(url, { signal: controller.signal });
  const messages: SseMessage[] = [];
  let raw = '';
  let buffer = '';
  // Wakes a `next` that is waiting for data.
  const waiting: { wake: (() => void) | null } = { wake: null };
  let finished = false;
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const ended = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        const chunk = decoder.decode(value, { stream: true });
        raw += chunk;
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const message = parseBlock(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          if (message) messages.push(message);
        }
        waiting.wake?.();
      }
    } catch {
      // aborted by close()
    } finally {
      finished = true;
      waiting.wake?.();
    }
  })();
  const stream: EventStream = {
    response,
    text: () => raw,
    pending: () => [...messages],
    ended,
    async next(timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      while (messages.length === 0) {
        if (finished) throw new Error(`the event stream ended; received so far:\n${raw}`);
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no event within ${timeoutMs} ms; received so far:\n${raw}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiting.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        waiting.wake = null;
      }
      return messages.shift()!;
    },
    close() {
      controller.abort();
    },
  };
  openStreams.push(stream);
  return stream;
}

/** Opens the store's stream and waits for the server's greeting (so it is subscribed before the test acts). */
async function events(apiKey: string): Promise<EventStream> {
  const stream = await openStream(`${node.url}/app/events?api_key=${encodeURIComponent(apiKey)}`);
  expect(stream.response.status).toBe(200);
  const deadline = Date.now() + 5_000;
  while (!stream.text().includes('\n\n')) {
    if (Date.now() > deadline) throw new Error('no greeting on the event stream');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return stream;
}

/** Waits a moment and expects that nothing more arrived on the stream. */
async function expectQuiet(stream: EventStream, ms = 150): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
  expect(stream.pending()).toEqual([]);
}

// ---------------------------------------------------------------------------------------------
// helpers (each orders-* file keeps its own: test files share no module but test/support)

const enc = encodeURIComponent;
let vendorCount = 0;
const addVendor = () => node.addVendor(`Orders events ${++vendorCount}`);
const signUp = (vendorId: number) => signUpAt(node, vendorId);

let receiptCount = 0;
const newReceipt = () => `EV-${++receiptCount}`;

const postOrder = (apiKey: string, body: unknown) => http(`${node.url}/order?api_key=${enc(apiKey)}`, { method: 'POST', body });

async function orderOk(apiKey: string, body: Record<string, unknown>): Promise<any> {
  const reply = await postOrder(apiKey, body);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body;
}

async function voidOk(apiKey: string, receipt: string): Promise<any> {
  const reply = await http(`${node.url}/order?api_key=${enc(apiKey)}`, { method: 'DELETE', body: { receipt_number: receipt } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body;
}

async function checkInOk(apiKey: string, identification: string): Promise<any> {
  const reply = await http(`${node.url}/onscreen?api_key=${enc(apiKey)}`, { method: 'POST', body: { card_number: identification } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.pos_session;
}

/** An event as the stream carries it: `event: <type>` and the JSON data, `at` in epoch ms. */
function storeEvent(type: string, store: { vendorId: number; storeId: number }, sessionId: number | null, at: number, orderId?: number): SseMessage {
  return {
    event: type,
    data: { type, vendor_id: store.vendorId, store_id: store.storeId, pos_session_id: sessionId, ...(orderId === undefined ? {} : { order_id: orderId }), at },
  };
}

async function addStore(v: VendorCredentials, name: string): Promise<{ vendorId: number; storeId: number; apiKey: string }> {
  return transact(node.engine, async (trx) => {
    const now = node.clock.now();
    const storeId = await nextObjectId(trx, node.engine.nodeId);
    await trx
      .insertInto('stores')
      .values({ id: storeId, vendor_id: v.vendorId, name, address1: '9 Side Street', address2: null, city: 'Shelbyville', region: null, country: 'US', postal_code: null, phone: null, created_at: now, updated_at: now })
      .execute();
    const key = await addApiKey(trx, node.engine, { vendorId: v.vendorId, storeId, posId: null, role: 'cashier', label: name });
    return { vendorId: v.vendorId, storeId, apiKey: key.key };
  });
}

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
