import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRequester } from '../../src/renderer/src/api/client';
import { createTerminalApi } from '../../src/renderer/src/api/terminal-api';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { cashierScreen, queued, settle } from '../support/cashier-screen';
import { ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { eventStreams } from '../support/event-stream';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Two counters of one store, each with its cashier screen on the node's real event stream: a
// customer checked in at one counter (typed, a wedge scan it posted, a sign-up) opens on that
// counter's panel only and joins the other's queue; a kiosk's check-in still opens on a free
// counter. The screens name themselves (`screen`) on their check-ins; the events carry it.

let node: TestNode;
let v: VendorCredentials;
const { events, closeAll } = eventStreams(() => node);
const stops: Array<() => void> = [];

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
  v = await node.addVendor();
});

afterAll(async () => {
  await node?.close();
});

afterEach(() => {
  for (const stop of stops.splice(0)) stop();
  closeAll();
});

const twoCounters = async () => ({ a: await cashierScreen(node, v.apiKey, events, stops), b: await cashierScreen(node, v.apiKey, events, stops) });
const customer = (first: string) => signUpAt(node, v.vendorId, { first_name: first, last_name: 'Screens' });

describe('a check-in made at one counter’s screen', () => {
  it('typed: opens on that screen, only queues on the other free one', async () => {
    const { a, b } = await twoCounters();
    const ana = await customer('Ana');
    const reply = await a.api.checkIn(ana.email);
    await a.cashier.openSession(reply.pos_session.hash, reply.pos_session.id);
    await vi.waitFor(() => expect(queued(b.cashier)).toContain(reply.pos_session.id));
    await settle();
    expect(a.cashier.customer.getState().sessionId).toBe(reply.pos_session.id);
    expect(b.cashier.customer.getState().hash).toBeNull();
  });

  it('a wedge line it posted: opens there from the event, not on the other', async () => {
    const { a, b } = await twoCounters();
    const ben = await customer('Ben');
    const reply = await b.api.scan(ben.email);
    await vi.waitFor(() => expect(b.cashier.customer.getState().sessionId).toBe(reply.pos_session.id), { timeout: 5_000 });
    await vi.waitFor(() => expect(queued(a.cashier)).toContain(reply.pos_session.id));
    await settle();
    expect(a.cashier.customer.getState().hash).toBeNull();
  });

  it('the same customer checked in again at the other counter opens there (session.updated of that screen)', async () => {
    const { a, b } = await twoCounters();
    const cleo = await customer('Cleo');
    const first = await a.api.scan(cleo.email);
    await vi.waitFor(() => expect(a.cashier.customer.getState().sessionId).toBe(first.pos_session.id), { timeout: 5_000 });
    expect(await a.cashier.customer.getState().closeSession()).toBe(true);
    // A new session, waiting in both queues; then Cleo walks to counter B, which scans her.
    const again = await a.api.checkIn(cleo.email);
    await vi.waitFor(() => expect(queued(b.cashier)).toContain(again.pos_session.id));
    const atB = await b.api.scan(cleo.email);
    expect(atB.pos_session.id).toBe(again.pos_session.id);
    await vi.waitFor(() => expect(b.cashier.customer.getState().sessionId).toBe(again.pos_session.id), { timeout: 5_000 });
  });

  it('a sign-up: opens on the screen that signed them up only', async () => {
    const { a, b } = await twoCounters();
    const reply = await a.api.register({ email: `dev.${Date.now()}@example.com`, first_name: 'Dev' });
    await a.cashier.openSession(reply.pos_session.hash, reply.pos_session.id);
    await vi.waitFor(() => expect(queued(b.cashier)).toContain(reply.pos_session.id));
    await settle();
    expect(b.cashier.customer.getState().hash).toBeNull();
  });

  it('a kiosk screen’s check-in still opens on a free counter', async () => {
    const { a } = await twoCounters();
    const kiosk = createTerminalApi(createRequester({ baseUrl: node.url, credential: null }), v.kioskApiKey);
    const eve = await customer('Eve');
    const reply = await kiosk.scan(eve.email);
    await vi.waitFor(() => expect(a.cashier.customer.getState().sessionId).toBe(reply.pos_session.id), { timeout: 5_000 });
  });
});

describe('the screen named on a check-in', () => {
  it('reaches the store’s event stream as `screen`', async () => {
    const stream = await events(v.apiKey);
    const fay = await customer('Fay');
    const reply = await http(`${node.url}/onscreen?api_key=${encodeURIComponent(v.apiKey)}&screen=counter-2`, { method: 'POST', body: { card_number: fay.email } });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    const message = await stream.next(5_000);
    expect(message.data).toMatchObject({ type: 'session.opened', by: 'cashier', screen: 'counter-2', pos_session_id: reply.body.pos_session.id });
  });

  it('is refused with 400 naming the field when it is not a short plain name, and nothing is checked in', async () => {
    const gus = await customer('Gus');
    for (const screen of ['', 'a b', 'x'.repeat(65), 'ü']) {
      const reply = await http(`${node.url}/onscreen?api_key=${encodeURIComponent(v.apiKey)}&screen=${encodeURIComponent(screen)}`, { method: 'POST', body: { card_number: gus.email } });
      expect(reply.status, screen).toBe(400);
      expect(reply.body.error.errors[0]).toMatchObject({ reason: 'validation_failed', field: 'screen' });
    }
    const queue = await http(`${node.url}/onscreen/queue?api_key=${encodeURIComponent(v.apiKey)}`);
    expect(queue.status).toBe(200);
    expect((queue.body as Array<{ pos_session: { user: { email_address: string } } }>).map((entry) => entry.pos_session.user.email_address)).not.toContain(gus.email);
  });
});
