import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine } from '../../src/core/engine';
import { openSqlite } from '../../src/core/storage/database';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { buildApp } from '../../src/server/app';
import { DEFAULT_RATE_LIMITS } from '../../src/server/http/rate-limits';
import { ManualClock } from '../support/clock';
import { expectLegacyError, loginOkAt, PASSWORD, registration, ROOMY, ROOMY_RATE_LIMITS, setPhoneAt, signUpAt } from '../support/customers';
import { inStoreApi } from '../support/in-store';
import { makeTempDir } from '../support/temp-dir';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Issue 10, findings 2-4, and issue 17 item 10: sign-up is rate limited, a kiosk key reads nobody's
// history and a cashier key reads it at a bounded pace, a cashier sees only the first name and
// initial of another program's customer until they confirm, and rate limits hold across every
// process of one node's database.

const enc = encodeURIComponent;

describe('POST /user/register is rate limited (finding 2)', () => {
  let node: TestNode;
  let vendor: VendorCredentials;

  beforeAll(async () => {
    // The shipped limits, not a test's.
    node = await startTestNode();
    vendor = await node.addVendor('Signup Bakery');
  });
  afterAll(async () => node?.close());

  it(`one sign-up over the limit (${DEFAULT_RATE_LIMITS.register.perClient} per client and window) is 429 with Retry-After, and creates nobody`, async () => {
    const limit = DEFAULT_RATE_LIMITS.register.perClient;
    for (let i = 0; i < limit; i++) {
      const reply = await http(`${node.url}/user/register`, { method: 'POST', body: registration(vendor.vendorId) });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    }
    const users = (await node.engine.db.selectFrom('users').select('id').execute()).length;
    const over = await http(`${node.url}/user/register`, { method: 'POST', body: registration(vendor.vendorId) });
    expectLegacyError(over, 429, 'rate_limited');
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await node.engine.db.selectFrom('users').select('id').execute()).length).toBe(users);
    node.clock.advance(DEFAULT_RATE_LIMITS.register.windowSeconds * 1000);
    expect((await http(`${node.url}/user/register`, { method: 'POST', body: registration(vendor.vendorId) })).status).toBe(200);
  });

  it('probing one email over and over (409 email_taken) meets the per-email limit', async () => {
    node.clock.advance(DEFAULT_RATE_LIMITS.register.windowSeconds * 1000);
    const body = registration(vendor.vendorId);
    expect((await http(`${node.url}/user/register`, { method: 'POST', body })).status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < DEFAULT_RATE_LIMITS.register.perAccount + 1; i++) statuses.push((await http(`${node.url}/user/register`, { method: 'POST', body })).status);
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.slice(0, DEFAULT_RATE_LIMITS.register.perAccount - 1).every((s) => s === 409)).toBe(true);
  });
});

