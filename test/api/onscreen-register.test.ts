import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { type Customer, FORM, freshEmail, legacyErrorCheck, PASSWORD, registration, ROOMY_RATE_LIMITS, setPhoneAt, signUpAt, withSessionKey } from '../support/customers';
import { ACTIVE, expectBalancesAddUp, HASH, inStoreApi, MODULES } from '../support/in-store';
import { http, type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// POST /onscreen/register over real HTTP: the counter checks in a customer by phone or email,
// creating a guest account ("Guest", empty last name, no password) when there is none; a sign-up
// with the guest's email is refused (the guest claims it by a password reset to that email).

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});

afterAll(async () => {
  await node?.close();
});

afterEach(async () => {
  await expectBalancesAddUp(node);
});

// ---------------------------------------------------------------------------------------------
// helpers

const expectLegacyError = legacyErrorCheck({ noStackTrace: true });

const nowSec = () => Math.floor(node.clock.now() / 1000);
const enc = encodeURIComponent;

let vendorCount = 0;
const usVendor = () => node.addVendor(`Register US ${++vendorCount}`);
const ecVendor = () =>
  setUpVendor(node.engine, { name: `Register EC ${++vendorCount}`, currency: 'USD', country: 'EC', store: { name: 'Guayaquil Malecón', address1: 'Malecón 2000', city: 'Guayaquil' } });

let phoneCount = 0;
/** A fresh Ecuadorian mobile: national 0993<5 digits>… and its E.164. */
function freshPhone(): { national: string; e164: string } {
  const digits = String(100_000 + ++phoneCount).slice(-6);
  return { national: `0993${digits}`, e164: `+593993${digits}` };
}

function register(apiKey: string | null, body: unknown, options: { headers?: Record<string, string>; path?: string } = {}): Promise<HttpReply> {
  const query = apiKey === null ? '' : `?api_key=${enc(apiKey)}`;
  return http(`${node.url}${options.path ?? '/onscreen/register'}${query}`, { method: 'POST', body, ...(options.headers ? { headers: options.headers } : {}) });
}

async function registerOk(apiKey: string, body: unknown): Promise<any> {
  const reply = await register(apiKey, body);
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body;
}

/** The exact register reply: like check-in's, but point_of_sale is {pointOfSale_id, name} only. */
function expectRegisterReply(body: any, v: VendorCredentials, at: number, created = at): void {
  expect(body).toStrictEqual({
    pos_session: { id: expect.any(Number), object: 'pos_session', hash: expect.stringMatching(HASH), date_created: created, date_updated: at, status: ACTIVE },
    vendor: { object: 'vendor', id: v.vendorId, point_of_sale: { pointOfSale_id: v.posId, name: 'Counter 1' }, modules: MODULES },
    api_key: { object: 'api_key', workstation_identifier: null },
  });
  expect(Number.isInteger(body.pos_session.id)).toBe(true);
}


/** The queue entry of the session with this hash. */
async function queued(apiKey: string, hash: string): Promise<any> {
  const entry = (await queueOk(apiKey)).find((e) => e.pos_session.hash === hash);
  expect(entry, `session ${hash} in the queue`).toBeDefined();
  return entry.pos_session;
}



const userRow = (id: number) => node.engine.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

const signUp = (vendorId: number, overrides: Record<string, unknown> = {}) => signUpAt(node, vendorId, overrides);
const { queueOk, retrieveOk, userCount } = inStoreApi(() => node);
const setPhone = async (c: Customer, number: string, code: string): Promise<void> => {
  await setPhoneAt(node, c, number, code);
};


// ---------------------------------------------------------------------------------------------

