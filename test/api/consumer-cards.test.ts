import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { transact } from '../../src/core/engine';
import { openAccount, postEntry } from '../../src/core/ledger/ledger';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { buildApp } from '../../src/server/app';
import { consumerApi, type ConsumerCustomer as Customer, legacyErrorCheck, withSessionKey } from '../support/customers';
import { http, type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// Cards as customers see them, over real HTTP: GET /user/card/list, POST /user/card/add,
// DELETE /user/card and GET /card/balance (unlinked gift cards), with their pin checks and the
// pin-guessing limits.

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode();
});

afterAll(async () => {
  await node?.close();
});

// Each test starts with fresh rate-limit windows (the pin limiter allows 10 tries per 15 minutes).
beforeEach(() => {
  node.clock.advance(901_000);
});

// ---------------------------------------------------------------------------------------------
// helpers

const { login, customer, nowSec: nowSeconds, sessionUrl } = consumerApi(() => node, { emailPrefix: 'cards', firstName: 'Luis', lastName: 'Mora' });
const expectLegacyError = legacyErrorCheck({ depth: 'basic' });

async function createCard(v: VendorCredentials, body: { number: string; pin?: string | null }): Promise<{ id: number; publicId: string }> {
  const reply = await http(`${node.url}/cards`, { method: 'POST', token: v.accessToken, body });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  const row = await node.engine.db.selectFrom('cards').select('id').where('public_id', '=', reply.body.id).executeTakeFirstOrThrow();
  return { id: row.id, publicId: reply.body.id };
}

let cardSeq = 0;
const newNumber = () => `GC${Date.now().toString(36).toUpperCase()}${++cardSeq}`;

const list = (c: Customer) => http(sessionUrl('/user/card/list', c));
const add = (c: Customer, body: unknown, base = node.url) => http(`${base}${withSessionKey('/user/card/add', c.sessionKey)}`, { method: 'POST', body });
const remove = (c: Customer, body: unknown) => http(sessionUrl('/user/card', c), { method: 'DELETE', body });
function balance(params: Record<string, string | number>, base = node.url): Promise<HttpReply> {
  const search = new URLSearchParams(Object.entries(params).map(([k, value]) => [k, String(value)]));
  return http(`${base}/card/balance?${search}`);
}

async function fund(cardId: number, vendorId: number, currencyId: number, amount: number): Promise<void> {
  await transact(node.engine, async (trx) => {
    const account = await openAccount(trx, node.engine, { vendorId, currencyId, holderType: 'card', holderId: cardId });
    await postEntry(trx, node.engine, account, { amount, kind: 'test' });
  });
}

// ---------------------------------------------------------------------------------------------

