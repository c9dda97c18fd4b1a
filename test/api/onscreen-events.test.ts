import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addApiKey } from '../../src/core/credentials/api-keys';
import { transact } from '../../src/core/engine';
import { findBalanceMismatches } from '../../src/core/ledger/ledger';
import { nextObjectId } from '../../src/core/storage/ids';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { type Customer, legacyErrorCheck, ROOMY_RATE_LIMITS, signUpAt, withSessionKey } from '../support/customers';
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
// helpers

const expectLegacyError = legacyErrorCheck({ noStackTrace: true });
const enc = encodeURIComponent;
let vendorCount = 0;
const addVendor = () => node.addVendor(`Events ${++vendorCount}`);
const signUp = (vendorId: number) => signUpAt(node, vendorId);

async function checkInOk(apiKey: string, identification: string): Promise<any> {
  const reply = await http(`${node.url}/onscreen?api_key=${enc(apiKey)}`, { method: 'POST', body: { card_number: identification } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.pos_session;
}

async function closeOk(apiKey: string, hash: string): Promise<void> {
  const reply = await http(`${node.url}/onscreen?api_key=${enc(apiKey)}`, { method: 'DELETE', body: { pos_session_hash: hash } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
}

/** The event a session change publishes: `event: <type>` and the JSON data, `at` in epoch ms. */
function sessionEvent(type: string, store: { vendorId: number; storeId: number }, sessionId: number, at: number): SseMessage {
  return { event: type, data: { type, vendor_id: store.vendorId, store_id: store.storeId, pos_session_id: sessionId, at } };
}

async function addStore(v: VendorCredentials, name: string): Promise<{ vendorId: number; storeId: number; apiKey: string }> {
  return transact(node.engine, async (trx) => {
    const now = node.clock.now();
    const storeId = await nextObjectId(trx, node.engine.nodeId);
    await trx
      .insertInto('stores')
      .values({ id: storeId, vendor_id: v.vendorId, name, address1: '9 Side Street', address2: null, city: 'Shelbyville', region: null, country: 'US', postal_code: null, phone: null, created_at: now, updated_at: now })
      .execute();
    const posId = await nextObjectId(trx, node.engine.nodeId);
    await trx.insertInto('points_of_sale').values({ id: posId, vendor_id: v.vendorId, store_id: storeId, name: 'Counter 1', status: 'ACTIVE', created_at: now, updated_at: now }).execute();
    const key = await addApiKey(trx, node.engine, { vendorId: v.vendorId, storeId, posId, role: 'cashier', label: name });
    return { vendorId: v.vendorId, storeId, apiKey: key.key };
  });
}

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
    expect(await stream.next()).toStrictEqual(sessionEvent('session.opened', v, session.id, openedAt));
    expect(stream.text()).toContain(`event: session.opened\ndata: ${JSON.stringify({ type: 'session.opened', vendor_id: v.vendorId, store_id: v.storeId, pos_session_id: session.id, at: openedAt })}\n\n`);

    node.clock.advance(2_000);
    expect((await checkInOk(v.apiKey, c.email.toUpperCase())).hash).toBe(session.hash);
    expect(await stream.next()).toStrictEqual(sessionEvent('session.updated', v, session.id, node.clock.now()));

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
    const registered = sessionEvent('session.opened', v, reg.body.pos_session.id, node.clock.now());
    expect(await cashier.next()).toStrictEqual(registered);
    expect(await kiosk.next()).toStrictEqual(registered);

    const c: Customer = await signUp(v.vendorId);
    node.clock.advance(500);
    const app = await http(`${node.url}${withSessionKey('/vendor/store/check-in', c.key)}`, { method: 'POST', body: { store: v.storeId } });
    expect(app.status, JSON.stringify(app.body)).toBe(201);
    const fromApp = sessionEvent('session.opened', v, app.body.pos_session.id, node.clock.now());
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
    expect(await main.next()).toStrictEqual(sessionEvent('session.opened', v, first.id, node.clock.now()));

    node.clock.advance(60_000);
    const moved = await checkInOk(north.apiKey, c.email);
    expect(await main.next()).toStrictEqual(sessionEvent('session.closed', v, first.id, node.clock.now()));
    expect(await northStream.next()).toStrictEqual(sessionEvent('session.opened', north, moved.id, node.clock.now()));

    // the next event on the main stream is the main store's own, not the north store's
    node.clock.advance(1_000);
    const local = await checkInOk(v.apiKey, d.email);
    expect(await main.next()).toStrictEqual(sessionEvent('session.opened', v, local.id, node.clock.now()));
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
    expect(await theirStream.next()).toStrictEqual(sessionEvent('session.opened', w, other.id, node.clock.now()));
    await closeOk(w.apiKey, other.hash);
    expect((await theirStream.next()).event).toBe('session.closed');

    const own = await checkInOk(v.apiKey, mine.email);
    expect(await stream.next()).toStrictEqual(sessionEvent('session.opened', v, own.id, node.clock.now()));
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
    expect(await live.next()).toStrictEqual(sessionEvent('session.opened', v, session.id, node.clock.now()));
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
