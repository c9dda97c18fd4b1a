import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { invitedStaff, ownerOf, type SignedInStaff, staffCall } from '../support/backoffice';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Stores and API keys in the back office (and stores for integrations at /stores) over real HTTP:
// the fields and their checks, GET /vendor/store/list finding new stores by position and saying
// whether each is open now, keys issued / used / revoked, and who may do what, as a matrix.

let node: TestNode;
let vendor: VendorCredentials;
let other: VendorCredentials;
let owner: SignedInStaff;
let manager: SignedInStaff;
let storeManager: SignedInStaff;
let otherOwner: SignedInStaff;
let secondStoreId: number;

// The test clock: Saturday 2026-11-21 09:30 UTC, 04:30 in Quito (UTC-5).
const QUITO_STORE = {
  name: 'Quito Norte',
  address: 'Av. Amazonas N34-120',
  city: 'Quito',
  country: 'EC',
  phone: '02 234 5678',
  coordinates: { latitude: -0.1762, longitude: -78.4847 },
  hours: { fri: '22:00-05:00', sat: '10:00-14:00', sun: 'closed' },
  time_zone: 'America/Guayaquil',
};

beforeAll(async () => {
  node = await startTestNode();
  vendor = await node.addVendor('Café Andino');
  other = await node.addVendor('Other Coffee');
  owner = await ownerOf(node, vendor.vendorId);
  otherOwner = await ownerOf(node, other.vendorId);
  manager = await invitedStaff(node, owner, 'manager');
  storeManager = await invitedStaff(node, owner, 'store_manager', vendor.storeId);
  const second = await staffCall(node, owner.token, 'POST', '/backoffice/stores', { name: 'Second', address: '2 Side St', city: 'Springfield', country: 'US' });
  secondStoreId = second.body.id;
});

afterAll(async () => {
  await node?.close();
});

const storeList = (query: Record<string, string | number>) =>
  http(`${node.url}/vendor/store/list?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))}`);