describe('GET /user/card/list', () => {
  it('is an empty legacy collection for a new customer', async () => {
    const v = await node.addVendor();
    const c = await customer(v.vendorId);
    const reply = await list(c);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ object: 'collection', count: 0, data: [], next_page_url: null });
  });

  it('lists the linked cards, newest link first, with number, pin and status', async () => {
    const v = await node.addVendor();
    const c = await customer(v.vendorId);
    const a = newNumber();
    const b = newNumber();
    await createCard(v, { number: a, pin: '1234' });
    await createCard(v, { number: b });
    const first = (await add(c, { number: a, pin: '1234' })).body;
    const firstAt = nowSeconds();
    node.clock.advance(5000);
    const second = (await add(c, { number: b })).body;
    const secondAt = nowSeconds();
    const reply = await list(c);
    expect(reply.body).toEqual({
      object: 'collection',
      count: 2,
      data: [
        { id: second.id, object: 'user_card', created: secondAt, updated: secondAt, status: 'ACTIVE', card: { number: b, pin: null, status: 'ACTIVE' } },
        { id: first.id, object: 'user_card', created: firstAt, updated: firstAt, status: 'ACTIVE', card: { number: a, pin: '1234', status: 'ACTIVE' } },
      ],
      next_page_url: null,
    });
  });

  it("shows neither other customers' cards nor the same person's cards at another vendor", async () => {
    const v = await node.addVendor();
    const w = await node.addVendor();
    const c = await customer(v.vendorId);
    const other = await customer(v.vendorId);
    const mine = newNumber();
    const theirs = newNumber();
    const atW = newNumber();
    await createCard(v, { number: mine });
    await createCard(v, { number: theirs });
    await createCard(w, { number: atW });
    expect((await add(c, { number: mine })).status).toBe(200);
    expect((await add(other, { number: theirs })).status).toBe(200);
    const cAtW: Customer = { ...c, sessionKey: await login(c.email, c.password, w.vendorId) };
    expect((await add(cAtW, { number: atW })).status).toBe(200);
    expect((await list(c)).body.data.map((d: any) => d.card.number)).toEqual([mine]);
    expect((await list(other)).body.data.map((d: any) => d.card.number)).toEqual([theirs]);
    expect((await list(cAtW)).body.data.map((d: any) => d.card.number)).toEqual([atW]);
  });

  it('drops a card the vendor deleted, and shows a paused card with its status', async () => {
    const v = await node.addVendor();
    const c = await customer(v.vendorId);
    const gone = newNumber();
    const paused = newNumber();
    const goneCard = await createCard(v, { number: gone });
    const pausedCard = await createCard(v, { number: paused });
    await add(c, { number: gone });
    await add(c, { number: paused });
    expect((await http(`${node.url}/cards/${goneCard.publicId}`, { method: 'DELETE', token: v.accessToken })).status).toBe(200);
    expect((await http(`${node.url}/cards/${pausedCard.publicId}`, { method: 'PUT', token: v.accessToken, body: { status: 'INACTIVE' } })).status).toBe(200);
    const body = (await list(c)).body;
    expect(body.count).toBe(1);
    expect(body.data[0].card).toEqual({ number: paused, pin: null, status: 'INACTIVE' });
  });
});

