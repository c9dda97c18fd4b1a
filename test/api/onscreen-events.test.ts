import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Customer, legacyErrorCheck, ROOMY_RATE_LIMITS, signUpAt, withSessionKey } from '../support/customers';
import { eventStreams, expectQuiet, storeEvent } from '../support/event-stream';
import { expectBalancesAddUp, inStoreApi } from '../support/in-store';
import { http, startTestNode, type TestNode } from '../support/test-node';

// GET /app/events?api_key over real HTTP: the store's Server-Sent Events stream. A check-in opens
// (`session.opened`), a repeat check-in touches (`session.updated`), a close or a move to another
// store closes (`session.closed`); each event's data is {type, vendor_id, store_id, pos_session_id,
// at}. A stream only ever carries its own store's events.

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});

afterAll(async () => {
  await node?.close();
});

// Every stream a test opens is closed at its end, even when the test fails.
const { openStream, events, closeAll } = eventStreams(() => node);
afterEach(async () => {
  closeAll();
  await expectBalancesAddUp(node);
});

// ---------------------------------------------------------------------------------------------
// helpers

const expectLegacyError = legacyErrorCheck({ noStackTrace: true });
const enc = encodeURIComponent;
let vendorCount = 0;
const addVendor = () => node.addVendor(`Events ${++vendorCount}`);
const signUp = (vendorId: number) => signUpAt(node, vendorId);
const { checkInSessionOk: checkInOk, closeOk, addStore } = inStoreApi(() => node);
/** The event a session change publishes: `event: <type>` and the JSON data, `at` in epoch ms. */
const sessionEvent = (type: string, store: { vendorId: number; storeId: number }, sessionId: number, at: number, by?: string) => {
  const event = storeEvent(type, store, sessionId, at);
  return by === undefined ? event : { ...event, data: { ...event.data, by } };
};

// ---------------------------------------------------------------------------------------------

