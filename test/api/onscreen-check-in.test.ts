import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addApiKey } from '../../src/core/credentials/api-keys';
import { transact } from '../../src/core/engine';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { type Customer, deleteAccountAt, FORM, freshEmail, legacyErrorCheck, loginOkAt, PASSWORD, ROOMY_RATE_LIMITS, setPhoneAt, signUpAt, withSessionKey } from '../support/customers';
import { ACTIVE, expectBalancesAddUp, HASH, inStoreApi, MODULES } from '../support/in-store';
import { http, type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// POST /onscreen over real HTTP: a customer checked in at the api key's store by each kind of
// identification the counter may type or scan into `card_number` (email, phone in common formats,
// linked card, app barcode token, cedula, passport), the exact 201 reply, the body encodings, and
// every way a check-in is refused.

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});

afterAll(async () => {
  await node?.close();
});

// Nothing here moves value, but the ledger must still add up after every test.
afterEach(async () => {
  await expectBalancesAddUp(node);
});

// ---------------------------------------------------------------------------------------------
// helpers

const expectLegacyError = legacyErrorCheck({ noStackTrace: true });

const nowSec = () => Math.floor(node.clock.now() / 1000);
const enc = encodeURIComponent;

let vendorCount = 0;
const usVendor = () => node.addVendor(`Check-in US ${++vendorCount}`);
const ecVendor = () =>
  setUpVendor(node.engine, { name: `Check-in EC ${++vendorCount}`, currency: 'USD', country: 'EC', store: { name: 'Quito Centro', address1: 'Av. Amazonas N23', city: 'Quito' } });

/** POST /onscreen?api_key with `body` (an object as JSON; a string as is, with `headers`). */
function postCheckIn(apiKey: string | null, body: unknown, options: { headers?: Record<string, string>; path?: string } = {}): Promise<HttpReply> {
  const query = apiKey === null ? '' : `?api_key=${enc(apiKey)}`;
  return http(`${node.url}${options.path ?? '/onscreen'}${query}`, { method: 'POST', body, ...(options.headers ? { headers: options.headers } : {}) });
}


/** The exact check-in reply: a fresh Active session at `at`, the vendor with this point of sale and the modules, no workstation. */
function expectCheckInReply(body: any, v: VendorCredentials, at: number, options: { created?: number; workstation?: string | null } = {}): void {
  expect(body).toStrictEqual({
    pos_session: { id: expect.any(Number), object: 'pos_session', hash: expect.stringMatching(HASH), date_created: options.created ?? at, date_updated: at, status: ACTIVE },
    vendor: {
      object: 'vendor',
      id: v.vendorId,
      point_of_sale: { object: 'point_of_sale', id: v.posId, name: 'Counter 1', status: ACTIVE },
      modules: MODULES,
    },
    api_key: { object: 'api_key', workstation_identifier: options.workstation ?? null },
  });
  expect(Number.isInteger(body.pos_session.id)).toBe(true);
  expect(Number.isInteger(body.vendor.id)).toBe(true);
}

/** Who the session holds and how the counter identified them, read back over HTTP and from the row. */
async function expectSessionOf(apiKey: string, hash: string, userId: number, by: string, card: string | null = null): Promise<void> {
  const reply = await http(`${node.url}/onscreen?pos_session_hash=${hash}&api_key=${enc(apiKey)}`);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  expect(reply.body.user.id).toBe(String(userId));
  expect(reply.body.pos_session.card).toBe(card);
  const row = await node.engine.db.selectFrom('pos_sessions').select(['user_id', 'identified_by', 'status']).where('hash', '=', hash).executeTakeFirstOrThrow();
  expect(row).toEqual({ user_id: userId, identified_by: by, status: 'active' });
}


const signUp = (vendorId: number, overrides: Record<string, unknown> = {}) => signUpAt(node, vendorId, overrides);
const { checkIn, checkInOk, closeOk, userCount } = inStoreApi(() => node);
const setPhone = (c: Customer, number: string, code: string) => setPhoneAt(node, c, number, code);
const deleteAccount = (c: Customer) => deleteAccountAt(node, c, { expectDeleted: true });