describe('POST /onscreen/register: a new guest', () => {
  it('with phone_number {number, code}: 201 with the register reply; a guest "Guest" / "" with just that phone; the queue shows it', async () => {
    const v = await usVendor();
    const phone = freshPhone();
    const users = await userCount();
    node.clock.advance(3_210);
    const reply = await register(v.apiKey, { phone_number: { number: phone.national, code: '593' } });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expectRegisterReply(reply.body, v, nowSec());
    expect(await userCount()).toBe(users + 1);

    const session = reply.body.pos_session;
    const entry = await queued(v.apiKey, session.hash);
    expect(entry).toStrictEqual({
      ...session,
      vendor: { vendor_id: v.storeId, name: 'Main Store' },
      user: { user_id: expect.stringMatching(/^\d+$/), first_name: 'Guest', last_name: '', email_address: '' },
      table_number: null,
      redemptions: [],
      payments: [],
    });
    const guest = await userRow(Number(entry.user.user_id));
    expect(guest).toMatchObject({ phone: phone.e164, email: null, email_key: null, password_hash: null, first_name: 'Guest', last_name: '', status: 'active', first_vendor_id: v.vendorId });

    // the counter reads the guest like any customer, and later finds them by that phone
    const customer = await retrieveOk(v.apiKey, session.hash);
    expect(customer.user).toMatchObject({ id: entry.user.user_id, first_name: 'Guest', last_name: '', email_address: '', phone_number: phone.e164 });
    const close = await http(`${node.url}/onscreen?api_key=${enc(v.apiKey)}`, { method: 'DELETE', body: { pos_session_hash: session.hash } });
    expect(close.status).toBe(200);
    const again = await http(`${node.url}/onscreen?api_key=${enc(v.apiKey)}`, { method: 'POST', body: { card_number: phone.e164 } });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    expect((await queued(v.apiKey, again.body.pos_session.hash)).user.user_id).toBe(entry.user.user_id);
  });

  it("reads a phone without a code in the store's country (0993… at an EC store; (202) 555-01xx at a US store)", async () => {
    const ec = await ecVendor();
    const phone = freshPhone();
    const atEc = await registerOk(ec.apiKey, { phone_number: { number: phone.national } });
    expectRegisterReply(atEc, ec, nowSec());
    const ecGuest = await queued(ec.apiKey, atEc.pos_session.hash);
    expect((await userRow(Number(ecGuest.user.user_id))).phone).toBe(phone.e164);

    const us = await usVendor();
    const atUs = await registerOk(us.apiKey, { phone_number: { number: '(202) 555-0166' } });
    const usGuest = await queued(us.apiKey, atUs.pos_session.hash);
    expect((await userRow(Number(usGuest.user.user_id))).phone).toBe('+12025550166');
  });

  it('with email: a guest "Guest" / "" with just that email (as typed, trimmed)', async () => {
    const v = await usVendor();
    const email = freshEmail('Guest.Mail');
    const users = await userCount();
    const body = await registerOk(v.apiKey, { email: ` ${email} ` });
    expectRegisterReply(body, v, nowSec());
    expect(await userCount()).toBe(users + 1);
    const entry = await queued(v.apiKey, body.pos_session.hash);
    expect(entry.user).toStrictEqual({ user_id: expect.stringMatching(/^\d+$/), first_name: 'Guest', last_name: '', email_address: email });
    expect(await userRow(Number(entry.user.user_id))).toMatchObject({ email, email_key: email.toLowerCase(), phone: null, password_hash: null, first_name: 'Guest', last_name: '' });
  });

  it('uses first_name and last_name when the counter gives them', async () => {
    const v = await usVendor();
    const body = await registerOk(v.apiKey, { email: freshEmail('named'), first_name: ' Rosa ', last_name: 'Paz' });
    const entry = await queued(v.apiKey, body.pos_session.hash);
    expect(entry.user).toMatchObject({ first_name: 'Rosa', last_name: 'Paz' });
  });

  it('with the kiosk key names the store\'s first point of sale as {pointOfSale_id, name}', async () => {
    const v = await usVendor();
    const reply = await register(v.kioskApiKey, { email: freshEmail('kiosk') });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    expectRegisterReply(reply.body, v, nowSec());
  });

  it('accepts a form body with bracket nesting (phone_number[number], phone_number[code]) and the .json path', async () => {
    const v = await usVendor();
    const phone = freshPhone();
    const form = await register(v.apiKey, `phone_number[number]=${phone.national}&phone_number[code]=593`, { headers: FORM });
    expect(form.status, JSON.stringify(form.body)).toBe(201);
    expectRegisterReply(form.body, v, nowSec());
    const guest = await queued(v.apiKey, form.body.pos_session.hash);
    expect((await userRow(Number(guest.user.user_id))).phone).toBe(phone.e164);

    const email = freshEmail('json-path');
    const json = await register(v.apiKey, { email }, { path: '/onscreen/register.json' });
    expect(json.status, JSON.stringify(json.body)).toBe(201);
    expect((await queued(v.apiKey, json.body.pos_session.hash)).user.email_address).toBe(email);
  });

  it('a sign-up with the guest\'s email later is 409 email_taken: no new account, the guest keeps no password (it is claimed by a password reset, users-guest-claim)', async () => {
    const v = await usVendor();
    const email = freshEmail('later');
    const body = await registerOk(v.apiKey, { email });
    const guestId = (await queued(v.apiKey, body.pos_session.hash)).user.user_id;
    const users = await userCount();

    const signUpReply = await http(`${node.url}/user/register`, { method: 'POST', body: registration(v.vendorId, { email_address: email.toUpperCase(), first_name: 'Lucía', last_name: 'Ramos' }) });
    expectLegacyError(signUpReply, 409, 'email_taken', 'email_address');
    expect(await userCount()).toBe(users);
    expect(await userRow(Number(guestId))).toMatchObject({ password_hash: null, first_name: 'Guest', last_name: '' });
    const login = await http(`${node.url}/user/authenticate`, { method: 'POST', body: { email_address: email, password: PASSWORD, vendor: v.vendorId } });
    expectLegacyError(login, 401, 'invalid_credentials');
    expect((await queued(v.apiKey, body.pos_session.hash)).user).toMatchObject({ user_id: guestId, first_name: 'Guest', last_name: '' });
  });
});

