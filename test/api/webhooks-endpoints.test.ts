import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine } from '../../src/core/engine';
import { openSqlite } from '../../src/core/storage/database';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { deliverDueWebhooks } from '../../src/core/webhooks/deliver';
import { createWebhookEndpoint } from '../../src/core/webhooks/endpoints';
import { WEBHOOK_KINDS } from '../../src/core/webhooks/kinds';
import { recordCustomerEvent } from '../../src/core/webhooks/events';
import { transact } from '../../src/core/engine';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ManualClock } from '../support/clock';
import { makeTempDir } from '../support/temp-dir';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Managing endpoints with the vendor's bearer: the contract of /webhooks, its refusals, and the
// address rule of a node started without --webhooks-allow-private (production).

let open: TestNode;
let strict: TestNode;
let vendor: VendorCredentials;
let other: VendorCredentials;
let strictVendor: VendorCredentials;

beforeAll(async () => {
  open = await startTestNode({ webhooksAllowPrivate: true });
  strict = await startTestNode();
  vendor = await open.addVendor('Café Luna');
  other = await open.addVendor('Panadería Sol');
  strictVendor = await strict.addVendor('Tienda');
});
afterAll(async () => {
  await open?.close();
  await strict?.close();
});

const api = (node: TestNode, token: string, path: string, options: { method?: string; body?: unknown } = {}) => http(`${node.url}${path}`, { token, ...options });
const create = (body: unknown, node = open, token = vendor.accessToken) => api(node, token, '/webhooks', { method: 'POST', body });

describe('POST /webhooks', () => {
  it('answers 201 with a wh_ id and a whsec_ secret shown only here', async () => {
    const reply = await create({ url: 'http://127.0.0.1:9/hooks', events: ['user_card.created', 'balance.updated'], description: 'CRM' });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      id: expect.stringMatching(/^wh_[0-9a-z]{20}$/),
      url: 'http://127.0.0.1:9/hooks',
      events: ['user_card.created', 'balance.updated'],
      description: 'CRM',
      alert_email: null,
      status: 'enabled',
      disabled_reason: null,
      previous_secret_expires_at: null,
      date_created: new Date(open.clock.now()).toISOString(),
      date_updated: new Date(open.clock.now()).toISOString(),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
    });
    const again = await api(open, vendor.accessToken, `/webhooks/${reply.body.id}`);
    expect(again.status).toBe(200);
    expect(again.body).not.toHaveProperty('secret');
    const list = await api(open, vendor.accessToken, '/webhooks');
    expect(list.body.items.map((e: any) => e.id)).toContain(reply.body.id);
    expect(list.body.items.every((e: any) => !('secret' in e))).toBe(true);
  });

  it('refuses unknown kinds, no kinds, bad URLs and bad alert addresses with 400, creating nothing', async () => {
    const before = (await api(open, vendor.accessToken, '/webhooks')).body.items.length;
    const cases: Array<[unknown, string, string]> = [
      [{ url: 'https://crm.example.com', events: ['order.eaten'] }, 'validation_failed', 'events'],
      [{ url: 'https://crm.example.com', events: [] }, 'validation_failed', 'events'],
      [{ url: 'not a url', events: ['order.placed'] }, 'webhook_url_not_allowed', 'url'],
      [{ url: 'ftp://crm.example.com', events: ['order.placed'] }, 'webhook_url_not_allowed', 'url'],
      [{ url: 'https://user:pass@crm.example.com', events: ['order.placed'] }, 'webhook_url_not_allowed', 'url'],
      [{ url: 'https://crm.example.com:0/hooks', events: ['order.placed'] }, 'webhook_url_not_allowed', 'url'],
      [{ url: 'https://crm.example.com', events: ['order.placed'], alert_email: 'nobody' }, 'invalid_email', 'alert_email'],
      [{ events: ['order.placed'] }, 'validation_failed', 'url'],
    ];
    for (const [body, code, field] of cases) {
      const reply = await create(body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.code, JSON.stringify(body)).toBe(code);
      if (reply.body.field !== undefined) expect(reply.body.field).toBe(field);
    }
    expect((await api(open, vendor.accessToken, '/webhooks')).body.items.length).toBe(before);
  });

  it('needs the bearer', async () => {
    expect((await http(`${open.url}/webhooks`)).status).toBe(401);
    expect((await http(`${open.url}/webhooks`, { token: 'nope' })).status).toBe(401);
  });

  it('accepts every documented kind', async () => {
    const reply = await create({ url: 'https://crm.example.com/all', events: [...WEBHOOK_KINDS] });
    expect(reply.status).toBe(201);
    expect(reply.body.events).toEqual([...WEBHOOK_KINDS]);
  });
});

