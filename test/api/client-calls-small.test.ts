import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { consumerApi, type ConsumerCustomer as Customer, legacyErrorCheck } from '../support/customers';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Calls real clients make beyond the contract (issue 12), over real HTTP: GET /user/logout,
// DELETE /user/card with `user_card` as a number or {id}, and GET /user/card-3rdparty/list.

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
