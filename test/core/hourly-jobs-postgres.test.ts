import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { type Engine, startEngine, transact } from '../../src/core/engine';
import { expirePoints } from '../../src/core/expiry/expire-points';
import { createTier } from '../../src/core/rules/tiers/create-tier';
import { demoteTiers } from '../../src/core/rules/tiers/demote-tiers';
import { findBalanceMismatches, openAccount, postEntry } from '../../src/core/ledger/ledger';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { openPostgres } from '../../src/core/storage/database';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ManualClock } from '../support/clock';
import { openTestPostgres } from '../support/postgres';

const DAY = 24 * 3600_000;

// Two central processes on one PostgreSQL run the hourly jobs each (issue 13, item 6): their runs
// may meet on the same accounts and members. Each account's expiry takes the account's row first,
// and each member's demotion the membership's, so the second reads what the first wrote and finds
// nothing more to do. Needs a server (PGlite has one connection).
describe.skipIf(!process.env.PG_URL)('hourly jobs run by two central processes at once (PG_URL)', () => {
  let database: Awaited<ReturnType<typeof openTestPostgres>>;
  const engines: Engine[] = [];
  let vendor: VendorCredentials;
  const clock = new ManualClock();

  beforeAll(async () => {
    database = await openTestPostgres();
    engines.push(await startEngine({ database: database.database, nodeKey: randomBytes(32), clock, role: 'central' }));
    vendor = await setUpVendor(engines[0]!, { name: 'Twice', currency: 'USD', country: 'US', store: { name: 'Main', address1: '1 Main', city: 'Springfield' } });
    engines.push(await startEngine({ database: openPostgres(database.url!, 4), nodeKey: randomBytes(32), clock, role: 'central' }));
  });

  afterAll(async () => {
    for (const engine of engines.reverse()) await engine.close();
    await database.drop();
  });

  it('expires each account once, whichever process gets there first', async () => {
    const [one, two] = engines as [Engine, Engine];
    const accounts: number[] = [];
    const scope = await authenticateApiKey(one, vendor.apiKey);
    for (let holder = 1; holder <= 20; holder += 1) {
      // Real members: the expiry goes in their history too.
      const userId = Number((await registerInStore(one, scope, { email: `expiring${holder}@twice.test` })).session.user_id);
      const id = await transact(one, (trx) => openAccount(trx, one, { vendorId: vendor.vendorId, currencyId: vendor.loyaltyCurrencyId, holderType: 'user', holderId: userId }));
      await transact(one, (trx) => postEntry(trx, one, id, { amount: 50 + holder, kind: 'earn', expiresAt: clock.now() + DAY }));
      accounts.push(id);
    }
    clock.advance(2 * DAY);
    const [a, b] = await Promise.all([expirePoints(one), expirePoints(two)]);
    expect(a.points + b.points).toBe(accounts.reduce((sum, _, i) => sum + 51 + i, 0));
    const expiries = await one.db.selectFrom('ledger_entries').select('account_id').where('kind', '=', 'expiry').execute();
    expect(expiries).toHaveLength(20);
    expect(new Set(expiries.map((e) => Number(e.account_id))).size).toBe(20);
    const balances = await one.db.selectFrom('ledger_accounts').select('balance').where('id', 'in', accounts).execute();
    expect(balances.every((row) => Number(row.balance) === 0)).toBe(true);
    expect(await findBalanceMismatches(one.db)).toEqual([]);
  });

  it('moves each member down once, whichever process gets there first', async () => {
    const [one, two] = engines as [Engine, Engine];
    const gold = await createTier(one, { vendorId: vendor.vendorId }, { name: 'Gold', threshold: 1_000_000, windowDays: 30 });
    const goldId = Number((await one.db.selectFrom('tiers').select('id').where('public_id', '=', gold.publicId).executeTakeFirstOrThrow()).id);
    // Members who reached Gold 31 days ago and earned nothing since.
    const scope = await authenticateApiKey(one, vendor.apiKey);
    const userIds: number[] = [];
    for (let i = 0; i < 10; i += 1) userIds.push(Number((await registerInStore(one, scope, { email: `gold${i}@twice.test` })).session.user_id));
    await one.db.updateTable('user_vendors').set({ tier_id: goldId, tier_since: clock.now() - 31 * DAY }).where('user_id', 'in', userIds).execute();
    const [a, b] = await Promise.all([demoteTiers(one), demoteTiers(two)]);
    expect(a.demoted + b.demoted).toBe(10);
    const changes = await one.db.selectFrom('transactions').select('user_id').where('kind', '=', 'tier_change').execute();
    expect(changes).toHaveLength(10);
    expect(new Set(changes.map((c) => Number(c.user_id))).size).toBe(10);
  });

  it('reads, and does not wait for, a member who keeps their tier while a counter holds their membership', async () => {
    const [one] = engines as [Engine, Engine];
    const silver = await createTier(one, { vendorId: vendor.vendorId }, { name: 'Silver', threshold: 100, windowDays: 30 });
    const silverId = Number((await one.db.selectFrom('tiers').select('id').where('public_id', '=', silver.publicId).executeTakeFirstOrThrow()).id);
    const scope = await authenticateApiKey(one, vendor.apiKey);
    const userId = Number((await registerInStore(one, scope, { email: 'keeps@twice.test' })).session.user_id);
    const account = await transact(one, (trx) => openAccount(trx, one, { vendorId: vendor.vendorId, currencyId: vendor.loyaltyCurrencyId, holderType: 'user', holderId: userId }));
    await transact(one, (trx) => postEntry(trx, one, account, { amount: 150, kind: 'earn' }));
    // Reached Silver 31 days ago and earned 150 points in the last 30: keeps it.
    await one.db.updateTable('user_vendors').set({ tier_id: silverId, tier_since: clock.now() - 31 * DAY }).where('user_id', '=', userId).execute();
    const link = await one.db.selectFrom('user_vendors').select('id').where('user_id', '=', userId).where('vendor_id', '=', vendor.vendorId).executeTakeFirstOrThrow();
    const counter = openPostgres(database.url!, 1);
    try {
      const outcome = await counter.db.transaction().execute(async (trx) => {
        await sql`select id from user_vendors where id = ${link.id} for update`.execute(trx);
        // Before: every due member took their row in a transaction of its own, so the run waited for the counter.
        const timeout = new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 5_000));
        return Promise.race([demoteTiers(one), timeout]);
      });
      expect(outcome).toEqual({ demoted: 0 });
      expect((await one.db.selectFrom('user_vendors').select('tier_id').where('id', '=', link.id).executeTakeFirstOrThrow()).tier_id).toBe(silverId);
    } finally {
      await counter.db.destroy();
    }
  }, 30_000);
});
