import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverDueWebhooks } from '../../src/core/webhooks/deliver';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ownerOf, type SignedInStaff, staffCall } from '../support/backoffice';
import { http, startTestNode, type TestNode } from '../support/test-node';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

// A test event or a replay for a paused or disabled endpoint was 202 and then nothing arrived,
// with nothing saying why (left by "Tenth round: webhooks as a consumer meets them"). Both replies
// now carry the endpoint's status: `paused` or `disabled` hold what was queued until it is enabled
// (the screen says so in those words). Over real HTTP, with the vendor's bearer and in the back office.

let node: TestNode;
let vendor: VendorCredentials;
let owner: SignedInStaff;
let receiver: WebhookReceiver;

beforeAll(async () => {
  node = await startTestNode({ webhooksAllowPrivate: true });
  vendor = await node.addVendor('Café Sol');
  owner = await ownerOf(node, vendor.vendorId);
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await node?.close();
});

const api = (path: string, options: { method?: string; body?: unknown } = {}) => http(`${node.url}${path}`, { token: vendor.accessToken, ...options });
const pass = () => deliverDueWebhooks(node.engine, { allowPrivate: true, random: () => 0.5 });

async function endpoint(): Promise<string> {
  const reply = await api('/webhooks', { method: 'POST', body: { url: receiver.url, events: ['customer.registered'] } });
  expect(reply.status).toBe(201);
  receiver.secrets = [reply.body.secret];
  return reply.body.id;
}

describe('a test event or a replay for an endpoint that is not enabled', () => {
  it('says the endpoint is paused (bearer API), and what it held goes out once it is enabled', async () => {
    const id = await endpoint();
    const enabled = await api(`/webhooks/${id}/test`, { method: 'POST' });
    expect([enabled.status, enabled.body]).toEqual([202, { event_id: expect.stringMatching(/^evt_/), endpoint_status: 'enabled' }]);
    expect(await pass()).toMatchObject({ succeeded: 1 });

    expect((await api(`/webhooks/${id}`, { method: 'PUT', body: { status: 'paused' } })).status).toBe(200);
    const test = await api(`/webhooks/${id}/test`, { method: 'POST' });
    expect([test.status, test.body]).toEqual([202, { event_id: expect.stringMatching(/^evt_/), endpoint_status: 'paused' }]);
    const replay = await api(`/webhooks/${id}/replay`, { method: 'POST', body: { event_id: enabled.body.event_id } });
    expect([replay.status, replay.body]).toEqual([202, { queued: 1, endpoint_status: 'paused' }]);
    expect(await pass()).toMatchObject({ succeeded: 0 });

    expect((await api(`/webhooks/${id}`, { method: 'PUT', body: { status: 'enabled' } })).status).toBe(200);
    expect(await pass()).toMatchObject({ succeeded: 2 });
    expect(receiver.received.slice(-2).map((hit) => hit.body.id)).toEqual([test.body.event_id, enabled.body.event_id]);
  });

  it('says the endpoint is disabled (the back office), after the receiver answered 410', async () => {
    const id = await endpoint();
    receiver.answers = [410];
    const first = await staffCall(node, owner.token, 'POST', `/backoffice/webhooks/${id}/test`);
    expect(first.body.endpoint_status).toBe('enabled');
    await pass();
    expect((await api(`/webhooks/${id}`)).body).toMatchObject({ status: 'disabled', disabled_reason: 'gone' });

    const test = await staffCall(node, owner.token, 'POST', `/backoffice/webhooks/${id}/test`);
    expect([test.status, test.body]).toEqual([202, { event_id: expect.stringMatching(/^evt_/), endpoint_status: 'disabled' }]);
    const replay = await staffCall(node, owner.token, 'POST', `/backoffice/webhooks/${id}/replay`, { event_id: first.body.event_id });
    expect([replay.status, replay.body]).toEqual([202, { queued: 1, endpoint_status: 'disabled' }]);

    const paused = await staffCall(node, owner.token, 'PUT', `/backoffice/webhooks/${id}`, { status: 'paused' });
    expect(paused.status).toBe(200);
    const again = await staffCall(node, owner.token, 'POST', `/backoffice/webhooks/${id}/replay`, { event_id: first.body.event_id });
    expect(again.body).toEqual({ queued: 1, endpoint_status: 'paused' });
  });

  it('changes nothing for a refusal: an unknown endpoint is still 404 with its code', async () => {
    const missing = await api('/webhooks/wh_missing/test', { method: 'POST' });
    expect([missing.status, missing.body.code]).toEqual([404, 'webhook_not_found']);
  });
});
