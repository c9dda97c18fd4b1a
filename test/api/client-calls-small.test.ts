import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { consumerApi, type ConsumerCustomer as Customer, freshPhone, legacyErrorCheck, loginOkAt, PASSWORD, registration, withSessionKey } from '../support/customers';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Calls real clients make beyond the contract (issue 12), over real HTTP: GET /user/logout,
// DELETE /user/card with `user_card` as a number or {id}, GET /user/card-3rdparty/list, and
// phone_number as an E.164 string at register and in the profile.

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode();
});

afterAll(async () => {
  await node?.close();
});

const { customer, sessionUrl } = consumerApi(() => node, { emailPrefix: 'client-calls', firstName: 'Rosa', lastName: 'Vera' });
const expectLegacyError = legacyErrorCheck({ depth: 'basic' });

let cardSeq = 0;
async function linkedCard(v: VendorCredentials, c: Customer): Promise<number> {
  const number = `CC${Date.now().toString(36).toUpperCase()}${++cardSeq}`;
  expect((await http(`${node.url}/cards`, { method: 'POST', token: v.accessToken, body: { number } })).status).toBe(201);
  const added = await http(sessionUrl('/user/card/add', c), { method: 'POST', body: { number } });
  expect(added.status, JSON.stringify(added.body)).toBe(200);
  return added.body.id;
}

const linkedIds = async (c: Customer) => (await http(sessionUrl('/user/card/list', c))).body.data.map((l: { id: number }) => l.id);

describe('GET /user/logout', () => {
  it('ends the login like POST does: {} and the key stops working', async () => {
    const v = await node.addVendor();
    const c = await customer(v.vendorId);
    expect((await http(sessionUrl('/user/profile', c))).status).toBe(200);
    const out = await http(sessionUrl('/user/logout', c));
    expect(out.status).toBe(200);
    expect(out.body).toStrictEqual({});
    expectLegacyError(await http(sessionUrl('/user/profile', c)), 401, 'session_ended');
    expectLegacyError(await http(sessionUrl('/user/logout', c)), 401, 'session_ended');
  });

  it("ends only its own login: another customer's, here or at another vendor, keeps working", async () => {
    const v = await node.addVendor();
    const [c, neighbour] = [await customer(v.vendorId), await customer(v.vendorId)];
    const stranger = await customer((await node.addVendor()).vendorId);
    expect((await http(sessionUrl('/user/logout', c))).status).toBe(200);
    expect((await http(sessionUrl('/user/profile', neighbour))).status).toBe(200);
    expect((await http(sessionUrl('/user/profile', stranger))).status).toBe(200);
    expectLegacyError(await http(`${node.url}/user/logout?session_key=nope`), 401, 'invalid_session');
  });

  it('accepts the .json suffix and refuses a call without a session_key', async () => {
    const v = await node.addVendor();
    const c = await customer(v.vendorId);
    expect((await http(sessionUrl('/user/logout.json', c))).status).toBe(200);
    expectLegacyError(await http(`${node.url}/user/logout`), 401, 'missing_credentials');
  });
});

describe('DELETE /user/card', () => {
  it('takes user_card as a number, a numeric string or {id}', async () => {
    const v = await node.addVendor();
    const c = await customer(v.vendorId);
    const [a, b, d] = [await linkedCard(v, c), await linkedCard(v, c), await linkedCard(v, c)];
    expect((await http(sessionUrl('/user/card', c), { method: 'DELETE', body: { user_card: a } })).body).toStrictEqual({});
    expect(await linkedIds(c)).toEqual([d, b]);
    expect((await http(sessionUrl('/user/card', c), { method: 'DELETE', body: { user_card: { id: b } } })).body).toStrictEqual({});
    expect(await linkedIds(c)).toEqual([d]);
    expect((await http(sessionUrl('/user/card', c), { method: 'DELETE', body: { user_card: { id: String(d) } } })).status).toBe(200);
    expect(await linkedIds(c)).toEqual([]);
  });

  it('refuses a malformed user_card and another customer’s link, changing nothing', async () => {
    const v = await node.addVendor();
    const owner = await customer(v.vendorId);
    const other = await customer(v.vendorId);
    const link = await linkedCard(v, owner);
    for (const bad of [{ user_card: { id: 'x' } }, { user_card: {} }, { user_card: 'abc' }, { user_card: 0 }, {}]) {
      expectLegacyError(await http(sessionUrl('/user/card', owner), { method: 'DELETE', body: bad }), 400, 'validation_failed');
    }
    expectLegacyError(await http(sessionUrl('/user/card', other), { method: 'DELETE', body: { user_card: { id: link } } }), 404, 'user_card_not_found');
    const stranger = await customer((await node.addVendor()).vendorId);
    expectLegacyError(await http(sessionUrl('/user/card', stranger), { method: 'DELETE', body: { user_card: link } }), 404, 'user_card_not_found');
    expect(await linkedIds(owner)).toEqual([link]);
  });
});

