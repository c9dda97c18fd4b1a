import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateApiKey, type StoreScope } from '../../src/core/credentials/authenticate';
import { insertUser, linkUserToVendor } from '../../src/core/customers/customer-store';
import { registerCustomer } from '../../src/core/customers/register-customer';
import { emailKey } from '../../src/core/customers/contact';
import { type Engine, startEngine, transact } from '../../src/core/engine';
import { checkIn } from '../../src/core/onscreen/check-in';
import { counterOf, openSession } from '../../src/core/onscreen/pos-session';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { nextObjectId } from '../../src/core/storage/ids';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ManualClock } from '../support/clock';
import { openTestPostgres, waitForLockWait } from '../support/postgres';

// Two counter commands for one customer at once on PostgreSQL (a double scan, two tills, two
// counters registering the same newcomer): both found no open session, membership or account and
// both made one; the second failed on the unique key, a 500 at the counter. The first is staged
// in a transaction held open until the second waits on it; it needs a server.
describe.skipIf(!process.env.PG_URL)('counter commands racing for one customer, on PostgreSQL (PG_URL)', () => {
  let database: Awaited<ReturnType<typeof openTestPostgres>>;
  let engine: Engine;
  let vendor: VendorCredentials;
  let scope: StoreScope;
  let count = 0;
  const clock = new ManualClock();

  beforeAll(async () => {
    database = await openTestPostgres();
    engine = await startEngine({ database: database.database, nodeKey: randomBytes(32), clock, role: 'store' });
    vendor = await setUpVendor(engine, { name: 'Two Counters', currency: 'USD', country: 'US', store: { name: 'Main', address1: '1 Main', city: 'Springfield' } });
    scope = await authenticateApiKey(engine, vendor.apiKey);
  });

  afterAll(async () => {
    await engine?.close();
    await database?.drop();
  });

  /** Runs `first` in a transaction kept open until `second` waits for it, then commits it. */
  async function whileHeld<T>(first: Parameters<typeof transact>[1], second: () => Promise<T>): Promise<T> {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let firstDone!: () => void;
    const didFirst = new Promise<void>((resolve) => (firstDone = resolve));
    const held = transact(engine, async (trx) => {
      await first(trx);
      firstDone();
      await gate;
    });
    // The second command starts once the first holds what it wrote (and the node's write lock,
    // taken at its first write): under load it could otherwise write first.
    await Promise.race([didFirst, held]);
    const observer = new pg.Client({ connectionString: database.url });
    await observer.connect();
    try {
      const outcome = second().then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );
      await waitForLockWait(observer);
      release();
      await held;
      const result = await outcome;
      if ('error' in result) throw result.error;
      return result.value;
    } finally {
      release();
      await observer.end();
    }
  }

  const newcomer = async (vendorId: number) => {
    const email = `racer${++count}@race.test`;
    const { user } = await registerCustomer(engine, { vendorId, firstName: 'Rae', lastName: 'Race', email, password: 'correct horse 1', terms: true });
    return { email, userId: user.id };
  };
  const openSessions = (userId: number) => engine.db.selectFrom('pos_sessions').select('hash').where('user_id', '=', userId).where('status', '=', 'active').execute();

  it('a double scan checks the customer in once: the second scan answers the session the first opened', async () => {
    const { email, userId } = await newcomer(vendor.vendorId);
    let firstHash = '';
    const second = await whileHeld(
      async (trx) => {
        const { session } = await openSession(trx, engine, counterOf(scope), { userId, identifiedBy: 'email', cardNumber: null, openedBy: 'cashier' });
        firstHash = session.hash;
      },
      () => checkIn(engine, scope, { identification: email }),
    );
    expect(second.session.hash).toBe(firstHash);
    expect(await openSessions(userId)).toEqual([{ hash: firstHash }]);
  });

  it("a customer new to the program buys at two tills at once: both sales go through", async () => {
    const other = await setUpVendor(engine, { name: `Elsewhere ${++count}`, currency: 'USD', country: 'US', store: { name: 'Far', address1: '2 Far', city: 'Springfield' } });
    // A customer of another program, joining this one at the counter.
    const { email, userId } = await newcomer(other.vendorId);
    const order = await whileHeld(
      (trx) => linkUserToVendor(trx, engine, { userId, vendorId: vendor.vendorId, via: 'counter', byCounter: true }),
      () => placeOrder(engine, scope, { identification: email, receiptNumber: `TILL-${count}`, subtotal: 5 }),
    );
    expect(order).toMatchObject({ status: 'Complete', pointsEarned: 5 });
    const memberships = await engine.db.selectFrom('user_vendors').select('id').where('user_id', '=', userId).where('vendor_id', '=', vendor.vendorId).execute();
    expect(memberships).toHaveLength(1);
  });

  /** Closes the customer's open session as an order does, in `trx`. */
  const closeByOrder = (trx: Parameters<Parameters<typeof transact>[1]>[0], hash: string) =>
    trx.updateTable('pos_sessions').set({ status: 'closed', closed_at: clock.now(), closed_reason: 'order', updated_at: clock.now() }).where('hash', '=', hash).execute();
  const sessionByHash = (hash: string) => engine.db.selectFrom('pos_sessions').select(['status', 'closed_reason']).where('hash', '=', hash).executeTakeFirstOrThrow();

  it('a check-in again at the store while an order closes the session opens a new session, never answering the closed one', async () => {
    const { email, userId } = await newcomer(vendor.vendorId);
    const first = await checkIn(engine, scope, { identification: email });
    // The check-in read the session open; the order's close commits before its touch.
    const again = await whileHeld(
      (trx) => closeByOrder(trx, first.session.hash),
      () => checkIn(engine, scope, { identification: email }),
    );
    expect(again.session.hash).not.toBe(first.session.hash);
    expect(again.session.status).toBe('active');
    expect(await openSessions(userId)).toEqual([{ hash: again.session.hash }]);
    expect(await sessionByHash(first.session.hash)).toEqual({ status: 'closed', closed_reason: 'order' });
  });

  it('a check-in at another store while an order closes the session there keeps the order\'s close (not moved twice)', async () => {
    const { email, userId } = await newcomer(vendor.vendorId);
    const first = await checkIn(engine, scope, { identification: email });
    const secondStore = await addStore(vendor.vendorId);
    const moved = await whileHeld(
      (trx) => closeByOrder(trx, first.session.hash),
      () => transact(engine, (trx) => openSession(trx, engine, { vendorId: vendor.vendorId, storeId: secondStore, posId: null }, { userId, identifiedBy: 'email', cardNumber: null, openedBy: 'cashier' })),
    );
    expect(moved.events.map((e) => e.type)).toEqual(['session.opened']);
    expect(await openSessions(userId)).toEqual([{ hash: moved.session.hash }]);
    expect(await sessionByHash(first.session.hash)).toEqual({ status: 'closed', closed_reason: 'order' });
  });

  it('an order by session hash while a check-in at another store moves that session keeps the move (not closed twice)', async () => {
    const { email, userId } = await newcomer(vendor.vendorId);
    const first = await checkIn(engine, scope, { identification: email });
    const secondStore = await addStore(vendor.vendorId);
    const closes: number[] = [];
    const stop = engine.events.subscribe(vendor.storeId, (event) => {
      if (event.type === 'session.closed' && event.sessionId === first.session.id) closes.push(event.at);
    });
    try {
      // The order waits for the move (every command takes the write lock first), then finds the
      // session moved away, as it would on SQLite's one writer: no sale on a session another store holds.
      const order = whileHeld(
        (trx) => openSession(trx, engine, { vendorId: vendor.vendorId, storeId: secondStore, posId: null }, { userId, identifiedBy: 'email', cardNumber: null, openedBy: 'cashier' }),
        () => placeOrder(engine, scope, { sessionHash: first.session.hash, receiptNumber: `MOVED-${count}`, subtotal: 4 }),
      );
      await expect(order).rejects.toMatchObject({ code: 'session_not_found' });
    } finally {
      stop();
    }
    expect(await sessionByHash(first.session.hash)).toEqual({ status: 'closed', closed_reason: 'moved' });
    expect(closes).toEqual([]);
    expect(await engine.db.selectFrom('orders').select('id').where('receipt_number', '=', `MOVED-${count}`).execute()).toEqual([]);
  });

  /** Another store of the vendor (no key: sessions are opened there directly). */
  async function addStore(vendorId: number): Promise<number> {
    return transact(engine, async (trx) => {
      const id = await nextObjectId(trx, engine.nodeId);
      const now = clock.now();
      await trx.insertInto('stores').values({ id, vendor_id: vendorId, name: `Side ${id}`, address1: '9 Side', address2: null, city: 'Springfield', region: null, country: 'US', postal_code: null, phone: null, created_at: now, updated_at: now }).execute();
      return id;
    });
  }

  it('two counters registering the same newcomer make one customer, checked in once', async () => {
    const email = `newcomer${++count}@race.test`;
    const registered = await whileHeld(
      (trx) =>
        insertUser(trx, engine, { email, email_key: emailKey(email), password_hash: null, first_name: 'Guest', last_name: '', phone: null, cedula: null, birthdate: null, first_vendor_id: vendor.vendorId }),
      () => registerInStore(engine, scope, { email }),
    );
    const users = await engine.db.selectFrom('users').select('id').where('email_key', '=', emailKey(email)).execute();
    expect(users).toHaveLength(1);
    expect(registered.session.user_id).toBe(users[0]!.id);
    expect(await openSessions(users[0]!.id)).toEqual([{ hash: registered.session.hash }]);
  });
});