describe('stores', () => {
  it('creates a store that GET /vendor/store/list finds by position and radius, open now by its hours in its time zone', async () => {
    const created = await staffCall(node, manager.token, 'POST', '/backoffice/stores', QUITO_STORE);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ name: 'Quito Norte', phone: '+59322345678', time_zone: 'America/Guayaquil', status: 'active', hours: QUITO_STORE.hours });
    // 04:30 on Saturday in Quito: still inside Friday's 22:00-05:00.
    expect(created.body.open_now).toBe(true);

    const near = await storeList({ vendor: vendor.vendorId, latitude: -0.2202, longitude: -78.5123, distance: 10 });
    expect(near.body.data.map((s: { id: number }) => s.id)).toEqual([created.body.id]);
    expect(near.body.data[0]).toMatchObject({ open_now: true, time_zone: 'America/Guayaquil', distance: 5.78 });

    // Staff sessions would idle out over these hours: the customers' list is asked, then the clock goes back.
    const openNow = async () => (await storeList({ vendor: vendor.vendorId, latitude: -0.2202, longitude: -78.5123, distance: 10 })).body.data[0].open_now;
    node.clock.advance(60 * 60_000); // 05:30: Friday's range is over, Saturday's not begun
    expect(await openNow()).toBe(false);
    node.clock.advance(5 * 60 * 60_000); // 10:30 Saturday
    expect(await openNow()).toBe(true);
    node.clock.advance(4 * 60 * 60_000); // 14:30 Saturday
    expect(await openNow()).toBe(false);
    node.clock.advance(-10 * 60 * 60_000);
  });

  it('updates only the fields given; an inactive store leaves the customer list; each change is audited with before and after', async () => {
    const created = await staffCall(node, owner.token, 'POST', '/backoffice/stores', { ...QUITO_STORE, name: 'Quito Sur', coordinates: { latitude: -0.283, longitude: -78.55 } });
    const id = created.body.id as number;
    const renamed = await staffCall(node, owner.token, 'PUT', `/backoffice/stores/${id}`, { name: 'Quito Sur II', status: 'inactive' });
    expect(renamed.body).toMatchObject({ name: 'Quito Sur II', status: 'inactive', city: 'Quito', time_zone: 'America/Guayaquil' });
    const listed = await storeList({ vendor: vendor.vendorId });
    expect(listed.body.data.map((s: { id: number }) => s.id)).not.toContain(id);
    const audit = await staffCall(node, owner.token, 'GET', '/backoffice/audit?object_type=store&limit=1');
    expect(audit.body.items[0]).toMatchObject({ action: 'store.update', object_id: String(id), actor: owner.email });
    expect(audit.body.items[0].before).toMatchObject({ name: 'Quito Sur', status: 'active' });
    expect(audit.body.items[0].after).toMatchObject({ name: 'Quito Sur II', status: 'inactive' });
  });

  it.each([
    [{ time_zone: 'Mars/Olympus' }, 'time_zone'],
    [{ hours: { mon: '8-18' } }, 'hours.mon'],
    [{ hours: { monday: '08:00-18:00' } }, 'hours.monday'],
    [{ hours: { mon: '08:00-08:00' } }, 'hours.mon'],
    [{ phone: '12' }, 'phone', 'invalid_phone'],
    [{ country: 'ECU' }, 'country'],
    // two letters but no country (was taken)
    [{ country: 'XX' }, 'country'],
    [{ coordinates: { latitude: 91, longitude: 0 } }, 'coordinates.latitude'],
    [{ name: '   ' }, 'name'],
  ])('refuses %j with 400 naming %s, and creates nothing', async (change: object, field: string, code = 'validation_failed') => {
    const before = await staffCall(node, owner.token, 'GET', '/backoffice/stores');
    const reply = await staffCall(node, owner.token, 'POST', '/backoffice/stores', { ...QUITO_STORE, ...change });
    expect([reply.status, reply.body.code, reply.body.field]).toEqual([400, code, field]);
    expect((await staffCall(node, owner.token, 'GET', '/backoffice/stores')).body.items).toHaveLength(before.body.items.length);
  });

  it('refuses bad input at /stores (bearer) as the back office does, changing nothing', async () => {
    const count = async () => (await http(`${node.url}/stores`, { token: vendor.accessToken })).body.items.length;
    const before = await count();
    const bad = await http(`${node.url}/stores`, { method: 'POST', token: vendor.accessToken, body: { ...QUITO_STORE, hours: { mon: '8-18' } } });
    expect([bad.status, bad.body.code, bad.body.field]).toEqual([400, 'validation_failed', 'hours.mon']);
    const zone = await http(`${node.url}/stores/${vendor.storeId}`, { method: 'PUT', token: vendor.accessToken, body: { time_zone: 'Mars/Olympus' } });
    expect([zone.status, zone.body.code, zone.body.field]).toEqual([400, 'validation_failed', 'time_zone']);
    const nowhere = await http(`${node.url}/stores/${vendor.storeId}`, { method: 'PUT', token: vendor.accessToken, body: { country: 'QQ' } });
    expect([nowhere.status, nowhere.body.code, nowhere.body.field]).toEqual([400, 'validation_failed', 'country']);
    const missing = await http(`${node.url}/stores/999999`, { method: 'PUT', token: vendor.accessToken, body: { name: 'X' } });
    expect([missing.status, missing.body.code]).toEqual([404, 'store_not_found']);
    expect(await count()).toBe(before);
    expect((await http(`${node.url}/stores/${vendor.storeId}`, { token: vendor.accessToken })).body.time_zone).not.toBe('Mars/Olympus');
  });

  it('are administered by integrations with the admin bearer token at /stores, within their vendor only', async () => {
    const made = await http(`${node.url}/stores`, { method: 'POST', token: vendor.accessToken, body: { ...QUITO_STORE, name: 'From the API' } });
    expect(made.status).toBe(201);
    const changed = await http(`${node.url}/stores/${made.body.id}`, { method: 'PUT', token: vendor.accessToken, body: { hours: null } });
    expect(changed.body).toMatchObject({ hours: null, open_now: null });
    const foreign = await http(`${node.url}/stores/${made.body.id}`, { method: 'PUT', token: other.accessToken, body: { name: 'Mine' } });
    expect([foreign.status, foreign.body.code]).toEqual([404, 'store_not_found']);
    expect((await http(`${node.url}/stores`)).body.code).toBe('missing_credentials');
    const unseen = await http(`${node.url}/stores/${made.body.id}`, { token: other.accessToken });
    expect([unseen.status, unseen.body.code]).toEqual([404, 'store_not_found']);
    expect((await http(`${node.url}/stores`, { token: other.accessToken })).body.items.map((s: { id: number }) => s.id)).not.toContain(made.body.id);
    expect((await http(`${node.url}/stores/${made.body.id}`, { token: vendor.accessToken })).body.name).toBe('From the API');
    const audit = await staffCall(node, owner.token, 'GET', '/backoffice/audit?object_type=store&limit=1');
    expect(audit.body.items[0]).toMatchObject({ actor: 'api', staff_id: null, object_id: String(made.body.id) });
  });
});

