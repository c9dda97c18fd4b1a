import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerCustomer } from '../../src/core/customers/register-customer';
import { type Engine, startEngine } from '../../src/core/engine';
import { findBalanceMismatches } from '../../src/core/ledger/ledger';
import { addBillingProfile } from '../../src/core/payments/billing-profiles/manage-billing-profiles';
import { quickPayCurrencyOf } from '../../src/core/payments/quick-pay/credit-quick-pay';
import { reloadQuickPay } from '../../src/core/payments/reloads/reload-quick-pay';
import { composeId } from '../../src/core/storage/ids';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ManualClock } from '../support/clock';
import { openTestPostgres, waitForLockWait } from '../support/postgres';

// Two reloads with one idempotency key at once on PostgreSQL. CI once saw "deadlock detected":
// the second request, holding the id counter, inserted the key while the first request's result
// update (a non-HOT update: the status index changes) held a new entry for the key in the unique
// index, and the first then waited for the id counter to credit the balance. The interleaving is
// staged here step by step on separate connections; it needs a server (PGlite has one connection).
describe.skipIf(!process.env.PG_URL)('one idempotency key asked twice at once, on PostgreSQL (PG_URL)', () => {
  let database: Awaited<ReturnType<typeof openTestPostgres>>;
  let engine: Engine;
  let vendor: VendorCredentials;
  const clock = new ManualClock();
  const clients: pg.Client[] = [];

  async function connect(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    clients.push(client);
    return client;
  }

  beforeAll(async () => {
    database = await openTestPostgres();
    engine = await startEngine({ database: database.database, nodeKey: randomBytes(32), clock, role: 'central' });
    vendor = await setUpVendor(engine, { name: 'Race Coffee', currency: 'USD', country: 'US', store: { name: 'Main', address1: '1 Main', city: 'Springfield' } });
  });

  afterAll(async () => {
    for (const client of clients) await client.end();
    await engine?.close();
    await database?.drop();
  });

  it('the second request finds the first one’s charge instead of deadlocking on the key', async () => {
    const { user } = await registerCustomer(engine, { vendorId: vendor.vendorId, firstName: 'Ana', lastName: 'Race', email: 'ana@race.test', password: 'correct horse 1', terms: true });
    const session = { sessionId: 0, userId: user.id, vendorId: vendor.vendorId };
    const year = String(new Date(clock.now()).getUTCFullYear() + 2);
    const visa = await addBillingProfile(engine, session, { number: '4242424242424242', expiryMonth: '01', expiryYear: year, cvv: '123' });
    const currency = await quickPayCurrencyOf(engine.db, vendor.vendorId);

    // Hold the id counter, so the second request stops right before it inserts.
    const counterHolder = await connect();
    await counterHolder.query('begin');
    await counterHolder.query("update id_sequences set value = value where name = 'objects'");
    const second = reloadQuickPay(engine, session, { profileId: visa.id, amount: 10, idempotencyKey: 'same-key' });
    await waitForLockWait(counterHolder);

    // Meanwhile the first request's charge commits and its result update begins.
    const first = await connect();
    const chargeId = composeId(engine.nodeId, 2 ** 31);
    await first.query(
      `insert into payment_charges (id, vendor_id, user_id, billing_profile_id, purpose, amount, currency, currency_id, gateway, gateway_charge_id,
         idempotency_key, fingerprint, status, decline_reason, transaction_id, credited_at, created_at, updated_at, completed_at)
       values ($1, $2, $3, $4, 'reload', 1000, $5, $6, $7, null, $8, $9, 'created', null, null, null, $10, $10, null)`,
      [chargeId, vendor.vendorId, user.id, visa.id, currency.code, currency.id, engine.payments.name, `user:${user.id}:same-key`, `reload:${visa.id}:1000:${currency.code}`, clock.now()],
    );
    await first.query('begin');
    await first.query('update payment_charges set updated_at = updated_at + 1 where id = $1', [chargeId]);

    // The second request goes on; then the first asks for the id counter to credit the reload.
    await counterHolder.query('commit');
    const firstCredits = first.query("update id_sequences set value = value + 1 where name = 'objects'");
    await firstCredits;
    await first.query('commit');

    const outcome = await second;
    expect(outcome.charge.id).toBe(chargeId);
    expect(outcome.charge.status).toBe('succeeded');
    const charges = await engine.db.selectFrom('payment_charges').select('id').where('user_id', '=', user.id).execute();
    expect(charges.map((c) => c.id)).toEqual([chargeId]);
    expect(outcome.balance).toBe(1000);
    expect(await findBalanceMismatches(engine.db)).toEqual([]);
  });
});

/** Resolves once a backend of this database is waiting on a lock (the request stopped at the counter). */
