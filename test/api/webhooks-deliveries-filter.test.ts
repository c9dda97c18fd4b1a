import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverDueWebhooks } from '../../src/core/webhooks/deliver';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { http, startTestNode, type TestNode } from '../support/test-node';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

// The webhook delivery log (GET /webhooks/:id/deliveries) documented list parameters it did not
// take (`query` answered "this list takes no filters"). It takes `s:<status>` now, as the other
// lists' `s:`, and its document names only what it takes (twelfth round, app-developer report).

let node: TestNode;
let receiver: WebhookReceiver;
let vendor: VendorCredentials;
let endpointId = '';

const api = (path: string) => http(`${node.url}${path}`, { token: vendor.accessToken });

beforeAll(async () => {
  node = await startTestNode({ webhooksAllowPrivate: true });
  receiver = await startWebhookReceiver();
  vendor = await node.addVendor('Filter Coffee');
  const created = await http(`${node.url}/webhooks`, { method: 'POST', token: vendor.accessToken, body: { url: receiver.url, events: ['customer.registered'] } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  endpointId = created.body.id;
  receiver.secrets = [created.body.secret];
  // One delivered test event, then one left pending.
  expect((await http(`${node.url}/webhooks/${endpointId}/test`, { method: 'POST', token: vendor.accessToken })).status).toBe(202);
  expect((await deliverDueWebhooks(node.engine, { allowPrivate: true })).succeeded).toBe(1);
  expect((await http(`${node.url}/webhooks/${endpointId}/test`, { method: 'POST', token: vendor.accessToken })).status).toBe(202);
});

afterAll(async () => {
  await receiver?.close();
  await node?.close();
});

describe('GET /webhooks/:id/deliveries?query=s:<status>', () => {
  it('keeps the deliveries of that status, in any case', async () => {
    const all = await api(`/webhooks/${endpointId}/deliveries`);
    expect(all.body.items.map((d: { status: string }) => d.status)).toEqual(['pending', 'succeeded']);
    for (const [query, statuses] of [['s:succeeded', ['succeeded']], ['s:PENDING', ['pending']], ['s:failed', []]] as const) {
      const reply = await api(`/webhooks/${endpointId}/deliveries?query=${encodeURIComponent(query)}`);
      expect(reply.status, query).toBe(200);
      expect(reply.body.items.map((d: { status: string }) => d.status), query).toEqual(statuses);
    }
  });

  it('refuses a status it does not know and any other key with 400 invalid_query', async () => {
    for (const query of ['s:delivered', 'n:x']) {
      const reply = await api(`/webhooks/${endpointId}/deliveries?query=${encodeURIComponent(query)}`);
      expect(reply.status, query).toBe(400);
      expect(reply.body.code, query).toBe('invalid_query');
      expect(reply.body.message, query).toMatch(/s:/);
    }
  });

  it('is documented with the filter and the one sort it takes', async () => {
    const doc = (await http(`${node.url}/openapi.json`)).body;
    const parameters = doc.paths['/webhooks/{id}/deliveries'].get.parameters as Array<{ in: string; name: string; description?: string }>;
    const query = Object.fromEntries(parameters.filter((p) => p.in === 'query').map((p) => [p.name, p.description ?? '']));
    expect(Object.keys(query).sort()).toEqual(['limit', 'order', 'page', 'query', 'sort']);
    expect(query.query).toMatch(/^s:<status>: pending, sending, succeeded, failed or cancelled/);
    expect(query.sort).toMatch(/date_created \(the only one/);
  });
});