describe('POST /onscreen/register: an existing customer', () => {
  it("with an existing customer's email (any case): checks them in, no new account", async () => {
    const v = await usVendor();
    const c = await signUp(v.vendorId);
    const users = await userCount();
    const body = await registerOk(v.apiKey, { email: c.email.toUpperCase() });
    expectRegisterReply(body, v, nowSec());
    expect(await userCount()).toBe(users);
    expect((await queued(v.apiKey, body.pos_session.hash)).user).toStrictEqual({ user_id: String(c.userId), first_name: 'Ana', last_name: 'López', email_address: c.email });
  });

  it("with an existing customer's phone: checks them in, no new account", async () => {
    const v = await ecVendor();
    const c = await signUp(v.vendorId);
    const phone = freshPhone();
    await setPhone(c, phone.national, '593');
    const users = await userCount();
    const body = await registerOk(v.apiKey, { phone_number: { number: phone.national, code: '+593' } });
    expect(await userCount()).toBe(users);
    expect((await queued(v.apiKey, body.pos_session.hash)).user.user_id).toBe(String(c.userId));
  });

  it('with the email and the phone of the same customer: checks them in', async () => {
    const v = await ecVendor();
    const c = await signUp(v.vendorId);
    const phone = freshPhone();
    await setPhone(c, phone.national, '593');
    const users = await userCount();
    const body = await registerOk(v.apiKey, { email: c.email, phone_number: { number: phone.national, code: '593' } });
    expect(await userCount()).toBe(users);
    expect((await queued(v.apiKey, body.pos_session.hash)).user.user_id).toBe(String(c.userId));
  });

  it('a guest found by phone, with an email given too and nobody holding it: the email is added (unverified) and they are checked in', async () => {
    const v = await ecVendor();
    const phone = freshPhone();
    const guest = await registerOk(v.apiKey, { phone_number: { number: phone.national, code: '593' } });
    const guestId = Number((await queued(v.apiKey, guest.pos_session.hash)).user.user_id);
    const email = freshEmail('added');
    const users = await userCount();
    const body = await registerOk(v.apiKey, { email: `  ${email.toUpperCase()} `, phone_number: { number: phone.e164 } });
    expect(body.pos_session.hash).toBe(guest.pos_session.hash);
    expect(await userCount()).toBe(users);
    const row = await userRow(guestId);
    expect({ email: row.email, email_key: row.email_key, email_verified_at: row.email_verified_at, phone: row.phone }).toStrictEqual({
      email: email.toUpperCase(),
      email_key: email.toLowerCase(),
      email_verified_at: null,
      phone: phone.e164,
    });
    // The email now finds them too.
    const again = await registerOk(v.apiKey, { email });
    expect(again.pos_session.hash).toBe(guest.pos_session.hash);
  });

  it('a customer found by email without a phone, with a phone given too: the phone is added; a phone they have is never changed', async () => {
    const v = await ecVendor();
    const c = await signUp(v.vendorId);
    const phone = freshPhone();
    await registerOk(v.apiKey, { email: c.email, phone_number: { number: phone.national, code: '593' } });
    expect((await userRow(c.userId)).phone).toBe(phone.e164);
    const other = freshPhone();
    await registerOk(v.apiKey, { email: c.email, phone_number: { number: other.national, code: '593' } });
    expect((await userRow(c.userId)).phone).toBe(phone.e164);
  });

  it('the kiosk may not add a contact to an existing customer: 403 forbidden, nothing changes', async () => {
    const v = await ecVendor();
    const phone = freshPhone();
    const guest = await registerOk(v.apiKey, { phone_number: { number: phone.national, code: '593' } });
    const guestId = Number((await queued(v.apiKey, guest.pos_session.hash)).user.user_id);
    const before = await userRow(guestId);
    const reply = await register(v.kioskApiKey, { email: freshEmail('kiosk-add'), phone_number: { number: phone.e164 } });
    expectLegacyError(reply, 403, 'forbidden');
    expect(await userRow(guestId)).toStrictEqual(before);
    // Either contact alone still checks them in at the kiosk.
    expect((await register(v.kioskApiKey, { phone_number: { number: phone.e164 } })).status).toBe(201);
  });

  it('a customer already checked in at this store gets the same session back (201, same hash), listed once', async () => {
    const v = await usVendor();
    const c = await signUp(v.vendorId);
    const checkIn = await http(`${node.url}/onscreen?api_key=${enc(v.apiKey)}`, { method: 'POST', body: { card_number: c.email } });
    expect(checkIn.status).toBe(201);
    const opened = checkIn.body.pos_session.date_created;
    node.clock.advance(20_000);
    const body = await registerOk(v.apiKey, { email: c.email });
    expectRegisterReply(body, v, nowSec(), opened);
    expect(body.pos_session.hash).toBe(checkIn.body.pos_session.hash);
    expect((await queueOk(v.apiKey)).map((e) => e.pos_session.hash)).toEqual([checkIn.body.pos_session.hash]);
  });

  it('registering the same new phone twice creates one guest and one session', async () => {
    const v = await usVendor();
    const phone = freshPhone();
    const users = await userCount();
    const first = await registerOk(v.apiKey, { phone_number: { number: phone.national, code: '593' } });
    const second = await registerOk(v.apiKey, { phone_number: { number: phone.e164 } });
    expect(second.pos_session.hash).toBe(first.pos_session.hash);
    expect(await userCount()).toBe(users + 1);
  });

  it('answers 422 account_inactive for a deactivated customer', async () => {
    const v = await usVendor();
    const c = await signUp(v.vendorId);
    const deactivate = await http(`${node.url}${withSessionKey('/user/account/deactivate', c.key)}`, { method: 'POST', body: { password: PASSWORD } });
    expect(deactivate.status, JSON.stringify(deactivate.body)).toBe(200);
    const users = await userCount();
    expectLegacyError(await register(v.apiKey, { email: c.email }), 422, 'account_inactive');
    expect(await userCount()).toBe(users);
    expect(await queueOk(v.apiKey)).toEqual([]);
  });
});