/** POST /cards with the vendor's bearer token: the card's public id. */
async function createCard(v: VendorCredentials, number: string, pin?: string): Promise<string> {
  const reply = await http(`${node.url}/cards`, { method: 'POST', token: v.accessToken, body: pin === undefined ? { number } : { number, pin } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.id;
}

async function linkCard(c: Customer, number: string, pin?: string): Promise<void> {
  const reply = await http(`${node.url}${withSessionKey('/user/card/add', c.key)}`, { method: 'POST', body: pin === undefined ? { number } : { number, pin } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
}

async function setCardStatus(v: VendorCredentials, cardId: string, status: string): Promise<void> {
  const reply = await http(`${node.url}/cards/${cardId}`, { method: 'PUT', token: v.accessToken, body: { status } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  expect(reply.body.status).toBe(status);
}

let cardCount = 0;
const newCardNumber = (prefix = 'Ck') => `${prefix}${Date.now().toString(36)}x${++cardCount}`;

/** POST /user/token/request {token_type: 2}: the barcode token. */
async function barcodeToken(c: Customer): Promise<string> {
  const reply = await http(`${node.url}${withSessionKey('/user/token/request', c.key)}`, { method: 'POST', body: { token_type: 2 } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  expect(reply.body.token).toMatch(/^PC[0-9A-Z]{16}$/);
  return reply.body.token;
}

async function setUserColumns(userId: number, values: { cedula?: string | null; passport_number?: string | null; status?: string }): Promise<void> {
  await node.engine.db.updateTable('users').set(values).where('id', '=', userId).execute();
}



// ---------------------------------------------------------------------------------------------

describe('POST /onscreen: the 201 reply', () => {
  it('answers 201 {pos_session, vendor, api_key} with every field: integer id, 32-hex hash, Unix-second dates, Active, point of sale, modules', async () => {
    const v = await usVendor();
    const c = await signUp(v.vendorId);
    node.clock.advance(2_345);
    const at = nowSec();
    const reply = await checkIn(v.apiKey, c.email);
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expectCheckInReply(reply.body, v, at);
    // the hash is the key to the session row of this store, point of sale and customer
    const row = await node.engine.db.selectFrom('pos_sessions').selectAll().where('hash', '=', reply.body.pos_session.hash).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ id: reply.body.pos_session.id, vendor_id: v.vendorId, store_id: v.storeId, pos_id: v.posId, user_id: c.userId, status: 'active', opened_by: 'cashier' });
  });

  it('gives every check-in its own session id and hash', async () => {
    const v = await usVendor();
    const a = await signUp(v.vendorId);
    const b = await signUp(v.vendorId);
    const first = await checkInOk(v.apiKey, a.email);
    const second = await checkInOk(v.apiKey, b.email);
    expect(second.pos_session.id).not.toBe(first.pos_session.id);
    expect(second.pos_session.hash).not.toBe(first.pos_session.hash);
  });

  it("with the kiosk key (no point of sale of its own) names the store's first point of sale", async () => {
    const v = await usVendor();
    const c = await signUp(v.vendorId);
    const reply = await postCheckIn(v.kioskApiKey, { card_number: c.email });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    expectCheckInReply(reply.body, v, nowSec());
    const row = await node.engine.db.selectFrom('pos_sessions').select(['pos_id', 'opened_by']).where('hash', '=', reply.body.pos_session.hash).executeTakeFirstOrThrow();
    expect(row).toEqual({ pos_id: null, opened_by: 'kiosk' });
  });

  it("echoes the key's workstation identifier when it has one", async () => {
    const v = await usVendor();
    const key = await transact(node.engine, (trx) => addApiKey(trx, node.engine, { vendorId: v.vendorId, storeId: v.storeId, posId: v.posId, role: 'integration', label: 'POS bridge' }));
    await node.engine.db.updateTable('api_keys').set({ workstation_identifier: 'WS-07' }).where('id', '=', key.id).execute();
    const c = await signUp(v.vendorId);
    expectCheckInReply(await checkInOk(key.key, c.email), v, nowSec(), { workstation: 'WS-07' });
  });
});

describe('POST /onscreen: identification by email', () => {
  it('finds the customer by email in any letter case and with surrounding spaces', async () => {
    const v = await usVendor();
    const c = await signUp(v.vendorId);
    const other = await signUp(v.vendorId);
    for (const typed of [c.email, c.email.toUpperCase(), `  ${c.email.replace(/^./, (ch) => ch.toUpperCase())}  `]) {
      const body = await checkInOk(v.apiKey, typed);
      expectCheckInReply(body, v, nowSec());
      await expectSessionOf(v.apiKey, body.pos_session.hash, c.userId, 'email');
      await closeOk(v.apiKey, body.pos_session.hash);
    }
    // and the other customer by theirs
    const body = await checkInOk(v.apiKey, other.email.toUpperCase());
    await expectSessionOf(v.apiKey, body.pos_session.hash, other.userId, 'email');
  });

  it('checks in a customer registered with another program, who joins this one (one account across programs)', async () => {
    const home = await usVendor();
    const here = await usVendor();
    const c = await signUp(home.vendorId);
    const body = await checkInOk(here.apiKey, c.email);
    expectCheckInReply(body, here, nowSec());
    await expectSessionOf(here.apiKey, body.pos_session.hash, c.userId, 'email');
    const link = await node.engine.db.selectFrom('user_vendors').select('id').where('user_id', '=', c.userId).where('vendor_id', '=', here.vendorId).executeTakeFirst();
    expect(link).toBeDefined();
  });
});

describe('POST /onscreen: identification by mobile phone', () => {
  it('reads +593 99 123 4567 (international, spaced) at a US store: the +code wins over the store country', async () => {
    const v = await usVendor();
    const c = await signUp(v.vendorId);
    expect(await setPhone(c, '0991234567', '593')).toBe('+593991234567');
    for (const typed of ['+593 99 123 4567', '+593991234567', '+593-99-123-4567', '+593 (99) 123 4567']) {
      const body = await checkInOk(v.apiKey, typed);
      expectCheckInReply(body, v, nowSec());
      await expectSessionOf(v.apiKey, body.pos_session.hash, c.userId, 'phone');
      await closeOk(v.apiKey, body.pos_session.hash);
    }
  });

  it('reads a national number 0991239876 (and 099 123 9876, 099-123-9876, 991239876) at an EC store as +593', async () => {
    const v = await ecVendor();
    const c = await signUp(v.vendorId);
    expect(await setPhone(c, '0991239876', '593')).toBe('+593991239876');
    for (const typed of ['0991239876', '099 123 9876', '099-123-9876', '991239876']) {
      const body = await checkInOk(v.apiKey, typed);
      expectCheckInReply(body, v, nowSec());
      await expectSessionOf(v.apiKey, body.pos_session.hash, c.userId, 'phone');
      await closeOk(v.apiKey, body.pos_session.hash);
    }
  });

  it('reads (202) 555-0123, 202-555-0123, 2025550123 and +1 202 555 0123 at a US store', async () => {
    const v = await usVendor();
    const c = await signUp(v.vendorId);
    expect(await setPhone(c, '(202) 555-0123', '1')).toBe('+12025550123');
    for (const typed of ['(202) 555-0123', '202-555-0123', '2025550123', '+1 202 555 0123', '202.555.0123']) {
      const body = await checkInOk(v.apiKey, typed);
      expectCheckInReply(body, v, nowSec());
      await expectSessionOf(v.apiKey, body.pos_session.hash, c.userId, 'phone');
      await closeOk(v.apiKey, body.pos_session.hash);
    }
  });

  it('does not read an Ecuadorian national number at a US store (it is not a US number): 404 customer_not_found', async () => {
    const v = await usVendor();
    const c = await signUp(v.vendorId);
    await setPhone(c, '0991230001', '593');
    expectLegacyError(await checkIn(v.apiKey, '0991230001'), 404, 'customer_not_found', 'card_number');
  });
});

describe('POST /onscreen: identification by linked card', () => {
  it('finds the customer by the number of a card linked to them, in any letter case; the session keeps the number as stored', async () => {
    const v = await usVendor();
    const c = await signUp(v.vendorId);
    const number = newCardNumber('Ab');
    await createCard(v, number);
    await linkCard(c, number);
    for (const typed of [number, number.toUpperCase(), number.toLowerCase(), ` ${number} `]) {
      const body = await checkInOk(v.apiKey, typed);
      expectCheckInReply(body, v, nowSec());
      await expectSessionOf(v.apiKey, body.pos_session.hash, c.userId, 'card', number);
      await closeOk(v.apiKey, body.pos_session.hash);
    }
  });

  it('finds the customer by a card with a pin (the pin is not asked at the counter)', async () => {
    const v = await usVendor();
    const c = await signUp(v.vendorId);
    const number = newCardNumber('Pin');
    await createCard(v, number, '4321');
    await linkCard(c, number, '4321');
    const body = await checkInOk(v.apiKey, number);
    await expectSessionOf(v.apiKey, body.pos_session.hash, c.userId, 'card', number);
  });

  it("a card number wins over another customer's phone with the same digits", async () => {
    const v = await ecVendor();
    const cardHolder = await signUp(v.vendorId);
    const phoneHolder = await signUp(v.vendorId);
    await setPhone(phoneHolder, '0991230555', '593');
    await createCard(v, '0991230555');
    await linkCard(cardHolder, '0991230555');
    const body = await checkInOk(v.apiKey, '0991230555');
    await expectSessionOf(v.apiKey, body.pos_session.hash, cardHolder.userId, 'card', '0991230555');
    // written as a phone, the same digits reach the phone's owner
    const byPhone = await checkInOk(v.apiKey, '+593 99 123 0555');
    await expectSessionOf(v.apiKey, byPhone.pos_session.hash, phoneHolder.userId, 'phone');
  });

  it("does not know another vendor's card: 404 customer_not_found", async () => {
    const mine = await usVendor();
    const theirs = await usVendor();
    const c = await signUp(theirs.vendorId);
    const number = newCardNumber('Other');
    await createCard(theirs, number);
    await linkCard(c, number);
    expectLegacyError(await checkIn(mine.apiKey, number), 404, 'customer_not_found', 'card_number');
  });
});

describe('POST /onscreen: identification by app barcode token', () => {
  it('finds the customer by a fresh token (in any letter case) until it expires 15 minutes after it was made', async () => {
    const v = await usVendor();
    const c = await signUp(v.vendorId);
    const token = await barcodeToken(c);
    const body = await checkInOk(v.apiKey, token);
    expectCheckInReply(body, v, nowSec());
    await expectSessionOf(v.apiKey, body.pos_session.hash, c.userId, 'token');
    await closeOk(v.apiKey, body.pos_session.hash);

    node.clock.advance(14 * 60_000 + 59_000);
    const lower = await checkInOk(v.apiKey, token.toLowerCase());
    await expectSessionOf(v.apiKey, lower.pos_session.hash, c.userId, 'token');
    await closeOk(v.apiKey, lower.pos_session.hash);

    node.clock.advance(1_000);
    expectLegacyError(await checkIn(v.apiKey, token), 404, 'customer_not_found', 'card_number');
    // a new token works again
    const again = await checkInOk(v.apiKey, await barcodeToken(c));
    await expectSessionOf(v.apiKey, again.pos_session.hash, c.userId, 'token');
  });

  it('refuses a token that expired long ago: 404 customer_not_found', async () => {
    const v = await usVendor();
    const c = await signUp(v.vendorId);
    const token = await barcodeToken(c);
    node.clock.advance(15 * 60_000);
    expectLegacyError(await checkIn(v.apiKey, token), 404, 'customer_not_found', 'card_number');
    node.clock.advance(24 * 3600_000);
    expectLegacyError(await checkIn(v.apiKey, token), 404, 'customer_not_found', 'card_number');
  });

  it('stops every barcode of the program at logout (another device draws a new one); another program’s stays', async () => {
    const v = await usVendor();
    const other = await usVendor();
    const c = await signUp(v.vendorId);
    const shown = await barcodeToken(c);
    const elsewhere = await barcodeToken({ ...c, vendorId: other.vendorId, key: (await loginOkAt(node, c.email, PASSWORD, other.vendorId)).session_identifier });
    const secondDevice = (await loginOkAt(node, c.email, PASSWORD, v.vendorId)).session_identifier as string;

    expect((await http(`${node.url}${withSessionKey('/user/logout', c.key)}`)).status).toBe(200);
    expectLegacyError(await checkIn(v.apiKey, shown), 404, 'customer_not_found', 'card_number');
    const fresh = await barcodeToken({ ...c, key: secondDevice });
    await expectSessionOf(v.apiKey, (await checkInOk(v.apiKey, fresh)).pos_session.hash, c.userId, 'token');
    await expectSessionOf(other.apiKey, (await checkInOk(other.apiKey, elsewhere)).pos_session.hash, c.userId, 'token');
  });

  it("refuses another vendor's token and a made-up one: 404 customer_not_found", async () => {
    const mine = await usVendor();
    const theirs = await usVendor();
    const c = await signUp(theirs.vendorId);
    const token = await barcodeToken(c);
    expectLegacyError(await checkIn(mine.apiKey, token), 404, 'customer_not_found', 'card_number');
    expectLegacyError(await checkIn(mine.apiKey, 'PC0123456789ABCDEF'), 404, 'customer_not_found', 'card_number');
    // it still works where it was made
    const body = await checkInOk(theirs.apiKey, token);
    await expectSessionOf(theirs.apiKey, body.pos_session.hash, c.userId, 'token');
  });
});

describe('POST /onscreen: identification by cedula and passport', () => {
  it('finds the customer by cedula as stored (digits only)', async () => {
    const v = await ecVendor();
    const c = await signUp(v.vendorId);
    await setUserColumns(c.userId, { cedula: '1710034065' });
    for (const typed of ['1710034065', ' 1710034065 ']) {
      const body = await checkInOk(v.apiKey, typed);
      expectCheckInReply(body, v, nowSec());
      await expectSessionOf(v.apiKey, body.pos_session.hash, c.userId, 'cedula');
      await closeOk(v.apiKey, body.pos_session.hash);
    }
  });

  it('finds the customer by cedula typed with dots and dashes (171002406-5, 17.100.240-65, 1.234.567-2)', async () => {
    const v = await ecVendor();
    const ec = await signUp(v.vendorId);
    const uy = await signUp(v.vendorId);
    await setUserColumns(ec.userId, { cedula: '1710024065' });
    await setUserColumns(uy.userId, { cedula: '12345672' });
    for (const [typed, who] of [
      ['171002406-5', ec],
      ['17.100.240-65', ec],
      ['1.234.567-2', uy],
      ['1234567-2', uy],
    ] as const) {
      const reply = await checkIn(v.apiKey, typed);
      expect(reply.status, `${typed}: ${JSON.stringify(reply.body)}`).toBe(201);
      await expectSessionOf(v.apiKey, reply.body.pos_session.hash, who.userId, 'cedula');
      await closeOk(v.apiKey, reply.body.pos_session.hash);
    }
  });

  it('finds the customer by passport number in any letter case', async () => {
    const v = await usVendor();
    const c = await signUp(v.vendorId);
    await setUserColumns(c.userId, { passport_number: 'XK7734912' });
    for (const typed of ['XK7734912', 'xk7734912', ' Xk7734912 ']) {
      const body = await checkInOk(v.apiKey, typed);
      expectCheckInReply(body, v, nowSec());
      await expectSessionOf(v.apiKey, body.pos_session.hash, c.userId, 'passport');
      await closeOk(v.apiKey, body.pos_session.hash);
    }
  });
});

describe('POST /onscreen: body encodings and the .json suffix', () => {
  it('accepts a form-encoded body', async () => {
    const v = await usVendor();
    const c = await signUp(v.vendorId);
    const reply = await postCheckIn(v.apiKey, `card_number=${enc(c.email)}`, { headers: FORM });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    expectCheckInReply(reply.body, v, nowSec());
    await expectSessionOf(v.apiKey, reply.body.pos_session.hash, c.userId, 'email');
  });

  it('accepts JSON text sent with a form content type, and a card number as a form field', async () => {
    const v = await usVendor();
    const c = await signUp(v.vendorId);
    const reply = await postCheckIn(v.apiKey, JSON.stringify({ card_number: c.email }), { headers: FORM });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    await expectSessionOf(v.apiKey, reply.body.pos_session.hash, c.userId, 'email');
    await closeOk(v.apiKey, reply.body.pos_session.hash);

    const number = newCardNumber('Form');
    await createCard(v, number);
    await linkCard(c, number);
    const form = await postCheckIn(v.apiKey, `card_number=${number}`, { headers: FORM });
    expect(form.status, JSON.stringify(form.body)).toBe(201);
    await expectSessionOf(v.apiKey, form.body.pos_session.hash, c.userId, 'card', number);
  });

  it('answers the same at POST /onscreen.json', async () => {
    const v = await usVendor();
    const c = await signUp(v.vendorId);
    const reply = await postCheckIn(v.apiKey, { card_number: c.email }, { path: '/onscreen.json' });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    expectCheckInReply(reply.body, v, nowSec());
    await expectSessionOf(v.apiKey, reply.body.pos_session.hash, c.userId, 'email');
  });
});

describe('POST /onscreen: refusals', () => {
  it('answers 404 customer_not_found (legacy envelope, field card_number) for anything that matches nobody', async () => {
    const v = await usVendor();
    for (const typed of [freshEmail('nobody'), '+593 99 000 0001', '(212) 555-0199', 'NOSUCHCARD42', 'PCZZZZZZZZZZZZZZZZ', 'not a thing at all']) {
      const reply = await checkIn(v.apiKey, typed);
      expectLegacyError(reply, 404, 'customer_not_found', 'card_number');
    }
    expect(await node.engine.db.selectFrom('pos_sessions').select('id').where('vendor_id', '=', v.vendorId).execute()).toEqual([]);
  });

  it('answers 404 card_not_linked for a card of the vendor that nobody has linked', async () => {
    const v = await usVendor();
    const number = newCardNumber('Loose');
    await createCard(v, number);
    expectLegacyError(await checkIn(v.apiKey, number), 404, 'card_not_linked', 'card_number');
    expectLegacyError(await checkIn(v.apiKey, number.toLowerCase()), 404, 'card_not_linked', 'card_number');
  });

  it('answers 404 card_not_linked once the customer removed the card from the account', async () => {
    const v = await usVendor();
    const c = await signUp(v.vendorId);
    const number = newCardNumber('Gone');
    await createCard(v, number);
    const add = await http(`${node.url}${withSessionKey('/user/card/add', c.key)}`, { method: 'POST', body: { number } });
    expect(add.status).toBe(200);
    await checkInOk(v.apiKey, number);
    const remove = await http(`${node.url}${withSessionKey('/user/card', c.key)}`, { method: 'DELETE', body: { user_card: add.body.id } });
    expect(remove.status, JSON.stringify(remove.body)).toBe(200);
    expectLegacyError(await checkIn(v.apiKey, number), 404, 'card_not_linked', 'card_number');
  });

  it('answers 422 card_not_active for a linked card made INACTIVE or ARCHIVED, and checks in again once it is ACTIVE', async () => {
    const v = await usVendor();
    const c = await signUp(v.vendorId);
    const number = newCardNumber('Paused');
    const cardId = await createCard(v, number);
    await linkCard(c, number);
    await setCardStatus(v, cardId, 'INACTIVE');
    expectLegacyError(await checkIn(v.apiKey, number), 422, 'card_not_active', 'card_number');
    await setCardStatus(v, cardId, 'ACTIVE');
    await setCardStatus(v, cardId, 'ARCHIVED');
    expectLegacyError(await checkIn(v.apiKey, number), 422, 'card_not_active', 'card_number');
    await setCardStatus(v, cardId, 'ACTIVE');
    const body = await checkInOk(v.apiKey, number);
    await expectSessionOf(v.apiKey, body.pos_session.hash, c.userId, 'card', number);
  });

  it('answers 404 customer_not_found for a deleted card (DELETE /cards/:id)', async () => {
    const v = await usVendor();
    const c = await signUp(v.vendorId);
    const number = newCardNumber('Del');
    const cardId = await createCard(v, number);
    await linkCard(c, number);
    const del = await http(`${node.url}/cards/${cardId}`, { method: 'DELETE', token: v.accessToken });
    expect(del.status, JSON.stringify(del.body)).toBe(200);
    expectLegacyError(await checkIn(v.apiKey, number), 404, 'customer_not_found', 'card_number');
  });

  it('answers 422 account_inactive for a deactivated account (by email, card and phone); a new login wakes it and it checks in', async () => {
    const v = await usVendor();
    const c = await signUp(v.vendorId);
    const number = newCardNumber('Sleep');
    await createCard(v, number);
    await linkCard(c, number);
    await setPhone(c, '(202) 555-0144', '1');
    const deactivate = await http(`${node.url}${withSessionKey('/user/account/deactivate', c.key)}`, { method: 'POST', body: { password: PASSWORD } });
    expect(deactivate.status, JSON.stringify(deactivate.body)).toBe(200);
    for (const typed of [c.email, number, '(202) 555-0144']) expectLegacyError(await checkIn(v.apiKey, typed), 422, 'account_inactive', 'card_number');
    expect(await node.engine.db.selectFrom('pos_sessions').select('id').where('user_id', '=', c.userId).execute()).toEqual([]);

    const login = await http(`${node.url}/user/authenticate`, { method: 'POST', body: { email_address: c.email, password: PASSWORD, vendor: c.vendorId } });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    const body = await checkInOk(v.apiKey, c.email);
    await expectSessionOf(v.apiKey, body.pos_session.hash, c.userId, 'email');
  });

  it('answers 404 customer_not_found for an account deleted by the two-step deletion (email, card, token)', async () => {
    const v = await usVendor();
    const c = await signUp(v.vendorId);
    const number = newCardNumber('Erased');
    await createCard(v, number);
    await linkCard(c, number);
    const token = await barcodeToken(c);
    await deleteAccount(c);
    for (const typed of [c.email, c.email.toUpperCase(), token]) expectLegacyError(await checkIn(v.apiKey, typed), 404, 'customer_not_found', 'card_number');
    // the card is the vendor's and stays, but it is no longer linked to anyone
    expectLegacyError(await checkIn(v.apiKey, number), 404, 'card_not_linked', 'card_number');
    expect(await node.engine.db.selectFrom('pos_sessions').select('id').where('user_id', '=', c.userId).execute()).toEqual([]);
  });

  it('answers 404 customer_not_found for an account whose status is deleted, by every identification it still holds', async () => {
    const v = await ecVendor();
    const c = await signUp(v.vendorId);
    const number = newCardNumber('Dead');
    await createCard(v, number);
    await linkCard(c, number);
    await setPhone(c, '0991230777', '593');
    const token = await barcodeToken(c);
    await setUserColumns(c.userId, { cedula: '0102030405', passport_number: 'ZZ9900112', status: 'deleted' });
    for (const typed of [c.email, '0991230777', '+593991230777', number, token, '0102030405', 'ZZ9900112']) {
      expectLegacyError(await checkIn(v.apiKey, typed), 404, 'customer_not_found', 'card_number');
    }
    expect(await node.engine.db.selectFrom('pos_sessions').select('id').where('user_id', '=', c.userId).execute()).toEqual([]);
  });

  it('answers 400 validation_failed (field card_number) for an empty, blank or missing card_number', async () => {
    const v = await usVendor();
    expectLegacyError(await checkIn(v.apiKey, ''), 400, 'validation_failed', 'card_number');
    expectLegacyError(await checkIn(v.apiKey, '   '), 400, 'validation_failed', 'card_number');
    expectLegacyError(await postCheckIn(v.apiKey, {}), 400, 'validation_failed', 'card_number');
    expectLegacyError(await postCheckIn(v.apiKey, 'card_number=', { headers: FORM }), 400, 'validation_failed', 'card_number');
    expectLegacyError(await postCheckIn(v.apiKey, undefined), 400, 'validation_failed', 'card_number');
  });

  it('answers 401 missing_credentials without an api_key and 401 invalid_api_key for an unknown or revoked one', async () => {
    const v = await usVendor();
    const c = await signUp(v.vendorId);
    expectLegacyError(await postCheckIn(null, { card_number: c.email }), 401, 'missing_credentials');
    expectLegacyError(await postCheckIn('', { card_number: c.email }), 401, 'missing_credentials');
    expectLegacyError(await postCheckIn('pcak_not_a_real_key', { card_number: c.email }), 401, 'invalid_api_key');
    expectLegacyError(await postCheckIn(`${v.apiKey}x`, { card_number: c.email }), 401, 'invalid_api_key');
    // a bearer access token is not an api key
    expectLegacyError(await postCheckIn(v.accessToken, { card_number: c.email }), 401, 'invalid_api_key');
    await node.engine.db.updateTable('api_keys').set({ revoked_at: node.clock.now() }).where('vendor_id', '=', v.vendorId).where('role', '=', 'kiosk').execute();
    expectLegacyError(await postCheckIn(v.kioskApiKey, { card_number: c.email }), 401, 'invalid_api_key');
    expect(await node.engine.db.selectFrom('pos_sessions').select('id').where('user_id', '=', c.userId).execute()).toEqual([]);
  });

  it('creates no account and no session on any refusal', async () => {
    const v = await usVendor();
    const users = await userCount();
    await checkIn(v.apiKey, freshEmail('ghost'));
    await checkIn(v.apiKey, '+1 202 555 0177');
    expect(await userCount()).toBe(users);
    expect(await node.engine.db.selectFrom('pos_sessions').select('id').where('vendor_id', '=', v.vendorId).execute()).toEqual([]);
  });
});
