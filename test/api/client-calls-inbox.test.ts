import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { type Customer, deleteAccountAt, freshEmail, legacyErrorCheck, loginOkAt, PASSWORD, ROOMY_RATE_LIMITS, signUpAt, withSessionKey } from '../support/customers';
import { inStoreApi } from '../support/in-store';
import { http, type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// The customer inbox (issue 12), over real HTTP: GET /user/message/list (paged, newest first,
// unread count), PUT /user/message (read, unread, delete), the admin POST /messages to one
// customer or to all, and the program's own messages: welcome, tier reached, reward ready, eGift.

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});

afterAll(async () => {
  await node?.close();
});

const expectLegacyError = legacyErrorCheck({ depth: 'basic', noStackTrace: true });
const { orderOk, addReward } = inStoreApi(() => node);
let receipts = 0;

const inbox = (c: Customer, query = '') => http(`${node.url}${withSessionKey('/user/message/list', c.key)}${query}`);
async function inboxOk(c: Customer, query = ''): Promise<any> {
  const reply = await inbox(c, query);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body;
}
const update = (c: Customer, body: unknown) => http(`${node.url}${withSessionKey('/user/message', c.key)}`, { method: 'PUT', body });
const send = (v: VendorCredentials, body: unknown, token = v.accessToken) => http(`${node.url}/messages`, { method: 'POST', token, body });
const kinds = async (c: Customer) => (await inboxOk(c)).data.map((m: { kind: string }) => m.kind);

function created(reply: HttpReply, recipients: number): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  expect(reply.body).toEqual({ object: 'message_send', recipients, date_created: new Date(node.clock.now()).toISOString() });
}

describe('GET /user/message/list and the welcome message', () => {
  it('a new member finds a welcome message, unread', async () => {
    const v = await node.addVendor('Inbox Café');
    const c = await signUpAt(node, v.vendorId);
    const body = await inboxOk(c);
    expect(body).toEqual({
      object: 'collection',
      count: 1,
      unread: 1,
      page: 1,
      page_size: 25,
      total_pages: 1,
      next_page_url: null,
      previous_page_url: null,
      data: [
        {
          object: 'message',
          id: expect.any(Number),
          kind: 'welcome',
          title: 'Welcome to Inbox Café!',
          body: expect.stringContaining('Earn points'),
          created: Math.floor(node.clock.now() / 1000),
          read: false,
          read_at: null,
        },
      ],
    });
  });

  it('pages newest first with absolute links, and refuses bad paging and missing sessions', async () => {
    const v = await node.addVendor();
    const c = await signUpAt(node, v.vendorId);
    for (const title of ['One', 'Two', 'Three']) {
      node.clock.advance(1000);
      created(await send(v, { title, body: `${title} body`, user: c.userId }), 1);
    }
    const first = await inboxOk(c, '&limit=2');
    expect(first.data.map((m: { title: string }) => m.title)).toEqual(['Three', 'Two']);
    expect(first).toMatchObject({ count: 4, unread: 4, total_pages: 2, previous_page_url: null });
    const next = new URL(first.next_page_url);
    expect(Object.fromEntries(next.searchParams)).toEqual({ session_key: c.key, page: '2', limit: '2' });
    const second = await (await fetch(first.next_page_url)).json();
    expect(second.data.map((m: { kind: string }) => m.kind)).toEqual(['program', 'welcome']);
    expectLegacyError(await inbox(c, '&limit=0'), 400, 'validation_failed');
    expectLegacyError(await inbox(c, '&page=x'), 400, 'validation_failed');
    expectLegacyError(await http(`${node.url}/user/message/list`), 401, 'missing_credentials');
  });
});

