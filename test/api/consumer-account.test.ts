import type { FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planHistoryPage, toHistoryPage } from '../../src/core/history/history-page';
import type { HistoryRecord } from '../../src/core/history/history-record';
import { nextObjectId } from '../../src/core/storage/ids';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { historyEnvelope } from '../../src/server/routes/history';
import { consumerApi, type ConsumerCustomer as Customer, legacyErrorCheck } from '../support/customers';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Over real HTTP: PUT /user/password, POST /user/account/deactivate, GET /user/reward/list (tiers)
// and GET /user/transaction/list (the contract's history envelope, session_key variant).

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode();
});

afterAll(async () => {
  await node?.close();
});

// ---------------------------------------------------------------------------------------------
// helpers

const { authenticate, login, customer, key, sessionUrl } = consumerApi(() => node, { emailPrefix: 'account', firstName: 'Eva', lastName: 'Ruiz' });
const expectLegacyError = legacyErrorCheck({ depth: 'basic' });

const changePassword = (c: Customer | string, body: unknown) => http(sessionUrl('/user/password', c), { method: 'PUT', body });
const deactivate = (c: Customer | string, body: unknown) => http(sessionUrl('/user/account/deactivate', c), { method: 'POST', body });
const profile = (c: Customer | string) => http(sessionUrl('/user/profile', c));
const rewards = (c: Customer, extra = '') => http(`${sessionUrl('/user/reward/list', c)}${extra}`);
const history = (query: string) => http(`${node.url}/user/transaction/list?${query}`);

async function addTier(vendorId: number, name: string, threshold: number): Promise<number> {
  const id = await nextObjectId(node.engine.db, node.engine.nodeId);
  const now = node.clock.now();
  await node.engine.db
    .insertInto('tiers')
    .values({ id, vendor_id: vendorId, name, summary: `${name} summary`, description: `All about ${name}.`, threshold, created_at: now, updated_at: now })
    .execute();
  return id;
}

const tier = (id: number, name: string, threshold: number) => ({ object: 'tier', id, name, summary: `${name} summary`, description: `All about ${name}.`, threshold });

// ---------------------------------------------------------------------------------------------

