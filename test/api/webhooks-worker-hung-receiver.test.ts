import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PollingWorker } from '../../src/core/workers/polling-worker';
import { startWebhookWorker } from '../../src/core/webhooks/worker';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { http, startTestNode, type TestNode } from '../support/test-node';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

// The delivery worker as a node runs it (a pass every interval), with one receiver that never
// answers. README: "a slow or failing receiver delays only its own" events. Found by the tenth
// round's exploratory run: a pass waited for every lane, so while a hung receiver held its request
// (up to the 10 s timeout) no new pass ran, and another endpoint's new events waited that long too.

let node: TestNode;
let vendor: VendorCredentials;
let hung: WebhookReceiver;
let healthy: WebhookReceiver;
let worker: PollingWorker | null = null;

const TIMEOUT_MS = 6_000;

beforeEach(async () => {
  node = await startTestNode({ webhooksAllowPrivate: true });
  vendor = await node.addVendor('Café Luna');
  hung = await startWebhookReceiver();
  healthy = await startWebhookReceiver();
});
afterEach(async () => {
  await worker?.stop();
  worker = null;
  await hung.close();
  await healthy.close();
  await node.close();
});

const api = (path: string, options: { method?: string; body?: unknown } = {}) => http(`${node.url}${path}`, { token: vendor.accessToken, ...options });

async function endpointFor(receiver: WebhookReceiver): Promise<string> {
  const reply = await api('/webhooks', { method: 'POST', body: { url: receiver.url, events: ['customer.registered'] } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  receiver.secrets = [reply.body.secret];
  return reply.body.id;
}

async function sendTest(id: string): Promise<void> {
  expect((await api(`/webhooks/${id}/test`, { method: 'POST' })).status).toBe(202);
}

describe('the delivery worker', () => {
  it('sends another endpoint’s new events while a hung receiver holds its own request', async () => {
    const stuck = await endpointFor(hung);
    const fine = await endpointFor(healthy);
    hung.answers = ['hang'];
    worker = startWebhookWorker(node.engine, { allowPrivate: true, intervalMs: 50, timeoutMs: TIMEOUT_MS });
    await sendTest(stuck);
    await hung.waitForCount(1, 3_000);
    // The hung request is in flight now; an event for the healthy endpoint happens.
    node.clock.advance(1);
    await sendTest(fine);
    const sent = performance.now();
    await healthy.waitForCount(1, TIMEOUT_MS);
    expect(healthy.received[0]!.verified).toBe(true);
    // Within the pass's time budget (1 s) and a few intervals, short of the hung request's 6 s
    // timeout (4 s leaves a loaded machine room: 2.5 s failed once beside heavy load).
    expect(performance.now() - sent).toBeLessThan(4_000);
    // The hung endpoint got no second request meanwhile: its lane is still waiting on the first.
    expect(hung.received).toHaveLength(1);
  });

  it('keeps a hung endpoint’s own events in order behind its request, and stop() waits for that lane', async () => {
    const stuck = await endpointFor(hung);
    hung.answers = ['hang'];
    const running = startWebhookWorker(node.engine, { allowPrivate: true, intervalMs: 50, timeoutMs: 1_500 })!;
    worker = running;
    await sendTest(stuck);
    await hung.waitForCount(1, 3_000);
    node.clock.advance(1);
    await sendTest(stuck);
    // Later passes skip the endpoint whose lane is busy: no second request while the first hangs.
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(hung.received).toHaveLength(1);
    await running.stop();
    worker = null;
    const log = await api(`/webhooks/${stuck}/deliveries`);
    const byAttempts = log.body.items.map((d: { status: string; attempts: number; last_error: string | null }) => [d.status, d.attempts]);
    // The first timed out (pending, its retry later); the second waits behind it, never tried.
    expect(byAttempts).toEqual([
      ['pending', 0],
      ['pending', 1],
    ]);
    expect(log.body.items[1].last_error).toMatch(/ETIMEDOUT/);
  });
});