describe('GET /stores (bearer): a resource-style list', () => {
  it('pages newest first with next/prev links, filters by name prefix and status, sorts by name, and refuses bad parameters', async () => {
    const chain = await node.addVendor('Paged Stores');
    const get = (query: string) => http(`${node.url}/stores${query}`, { token: chain.accessToken });
    for (const name of ['Alpha', 'beta', 'Gamma']) {
      const made = await http(`${node.url}/stores`, { method: 'POST', token: chain.accessToken, body: { ...QUITO_STORE, name } });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      node.clock.advance(1_000);
    }
    const all = await get('?limit=100');
    expect(all.body).toMatchObject({ next: null, prev: null });
    const names = all.body.items.map((s: { name: string }) => s.name);
    expect(names.slice(0, 3)).toEqual(['Gamma', 'beta', 'Alpha']);
    expect(names).toHaveLength(4); // and the vendor's first store, made at set-up

    const first = await get('?limit=2');
    expect(first.body.items.map((s: { name: string }) => s.name)).toEqual(['Gamma', 'beta']);
    expect(first.body.prev).toBeNull();
    const second = await http(first.body.next, { token: chain.accessToken });
    expect(second.body.items.map((s: { name: string }) => s.name)).toEqual(['Alpha', names[3]]);
    expect(second.body.next).toBeNull();
    expect(second.body.prev).toContain('page=1');

    expect((await get('?query=n:BE')).body.items.map((s: { name: string }) => s.name)).toEqual(['beta']);
    expect((await get('?sort=name&order=ASC&query=n:a')).body.items.map((s: { name: string }) => s.name)).toEqual(['Alpha']);
    const beta = all.body.items.find((s: { name: string }) => s.name === 'beta');
    expect((await http(`${node.url}/stores/${beta.id}`, { method: 'PUT', token: chain.accessToken, body: { status: 'inactive' } })).status).toBe(200);
    expect((await get('?query=s:inactive')).body.items.map((s: { name: string }) => s.name)).toEqual(['beta']);

    for (const [query, status, code, field] of [
      ['?limit=abc', 400, 'validation_failed', 'limit'],
      ['?limit=101', 400, 'validation_failed', 'limit'],
      ['?sort=bogus', 400, 'invalid_sort', 'sort'],
      ['?query=zz', 400, 'invalid_query', 'query'],
      ['?query=s:closed', 400, 'invalid_query', 'query'],
    ] as const) {
      const refused = await get(query);
      expect([refused.status, refused.body.code, refused.body.field], query).toEqual([status, code, field]);
    }
  });
});