describe('GET /app/events', () => {
  it('answers 200 text/event-stream (no caching) and greets with a retry hint', async () => {
    const v = await addVendor();
    const stream = await events(v.apiKey);
    expect(stream.response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(stream.response.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(stream.text()).toMatch(/^retry: 3000\n/);
    expect(stream.pending()).toEqual([]);
  });

  it('a check-in gives session.opened, a repeat check-in session.updated, a close session.closed, each with the exact data', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const stream = await events(v.apiKey);

    node.clock.advance(1_000);
    const session = await checkInOk(v.apiKey, c.email);
    const openedAt = node.clock.now();
    expect(await stream.next()).toStrictEqual(sessionEvent('session.opened', v, session.id, openedAt, 'cashier'));
    expect(stream.text()).toContain(`event: session.opened\ndata: ${JSON.stringify({ type: 'session.opened', vendor_id: v.vendorId, store_id: v.storeId, pos_session_id: session.id, by: 'cashier', at: openedAt })}\n\n`);

    node.clock.advance(2_000);
    expect((await checkInOk(v.apiKey, c.email.toUpperCase())).hash).toBe(session.hash);
    expect(await stream.next()).toStrictEqual(sessionEvent('session.updated', v, session.id, node.clock.now(), 'cashier'));

    node.clock.advance(3_000);
    await closeOk(v.apiKey, session.hash);
    expect(await stream.next()).toStrictEqual(sessionEvent('session.closed', v, session.id, node.clock.now()));
    await expectQuiet(stream);
  });

  it('the kiosk key gets the same events; in-store register and app check-in open sessions too', async () => {
    const v = await addVendor();
    const cashier = await events(v.apiKey);
    const kiosk = await events(v.kioskApiKey);
    const reg = await http(`${node.url}/onscreen/register?api_key=${enc(v.kioskApiKey)}`, { method: 'POST', body: { phone_number: { number: '0994000001', code: '593' } } });
    expect(reg.status, JSON.stringify(reg.body)).toBe(201);
    const registered = sessionEvent('session.opened', v, reg.body.pos_session.id, node.clock.now(), 'kiosk');
    expect(await cashier.next()).toStrictEqual(registered);
    expect(await kiosk.next()).toStrictEqual(registered);

    const c: Customer = await signUp(v.vendorId);
    node.clock.advance(500);
    const app = await http(`${node.url}${withSessionKey('/vendor/store/check-in', c.key)}`, { method: 'POST', body: { store: v.storeId } });
    expect(app.status, JSON.stringify(app.body)).toBe(201);
    const fromApp = sessionEvent('session.opened', v, app.body.pos_session.id, node.clock.now(), 'app');
    expect(await cashier.next()).toStrictEqual(fromApp);
    expect(await kiosk.next()).toStrictEqual(fromApp);
  });

  it('refusals publish nothing: an unknown customer, a kiosk close (403), a close of an unknown hash', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const session = await checkInOk(v.apiKey, c.email);
    const stream = await events(v.apiKey);
    expect((await http(`${node.url}/onscreen?api_key=${enc(v.apiKey)}`, { method: 'POST', body: { card_number: 'nobody@example.com' } })).status).toBe(404);
    expect((await http(`${node.url}/onscreen?api_key=${enc(v.kioskApiKey)}`, { method: 'DELETE', body: { pos_session_hash: session.hash } })).status).toBe(403);
    expect((await http(`${node.url}/onscreen?api_key=${enc(v.apiKey)}`, { method: 'DELETE', body: { pos_session_hash: '0'.repeat(32) } })).status).toBe(404);
    await expectQuiet(stream);
    // and the next real change is the next event
    await closeOk(v.apiKey, session.hash);
    expect(await stream.next()).toStrictEqual(sessionEvent('session.closed', v, session.id, node.clock.now()));
  });

  it('a move to another store: the first store gets session.closed, the second session.opened, and neither gets the other store\'s event', async () => {
    const v = await addVendor();
    const north = await addStore(v, 'North Store');
    const c = await signUp(v.vendorId);
    const d = await signUp(v.vendorId);
    const main = await events(v.apiKey);
    const northStream = await events(north.apiKey);

    const first = await checkInOk(v.apiKey, c.email);
    expect(await main.next()).toStrictEqual(sessionEvent('session.opened', v, first.id, node.clock.now(), 'cashier'));

    node.clock.advance(60_000);
    const moved = await checkInOk(north.apiKey, c.email);
    expect(await main.next()).toStrictEqual(sessionEvent('session.closed', v, first.id, node.clock.now()));
    expect(await northStream.next()).toStrictEqual(sessionEvent('session.opened', north, moved.id, node.clock.now(), 'cashier'));

    // the next event on the main stream is the main store's own, not the north store's
    node.clock.advance(1_000);
    const local = await checkInOk(v.apiKey, d.email);
    expect(await main.next()).toStrictEqual(sessionEvent('session.opened', v, local.id, node.clock.now(), 'cashier'));
    await expectQuiet(main);
    await expectQuiet(northStream);
  });

  it("another vendor's events never arrive on this stream", async () => {
    const v = await addVendor();
    const w = await addVendor();
    const mine = await signUp(v.vendorId);
    const theirs = await signUp(w.vendorId);
    const stream = await events(v.apiKey);
    const theirStream = await events(w.apiKey);

    const other = await checkInOk(w.apiKey, theirs.email);
    expect(await theirStream.next()).toStrictEqual(sessionEvent('session.opened', w, other.id, node.clock.now(), 'cashier'));
    await closeOk(w.apiKey, other.hash);
    expect((await theirStream.next()).event).toBe('session.closed');

    const own = await checkInOk(v.apiKey, mine.email);
    expect(await stream.next()).toStrictEqual(sessionEvent('session.opened', v, own.id, node.clock.now(), 'cashier'));
    await expectQuiet(stream);
    await expectQuiet(theirStream);
  });

  it('answers 401 missing_credentials without an api_key and 401 invalid_api_key for an unknown one (legacy JSON errors)', async () => {
    expectLegacyError(await http(`${node.url}/app/events`), 401, 'missing_credentials');
    expectLegacyError(await http(`${node.url}/app/events?api_key=`), 401, 'missing_credentials');
    expectLegacyError(await http(`${node.url}/app/events?api_key=pcak_unknown`), 401, 'invalid_api_key');
  });

  it('a stream the client closed gets nothing more, and the store keeps working', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const gone = await events(v.apiKey);
    gone.close();
    await gone.ended;
    const live = await events(v.apiKey);
    const session = await checkInOk(v.apiKey, c.email);
    expect(await live.next()).toStrictEqual(sessionEvent('session.opened', v, session.id, node.clock.now(), 'cashier'));
    expect(gone.pending()).toEqual([]);
  });
});

describe('shutdown with a stream open', () => {
  it('node.close() does not hang on an open event stream, and the stream ends', async () => {
    const own = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
    let closed = false;
    try {
      const v = await own.addVendor('Shutdown');
      const stream = await openStream(`${own.url}/app/events?api_key=${enc(v.apiKey)}`);
      expect(stream.response.status).toBe(200);
      const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 5_000).unref());
      const result = await Promise.race([own.close().then(() => 'closed' as const), timeout]);
      closed = result === 'closed';
      expect(result).toBe('closed');
      expect(await Promise.race([stream.ended.then(() => 'ended' as const), timeout])).toBe('ended');
    } finally {
      if (!closed) await own.close().catch(() => undefined);
    }
  });
});
