import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { loginOkAt, PASSWORD, ROOMY_RATE_LIMITS, signUpAt, withSessionKey } from '../support/customers';
import { http, startTestNode, type TestNode } from '../support/test-node';

// `customer.updated` and the programs one account belongs to: the person's own fields (a name, an
// email) are every program's copy, so each program hears of their change; a membership's own
// (contact consent, language) and a new password, only the program of the session.

let node: TestNode;
let a: VendorCredentials;
let b: VendorCredentials;

beforeAll(async () => {
  node = await startTestNode({ webhooksAllowPrivate: true, rateLimits: ROOMY_RATE_LIMITS });
  a = await node.addVendor('Program A');
  b = await node.addVendor('Program B');
  for (const program of [a, b]) {
    const endpoint = await http(`${node.url}/webhooks`, { method: 'POST', token: program.accessToken, body: { url: 'http://127.0.0.1:9/hooks', events: ['customer.updated'] } });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
  }
});

afterAll(async () => {
  await node?.close();
});

const updatesTo = async (userId: number) =>
  (await node.engine.db.selectFrom('webhook_events').select(['vendor_id', 'data']).where('type', '=', 'customer.updated').execute())
    .filter((e) => (JSON.parse(e.data) as { user: { user_id: number } }).user.user_id === userId)
    .map((e) => Number(e.vendor_id));

describe('customer.updated', () => {
  it("reaches every program of the account for the person's fields, and only the session's program for the membership's", async () => {
    const c = await signUpAt(node, a.vendorId, { first_name: 'Marta', last_name: 'Both' });
    await loginOkAt(node, c.email, PASSWORD, b.vendorId);
    const put = (body: Record<string, unknown>) => http(`${node.url}${withSessionKey('/user/profile', c.key)}`, { method: 'PUT', body });

    expect((await put({ first_name: 'Martina' })).status).toBe(200);
    expect((await updatesTo(c.userId)).sort()).toEqual([a.vendorId, b.vendorId].sort());

    expect((await put({ contact_consent: 2 })).status).toBe(200);
    expect((await updatesTo(c.userId)).sort()).toEqual([a.vendorId, a.vendorId, b.vendorId].sort());
  });
});