describe('without --webhooks-allow-private', () => {
  it('refuses http:// and loopback, private and link-local addresses with 400; https on a public name is fine', async () => {
    for (const url of ['http://crm.example.com/hooks', 'https://127.0.0.1/hooks', 'https://localhost/hooks', 'https://10.1.2.3/', 'https://192.168.1.10/', 'https://172.20.0.1/', 'https://169.254.169.254/latest', 'https://[::1]/', 'https://[fd00::1]/', 'https://[::ffff:127.0.0.1]/']) {
      const reply = await create({ url, events: ['order.placed'] }, strict, strictVendor.accessToken);
      expect(reply.status, url).toBe(400);
      expect(reply.body.code, url).toBe('webhook_url_not_allowed');
    }
    expect((await create({ url: 'https://crm.example.com/hooks', events: ['order.placed'] }, strict, strictVendor.accessToken)).status).toBe(201);
  });

  it('refuses IPv6 literals that carry a private or loopback IPv4 address (NAT64, 6to4, Teredo, compatible, mapped); public ones are fine', async () => {
    const refused = ['https://[64:ff9b::7f00:1]/', 'https://[64:ff9b::10.0.0.1]/', 'https://[64:ff9b:1::808:808]/', 'https://[2002:c0a8:10a::1]/', 'https://[::127.0.0.1]/', 'https://[::ffff:169.254.169.254]/', 'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/'];
    for (const url of refused) {
      const reply = await create({ url, events: ['order.placed'] }, strict, strictVendor.accessToken);
      expect([reply.status, reply.body.code, reply.body.field], url).toEqual([400, 'webhook_url_not_allowed', 'url']);
    }
    for (const url of ['https://[64:ff9b::808:808]/hooks', 'https://[2002:808:808::1]/hooks']) {
      expect((await create({ url, events: ['order.placed'] }, strict, strictVendor.accessToken)).status, url).toBe(201);
    }
  });

  it('an update to a private URL is refused too', async () => {
    const { body } = await create({ url: 'https://crm.example.com/a', events: ['order.placed'] }, strict, strictVendor.accessToken);
    const reply = await api(strict, strictVendor.accessToken, `/webhooks/${body.id}`, { method: 'PUT', body: { url: 'http://127.0.0.1:8080/' } });
    expect(reply).toMatchObject({ status: 400, body: { code: 'webhook_url_not_allowed' } });
    expect((await api(strict, strictVendor.accessToken, `/webhooks/${body.id}`)).body.url).toBe('https://crm.example.com/a');
  });
});

describe('GET/PUT/DELETE /webhooks/:id', () => {
  it('updates url, events, description, alert address and status (enabled or paused only)', async () => {
    const { body } = await create({ url: 'http://127.0.0.1:9/a', events: ['order.placed'] });
    open.clock.advance(1000);
    const reply = await api(open, vendor.accessToken, `/webhooks/${body.id}`, {
      method: 'PUT',
      body: { url: 'http://127.0.0.1:9/b', events: ['order.voided', 'order.voided'], description: 'POS', alert_email: 'ops@example.com', status: 'paused' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ url: 'http://127.0.0.1:9/b', events: ['order.voided'], description: 'POS', alert_email: 'ops@example.com', status: 'paused' });
    expect(reply.body.date_updated).not.toBe(reply.body.date_created);
    const bad = await api(open, vendor.accessToken, `/webhooks/${body.id}`, { method: 'PUT', body: { status: 'disabled' } });
    expect(bad).toMatchObject({ status: 400, body: { code: 'validation_failed', field: 'status' } });
  });

  it("answers 404 for another vendor's endpoint and for unknown ids, and changes nothing", async () => {
    const { body } = await create({ url: 'http://127.0.0.1:9/mine', events: ['order.placed'] });
    for (const [method, path] of [
      ['GET', ''],
      ['PUT', ''],
      ['DELETE', ''],
      ['POST', '/rotate-secret'],
      ['POST', '/test'],
      ['GET', '/deliveries'],
      ['POST', '/replay'],
    ] as const) {
      const reply = await api(open, other.accessToken, `/webhooks/${body.id}${path}`, { method, ...(method === 'GET' || method === 'DELETE' ? {} : { body: { status: 'paused', event_id: 'evt_x' } }) });
      expect(reply.status, `${method} ${path}`).toBe(404);
      expect(reply.body.code).toBe('webhook_not_found');
    }
    expect((await api(open, vendor.accessToken, `/webhooks/${body.id}`)).body.status).toBe('enabled');
    expect((await api(open, vendor.accessToken, '/webhooks/wh_unknown')).status).toBe(404);
  });
});

describe('where deliveries come from', () => {
  it('a replica store node (paired with central) writes no webhook events and delivers none', async () => {
    const dir = makeTempDir();
    const clock = new ManualClock();
    const database = openSqlite(`${dir.path}/punchcard.db`);
    const owner = await startEngine({ database, nodeKey: randomBytes(32), clock, role: 'store' });
    const v = await setUpVendor(owner, { name: 'Chain', currency: 'USD', country: 'US', store: { name: 'One', address1: '1 St', city: 'X' } });
    await createWebhookEndpoint(owner, { vendorId: v.vendorId }, { url: 'http://127.0.0.1:9/', events: ['customer.updated'] }, { allowPrivate: true });
    const user = await owner.db.selectFrom('users').select('id').executeTakeFirst();
    const replica = { ...owner, programRole: 'replica' as const };
    const written = await transact(replica, (trx) => recordCustomerEvent(trx, replica, 'customer.updated', { vendorId: v.vendorId, userId: user?.id ?? 1 }));
    expect(written).toBeNull();
    expect(await owner.db.selectFrom('webhook_events').selectAll().execute()).toEqual([]);
    // The owner writes it; a replica never delivers it.
    const ownerWritten = await transact(owner, (trx) => recordCustomerEvent(trx, owner, 'customer.updated', { vendorId: v.vendorId, userId: user?.id ?? 1 }));
    expect(ownerWritten).toMatch(/^evt_/);
    expect(await deliverDueWebhooks(replica, { allowPrivate: true })).toEqual({ succeeded: 0, retrying: 0, failed: 0, skipped: 0 });
    const pending = await owner.db.selectFrom('webhook_deliveries').select(['status', 'attempts']).execute();
    expect(pending).toEqual([{ status: 'pending', attempts: 0 }]);
    await owner.close();
    dir.remove();
  });
});