describe('history by store key (finding 3) and what a cashier sees of another program’s customer (finding 4)', () => {
  let node: TestNode;
  let home: VendorCredentials;
  let other: VendorCredentials;
  const api = inStoreApi(() => node);

  beforeAll(async () => {
    node = await startTestNode({ rateLimits: { ...ROOMY_RATE_LIMITS, storeHistory: { perClient: 1000, perAccount: 5, windowSeconds: 60 } } });
    home = await node.addVendor('Home Coffee');
    other = await node.addVendor('Other Tea');
  });
  afterAll(async () => node?.close());

  const storeHistory = (apiKey: string, userId: number) => http(`${node.url}/user/transaction/list?user=${userId}&api_key=${enc(apiKey)}`);

  it("a kiosk key may not read a customer's history, even of its own program (403 forbidden)", async () => {
    const c = await signUpAt(node, home.vendorId);
    expectLegacyError(await storeHistory(home.kioskApiKey, c.userId), 403, 'forbidden');
    expect((await storeHistory(home.apiKey, c.userId)).status).toBe(200);
  });

  it('a cashier key stepping through customer ids meets the per-key limit (429) and learns nothing more', async () => {
    node.clock.advance(60_000);
    const c = await signUpAt(node, home.vendorId);
    const statuses: number[] = [];
    for (let id = c.userId - 3; id <= c.userId + 3; id++) statuses.push((await storeHistory(home.apiKey, id)).status);
    expect(statuses.slice(0, 5).every((s) => s === 200 || s === 404)).toBe(true);
    expect(statuses.slice(5)).toEqual([429, 429]);
    expectLegacyError(await storeHistory(home.apiKey, c.userId), 429, 'rate_limited');
    // The vendor's other keys count on their own.
    expect((await storeHistory(other.apiKey, c.userId)).status).toBe(404);
    node.clock.advance(60_000);
    expect((await storeHistory(home.apiKey, c.userId)).status).toBe(200);
  });

  it('checking in a customer of another program by email shows the cashier the first name and initial only, until they log in here', async () => {
    const c = await signUpAt(node, other.vendorId, { first_name: 'Ana', last_name: 'López', birthdate: 631152000 });
    await setPhoneAt(node, c, '0991234567', '593');

    const session = await api.checkInSessionOk(home.apiKey, c.email);
    const retrieved = await api.retrieveOk(home.apiKey, session.hash);
    expect(retrieved.user).toMatchObject({ first_name: 'Ana', last_name: 'L.', email_address: '', phone_number: '', birthdate: null });
    const queue = await api.queueOk(home.apiKey);
    const entry = queue.find((e: any) => e.pos_session.hash === session.hash);
    expect(entry.pos_session.user).toMatchObject({ first_name: 'Ana', last_name: 'L.', email_address: '' });
    const order = await api.orderOk(home.apiKey, { pos_session_hash: session.hash, receipt_number: `R-${randomBytes(3).toString('hex')}`, subtotal: 3 });
    expect(order.user).toMatchObject({ first_name: 'Ana', last_name: 'L.' });

    // The customer chooses this program: from then on the counter sees them in full.
    await loginOkAt(node, c.email, PASSWORD, home.vendorId);
    const again = await api.checkInSessionOk(home.apiKey, c.email);
    const full = await api.retrieveOk(home.apiKey, again.hash);
    expect(full.user).toMatchObject({ first_name: 'Ana', last_name: 'López', email_address: c.email, phone_number: '+593991234567', birthdate: 631152000 });
  });

  it("the program's own customers are shown in full, and a barcode from this program's app confirms at once", async () => {
    const own = await signUpAt(node, home.vendorId, { first_name: 'Bea', last_name: 'Ruiz' });
    const session = await api.checkInSessionOk(home.apiKey, own.email);
    expect((await api.retrieveOk(home.apiKey, session.hash)).user).toMatchObject({ last_name: 'Ruiz', email_address: own.email });
  });
});

describe('rate limits are shared by every process of one database (issue 17, item 10)', () => {
  it('two apps over one SQLite file count one window: the limit holds across them', async () => {
    const dir = makeTempDir();
    const clock = new ManualClock();
    const nodeKey = randomBytes(32);
    const file = `${dir.path}/punchcard.db`;
    const engines = [];
    const apps = [];
    try {
      for (let i = 0; i < 2; i++) {
        const engine = await startEngine({ database: openSqlite(file), nodeKey, clock, role: 'store' });
        engines.push(engine);
        const app = await buildApp({ engine, role: 'store', version: 'test', rateLimits: { ...ROOMY_RATE_LIMITS, lookup: { perClient: 4, perAccount: ROOMY.perAccount, windowSeconds: 60 } } });
        apps.push(app);
      }
      const vendor = await setUpVendor(engines[0]!, { name: 'Shared', currency: 'USD', country: 'US', store: { name: 'Main', address1: '1 Main St', city: 'Springfield' } });
      const urls = await Promise.all(apps.map((app) => app.listen({ port: 0, host: '127.0.0.1' })));
      const lookup = (url: string) => http(`${url}/user/email/exists?email=someone%40example.com&vendor=${vendor.vendorId}`);
      const statuses = [];
      for (let i = 0; i < 6; i++) statuses.push((await lookup(urls[i % 2]!)).status);
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
      // No email or IP address is stored: only keyed digests.
      const rows = await engines[0]!.db.selectFrom('rate_limit_windows').selectAll().execute();
      expect(rows.length).toBeGreaterThan(0);
      expect(JSON.stringify(rows)).not.toMatch(/someone|127\.0\.0\.1/);
    } finally {
      for (const app of apps) await app.close();
      for (const engine of engines) await engine.close();
      dir.remove();
    }
  });
});
