import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deliverDueWebhooks } from '../../src/core/webhooks/deliver';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { http, startTestNode, type TestNode } from '../support/test-node';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

// Events held for an endpoint that was paused (or disabled) longer than the 3 days a delivery is
// retried. README: "a paused endpoint keeps its events until enabled again"; a delivery is
// "retried … for 3 days". Found by the tenth round's exploratory run: the 3 days counted from when
// the event was queued, so after a week's pause the first failed attempt (a receiver still warming
// up) gave up every held event at once. Enabling the endpoint starts their 3 days afresh now.

const DAY = 24 * 3600_000;
const MINUTE = 60_000;

let node: TestNode;
let vendor: VendorCredentials;
let receiver: WebhookReceiver;

beforeEach(async () => {
  node = await startTestNode({ webhooksAllowPrivate: true });
  vendor = await node.addVendor('Café Luna');
  receiver = await startWebhookReceiver();
});
afterEach(async () => {
  await receiver.close();
  await node.close();
});

const api = (path: string, options: { method?: string; body?: unknown } = {}) => http(`${node.url}${path}`, { token: vendor.accessToken, ...options });
const pass = () => deliverDueWebhooks(node.engine, { allowPrivate: true, random: () => 0.5 });

async function endpoint(): Promise<string> {
  const reply = await api('/webhooks', { method: 'POST', body: { url: receiver.url, events: ['customer.registered'] } });
  expect(reply.status).toBe(201);
  receiver.secrets = [reply.body.secret];
  return reply.body.id;
}

async function deliveries(id: string): Promise<any[]> {
  return (await api(`/webhooks/${id}/deliveries`)).body.items;
}

describe('events held while an endpoint was off for longer than 3 days', () => {
  it('are retried after a first failure once it is enabled again, and delivered', async () => {
    const id = await endpoint();
    expect((await api(`/webhooks/${id}`, { method: 'PUT', body: { status: 'paused' } })).status).toBe(200);
    const test = await api(`/webhooks/${id}/test`, { method: 'POST' });
    expect(test.status).toBe(202);
    expect(await pass()).toMatchObject({ succeeded: 0, retrying: 0, failed: 0 });

    node.clock.advance(7 * DAY);
    expect((await api(`/webhooks/${id}`, { method: 'PUT', body: { status: 'enabled' } })).status).toBe(200);
    receiver.answers = [503];
    expect(await pass()).toMatchObject({ retrying: 1, failed: 0 });
    expect((await deliveries(id))[0]).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 503 });

    node.clock.advance(MINUTE);
    expect(await pass()).toMatchObject({ succeeded: 1 });
    expect(receiver.received.map((hit) => [hit.body.id, hit.answeredWith, hit.verified])).toEqual([
      [test.body.event_id, 503, true],
      [test.body.event_id, 200, true],
    ]);
  });

  it('still give up 3 days after the endpoint was enabled, if every attempt fails', async () => {
    const id = await endpoint();
    await api(`/webhooks/${id}`, { method: 'PUT', body: { status: 'paused' } });
    await api(`/webhooks/${id}/test`, { method: 'POST' });
    node.clock.advance(5 * DAY);
    await api(`/webhooks/${id}`, { method: 'PUT', body: { status: 'enabled' } });
    receiver.answers = Array.from({ length: 100 }, () => 500);
    expect((await pass()).retrying).toBe(1);
    node.clock.advance(2 * DAY);
    expect((await pass()).retrying).toBe(1);
    node.clock.advance(DAY);
    expect((await pass()).failed).toBe(1);
    expect((await deliveries(id))[0]).toMatchObject({ status: 'failed', attempts: 3, last_status_code: 500 });
  });

  it('a delivery queued while enabled is still given up 3 days after it was queued', async () => {
    const id = await endpoint();
    await api(`/webhooks/${id}/test`, { method: 'POST' });
    receiver.answers = Array.from({ length: 100 }, () => 500);
    expect((await pass()).retrying).toBe(1);
    node.clock.advance(3 * DAY);
    expect((await pass()).failed).toBe(1);
  });
});