describe('GET /user/card-3rdparty/list', () => {
  it('answers an empty legacy collection for a logged-in customer', async () => {
    const v = await node.addVendor();
    const c = await customer(v.vendorId);
    const reply = await http(sessionUrl('/user/card-3rdparty/list', c));
    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual({ object: 'collection', count: 0, data: [], next_page_url: null });
    expect((await http(sessionUrl('/user/card-3rdparty/list.json', c))).status).toBe(200);
  });

  it('needs a valid session', async () => {
    expectLegacyError(await http(`${node.url}/user/card-3rdparty/list`), 401, 'missing_credentials');
    expectLegacyError(await http(`${node.url}/user/card-3rdparty/list?session_key=nope`), 401, 'invalid_session');
  });
});

describe('phone_number as an E.164 string', () => {
  const register = (body: Record<string, unknown>) => http(`${node.url}/user/register`, { method: 'POST', body });
  async function profilePhone(vendorId: number, email: string): Promise<string> {
    const session = await loginOkAt(node, email, PASSWORD, vendorId);
    const reply = await http(`${node.url}${withSessionKey('/user/profile', session.session_identifier)}`);
    expect(reply.status).toBe(200);
    return reply.body.user.phone_number;
  }

  it('register keeps a phone sent as an E.164 string or as {number, code}', async () => {
    const v = await node.addVendor();
    const a = freshPhone();
    const first = registration(v.vendorId, { phone_number: a.e164 });
    expect((await register(first)).status).toBe(200);
    expect(await profilePhone(v.vendorId, first.email_address as string)).toBe(a.e164);
    const b = freshPhone();
    const second = registration(v.vendorId, { phone_number: { number: b.national, code: '593' } });
    expect((await register(second)).status).toBe(200);
    expect(await profilePhone(v.vendorId, second.email_address as string)).toBe(b.e164);
  });

  it('register refuses an invalid or taken phone instead of dropping it, creating no account', async () => {
    const v = await node.addVendor();
    const taken = freshPhone();
    expect((await register(registration(v.vendorId, { phone_number: taken.e164 }))).status).toBe(200);
    const users = async () => (await node.engine.db.selectFrom('users').select('id').execute()).length;
    const before = await users();
    expectLegacyError(await register(registration(v.vendorId, { phone_number: '+1 555' })), 400, 'invalid_phone');
    expectLegacyError(await register(registration(v.vendorId, { phone_number: { number: 'abc', code: '593' } })), 400, 'invalid_phone');
    expectLegacyError(await register(registration(v.vendorId, { phone_number: 12 })), 400, 'invalid_phone');
    expectLegacyError(await register(registration(v.vendorId, { phone_number: [1, 2] })), 400, 'validation_failed');
    expectLegacyError(await register(registration(v.vendorId, { phone_number: taken.e164 })), 409, 'phone_taken');
    expect(await users()).toBe(before);
  });

  it('PUT /user/profile sets, refuses and clears a phone given as a string', async () => {
    const v = await node.addVendor();
    const body = registration(v.vendorId);
    expect((await register(body)).status).toBe(200);
    const session = await loginOkAt(node, body.email_address as string, PASSWORD, v.vendorId);
    const put = (phone: unknown) => http(`${node.url}${withSessionKey('/user/profile', session.session_identifier)}`, { method: 'PUT', body: { phone_number: phone } });
    const phone = freshPhone();
    expect((await put(phone.e164)).status).toBe(200);
    expect(await profilePhone(v.vendorId, body.email_address as string)).toBe(phone.e164);
    expectLegacyError(await put('+999'), 400, 'invalid_phone');
    const other = registration(v.vendorId, { phone_number: freshPhone().e164 });
    expect((await register(other)).status).toBe(200);
    expectLegacyError(await put(other.phone_number), 409, 'phone_taken');
    expect(await profilePhone(v.vendorId, body.email_address as string)).toBe(phone.e164);
    expect((await put('')).status).toBe(200);
    expect(await profilePhone(v.vendorId, body.email_address as string)).toBe('');
  });
});
