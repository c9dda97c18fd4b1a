import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailKey } from '../../src/core/customers/contact';
import { insertUser, linkUserToVendor } from '../../src/core/customers/customer-store';
import { registerCustomer } from '../../src/core/customers/register-customer';
import { type Engine, startEngine, transact } from '../../src/core/engine';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ManualClock } from '../support/clock';
import { openTestPostgres, waitForLockWait } from '../support/postgres';

// A sign-up racing the counter that opens a guest with the same email, on PostgreSQL: the sign-up
// reads no account, loses on the unique email and runs once more (onceMoreOnClash). That second run
// finds the guest: it must refuse (409 email_taken) like any sign-up over a guest, not set its
// password (the guest is claimed only by a password reset sent to its email).
describe.skipIf(!process.env.PG_URL)('a sign-up racing a counter guest with the same email, on PostgreSQL (PG_URL)', () => {
  let database: Awaited<ReturnType<typeof openTestPostgres>>;
  let engine: Engine;
  let vendor: VendorCredentials;
  const clock = new ManualClock();

  beforeAll(async () => {
    database = await openTestPostgres();
    engine = await startEngine({ database: database.database, nodeKey: randomBytes(32), clock, role: 'central' });
    vendor = await setUpVendor(engine, { name: 'Guest Race', currency: 'USD', country: 'US', store: { name: 'Main', address1: '1 Main', city: 'Springfield' } });
  });

  afterAll(async () => {
    await engine?.close();
    await database?.drop();
  });

  it('the second run of the sign-up finds the guest and answers 409 email_taken; the guest keeps no password', async () => {
    const email = 'walk.in@race.test';
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let guestId = 0;
    let made!: () => void;
    const didMake = new Promise<void>((resolve) => (made = resolve));
    // The counter: makes the guest and holds its transaction open until the sign-up waits on it.
    const counter = transact(engine, async (trx) => {
      const guest = await insertUser(trx, engine, { email, email_key: emailKey(email), password_hash: null, first_name: 'Guest', last_name: '', phone: null, cedula: null, birthdate: null, first_vendor_id: vendor.vendorId });
      await linkUserToVendor(trx, engine, { userId: guest.id, vendorId: vendor.vendorId, via: 'counter' });
      guestId = guest.id;
      made();
      await gate;
    });
    // The sign-up starts once the counter holds its locks (under load it could otherwise go first).
    await Promise.race([didMake, counter]);
    const observer = new pg.Client({ connectionString: database.url });
    await observer.connect();
    try {
      const signUp = registerCustomer(engine, { vendorId: vendor.vendorId, firstName: 'Mallory', lastName: 'Race', email, password: 'not my account 1', terms: true }).then(
        () => 'ok',
        (error: unknown) => (error as { code?: string }).code ?? String(error),
      );
      await waitForLockWait(observer);
      release();
      await counter;
      expect(await signUp).toBe('email_taken');
    } finally {
      release();
      await observer.end();
    }
    const rows = await engine.db.selectFrom('users').select(['id', 'password_hash', 'first_name']).where('email_key', '=', emailKey(email)).execute();
    expect(rows).toEqual([{ id: guestId, password_hash: null, first_name: 'Guest' }]);
  });
});
