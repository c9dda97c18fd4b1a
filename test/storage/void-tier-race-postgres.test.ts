import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateApiKey, type StoreScope } from '../../src/core/credentials/authenticate';
import { type Engine, startEngine } from '../../src/core/engine';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { tierPoints } from '../../src/core/orders/tier-points';
import { voidOrder } from '../../src/core/orders/void-order';
import { createTier } from '../../src/core/rules/tiers/create-tier';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ManualClock } from '../support/clock';
import { openTestPostgres } from '../support/postgres';

// A void moves a member's tier down (takeBackTier, FOR UPDATE on the membership). An order of the same
// member running at the same time read the membership before it waited behind the void (here on the
// node's id counter): it promotes from the membership read again under the lock, so the member ends in
// the tier their standing points reach, not below it (place-order.ts, membershipToPromote).
describe.skipIf(!process.env.PG_URL)('a void and a sale of one member at once, on PostgreSQL (PG_URL)', () => {
  let database: Awaited<ReturnType<typeof openTestPostgres>>;
  let engine: Engine;
  let vendor: VendorCredentials;
  let scope: StoreScope;
  const clock = new ManualClock();

  beforeAll(async () => {
    database = await openTestPostgres();
    engine = await startEngine({ database: database.database, nodeKey: randomBytes(32), clock, role: 'store' });
    vendor = await setUpVendor(engine, { name: 'Void Race', currency: 'USD', country: 'US', store: { name: 'Main', address1: '1 Main', city: 'Springfield' } });
    scope = await authenticateApiKey(engine, vendor.apiKey);
    await createTier(engine, { vendorId: vendor.vendorId }, { name: 'Silver', threshold: 100, windowDays: null });
    await createTier(engine, { vendorId: vendor.vendorId }, { name: 'Gold', threshold: 1000, windowDays: null });
  });

  afterAll(async () => {
    await engine?.close();
    await database?.drop();
  });

  async function lockWaiters(observer: pg.Client, n: number): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const waiting = await observer.query("select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'");
      if (waiting.rows[0].n >= n) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`fewer than ${n} connections waited for a lock within 10 s`);
  }

  it('the member ends in the tier their standing points reach', async () => {
    const email = 'race@void.test';
    const { session } = await registerInStore(engine, scope, { email });
    const userId = Number(session.user_id);
    clock.advance(60_000);
    await placeOrder(engine, scope, { identification: email, receiptNumber: 'A', subtotal: 100 }); // → Silver
    clock.advance(60_000);
    const tierName = async () =>
      (await engine.db.selectFrom('user_vendors as uv').innerJoin('tiers as t', 't.id', 'uv.tier_id').select('t.name').where('uv.user_id', '=', userId).executeTakeFirstOrThrow()).name;
    expect(await tierName()).toBe('Silver');
    // Every PostgreSQL transaction that makes an object id takes the node's id counter row
    // (id_sequences 'objects') until it commits; another transaction holds it for a moment here, as
    // any write of the node does.
    const holder = new pg.Client({ connectionString: database.url });
    const observer = new pg.Client({ connectionString: database.url });
    await holder.connect();
    await observer.connect();
    try {
      await holder.query('begin');
      await holder.query("select value from id_sequences where name = 'objects' for update");
      // Till 1 voids sale A: it has moved the points balance and waits for its first id …
      const voided = voidOrder(engine, scope, 'A');
      await lockWaiters(observer, 1);
      // … as till 2 rings up sale B: it has read the membership (Silver) and waits for the order's id.
      const sold = placeOrder(engine, scope, { identification: email, receiptNumber: 'B', subtotal: 100 });
      await lockWaiters(observer, 2);
      await holder.query('rollback');
      await Promise.all([voided, sold]);
    } finally {
      await holder.end().catch(() => undefined);
      await observer.end();
    }

    // A voided, B stands: 100 points, Silver's threshold is 100 (no window).
    expect(await tierPoints(engine.db, { vendorId: vendor.vendorId, userId }, null, clock.now())).toBe(100);
    expect(await tierName()).toBe('Silver');
  });
});
