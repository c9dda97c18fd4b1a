import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverDueWebhooks } from '../../src/core/webhooks/deliver';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { invitedStaff, ownerOf, type SignedInStaff, staffCall } from '../support/backoffice';
import { http, startTestNode, type TestNode } from '../support/test-node';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

// Webhook endpoints in the back office over real HTTP, delivered to a real receiver on 127.0.0.1
// that checks every signature: the secret shown once (on creation and rotation, never in the list
// or the audit log), pause and enable, a test event and its delivery log, a replay, each change
// audited, the node's own messages for a bad URL or kind, and a paired store refusing it all.
// Who may call what is in the matrix of backoffice-stores.test.ts.

let node: TestNode;
let receiver: WebhookReceiver;
let vendor: VendorCredentials;
let owner: SignedInStaff;
let manager: SignedInStaff;

beforeAll(async () => {
  node = await startTestNode({ webhooksAllowPrivate: true });
  receiver = await startWebhookReceiver();
  vendor = await node.addVendor('Café Andino');
  owner = await ownerOf(node, vendor.vendorId);
  manager = await invitedStaff(node, owner, 'manager');
});

afterAll(async () => {
  await receiver?.close();
  await node?.close();
});

const pass = () => deliverDueWebhooks(node.engine, { allowPrivate: true });
const call = (method: string, path: string, body?: unknown) => staffCall(node, manager.token, method, path, body);

async function addEndpoint(): Promise<{ id: string; secret: string }> {
  const made = await call('POST', '/backoffice/webhooks', { url: receiver.url, events: ['order.placed', 'customer.registered'] });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return made.body;
}