describe('PUT /user/password', () => {
  let v: VendorCredentials;
  beforeAll(async () => {
    v = await node.addVendor();
  });

  it('changes the password: {} ; the new one logs in, the old one no longer; other sessions end, this one lives', async () => {
    const c = await customer(v.vendorId);
    const otherSession = await login(c.email, c.password, v.vendorId);
    const reply = await changePassword(c, { current_password: c.password, password: 'a brand new secret' });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({});
    expect((await profile(c)).status).toBe(200);
    expectLegacyError(await profile(otherSession), 401, 'session_ended');
    expectLegacyError(await authenticate(c.email, c.password, v.vendorId), 401, 'invalid_credentials');
    expect((await authenticate(c.email, 'a brand new secret', v.vendorId)).status).toBe(200);
  });

  it('answers 403 wrong_current_password and keeps the password', async () => {
    const c = await customer(v.vendorId);
    expectLegacyError(await changePassword(c, { current_password: 'not the password', password: 'another secret 1' }), 403, 'wrong_current_password', 'current_password');
    expect((await authenticate(c.email, c.password, v.vendorId)).status).toBe(200);
  });

  it('validates: missing fields 400 validation_failed, a short password 400 weak_password; form fields work', async () => {
    const c = await customer(v.vendorId);
    expectLegacyError(await changePassword(c, { password: 'another secret 1' }), 400, 'validation_failed', 'current_password');
    expectLegacyError(await changePassword(c, { current_password: c.password }), 400, 'validation_failed', 'password');
    expectLegacyError(await changePassword(c, { current_password: c.password, password: 'short' }), 400, 'weak_password', 'password');
    const form = await http(`${node.url}/user/password?session_key=${key(c)}`, {
      method: 'PUT',
      body: `current_password=${encodeURIComponent(c.password)}&password=${encodeURIComponent('form secret 123')}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status, JSON.stringify(form.body)).toBe(200);
    expect((await authenticate(c.email, 'form secret 123', v.vendorId)).status).toBe(200);
  });

  it('limits password guesses per account (the login limits: 10 a minute)', async () => {
    const c = await customer(v.vendorId);
    for (let i = 0; i < 10; i++) expectLegacyError(await changePassword(c, { current_password: `guess ${i}`, password: 'another secret 1' }), 403, 'wrong_current_password');
    const limited = await changePassword(c, { current_password: c.password, password: 'another secret 1' });
    expectLegacyError(limited, 429, 'rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expectLegacyError(await deactivate(c, { password: c.password }), 429, 'rate_limited');
    node.clock.advance(60_000);
    expect((await changePassword(c, { current_password: c.password, password: 'another secret 1' })).status).toBe(200);
  });
});

describe('PUT /user/profile with current_password', () => {
  let v: VendorCredentials;
  beforeAll(async () => {
    v = await node.addVendor('Profile Guess Coffee');
  });
  const putProfile = (c: Customer, body: unknown) => http(sessionUrl('/user/profile', c), { method: 'PUT', body });

  it('counts password guesses with PUT /user/password: a stolen session cannot guess through the profile either', async () => {
    const c = await customer(v.vendorId);
    for (let i = 0; i < 10; i++) expectLegacyError(await putProfile(c, { email_address: `moved.${i}@example.com`, current_password: `guess ${i}` }), 403, 'wrong_current_password');
    expectLegacyError(await putProfile(c, { email_address: 'moved@example.com', current_password: c.password }), 429, 'rate_limited');
    expectLegacyError(await changePassword(c, { current_password: c.password, password: 'another secret 1' }), 429, 'rate_limited');
    // Changes without a password are not password guesses.
    expect((await putProfile(c, { first_name: 'Eve' })).status).toBe(200);
    node.clock.advance(60_000);
    expect((await putProfile(c, { email_address: 'moved@example.com', current_password: c.password })).status).toBe(200);
  });
});

describe('POST /user/account/deactivate', () => {
  let v: VendorCredentials;
  beforeAll(async () => {
    v = await node.addVendor();
  });

  it('puts the account to sleep: {} , every session ends, logging in again wakes it', async () => {
    const c = await customer(v.vendorId);
    const second = await login(c.email, c.password, v.vendorId);
    const reply = await deactivate(c, { password: c.password });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({});
    expectLegacyError(await profile(c), 401, 'session_ended');
    expectLegacyError(await profile(second), 401, 'session_ended');
    const row = await node.engine.db.selectFrom('users').select('status').where('id', '=', c.userId).executeTakeFirstOrThrow();
    expect(row.status).toBe('inactive');
    const again = await login(c.email, c.password, v.vendorId);
    expect((await profile(again)).status).toBe(200);
    expect((await node.engine.db.selectFrom('users').select('status').where('id', '=', c.userId).executeTakeFirstOrThrow()).status).toBe('active');
  });

  it('answers 403 wrong_current_password for a wrong password and 400 without one; the account stays awake', async () => {
    const c = await customer(v.vendorId);
    expectLegacyError(await deactivate(c, { password: 'not the password' }), 403, 'wrong_current_password', 'password');
    expectLegacyError(await deactivate(c, {}), 400, 'validation_failed', 'password');
    expect((await profile(c)).status).toBe(200);
  });
});

describe('GET /user/reward/list', () => {
  it('answers no rewards and no tiers for a vendor without tiers', async () => {
    const v = await node.addVendor();
    await node.engine.db.deleteFrom('tiers').where('vendor_id', '=', v.vendorId).execute();
    const c = await customer(v.vendorId);
    const reply = await rewards(c);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ data: [], tier: { current: null, next: null } });
  });

  it("answers the customer's tier and the vendor's next one by threshold", async () => {
    const v = await node.addVendor();
    const w = await node.addVendor();
    const member = await node.engine.db.selectFrom('tiers').selectAll().where('vendor_id', '=', v.vendorId).executeTakeFirstOrThrow();
    const memberTier = { object: 'tier', id: member.id, name: member.name, summary: member.summary, description: member.description, threshold: 0 };
    const gold = await addTier(v.vendorId, 'Gold', 2000);
    const silver = await addTier(v.vendorId, 'Silver', 500);
    await addTier(w.vendorId, 'Other vendor tier', 100); // between Member and Silver, but another vendor's
    const c = await customer(v.vendorId); // new members start in the entry tier
    expect((await rewards(c)).body).toEqual({ data: [], tier: { current: memberTier, next: tier(silver, 'Silver', 500) } });

    await node.engine.db.updateTable('user_vendors').set({ tier_id: silver }).where('user_id', '=', c.userId).execute();
    expect((await rewards(c)).body.tier).toEqual({ current: tier(silver, 'Silver', 500), next: tier(gold, 'Gold', 2000) });
    await node.engine.db.updateTable('user_vendors').set({ tier_id: gold }).where('user_id', '=', c.userId).execute();
    expect((await rewards(c)).body.tier).toEqual({ current: tier(gold, 'Gold', 2000), next: null });
    // A member who joined before the vendor had tiers has none; the next is the entry tier.
    await node.engine.db.updateTable('user_vendors').set({ tier_id: null }).where('user_id', '=', c.userId).execute();
    expect((await rewards(c)).body.tier).toEqual({ current: null, next: memberTier });
  });

  it("accepts vendor when it is the session's vendor; another vendor is 403, a non-number 400", async () => {
    const v = await node.addVendor();
    const w = await node.addVendor();
    const c = await customer(v.vendorId);
    expect((await rewards(c, `&vendor=${v.vendorId}`)).status).toBe(200);
    expectLegacyError(await rewards(c, `&vendor=${w.vendorId}`), 403, 'forbidden', 'vendor');
    expectLegacyError(await rewards(c, '&vendor=abc'), 400, 'validation_failed', 'vendor');
  });
});

describe('GET /user/transaction/list (session_key)', () => {
  let v: VendorCredentials;
  let c: Customer;
  beforeAll(async () => {
    v = await node.addVendor();
    c = await customer(v.vendorId);
  });

  it('answers the contract envelope: empty history, page 1 of 0, 25 a page', async () => {
    const reply = await history(`session_key=${key(c)}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ object: 'list', count: 0, page: 1, page_size: 25, total_pages: 0, next_page_url: null, previous_page_url: null, data: [] });
  });

  it('links back from a later page with an absolute URL keeping the other parameters', async () => {
    const reply = await history(`session_key=${key(c)}&page=3&limit=10`);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ object: 'list', count: 0, page: 3, page_size: 10, total_pages: 0, next_page_url: null, data: [] });
    const previous = new URL(reply.body.previous_page_url);
    expect(`${previous.protocol}//${previous.host}`).toBe(node.url);
    expect(previous.pathname).toBe('/user/transaction/list');
    expect(Object.fromEntries(previous.searchParams)).toEqual({ session_key: c.sessionKey, page: '2', limit: '10' });
    expect(new URL((await history(`session_key=${key(c)}&page=2`)).body.previous_page_url).searchParams.get('page')).toBe('1');
    expect((await history(`session_key=${key(c)}&limit=100`)).body.page_size).toBe(100);
  });

  it.each([
    ['page=0', 'page'],
    ['page=-1', 'page'],
    ['page=abc', 'page'],
    ['page=1.5', 'page'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=ten', 'limit'],
  ])('answers 400 validation_failed for %s', async (query, field) => {
    expectLegacyError(await history(`session_key=${key(c)}&${query}`), 400, 'validation_failed', field);
  });

  it('answers 401 without credentials; the store (api_key) variant needs user; session_key wins', async () => {
    expectLegacyError(await history(''), 401, 'missing_credentials');
    const storeVariant = await history(`api_key=${encodeURIComponent(v.apiKey)}&user=${c.userId}`);
    expect(storeVariant.status).toBe(200);
    expect(storeVariant.body.object).toBe('list');
    expectLegacyError(await history(`api_key=${encodeURIComponent(v.apiKey)}`), 400, 'validation_failed', 'user');
    expectLegacyError(await history(`api_key=not-a-key&user=${c.userId}`), 401, 'invalid_api_key');
    expect((await history(`api_key=${encodeURIComponent(v.apiKey)}&session_key=${key(c)}`)).status).toBe(200);
  });

  it("answers 404 user_not_found once the customer's membership with the vendor is gone", async () => {
    const gone = await customer(v.vendorId);
    await node.engine.db.updateTable('user_vendors').set({ removed_at: node.clock.now() }).where('user_id', '=', gone.userId).execute();
    expectLegacyError(await history(`session_key=${key(gone)}`), 404, 'user_not_found');
  });
});

