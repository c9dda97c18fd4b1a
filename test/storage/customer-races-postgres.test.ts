import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmAccountDeletion } from '../../src/core/customers/account-deletion';
import { CODE_POLICY, issueCode } from '../../src/core/customers/one-time-codes';
import { applyPasswordReset } from '../../src/core/customers/password-reset';
import { updateProfile } from '../../src/core/customers/profile';
import { registerCustomer } from '../../src/core/customers/register-customer';
import { activateAccount } from '../../src/core/customers/verification';
import { type Engine, startEngine } from '../../src/core/engine';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { isServiceError } from '../../src/shared/errors';
import { ManualClock } from '../support/clock';
import { openTestPostgres } from '../support/postgres';

// Customer accounts under concurrent requests on PostgreSQL (READ COMMITTED): what SQLite's single
// writer never shows. Each race is staged on separate connections: a lock held from outside stops
// both requests at the same step, after each has read what it decides on.
describe.skipIf(!process.env.PG_URL)('customer accounts raced on PostgreSQL (PG_URL)', () => {
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

  /** Resolves once `count` backends of this database wait on a lock (`observer` outside a transaction: pg_stat_activity is read once per transaction). */
  async function waitForLockWaits(observer: pg.Client, count: number): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const waiting = await observer.query("select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'");
      if (waiting.rows[0].n >= count) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`${count} connections did not wait for a lock within 10 s`);
  }

  /** Runs `requests` while `holder` keeps a row locked (taken with `lockSql`), releasing it once every request waits on it. */
  async function raceBehindLock<T>(lockSql: string, params: unknown[], requests: Array<() => Promise<T>>): Promise<PromiseSettledResult<T>[]> {
    const holder = await connect();
    await holder.query('begin');
    await holder.query(lockSql, params);
    const settled = Promise.allSettled(requests.map((request) => request()));
    await waitForLockWaits(await connect(), requests.length);
    await holder.query('commit');
    return settled;
  }

  const HOLD_ID_COUNTER = "update id_sequences set value = value where name = 'objects'";

  function reasonOf(result: PromiseSettledResult<unknown>): string {
    if (result.status === 'fulfilled') return 'ok';
    return isServiceError(result.reason) ? result.reason.code : `raw: ${String(result.reason)}`;
  }

  async function newCustomer(email: string) {
    const { user } = await registerCustomer(engine, { vendorId: vendor.vendorId, firstName: 'Ana', lastName: 'Race', email, password: 'correct horse 1', terms: true });
    return { sessionId: 0, userId: user.id, vendorId: vendor.vendorId };
  }

  beforeAll(async () => {
    database = await openTestPostgres();
    engine = await startEngine({ database: database.database, nodeKey: randomBytes(32), clock, role: 'central' });
    vendor = await setUpVendor(engine, { name: 'Race Tea', currency: 'USD', country: 'US', store: { name: 'Main', address1: '1 Main', city: 'Springfield' } });
  });

  afterAll(async () => {
    for (const client of clients) await client.end();
    await engine?.close();
    await database?.drop();
  });

  it('one email registered twice at once: one account, the other 409 email_taken (not a unique-index 500)', async () => {
    const register = () => registerCustomer(engine, { vendorId: vendor.vendorId, firstName: 'Ana', lastName: 'Twice', email: 'twice@race.test', password: 'correct horse 1', terms: true });
    const results = await raceBehindLock(HOLD_ID_COUNTER, [], [register, register]);
    expect(results.map(reasonOf).sort()).toEqual(['email_taken', 'ok']);
    const users = await engine.db.selectFrom('users').select('id').where('email_key', '=', 'twice@race.test').execute();
    expect(users).toHaveLength(1);
  });

  it('two customers setting the same new metadata field at once both keep their value', async () => {
    const a = await newCustomer('meta.a@race.test');
    const b = await newCustomer('meta.b@race.test');
    const results = await raceBehindLock(HOLD_ID_COUNTER, [], [
      () => updateProfile(engine, a, { metadata: { shoe_size: '38' } }),
      () => updateProfile(engine, b, { metadata: { shoe_size: '44' } }),
    ]);
    expect(results.map(reasonOf)).toEqual(['ok', 'ok']);
    const fields = await engine.db.selectFrom('metadata_fields').select('id').where('vendor_id', '=', vendor.vendorId).where('name', '=', 'shoe_size').execute();
    expect(fields).toHaveLength(1);
    const values = await engine.db.selectFrom('user_metadata').select('value').where('field_id', '=', fields[0]!.id).orderBy('value').execute();
    expect(values.map((v) => v.value)).toEqual(['38', '44']);
  });

  it('a password-reset token applied twice at once sets one password; the other is 400 invalid_code', async () => {
    const customer = await newCustomer('reset.twice@race.test');
    const token = await issueCode(engine.db, engine, { userId: customer.userId, vendorId: vendor.vendorId, purpose: 'password_reset' });
    const results = await raceBehindLock('select id from one_time_codes where user_id = $1 for update', [customer.userId], [
      () => applyPasswordReset(engine, { token, password: 'first new password' }),
      () => applyPasswordReset(engine, { token, password: 'second new password' }),
    ]);
    expect(results.map(reasonOf).sort()).toEqual(['invalid_code', 'ok']);
  });

  it('a deletion code confirmed twice at once deletes once; the other is 400 invalid_code', async () => {
    const customer = await newCustomer('delete.twice@race.test');
    const code = await issueCode(engine.db, engine, { userId: customer.userId, vendorId: vendor.vendorId, purpose: 'account_deletion' });
    const results = await raceBehindLock('select id from one_time_codes where user_id = $1 for update', [customer.userId], [
      () => confirmAccountDeletion(engine, { vendorId: vendor.vendorId, code }),
      () => confirmAccountDeletion(engine, { vendorId: vendor.vendorId, code }),
    ]);
    expect(results.map(reasonOf).sort()).toEqual(['invalid_code', 'ok']);
  });

  it('wrong verification codes sent at once all count: the allowed number of tries kills the code', async () => {
    const customer = await newCustomer('verify.burst@race.test');
    const code = await issueCode(engine.db, engine, { userId: customer.userId, vendorId: vendor.vendorId, purpose: 'email_verification', target: 'verify.burst@race.test' });
    const wrong = code === '000000' ? '000001' : '000000';
    // As many at once as the engine's pool has connections (4), then the rest one by one.
    const atOnce = Array.from({ length: 4 }, () => () => activateAccount(engine, customer, wrong));
    const results = await raceBehindLock('select id from one_time_codes where user_id = $1 for update', [customer.userId], atOnce);
    expect(results.map(reasonOf)).toEqual(atOnce.map(() => 'invalid_code'));
    for (let i = atOnce.length; i < CODE_POLICY.email_verification.maxAttempts; i++) await expect(activateAccount(engine, customer, wrong)).rejects.toMatchObject({ code: 'invalid_code' });
    await expect(activateAccount(engine, customer, code)).rejects.toMatchObject({ code: 'invalid_code' });
    const user = await engine.db.selectFrom('users').select('email_verified_at').where('id', '=', customer.userId).executeTakeFirstOrThrow();
    expect(user.email_verified_at).toBeNull();
  });
});