describe('POST /onscreen/register: refusals', () => {
  it('answers 400 validation_failed with neither phone_number nor email (or both empty)', async () => {
    const v = await usVendor();
    const users = await userCount();
    expectLegacyError(await register(v.apiKey, {}), 400, 'validation_failed', 'phone_number');
    expectLegacyError(await register(v.apiKey, undefined), 400, 'validation_failed', 'phone_number');
    expectLegacyError(await register(v.apiKey, { phone_number: { number: '', code: '593' }, email: '' }), 400, 'validation_failed', 'phone_number');
    expectLegacyError(await register(v.apiKey, { first_name: 'Only', last_name: 'Names' }), 400, 'validation_failed', 'phone_number');
    expect(await userCount()).toBe(users);
    expect(await queueOk(v.apiKey)).toEqual([]);
  });

  it('answers 409 phone_taken for the email of one customer and the phone of another', async () => {
    const v = await ecVendor();
    const a = await signUp(v.vendorId);
    const b = await signUp(v.vendorId);
    const phone = freshPhone();
    await setPhone(b, phone.national, '593');
    const users = await userCount();
    expectLegacyError(await register(v.apiKey, { email: a.email, phone_number: { number: phone.national, code: '593' } }), 409, 'phone_taken', 'phone_number');
    expect(await userCount()).toBe(users);
    expect(await queueOk(v.apiKey)).toEqual([]);
  });

  it('answers 400 invalid_phone for a phone that is not a valid number, and 400 invalid_email for a bad email', async () => {
    const v = await usVendor();
    const users = await userCount();
    expectLegacyError(await register(v.apiKey, { phone_number: { number: '123', code: '593' } }), 400, 'invalid_phone', 'phone_number');
    expectLegacyError(await register(v.apiKey, { phone_number: { number: 'call me', code: '1' } }), 400, 'invalid_phone', 'phone_number');
    expectLegacyError(await register(v.apiKey, { phone_number: { number: '0991234567' } }), 400, 'invalid_phone', 'phone_number');
    expectLegacyError(await register(v.apiKey, { email: 'not-an-email' }), 400, 'invalid_email', 'email');
    expect(await userCount()).toBe(users);
    expect(await queueOk(v.apiKey)).toEqual([]);
  });

  it('answers 401 without an api_key or with an unknown one', async () => {
    const users = await userCount();
    expectLegacyError(await register(null, { email: freshEmail('nokey') }), 401, 'missing_credentials');
    expectLegacyError(await register('pcak_unknown', { email: freshEmail('badkey') }), 401, 'invalid_api_key');
    expect(await userCount()).toBe(users);
  });
});