describe('webhooks in the back office', () => {
  it('adds an endpoint whose secret is shown once; a test event reaches the receiver signed with it and the log shows the delivery', async () => {
    const made = await addEndpoint();
    expect(made).toMatchObject({ url: receiver.url, events: ['order.placed', 'customer.registered'], status: 'enabled', disabled_reason: null });
    expect(made.secret).toMatch(/^whsec_/);
    receiver.secrets = [made.secret];

    const listed = await call('GET', '/backoffice/webhooks');
    expect(listed.body.items.map((e: { id: string }) => e.id)).toContain(made.id);
    expect(listed.body.kinds).toContain('points.expired');
    expect(JSON.stringify(listed.body)).not.toContain(made.secret);

    const test = await call('POST', `/backoffice/webhooks/${made.id}/test`);
    expect(test.status).toBe(202);
    expect(await pass()).toMatchObject({ succeeded: 1 });
    const hit = receiver.received.at(-1)!;
    expect([hit.verified, hit.body.id, hit.body.type]).toEqual([true, test.body.event_id, 'webhook.test']);

    const log = await call('GET', `/backoffice/webhooks/${made.id}/deliveries`);
    expect(log.body).toMatchObject({ page: 1, has_more: false });
    expect(log.body.items).toEqual([
      expect.objectContaining({ event_id: test.body.event_id, event_type: 'webhook.test', status: 'succeeded', attempts: 1, last_status_code: 200, last_error: null }),
    ]);

    const audit = await staffCall(node, owner.token, 'GET', '/backoffice/audit?object_type=webhook&limit=2');
    expect(audit.body.items.map((e: { action: string; actor: string }) => [e.action, e.actor])).toEqual([
      ['webhook.test', manager.email],
      ['webhook.create', manager.email],
    ]);
    expect(audit.body.items[0].after).toEqual({ event_id: test.body.event_id });
    expect(audit.body.items[1].after).toMatchObject({ id: made.id, url: receiver.url, status: 'enabled' });
    expect(JSON.stringify(audit.body)).not.toContain(made.secret);
  });

  it('a failed delivery shows its status code; replayed once the receiver answers, it succeeds', async () => {
    const made = await addEndpoint();
    receiver.secrets = [made.secret];
    receiver.answers = [500];
    const test = await call('POST', `/backoffice/webhooks/${made.id}/test`);
    expect(await pass()).toMatchObject({ retrying: 1 });
    const failed = (await call('GET', `/backoffice/webhooks/${made.id}/deliveries`)).body.items[0];
    expect(failed).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 500, last_error: 'HTTP 500' });

    const replay = await call('POST', `/backoffice/webhooks/${made.id}/replay`, { event_id: test.body.event_id });
    expect([replay.status, replay.body]).toEqual([202, { queued: 1, endpoint_status: 'enabled' }]);
    expect(await pass()).toMatchObject({ succeeded: 1 });
    const log = (await call('GET', `/backoffice/webhooks/${made.id}/deliveries`)).body.items;
    expect(log.map((d: { status: string; attempts: number; last_status_code: number }) => [d.status, d.attempts, d.last_status_code])).toEqual([
      ['succeeded', 1, 200],
      ['pending', 1, 500],
    ]);
    expect(receiver.received.at(-1)!.body.id).toBe(test.body.event_id);

    const unknown = await call('POST', `/backoffice/webhooks/${made.id}/replay`, { event_id: 'evt_nope' });
    expect([unknown.status, unknown.body.code]).toEqual([404, 'webhook_event_not_found']);
    const audit = await staffCall(node, owner.token, 'GET', '/backoffice/audit?object_type=webhook&limit=1');
    expect(audit.body.items[0]).toMatchObject({ action: 'webhook.replay', after: { event_id: test.body.event_id, queued: 1 } });
  });

  it('a paused endpoint holds its events until enabled; each change is audited with before and after', async () => {
    const made = await addEndpoint();
    receiver.secrets = [made.secret];
    const paused = await call('PUT', `/backoffice/webhooks/${made.id}`, { status: 'paused' });
    expect([paused.status, paused.body.status]).toEqual([200, 'paused']);
    const before = receiver.received.length;
    await call('POST', `/backoffice/webhooks/${made.id}/test`);
    await pass();
    expect(receiver.received).toHaveLength(before);
    expect((await call('GET', `/backoffice/webhooks/${made.id}/deliveries`)).body.items[0]).toMatchObject({ status: 'pending', attempts: 0 });

    const enabled = await call('PUT', `/backoffice/webhooks/${made.id}`, { status: 'enabled' });
    expect(enabled.body.status).toBe('enabled');
    expect(await pass()).toMatchObject({ succeeded: 1 });
    expect(receiver.received).toHaveLength(before + 1);

    const audit = await staffCall(node, owner.token, 'GET', '/backoffice/audit?object_type=webhook&limit=3');
    expect(audit.body.items.map((e: { action: string; before: { status: string } | null; after: { status?: string } }) => [e.action, e.before?.status ?? null, e.after.status ?? null])).toEqual([
      ['webhook.update', 'paused', 'enabled'],
      ['webhook.test', null, null],
      ['webhook.update', 'enabled', 'paused'],
    ]);
  });

  it('rotates the secret: the new one is shown once, and both sign during the overlap', async () => {
    const made = await addEndpoint();
    const rotated = await call('POST', `/backoffice/webhooks/${made.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(made.secret);
    expect(rotated.body.previous_secret_expires_at).toBe(new Date(node.clock.now() + 24 * 3600_000).toISOString());
    receiver.secrets = [made.secret, rotated.body.secret];
    await call('POST', `/backoffice/webhooks/${made.id}/test`);
    await pass();
    expect(receiver.received.at(-1)!.matchedSecrets).toEqual([0, 1]);
    const audit = await staffCall(node, owner.token, 'GET', '/backoffice/audit?object_type=webhook&limit=2');
    expect(audit.body.items[1]).toMatchObject({ action: 'webhook.rotate_secret', object_id: made.id });
    expect(JSON.stringify(audit.body)).not.toContain(rotated.body.secret);
  });

  it.each([
    [{ url: 'ftp://example.com/hook', events: ['order.placed'] }, 'webhook_url_not_allowed', 'url'],
    [{ url: 'http://127.0.0.1:9/hook', events: ['order.sold'] }, 'validation_failed', 'events'],
  ])('refuses %j with the node’s message, and adds nothing', async (body, code, field) => {
    const count = (await call('GET', '/backoffice/webhooks')).body.items.length;
    const refused = await call('POST', '/backoffice/webhooks', body);
    expect([refused.status, refused.body.code, refused.body.field]).toEqual([400, code, field]);
    const direct = await http(`${node.url}/webhooks`, { method: 'POST', token: vendor.accessToken, body });
    expect(refused.body.message).toBe(direct.body.message);
    expect((await call('GET', '/backoffice/webhooks')).body.items).toHaveLength(count);
  });

  it('edits an endpoint’s URL and events, audited with before and after; a bad URL is the node’s refusal and changes nothing', async () => {
    const made = await addEndpoint();
    const moved = `${receiver.url}/v2`;
    const edited = await call('PUT', `/backoffice/webhooks/${made.id}`, { url: moved, events: ['tier.changed'] });
    expect([edited.status, edited.body.url, edited.body.events, edited.body.status]).toEqual([200, moved, ['tier.changed'], 'enabled']);
    const audit = await staffCall(node, owner.token, 'GET', '/backoffice/audit?object_type=webhook&limit=1');
    expect(audit.body.items[0]).toMatchObject({ action: 'webhook.update', object_id: made.id, before: { url: receiver.url, events: ['order.placed', 'customer.registered'] }, after: { url: moved, events: ['tier.changed'] } });

    const refused = await call('PUT', `/backoffice/webhooks/${made.id}`, { url: 'ftp://example.com/hook', events: ['order.placed'] });
    expect([refused.status, refused.body.code, refused.body.field]).toEqual([400, 'webhook_url_not_allowed', 'url']);
    expect((await call('GET', '/backoffice/webhooks')).body.items.find((e: { id: string }) => e.id === made.id)).toMatchObject({ url: moved, events: ['tier.changed'] });
  });

  it('deletes an endpoint: its undelivered events are cancelled and never sent, the audit keeps what it was, and it is gone', async () => {
    const made = await addEndpoint();
    receiver.secrets = [made.secret];
    // Paused, its test event waits; deleting cancels it.
    await call('PUT', `/backoffice/webhooks/${made.id}`, { status: 'paused' });
    const test = await call('POST', `/backoffice/webhooks/${made.id}/test`);
    expect((await call('GET', `/backoffice/webhooks/${made.id}/deliveries`)).body.items[0]).toMatchObject({ event_id: test.body.event_id, status: 'pending' });

    // A store manager may not; another program's staff do not find it.
    const storeManager = await invitedStaff(node, owner, 'store_manager', vendor.storeId);
    const forbidden = await staffCall(node, storeManager.token, 'DELETE', `/backoffice/webhooks/${made.id}`);
    expect([forbidden.status, forbidden.body.code]).toEqual([403, 'forbidden']);
    const stranger = await ownerOf(node, (await node.addVendor('Otra Marca')).vendorId);
    expect((await staffCall(node, stranger.token, 'DELETE', `/backoffice/webhooks/${made.id}`)).status).toBe(404);

    const deleted = await call('DELETE', `/backoffice/webhooks/${made.id}`);
    expect([deleted.status, deleted.body]).toEqual([200, {}]);
    expect((await call('GET', '/backoffice/webhooks')).body.items.map((e: { id: string }) => e.id)).not.toContain(made.id);
    const row = await node.engine.db.selectFrom('webhook_deliveries').select(['status', 'finished_at']).where('endpoint_id', '=', made.id).executeTakeFirstOrThrow();
    expect(row.status).toBe('cancelled');
    expect(row.finished_at).not.toBeNull();
    const received = receiver.received.length;
    await pass();
    expect(receiver.received).toHaveLength(received);

    const audit = await staffCall(node, owner.token, 'GET', '/backoffice/audit?object_type=webhook&limit=1');
    expect(audit.body.items[0]).toMatchObject({ action: 'webhook.delete', actor: manager.email, object_id: made.id, before: { id: made.id, url: receiver.url, status: 'paused' }, after: null });
    expect(JSON.stringify(audit.body)).not.toContain(made.secret);

    for (const [method, path] of [
      ['DELETE', `/backoffice/webhooks/${made.id}`],
      ['PUT', `/backoffice/webhooks/${made.id}`],
      ['GET', `/backoffice/webhooks/${made.id}/deliveries`],
    ] as const) {
      const gone = await call(method, path, method === 'PUT' ? { status: 'enabled' } : undefined);
      expect([method, gone.status, gone.body.code]).toEqual([method, 404, 'webhook_not_found']);
    }
  });

  it('a paired store refuses it all: central delivers the program’s events', async () => {
    const made = await addEndpoint();
    node.engine.programRole = 'replica';
    try {
      for (const [method, path] of [
        ['GET', '/backoffice/webhooks'],
        ['POST', '/backoffice/webhooks'],
        ['DELETE', `/backoffice/webhooks/${made.id}`],
      ] as const) {
        const reply = await call(method, path, method === 'POST' ? { url: receiver.url, events: ['order.placed'] } : undefined);
        expect([reply.status, reply.body.code]).toEqual([409, 'webhooks_managed_by_central']);
      }
    } finally {
      node.engine.programRole = 'owner';
    }
  });
});