describe('POST /user/card/add', () => {
  let v: VendorCredentials;
  beforeAll(async () => {
    v = await node.addVendor('Card Shop');
  });

  it('links a card with its pin and answers the user_card', async () => {
    const c = await customer(v.vendorId);
    const number = newNumber();
    await createCard(v, { number, pin: '0042' });
    const reply = await add(c, { number, pin: '0042' });
    expect(reply.status).toBe(200);
    const at = nowSeconds();
    expect(Object.keys(reply.body).sort()).toEqual(['card', 'created', 'id', 'object', 'status', 'updated']);
    expect(reply.body).toEqual({ id: reply.body.id, object: 'user_card', created: at, updated: at, status: 'ACTIVE', card: { number, pin: '0042', status: 'ACTIVE' } });
    expect(Number.isSafeInteger(reply.body.id)).toBe(true);
    const row = await node.engine.db.selectFrom('user_cards').selectAll().where('id', '=', reply.body.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ user_id: c.userId, vendor_id: v.vendorId, status: 'ACTIVE', removed_at: null });
  });

  it('finds the number in any letter case and answers it as stored', async () => {
    const c = await customer(v.vendorId);
    const number = `Ab${newNumber()}`;
    await createCard(v, { number, pin: '77' });
    const reply = await add(c, { number: number.toLowerCase(), pin: '77' });
    expect(reply.status).toBe(200);
    expect(reply.body.card.number).toBe(number);
  });

  it('is idempotent: linking one own card again answers the same link', async () => {
    const c = await customer(v.vendorId);
    const number = newNumber();
    await createCard(v, { number, pin: '1111' });
    const first = await add(c, { number, pin: '1111' });
    node.clock.advance(10_000);
    const again = await add(c, { number: number.toLowerCase(), pin: '1111' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect((await list(c)).body.count).toBe(1);
  });

  it('accepts form fields and a pin sent as a number', async () => {
    const c = await customer(v.vendorId);
    const number = newNumber();
    await createCard(v, { number, pin: '9876' });
    const form = await http(`${node.url}/user/card/add?session_key=${encodeURIComponent(c.sessionKey)}`, {
      method: 'POST',
      body: `number=${number}&pin=9876`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status, JSON.stringify(form.body)).toBe(200);
    const asNumber = await add(c, { number, pin: 9876 });
    expect(asNumber.status).toBe(200);
    expect(asNumber.body.id).toBe(form.body.id);
  });

  it('refuses a wrong or missing pin with 403 invalid_card_pin and links nothing', async () => {
    const c = await customer(v.vendorId);
    const number = newNumber();
    await createCard(v, { number, pin: '1234' });
    expectLegacyError(await add(c, { number, pin: '1235' }), 403, 'invalid_card_pin', 'pin');
    expectLegacyError(await add(c, { number, pin: '12345' }), 403, 'invalid_card_pin', 'pin');
    expectLegacyError(await add(c, { number, pin: '' }), 403, 'invalid_card_pin', 'pin');
    expectLegacyError(await add(c, { number, pin: null }), 403, 'invalid_card_pin', 'pin');
    expectLegacyError(await add(c, { number }), 403, 'invalid_card_pin', 'pin');
    expect((await list(c)).body.count).toBe(0);
  });

  it('links a card issued without a pin by its number alone (a pin sent is ignored)', async () => {
    const c = await customer(v.vendorId);
    const a = newNumber();
    const b = newNumber();
    await createCard(v, { number: a });
    await createCard(v, { number: b });
    expect((await add(c, { number: a })).body.card).toEqual({ number: a, pin: null, status: 'ACTIVE' });
    expect((await add(c, { number: b, pin: 'whatever' })).status).toBe(200);
    expect((await list(c)).body.count).toBe(2);
  });

  it("answers 404 card_not_found for an unknown number, a deleted card and another vendor's card", async () => {
    const c = await customer(v.vendorId);
    const w = await node.addVendor();
    const elsewhere = newNumber();
    await createCard(w, { number: elsewhere, pin: '1' });
    const deleted = newNumber();
    const card = await createCard(v, { number: deleted });
    await http(`${node.url}/cards/${card.publicId}`, { method: 'DELETE', token: v.accessToken });
    expectLegacyError(await add(c, { number: 'NOSUCHCARD1' }), 404, 'card_not_found', 'number');
    expectLegacyError(await add(c, { number: deleted }), 404, 'card_not_found', 'number');
    expectLegacyError(await add(c, { number: elsewhere, pin: '1' }), 404, 'card_not_found', 'number');
  });

  it('validates the input: 400 for a missing or malformed number', async () => {
    const c = await customer(v.vendorId);
    expectLegacyError(await add(c, {}), 400, 'validation_failed', 'number');
    expectLegacyError(await add(c, { number: '' }), 400, 'validation_failed', 'number');
    expectLegacyError(await add(c, { number: '1234-5678' }), 400, 'invalid_card_number', 'number');
    expectLegacyError(await add(c, { number: 'x'.repeat(65) }), 400, 'validation_failed', 'number');
  });

  it("answers 409 card_already_linked for someone else's card, but only to whoever knows the pin", async () => {
    const owner = await customer(v.vendorId);
    const c = await customer(v.vendorId);
    const number = newNumber();
    await createCard(v, { number, pin: '2468' });
    expect((await add(owner, { number, pin: '2468' })).status).toBe(200);
    expectLegacyError(await add(c, { number, pin: '0000' }), 403, 'invalid_card_pin', 'pin');
    expectLegacyError(await add(c, { number, pin: '2468' }), 409, 'card_already_linked', 'number');
    expect((await list(c)).body.count).toBe(0);
    expect((await list(owner)).body.count).toBe(1);
  });

  it('answers 422 card_not_active for a paused or archived card', async () => {
    const c = await customer(v.vendorId);
    for (const status of ['INACTIVE', 'ARCHIVED']) {
      const number = newNumber();
      const card = await createCard(v, { number, pin: '5' });
      await http(`${node.url}/cards/${card.publicId}`, { method: 'PUT', token: v.accessToken, body: { status } });
      expectLegacyError(await add(c, { number, pin: '5' }), 422, 'card_not_active', 'number');
    }
    expect((await list(c)).body.count).toBe(0);
  });

  it('moves the balance a gift card holds to the customer (a pair of entries; issue 17)', async () => {
    const c = await customer(v.vendorId);
    const number = newNumber();
    const card = await createCard(v, { number, pin: '31' });
    await fund(card.id, v.vendorId, v.quickPayCurrencyId, 2500);
    expect((await add(c, { number, pin: '31' })).status).toBe(200);
    const account = await node.engine.db
      .selectFrom('ledger_accounts')
      .select('balance')
      .where('holder_type', '=', 'card')
      .where('holder_id', '=', card.id)
      .executeTakeFirstOrThrow();
    expect(account.balance).toBe(0);
    expect((await http(`${node.url}/user/quick-pay/balance?session_key=${c.sessionKey}`)).body.amount).toBe(25);
  });
});

describe('DELETE /user/card', () => {
  let v: VendorCredentials;
  beforeAll(async () => {
    v = await node.addVendor('Unlink Co');
  });

  it('unlinks: {} and the card leaves the list; the card can be linked again, by anyone', async () => {
    const c = await customer(v.vendorId);
    const other = await customer(v.vendorId);
    const number = newNumber();
    await createCard(v, { number, pin: '8' });
    const link = (await add(c, { number, pin: '8' })).body;
    const reply = await remove(c, { user_card: link.id });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({});
    expect((await list(c)).body).toEqual({ object: 'collection', count: 0, data: [], next_page_url: null });
    const row = await node.engine.db.selectFrom('user_cards').selectAll().where('id', '=', link.id).executeTakeFirstOrThrow();
    expect(row.status).toBe('REMOVED');
    expect(row.removed_at).toBe(node.clock.now());

    const relinked = await add(other, { number, pin: '8' });
    expect(relinked.status).toBe(200);
    expect(relinked.body.id).not.toBe(link.id);
  });

  it('answers 404 user_card_not_found for an unknown or already removed link', async () => {
    const c = await customer(v.vendorId);
    const number = newNumber();
    await createCard(v, { number });
    const link = (await add(c, { number })).body;
    expect((await remove(c, { user_card: link.id })).status).toBe(200);
    expectLegacyError(await remove(c, { user_card: link.id }), 404, 'user_card_not_found', 'user_card');
    expectLegacyError(await remove(c, { user_card: 999999 }), 404, 'user_card_not_found', 'user_card');
  });

  it("answers 404 for another customer's link, and for one's own link from a session with another vendor", async () => {
    const owner = await customer(v.vendorId);
    const c = await customer(v.vendorId);
    const number = newNumber();
    await createCard(v, { number });
    const link = (await add(owner, { number })).body;
    expectLegacyError(await remove(c, { user_card: link.id }), 404, 'user_card_not_found');
    const w = await node.addVendor();
    const ownerAtW: Customer = { ...owner, sessionKey: await login(owner.email, owner.password, w.vendorId) };
    expectLegacyError(await remove(ownerAtW, { user_card: link.id }), 404, 'user_card_not_found');
    expect((await list(owner)).body.data.map((d: any) => d.id)).toEqual([link.id]);
  });

  it('validates user_card: 400 when missing or not an integer; accepts it as a string or a form field', async () => {
    const c = await customer(v.vendorId);
    expectLegacyError(await remove(c, {}), 400, 'validation_failed', 'user_card');
    expectLegacyError(await remove(c, { user_card: 'abc' }), 400, 'validation_failed', 'user_card');
    expectLegacyError(await remove(c, { user_card: 0 }), 400, 'validation_failed', 'user_card');
    const a = newNumber();
    const b = newNumber();
    await createCard(v, { number: a });
    await createCard(v, { number: b });
    const linkA = (await add(c, { number: a })).body;
    const linkB = (await add(c, { number: b })).body;
    expect((await remove(c, { user_card: String(linkA.id) })).status).toBe(200);
    const form = await http(`${node.url}/user/card?session_key=${encodeURIComponent(c.sessionKey)}`, {
      method: 'DELETE',
      body: `user_card=${linkB.id}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status, JSON.stringify(form.body)).toBe(200);
    expect((await list(c)).body.count).toBe(0);
  });
});

describe('GET /card/balance', () => {
  let v: VendorCredentials;
  beforeAll(async () => {
    v = await node.addVendor('Gift Co');
  });

  const points = () => ({ id: v.loyaltyCurrencyId, name: 'Points', code: null, object: 'currency' });
  const usd = () => ({ id: v.quickPayCurrencyId, name: 'Quick Pay USD', code: 'USD', object: 'currency' });

  it('answers the balances of an unlinked card with its pin, one per active currency', async () => {
    const number = newNumber();
    const card = await createCard(v, { number, pin: '4321' });
    const empty = await balance({ number, pin: '4321', vendor: v.vendorId });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({
      object: 'card_balance',
      number,
      status: 'ACTIVE',
      balances: [
        { currency: points(), amount: 0 },
        { currency: usd(), amount: 0 },
      ],
    });
    await fund(card.id, v.vendorId, v.quickPayCurrencyId, 2575);
    await fund(card.id, v.vendorId, v.loyaltyCurrencyId, 12);
    const funded = await balance({ number: number.toLowerCase(), pin: '4321', vendor: String(v.vendorId) });
    expect(funded.body).toEqual({
      object: 'card_balance',
      number,
      status: 'ACTIVE',
      balances: [
        { currency: points(), amount: 12 },
        { currency: usd(), amount: 25.75 },
      ],
    });
  });

  it('reads a pinless card by its number, and a paused card with its status', async () => {
    const number = newNumber();
    const card = await createCard(v, { number });
    await fund(card.id, v.vendorId, v.quickPayCurrencyId, 100);
    const reply = await balance({ number, vendor: v.vendorId });
    expect(reply.status).toBe(200);
    expect(reply.body.balances[1]).toEqual({ currency: usd(), amount: 1 });
    await http(`${node.url}/cards/${card.publicId}`, { method: 'PUT', token: v.accessToken, body: { status: 'INACTIVE' } });
    expect((await balance({ number, vendor: v.vendorId })).body.status).toBe('INACTIVE');
  });

  it('answers 403 invalid_card_pin for a wrong or missing pin', async () => {
    const number = newNumber();
    await createCard(v, { number, pin: '4321' });
    expectLegacyError(await balance({ number, pin: '1234', vendor: v.vendorId }), 403, 'invalid_card_pin', 'pin');
    expectLegacyError(await balance({ number, vendor: v.vendorId }), 403, 'invalid_card_pin', 'pin');
  });

  it('answers 403 card_linked_to_account for a linked card (after the pin check), and reads it again once unlinked', async () => {
    const c = await customer(v.vendorId);
    const number = newNumber();
    await createCard(v, { number, pin: '55' });
    const link = (await add(c, { number, pin: '55' })).body;
    expectLegacyError(await balance({ number, pin: '56', vendor: v.vendorId }), 403, 'invalid_card_pin', 'pin');
    expectLegacyError(await balance({ number, pin: '55', vendor: v.vendorId }), 403, 'card_linked_to_account');
    await remove(c, { user_card: link.id });
    expect((await balance({ number, pin: '55', vendor: v.vendorId })).status).toBe(200);
  });

  it("answers 404 for an unknown vendor, an unknown number and another vendor's card", async () => {
    const w = await node.addVendor();
    const number = newNumber();
    await createCard(w, { number, pin: '1' });
    expectLegacyError(await balance({ number, pin: '1', vendor: 987654321 }), 404, 'vendor_not_found');
    expectLegacyError(await balance({ number: 'NOSUCH1', pin: '1', vendor: v.vendorId }), 404, 'card_not_found', 'number');
    expectLegacyError(await balance({ number, pin: '1', vendor: v.vendorId }), 404, 'card_not_found', 'number');
    expect((await balance({ number, pin: '1', vendor: w.vendorId })).status).toBe(200);
  });

  it('validates number and vendor', async () => {
    expectLegacyError(await balance({ pin: '1', vendor: v.vendorId }), 400, 'validation_failed', 'number');
    expectLegacyError(await balance({ number: 'ABC', pin: '1' }), 400, 'validation_failed', 'vendor');
    expectLegacyError(await balance({ number: 'ABC', vendor: 'twelve' }), 400, 'validation_failed', 'vendor');
    expectLegacyError(await balance({ number: 'AB CD', vendor: v.vendorId }), 400, 'invalid_card_number', 'number');
  });
});

describe('pin guessing limits', () => {
  it('allows 10 pin tries per client in 15 minutes with the default limits, across both endpoints', async () => {
    const v = await node.addVendor();
    const c = await customer(v.vendorId);
    node.clock.advance(901_000);
    const number = newNumber();
    await createCard(v, { number, pin: '9999' });
    for (let i = 0; i < 5; i++) expect((await balance({ number: `${number}X${i}`, pin: '1', vendor: v.vendorId })).status).toBe(404);
    for (let i = 0; i < 5; i++) expect((await add(c, { number: `${number}Y${i}`, pin: '1' })).status).toBe(404);
    const limited = await add(c, { number, pin: '9999' });
    expectLegacyError(limited, 429, 'rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expectLegacyError(await balance({ number, pin: '9999', vendor: v.vendorId }), 429, 'rate_limited');
    expect((await list(c)).body.count).toBe(0);
    node.clock.advance(900_000);
    expect((await add(c, { number, pin: '9999' })).status).toBe(200);
  });

  describe('with custom limits', () => {
    let app: FastifyInstance;
    let base: string;
    beforeAll(async () => {
      app = await buildApp({ engine: node.engine, role: 'store', version: 'test', rateLimits: { codeEntry: { perClient: 100, perAccount: 3, windowSeconds: 60 } } });
      base = await app.listen({ port: 0, host: '127.0.0.1' });
    });
    afterAll(async () => {
      await app?.close();
    });
    afterEach(() => {
      node.clock.advance(61_000);
    });

    it('counts tries per card number (any letter case, both endpoints) without blocking other cards', async () => {
      const v = await node.addVendor();
      const c = await customer(v.vendorId);
      const number = `Ab${newNumber()}`;
      const otherNumber = newNumber();
      await createCard(v, { number, pin: '2580' });
      await createCard(v, { number: otherNumber, pin: '1' });
      expectLegacyError(await add(c, { number, pin: '0000' }, base), 403, 'invalid_card_pin');
      expectLegacyError(await add(c, { number: number.toLowerCase(), pin: '0001' }, base), 403, 'invalid_card_pin');
      expectLegacyError(await balance({ number: number.toUpperCase(), pin: '0002', vendor: v.vendorId }, base), 403, 'invalid_card_pin');
      // The 4th try on this number is refused even with the right pin; another card still works.
      expectLegacyError(await add(c, { number, pin: '2580' }, base), 429, 'rate_limited');
      expectLegacyError(await balance({ number, pin: '2580', vendor: v.vendorId }, base), 429, 'rate_limited');
      expect((await add(c, { number: otherNumber, pin: '1' }, base)).status).toBe(200);
      node.clock.advance(60_000);
      expect((await add(c, { number, pin: '2580' }, base)).status).toBe(200);
    });
  });
});