describe('history envelope paging (shared by both variants)', () => {
  const request = (url: string) => ({ url, protocol: 'https', host: 'shop.example:8443', server: { publicUrl: null } }) as unknown as FastifyRequest;
  const record = (id: number): HistoryRecord => ({
    kind: 'order',
    id,
    completedAt: 1_700_000_000_500,
    total: 12.5,
    storeName: 'Main Store',
    storeAddress: '1 Main Street',
    rating: { comment: null, value: 0, window: 0 },
    tip: { amount: 0, window: 0 },
    quickpay: { used: 2, loaded: 0, balance: 8 },
    items: [{ name: 'Latte' }],
    taxes: [],
    receipts: [],
    rewards: [],
    status: 'Complete',
  });

  it('counts pages, links both ways with the other parameters kept, and shapes records', () => {
    const plan = planHistoryPage({ page: 2, limit: 25 });
    expect(plan).toEqual({ page: 2, limit: 25, offset: 25 });
    const envelope = historyEnvelope(request('/user/transaction/list?user=7&api_key=k1&page=2&limit=25'), toHistoryPage(plan, 60, [record(41)]));
    expect(envelope).toEqual({
      object: 'list',
      count: 60,
      page: 2,
      page_size: 25,
      total_pages: 3,
      next_page_url: 'https://shop.example:8443/user/transaction/list?user=7&api_key=k1&page=3&limit=25',
      previous_page_url: 'https://shop.example:8443/user/transaction/list?user=7&api_key=k1&page=1&limit=25',
      data: [
        {
          object: 'order',
          id: 41,
          date: 1_700_000_000,
          total: 12.5,
          address: '1 Main Street',
          name: 'Main Store',
          rating: { comment: null, value: 0, window: 0 },
          tip: { amount: 0, window: 0 },
          quickpay: { object: 'quickpay', used: 2, loaded: 0, balance: 8 },
          items: [{ name: 'Latte' }],
          taxes: [],
          receipts: [],
          rewards: [],
          status: 'Complete',
        },
      ],
    });
  });

  it('has no next link on the last page, adds page and limit when absent, and counts partial pages', () => {
    const last = historyEnvelope(request('/user/transaction/list?session_key=s'), toHistoryPage(planHistoryPage({ page: 3, limit: 25 }), 51, []));
    expect(last.total_pages).toBe(3);
    expect(last.next_page_url).toBeNull();
    expect(last.previous_page_url).toBe('https://shop.example:8443/user/transaction/list?session_key=s&page=2&limit=25');
    const first = historyEnvelope(request('/user/transaction/list?session_key=s'), toHistoryPage(planHistoryPage({}), 26, []));
    expect(first).toMatchObject({ page: 1, page_size: 25, total_pages: 2, previous_page_url: null });
    expect(first.next_page_url).toBe('https://shop.example:8443/user/transaction/list?session_key=s&page=2&limit=25');
    const exact = historyEnvelope(request('/x'), toHistoryPage(planHistoryPage({ limit: 10 }), 10, []));
    expect(exact).toMatchObject({ total_pages: 1, next_page_url: null, previous_page_url: null });
  });

  it('refuses out-of-range paging in the use case too (the store variant reuses it)', () => {
    expect(() => planHistoryPage({ page: 0 })).toThrow(/page must be 1 or more/);
    expect(() => planHistoryPage({ limit: 101 })).toThrow(/limit must be between 1 and 100/);
    expect(() => planHistoryPage({ limit: 0 })).toThrow(/limit/);
  });
});