describe('PUT /user/message', () => {
  it('marks read and unread again, deletes, and says how many are unread', async () => {
    const v = await node.addVendor();
    const c = await signUpAt(node, v.vendorId);
    created(await send(v, { title: 'Hello', body: 'News', user: c.userId }), 1);
    const [news, welcome] = (await inboxOk(c)).data;
    node.clock.advance(5000);
    expect((await update(c, { message: news.id, read: true })).body).toStrictEqual({});
    let body = await inboxOk(c);
    expect(body.unread).toBe(1);
    expect(body.data[0]).toMatchObject({ id: news.id, read: true, read_at: Math.floor(node.clock.now() / 1000) });
    expect((await update(c, { message: { id: news.id }, read: false })).status).toBe(200);
    expect((await inboxOk(c)).unread).toBe(2);
    expect((await update(c, { message: welcome.id, deleted: true })).status).toBe(200);
    body = await inboxOk(c);
    expect(body).toMatchObject({ count: 1, unread: 1 });
    expect(body.data.map((m: { id: number }) => m.id)).toEqual([news.id]);
    expectLegacyError(await update(c, { message: welcome.id, read: true }), 404, 'message_not_found');
  });

  it('takes the flags as form fields send them: 1 and 0, "true" and "false"', async () => {
    const v = await node.addVendor();
    const c = await signUpAt(node, v.vendorId);
    const [welcome] = (await inboxOk(c)).data;
    const form = (fields: string) => http(`${node.url}${withSessionKey('/user/message', c.key)}`, { method: 'PUT', body: fields, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect((await form(`message=${welcome.id}&read=1`)).status).toBe(200);
    expect((await inboxOk(c)).data[0]).toMatchObject({ id: welcome.id, read: true });
    expect((await form(`message=${welcome.id}&read=0`)).status).toBe(200);
    expect((await inboxOk(c)).data[0]).toMatchObject({ id: welcome.id, read: false });
    expect((await update(c, { message: welcome.id, read: '1' })).status).toBe(200);
    expect((await inboxOk(c)).unread).toBe(0);
    expect((await form(`message=${welcome.id}&deleted=true`)).status).toBe(200);
    expect((await inboxOk(c)).count).toBe(0);
  });

  it("refuses bad input and another customer's message, changing nothing", async () => {
    const v = await node.addVendor();
    const c = await signUpAt(node, v.vendorId);
    const other = await signUpAt(node, v.vendorId);
    const [welcome] = (await inboxOk(c)).data;
    for (const body of [{ message: welcome.id }, { message: 'x', read: true }, { read: true }, { message: welcome.id, read: 'maybe' }, { message: welcome.id, read: 2 }, { message: welcome.id, deleted: 'yes' }]) {
      expectLegacyError(await update(c, body), 400, 'validation_failed');
    }
    expectLegacyError(await update(other, { message: welcome.id, read: true }), 404, 'message_not_found');
    expectLegacyError(await update(other, { message: welcome.id, deleted: true }), 404, 'message_not_found');
    expect((await inboxOk(c)).data[0]).toMatchObject({ id: welcome.id, read: false });
  });
});

describe('POST /messages (admin)', () => {
  it('sends to one member or to every member of the program only', async () => {
    const v = await node.addVendor();
    const a = await signUpAt(node, v.vendorId);
    const b = await signUpAt(node, v.vendorId);
    const elsewhere = await node.addVendor();
    const stranger = await signUpAt(node, elsewhere.vendorId);
    created(await send(v, { title: 'Only you', body: 'Hi', user: a.userId }), 1);
    created(await send(v, { title: 'Everyone', body: 'Sale on Friday', to: 'all' }), 2);
    expect((await inboxOk(a)).data.map((m: { title: string }) => m.title).slice(0, 2)).toEqual(['Everyone', 'Only you']);
    expect((await inboxOk(b)).data.map((m: { title: string }) => m.title)).toContain('Everyone');
    expect((await inboxOk(b)).data.map((m: { title: string }) => m.title)).not.toContain('Only you');
    expect(await kinds(stranger)).toEqual(['welcome']);
  });

  it("refuses another vendor's customer, bad bodies and missing credentials, sending nothing", async () => {
    const v = await node.addVendor();
    const c = await signUpAt(node, v.vendorId);
    const elsewhere = await node.addVendor();
    const stranger = await signUpAt(node, elsewhere.vendorId);
    const notFound = await send(v, { title: 'Hi', body: 'There', user: stranger.userId });
    expect(notFound.status).toBe(404);
    expect(notFound.body.code).toBe('user_not_found');
    for (const body of [{ title: '', body: 'x', user: c.userId }, { title: 'x', body: '  ', user: c.userId }, { title: 'x', body: 'y' }, { title: 'x', body: 'y', user: c.userId, to: 'all' }, { title: 'x', body: 'y', to: 'some' }]) {
      const reply = await send(v, body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.code).toBe('validation_failed');
    }
    expect((await http(`${node.url}/messages`, { method: 'POST', body: { title: 'x', body: 'y', to: 'all' } })).status).toBe(401);
    expect(await kinds(c)).toEqual(['welcome']);
    expect(await kinds(stranger)).toEqual(['welcome']);
  });
});

describe('a member of two programs', () => {
  it("is welcomed at the first login at the second; each program's inbox is its own and refuses the other's messages", async () => {
    const v = await node.addVendor();
    const c = await signUpAt(node, v.vendorId);
    created(await send(v, { title: 'From the first', body: 'Hi', user: c.userId }), 1);
    const [fromFirst] = (await inboxOk(c)).data;
    const w = await node.addVendor();
    const session = await loginOkAt(node, c.email, PASSWORD, w.vendorId);
    const there: Customer = { ...c, vendorId: w.vendorId, key: session.session_identifier };
    expect(await kinds(there)).toEqual(['welcome']);
    expectLegacyError(await update(there, { message: fromFirst.id, read: true }), 404, 'message_not_found');
    expectLegacyError(await update(there, { message: fromFirst.id, deleted: true }), 404, 'message_not_found');
    created(await send(w, { title: 'From the second', body: 'Hello', user: c.userId }), 1);
    expect((await inboxOk(c)).data.map((m: { title: string }) => m.title)).not.toContain('From the second');
    expect((await inboxOk(c)).data[0]).toMatchObject({ id: fromFirst.id, read: false });
    expect(await kinds(c)).toEqual(['program', 'welcome']);
  });
});

describe("the program's own messages", () => {
  it('tier reached and reward ready, when an order earns enough; once per tier', async () => {
    const v = await node.addVendor();
    const c = await signUpAt(node, v.vendorId);
    await addReward(v, { name: 'Free muffin', cost: 30 });
    await addReward(v, { name: 'Free lunch', cost: 500 });
    const tier = await http(`${node.url}/tiers`, { method: 'POST', token: v.accessToken, body: { name: 'Silver', threshold: 40 } });
    expect(tier.status).toBe(201);
    await orderOk(v.apiKey, { card_number: c.email, receipt_number: `IN-${++receipts}`, subtotal: 20 });
    expect(await kinds(c)).toEqual(['welcome']);
    node.clock.advance(1000);
    await orderOk(v.apiKey, { card_number: c.email, receipt_number: `IN-${++receipts}`, subtotal: 25 });
    const body = await inboxOk(c);
    expect(body.data.map((m: { kind: string; title: string }) => [m.kind, m.title]).sort()).toEqual([
      ['reward', 'A reward is ready: Free muffin'],
      ['tier', 'You reached Silver'],
      ['welcome', expect.any(String)],
    ]);
    expect(body.unread).toBe(3);
    node.clock.advance(1000);
    await orderOk(v.apiKey, { card_number: c.email, receipt_number: `IN-${++receipts}`, subtotal: 5 });
    expect((await inboxOk(c)).count).toBe(3);
  });

  it('an eGift sent to a member, in their language', async () => {
    const v = await node.addVendor();
    const c = await signUpAt(node, v.vendorId, { language: 2 });
    const gift = await http(`${node.url}/vendor/${v.vendorId}/egift`, {
      method: 'POST',
      body: {
        amount: 10,
        buyer: { name: 'Mateo Ruiz', email: freshEmail('buyer') },
        recipient: { name: 'Ana', email: c.email },
        billing: { name: 'Mateo Ruiz', number: '4242 4242 4242 4242', expiry: { month: '12', year: '2031' }, cvv: '123' },
      },
    });
    expect(gift.status, JSON.stringify(gift.body)).toBe(200);
    const [message] = (await inboxOk(c)).data;
    expect(message).toMatchObject({ kind: 'egift', title: 'Recibió un eGift' });
    expect(message.body).toContain('Mateo Ruiz');
    expect(message.body).not.toMatch(/[0-9A-Z]{4}-[0-9A-Z]{4}/);
  });
});

describe('leaving the program', () => {
  it('removes the member’s messages with the membership', async () => {
    const v = await node.addVendor();
    const c = await signUpAt(node, v.vendorId);
    created(await send(v, { title: 'Hi', body: 'There', user: c.userId }), 1);
    const rows = () => node.engine.db.selectFrom('inbox_messages').select('id').where('user_id', '=', c.userId).execute();
    expect(await rows()).toHaveLength(2);
    await deleteAccountAt(node, c, { expectDeleted: true });
    expect(await rows()).toEqual([]);
  });
});
