import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { confirmAccountDeletion } from '../../src/core/customers/account-deletion';
import { insertUser } from '../../src/core/customers/customer-store';
import { CODE_POLICY, issueCode } from '../../src/core/customers/one-time-codes';
import { applyPasswordReset } from '../../src/core/customers/password-reset';
import { updateProfile } from '../../src/core/customers/profile';
import { registerCustomer } from '../../src/core/customers/register-customer';
import { activateAccount, sendSmsVerification } from '../../src/core/customers/verification';
import { type Engine, startEngine, transact } from '../../src/core/engine';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { lockCustomerIdentifiers } from '../../src/core/sync/central/push-locks';
import type { PushedEvent } from '../../src/core/sync/protocol';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { isServiceError } from '../../src/shared/errors';
import { ManualClock } from '../support/clock';
import { openTestPostgres, waitForLockWait } from '../support/postgres';
import { waitForLockWaits } from '../support/pg-lock-waits';

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

  const registerWith = (email: string, extra: { phone?: string; cedula?: string; vendorId?: number } = {}) => () =>
    registerCustomer(engine, { vendorId: extra.vendorId ?? vendor.vendorId, firstName: 'Ana', lastName: 'Race', email, password: 'correct horse 1', terms: true, phone: extra.phone, cedula: extra.cedula });
  const holdersOf = (column: 'phone' | 'cedula' | 'passport_number', value: string) => engine.db.selectFrom('users').select('id').where(column, '=', value).execute();
  const HOLD_USERS = 'select id from users where id = any($1) for update';

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

  // A phone, a cédula and a passport number have no unique index (merged and deleted customers
  // keep rows): each command that sets one takes its advisory lock before checking it is free.
  it('one new phone registered by two accounts at once: one gets it, the other 409 phone_taken', async () => {
    const phone = '+14155550161';
    const results = await raceBehindLock(HOLD_ID_COUNTER, [], [registerWith('phone.a@race.test', { phone }), registerWith('phone.b@race.test', { phone })]);
    expect(results.map(reasonOf).sort()).toEqual(['ok', 'phone_taken']);
    expect(await holdersOf('phone', phone)).toHaveLength(1);
  });

  it('two customers changing their profile to one new phone at once: one gets it, the other 409 phone_taken', async () => {
    const a = await newCustomer('profile.phone.a@race.test');
    const b = await newCustomer('profile.phone.b@race.test');
    const phone = '+14155550162';
    const results = await raceBehindLock(HOLD_USERS, [[a.userId, b.userId]], [
      () => updateProfile(engine, a, { phone_number: phone }),
      () => updateProfile(engine, b, { phone_number: phone }),
    ]);
    expect(results.map(reasonOf).sort()).toEqual(['ok', 'phone_taken']);
    expect(await holdersOf('phone', phone)).toHaveLength(1);
  });

  it('a number set with activate/sms and by a profile change at once: one account holds it', async () => {
    const a = await newCustomer('sms.phone.a@race.test');
    const b = await newCustomer('sms.phone.b@race.test');
    const results = await raceBehindLock(HOLD_USERS, [[a.userId, b.userId]], [
      () => sendSmsVerification(engine, a, { phone: '4155550163', country: 'US' }),
      () => updateProfile(engine, b, { phone_number: '+14155550163' }),
    ]);
    expect(results.map(reasonOf).sort()).toEqual(['ok', 'phone_taken']);
    expect(await holdersOf('phone', '+14155550163')).toHaveLength(1);
  });

  it('a newcomer registered at the counter by phone while signing up in the app with it: one account holds it', async () => {
    const scope = await authenticateApiKey(engine, vendor.apiKey);
    const phone = '+14155550164';
    const results = await raceBehindLock<unknown>(HOLD_ID_COUNTER, [], [() => registerInStore(engine, scope, { phone: { number: phone } }), registerWith('counter.phone@race.test', { phone })]);
    // The counter either made the account (the app's sign-up is then 409) or found the app's one.
    expect(results.map(reasonOf).filter((reason) => reason !== 'ok' && reason !== 'phone_taken')).toEqual([]);
    expect(await holdersOf('phone', phone)).toHaveLength(1);
  });

  it('two counters adding different new phones to one customer found by email: the first added stays', async () => {
    const scope = await authenticateApiKey(engine, vendor.apiKey);
    const { userId } = await newCustomer('two.phones@race.test');
    // Each waits on the customer's row, after reading it without a phone; the first in line updates first.
    const holder = await connect();
    await holder.query('begin');
    await holder.query(HOLD_USERS, [[userId]]);
    const observer = await connect();
    const first = registerInStore(engine, scope, { email: 'two.phones@race.test', phone: { number: '+14155550181' } });
    await waitForLockWaits(observer, 1);
    const second = registerInStore(engine, scope, { email: 'two.phones@race.test', phone: { number: '+14155550182' } });
    await waitForLockWaits(observer, 2);
    await holder.query('commit');
    expect((await Promise.allSettled([first, second])).map(reasonOf)).toEqual(['ok', 'ok']);
    const { phone } = await engine.db.selectFrom('users').select('phone').where('id', '=', userId).executeTakeFirstOrThrow();
    expect(phone).toBe('+14155550181');
  });

  it('one cedula registered by two accounts at once: one gets it, the other 409 cedula_taken', async () => {
    const ec = await setUpVendor(engine, { name: 'Carrera Quito', currency: 'USD', country: 'EC', store: { name: 'Centro', address1: 'Av. Amazonas', city: 'Quito' } });
    const results = await raceBehindLock(HOLD_ID_COUNTER, [], [registerWith('cedula.a@race.test', { cedula: '1710034065', vendorId: ec.vendorId }), registerWith('cedula.b@race.test', { cedula: '171003406-5', vendorId: ec.vendorId })]);
    expect(results.map(reasonOf).sort()).toEqual(['cedula_taken', 'ok']);
    expect(await holdersOf('cedula', '1710034065')).toHaveLength(1);
  });

  it('two customers setting one new passport number at once: one gets it, the other 409 passport_taken', async () => {
    const a = await newCustomer('passport.a@race.test');
    const b = await newCustomer('passport.b@race.test');
    const results = await raceBehindLock(HOLD_USERS, [[a.userId, b.userId]], [
      () => updateProfile(engine, a, { passport_number: 'RACE12345' }),
      () => updateProfile(engine, b, { passport_number: 'race-12345' }),
    ]);
    expect(results.map(reasonOf).sort()).toEqual(['ok', 'passport_taken']);
    expect(await holdersOf('passport_number', 'RACE12345')).toHaveLength(1);
  });

  it("a sign-up waits for a store's push carrying the same new phone (central's identifier locks are the same locks)", async () => {
    const phone = '+14155550165';
    const pushed = { changes: [{ tbl: 'users', op: 'insert', data: { phone } }] } as unknown as PushedEvent;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // The push: locks the phone as apply-push does, makes the customer, and commits once the sign-up waits.
    let made!: () => void;
    const didMake = new Promise<void>((resolve) => (made = resolve));
    const push = transact(engine, async (trx) => {
      await lockCustomerIdentifiers(trx, 'postgres', [pushed]);
      await insertUser(trx, engine, { email: null, email_key: null, password_hash: null, first_name: 'Offline', last_name: 'Guest', phone, cedula: null, birthdate: null, first_vendor_id: vendor.vendorId });
      made();
      await gate;
    });
    // The sign-up starts once the push holds its locks (under load it could otherwise go first).
    await Promise.race([didMake, push]);
    const signUp = registerWith('after.push@race.test', { phone })().then(
      () => 'ok',
      (error: unknown) => reasonOf({ status: 'rejected', reason: error }),
    );
    await waitForLockWait(await connect());
    release();
    await push;
    expect(await signUp).toBe('phone_taken');
    expect(await holdersOf('phone', phone)).toHaveLength(1);
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
