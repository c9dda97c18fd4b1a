import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerCustomer } from '../../src/core/customers/register-customer';
import { type Engine, startEngine, transact } from '../../src/core/engine';
import { openAccount } from '../../src/core/ledger/ledger';
import { composeId } from '../../src/core/storage/ids';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ManualClock } from '../support/clock';
import { openTestPostgres, waitForLockWait } from '../support/postgres';

// Two transactions opening the same ledger account at once on PostgreSQL (a new customer's first
// orders at two tills, two stores' pushes at central): the second used to fail on the account's
// unique key, a 500 or a refused sale. Staged on separate connections; it needs a server.
describe.skipIf(!process.env.PG_URL)('one ledger account opened twice at once, on PostgreSQL (PG_URL)', () => {
  let database: Awaited<ReturnType<typeof openTestPostgres>>;
  let engine: Engine;
  let vendor: VendorCredentials;
  let other: pg.Client;
  const clock = new ManualClock();

  beforeAll(async () => {
    database = await openTestPostgres();
    engine = await startEngine({ database: database.database, nodeKey: randomBytes(32), clock, role: 'central' });
    vendor = await setUpVendor(engine, { name: 'Two Tills', currency: 'USD', country: 'US', store: { name: 'Main', address1: '1 Main', city: 'Springfield' } });
    other = new pg.Client({ connectionString: database.url });
    await other.connect();
  });

  afterAll(async () => {
    await other?.end();
    await engine?.close();
    await database?.drop();
  });

  it('the second waits for the first and answers the account the first opened', async () => {
    const { user } = await registerCustomer(engine, { vendorId: vendor.vendorId, firstName: 'Fay', lastName: 'First', email: 'fay@race.test', password: 'correct horse 1', terms: true });
    const key = { vendorId: vendor.vendorId, currencyId: vendor.quickPayCurrencyId, holderType: 'user' as const, holderId: user.id };
    const firstId = composeId(engine.nodeId, 2 ** 31);
    // The first till has opened the account and not committed yet.
    await other.query('begin');
    await other.query('insert into ledger_accounts (id, vendor_id, currency_id, holder_type, holder_id, balance, updated_at) values ($1, $2, $3, $4, $5, 0, $6)', [
      firstId, key.vendorId, key.currencyId, key.holderType, key.holderId, clock.now(),
    ]);
    const second = transact(engine, (trx) => openAccount(trx, engine, key));
    const observer = new pg.Client({ connectionString: database.url });
    await observer.connect();
    await waitForLockWait(observer);
    await observer.end();
    await other.query('commit');

    expect(await second).toBe(firstId);
    const accounts = await engine.db.selectFrom('ledger_accounts').select('id').where('holder_id', '=', user.id).where('currency_id', '=', key.currencyId).execute();
    expect(accounts.map((row) => row.id)).toEqual([firstId]);
  });
});
