import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { deliverDueWebhooks } from '../../src/core/webhooks/deliver';
import { loginOkAt, PASSWORD, ROOMY_RATE_LIMITS, signUpAt, withSessionKey } from '../support/customers';
import { http, startTestNode, type TestNode } from '../support/test-node';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

// A receiver keeping a CRM's copy of the customers (found by the twelfth round's app developer):
// a deactivation told it `status: "inactive"`, and logging in again — which wakes the account —
// told it nothing, so the customer stayed inactive there for good. The account's status is the
// person's, so every program they belong to hears of both moves.

let node: TestNode;
let receiver: WebhookReceiver;
let a: VendorCredentials;
let b: VendorCredentials;

beforeAll(async () => {
  node = await startTestNode({ webhooksAllowPrivate: true, rateLimits: ROOMY_RATE_LIMITS });
  receiver = await startWebhookReceiver();
  a = await node.addVendor('Program A');
  b = await node.addVendor('Program B');
  for (const program of [a, b]) {
    const endpoint = await http(`${node.url}/webhooks`, { method: 'POST', token: program.accessToken, body: { url: receiver.url, events: ['customer.updated'] } });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    receiver.secrets.push(endpoint.body.secret);
  }
});

afterAll(async () => {
  await receiver?.close();
  await node?.close();
});

/** The customer.updated deliveries that reached the receiver since the last call: [vendor, status] of `userId`. */
let seen = 0;
async function updatesOf(userId: number): Promise<Array<[number, string]>> {
  while ((await deliverDueWebhooks(node.engine, { allowPrivate: true })).succeeded > 0);
  const fresh = receiver.received.slice(seen);
  seen = receiver.received.length;
  for (const hit of fresh) expect(hit.verified, hit.raw).toBe(true);
  return fresh
    .filter((hit) => hit.body.type === 'customer.updated' && hit.body.data.user.user_id === userId)
    .map((hit): [number, string] => [hit.body.vendor, hit.body.data.user.status])
    .sort(([x], [y]) => x - y);
}

describe('a deactivated account woken by a login', () => {
  it('tells every program of the account, both when it sleeps and when it wakes', async () => {
    const c = await signUpAt(node, a.vendorId, { first_name: 'Rita', last_name: 'Wakes' });
    await loginOkAt(node, c.email, PASSWORD, b.vendorId);
    await updatesOf(c.userId);
    const both = [a.vendorId, b.vendorId].sort((x, y) => x - y);

    const deactivate = await http(`${node.url}${withSessionKey('/user/account/deactivate', c.key)}`, { method: 'POST', body: { password: PASSWORD } });
    expect(deactivate.status, JSON.stringify(deactivate.body)).toBe(200);
    expect(await updatesOf(c.userId)).toEqual(both.map((vendor) => [vendor, 'inactive']));

    await loginOkAt(node, c.email, PASSWORD, a.vendorId);
    expect(await updatesOf(c.userId)).toEqual(both.map((vendor) => [vendor, 'active']));

    // A login of an account that is awake changes nothing and sends nothing.
    await loginOkAt(node, c.email, PASSWORD, b.vendorId);
    expect(await updatesOf(c.userId)).toEqual([]);
  });
});