describe('API keys', () => {
  it('issues a named key shown once, notes its last use, and a revoked key is refused at the counter', async () => {
    const issued = await staffCall(node, storeManager.token, 'POST', `/backoffice/stores/${vendor.storeId}/keys`, { role: 'cashier', label: 'Counter 2' });
    expect(issued.status).toBe(201);
    const key = issued.body.api_key as string;
    expect(issued.body.key).toMatchObject({ label: 'Counter 2', role: 'cashier', hint: key.slice(-4), last_used: null, revoked: null });

    const counter = () => http(`${node.url}/onscreen/queue?api_key=${encodeURIComponent(key)}`);
    expect((await counter()).status).toBe(200);
    const listed = await staffCall(node, storeManager.token, 'GET', `/backoffice/stores/${vendor.storeId}/keys`);
    const row = listed.body.items.find((k: { id: number }) => k.id === issued.body.key.id);
    expect(row.last_used).toBe(new Date(node.clock.now()).toISOString());
    expect(JSON.stringify(listed.body)).not.toContain(key);

    const revoked = await staffCall(node, storeManager.token, 'DELETE', `/backoffice/keys/${row.id}`);
    expect(revoked.body.revoked).toBe(new Date(node.clock.now()).toISOString());
    const refused = await counter();
    expect([refused.status, refused.body.error.errors[0].reason]).toEqual([401, 'invalid_api_key']);
    const audit = await staffCall(node, owner.token, 'GET', '/backoffice/audit?object_type=api_key&limit=2');
    expect(audit.body.items.map((e: { action: string; actor: string }) => [e.action, e.actor])).toEqual([
      ['api_key.revoke', storeManager.email],
      ['api_key.issue', storeManager.email],
    ]);
  });

  it('refuses an unknown role or an empty label', async () => {
    const role = await staffCall(node, owner.token, 'POST', `/backoffice/stores/${vendor.storeId}/keys`, { role: 'admin', label: 'x' });
    expect([role.status, role.body.field]).toEqual([400, 'role']);
    const label = await staffCall(node, owner.token, 'POST', `/backoffice/stores/${vendor.storeId}/keys`, { role: 'kiosk', label: ' ' });
    expect([label.status, label.body.field]).toEqual([400, 'label']);
  });
});

describe('who may do what (the node decides, per role and store)', () => {
  type Who = 'owner' | 'manager' | 'storeManager' | 'otherVendor' | 'nobody';
  const tokenOf = (who: Who) => ({ owner: owner.token, manager: manager.token, storeManager: storeManager.token, otherVendor: otherOwner.token, nobody: null })[who];
  const mainKeyId = async () => (await staffCall(node, owner.token, 'GET', `/backoffice/stores/${vendor.storeId}/keys`)).body.items[0].id as number;
  const secondKeyId = async () => {
    const made = await staffCall(node, owner.token, 'POST', `/backoffice/stores/${secondStoreId}/keys`, { role: 'kiosk', label: 'Matrix' });
    return made.body.key.id as number;
  };

  // No worker runs on this node: the test events and replays below are queued, never sent.
  const HOOK_URL = 'https://hooks.example.com/punchcard';
  // A program holds at most 20 endpoints and every call below makes its own: the ones made before go first.
  const endpointsMade: string[] = [];
  const endpointId = async () => {
    for (const id of endpointsMade.splice(0)) await staffCall(node, owner.token, 'DELETE', `/backoffice/webhooks/${id}`);
    const made = await staffCall(node, owner.token, 'POST', '/backoffice/webhooks', { url: HOOK_URL, events: ['order.placed'] });
    expect(made.status).toBe(201);
    endpointsMade.push(made.body.id as string);
    return made.body.id as string;
  };

  // [call, expected status for owner, manager, store manager, another vendor's owner, no token].
  // Another vendor's staff get 404, as for any object of another vendor: they learn nothing of it.
  const MATRIX: Array<[string, () => Promise<[string, string, unknown?]>, [number, number, number, number, number]]> = [
    ['list stores', async () => ['GET', '/backoffice/stores'], [200, 200, 200, 200, 401]],
    ['read own store', async () => ['GET', `/backoffice/stores/${vendor.storeId}`], [200, 200, 200, 404, 401]],
    ['read another store', async () => ['GET', `/backoffice/stores/${secondStoreId}`], [200, 200, 403, 404, 401]],
    ['create a store', async () => ['POST', '/backoffice/stores', { name: 'M', address: 'a', city: 'c', country: 'US' }], [201, 201, 403, 201, 401]],
    ['update own store', async () => ['PUT', `/backoffice/stores/${vendor.storeId}`, { phone: null }], [200, 200, 403, 404, 401]],
    ['list own store keys', async () => ['GET', `/backoffice/stores/${vendor.storeId}/keys`], [200, 200, 200, 404, 401]],
    ['list another store keys', async () => ['GET', `/backoffice/stores/${secondStoreId}/keys`], [200, 200, 403, 404, 401]],
    ['issue a key at own store', async () => ['POST', `/backoffice/stores/${vendor.storeId}/keys`, { role: 'kiosk', label: 'm' }], [201, 201, 201, 404, 401]],
    ['issue a key at another store', async () => ['POST', `/backoffice/stores/${secondStoreId}/keys`, { role: 'kiosk', label: 'm' }], [201, 201, 403, 404, 401]],
    ['revoke a key of another store', async () => ['DELETE', `/backoffice/keys/${await secondKeyId()}`], [200, 200, 403, 404, 401]],
    ['revoke a key of own store', async () => ['DELETE', `/backoffice/keys/${await mainKeyId()}`], [200, 200, 200, 404, 401]],
    ['list staff', async () => ['GET', '/backoffice/staff'], [200, 403, 403, 200, 401]],
    ['invite staff', async () => ['POST', '/backoffice/staff', { email: `m${Date.now()}${Math.random()}@x.test`, name: 'M', role: 'manager' }], [201, 403, 403, 201, 401]],
    ['read the audit log', async () => ['GET', '/backoffice/audit'], [200, 200, 403, 200, 401]],
    ['list webhook endpoints', async () => ['GET', '/backoffice/webhooks'], [200, 200, 403, 200, 401]],
    ['add a webhook endpoint', async () => ['POST', '/backoffice/webhooks', { url: HOOK_URL, events: ['order.placed'] }], [201, 201, 403, 201, 401]],
    ['pause a webhook endpoint', async () => ['PUT', `/backoffice/webhooks/${await endpointId()}`, { status: 'paused' }], [200, 200, 403, 404, 401]],
    ['rotate a webhook secret', async () => ['POST', `/backoffice/webhooks/${await endpointId()}/rotate-secret`], [200, 200, 403, 404, 401]],
    ['send a test event', async () => ['POST', `/backoffice/webhooks/${await endpointId()}/test`], [202, 202, 403, 404, 401]],
    ['list an endpoint’s deliveries', async () => ['GET', `/backoffice/webhooks/${await endpointId()}/deliveries`], [200, 200, 403, 404, 401]],
    ['replay an event', async () => {
      const id = await endpointId();
      const sent = await staffCall(node, owner.token, 'POST', `/backoffice/webhooks/${id}/test`);
      return ['POST', `/backoffice/webhooks/${id}/replay`, { event_id: sent.body.event_id }];
    }, [202, 202, 403, 404, 401]],
  ];
  const WHO: Who[] = ['owner', 'manager', 'storeManager', 'otherVendor', 'nobody'];

  it.each(MATRIX)('%s', async (_name, call, expected) => {
    const statuses: number[] = [];
    for (const who of WHO) {
      const [method, path, body] = await call();
      const reply = await staffCall(node, tokenOf(who), method, path, body);
      statuses.push(reply.status);
      if (reply.status === 403) expect(reply.body.code).toBe('forbidden');
    }
    expect(statuses).toEqual(expected);
  });
});

describe('a paired store', () => {
  // Stores and keys are central's (pulled, never pushed): a change made here would stay here, and a
  // key revoked here would still work at central, which the store forwards central-owned calls to.
  it('leaves stores and keys to central: changes are 409 stores_managed_by_central and change nothing; reads still work', async () => {
    const keyId = (await staffCall(node, owner.token, 'POST', `/backoffice/stores/${vendor.storeId}/keys`, { role: 'cashier', label: 'Till 2' })).body.key.id as number;
    node.engine.programRole = 'replica';
    try {
      for (const [method, path, body] of [
        ['POST', '/backoffice/stores', { name: 'Local', address: '1 Local St', city: 'Springfield', country: 'US' }],
        ['PUT', `/backoffice/stores/${vendor.storeId}`, { name: 'Renamed here' }],
        ['POST', `/backoffice/stores/${vendor.storeId}/keys`, { role: 'cashier', label: 'Local' }],
        ['DELETE', `/backoffice/keys/${keyId}`],
      ] as const) {
        const reply = await staffCall(node, owner.token, method, path, body);
        expect([method, path, reply.status, reply.body.code]).toEqual([method, path, 409, 'stores_managed_by_central']);
      }
      expect((await staffCall(node, owner.token, 'GET', '/backoffice/stores')).status).toBe(200);
      const keys = await staffCall(node, owner.token, 'GET', `/backoffice/stores/${vendor.storeId}/keys`);
      expect(keys.body.items.find((k: { id: number }) => k.id === keyId)).toMatchObject({ revoked: null });
    } finally {
      node.engine.programRole = 'owner';
    }
  });
});
