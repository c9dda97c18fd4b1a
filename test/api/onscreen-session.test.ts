import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addApiKey } from '../../src/core/credentials/api-keys';
import { transact } from '../../src/core/engine';
import { nextObjectId } from '../../src/core/storage/ids';
import { type Customer, deleteAccountAt, FORM, legacyErrorCheck, ROOMY_RATE_LIMITS, signUpAt, withSessionKey } from '../support/customers';
import { ACTIVE, expectBalancesAddUp, HASH, inStoreApi } from '../support/in-store';
import { http, startTestNode, type TestNode } from '../support/test-node';

// The life of an in-store session over real HTTP: one open session per customer (a repeat
// check-in at the same store is the same session; another store closes it), the store's queue
// (GET /onscreen/queue, including app check-ins), the retrieve-customer reply (GET /onscreen) with
// every field and real ledger balances, closing (DELETE /onscreen), and that no store or vendor
// sees another's sessions.

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});

afterAll(async () => {
  await node?.close();
});

// The ledger check of the in-store issue: every cached balance equals the sum of its entries.
afterEach(async () => {
  await expectBalancesAddUp(node);
});

// ---------------------------------------------------------------------------------------------
// helpers

const expectLegacyError = legacyErrorCheck({ noStackTrace: true });
const TIER_TEXT = { summary: 'Welcome to the program.', description: 'Every member earns points on every visit.' };
const EMPTY_EXPIRING = { data: [], page_size: 25, count: 0, page: 1 };

const nowSec = () => Math.floor(node.clock.now() / 1000);
const sec = (ms: number) => Math.floor(ms / 1000);
const enc = encodeURIComponent;

let vendorCount = 0;
const addVendor = () => node.addVendor(`Sessions ${++vendorCount}`);



const signUp = (vendorId: number, overrides: Record<string, unknown> = {}) => signUpAt(node, vendorId, overrides);
const inStore = inStoreApi(() => node);
const queue = (apiKey: string, path = '/onscreen/queue') => http(`${node.url}${path}?api_key=${enc(apiKey)}`);
const { addStoreWithKiosk: addStore, checkIn, checkInOk, retrieve, retrieveOk, close, sessionRow, credit } = inStore;
const queueOk = (apiKey: string) => inStore.queueOk(apiKey, { expectArray: true });
/** The hashes of the store's queue, in order. */
const queueHashes = (apiKey: string) => inStore.queueHashes(apiKey, { expectArray: true });
const closeOk = (apiKey: string, hash: string) => inStore.closeOk(apiKey, hash, { expectEmpty: true });
const deleteAccount = (c: Customer) => deleteAccountAt(node, c);









const appCheckIn = (c: Customer, store: unknown) => http(`${node.url}${withSessionKey('/vendor/store/check-in', c.key)}`, { method: 'POST', body: { store } });


/** The queue entry of a session: every field, exactly. */
function queueEntry(
  session: { id: number; hash: string; date_created: number; date_updated: number },
  store: { storeId: number; name: string },
  c: { userId: number; first_name?: string; last_name?: string; email: string },
) {
  return {
    pos_session: {
      id: session.id,
      object: 'pos_session',
      hash: session.hash,
      date_created: session.date_created,
      date_updated: session.date_updated,
      status: ACTIVE,
      vendor: { vendor_id: store.storeId, name: store.name },
      user: { user_id: String(c.userId), first_name: c.first_name ?? 'Ana', last_name: c.last_name ?? 'López', email_address: c.email },
      table_number: null,
      redemptions: [],
      payments: [],
    },
  };
}


async function entryTier(vendorId: number) {
  return node.engine.db.selectFrom('tiers').selectAll().where('vendor_id', '=', vendorId).orderBy('threshold').executeTakeFirstOrThrow();
}

async function defaultRuleId(vendorId: number): Promise<number> {
  return (await node.engine.db.selectFrom('earning_rules').select('id').where('vendor_id', '=', vendorId).executeTakeFirstOrThrow()).id;
}

async function openSessionsOf(userId: number) {
  return node.engine.db.selectFrom('pos_sessions').select(['hash', 'store_id']).where('user_id', '=', userId).where('status', '=', 'active').execute();
}


// ---------------------------------------------------------------------------------------------

describe('one open session per customer', () => {
  it('a second check-in at the same store answers 201 with the SAME session (id, hash, date_created), date_updated moved on; the queue lists the customer once', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const first = await checkInOk(v.apiKey, c.email);
    const opened = nowSec();
    node.clock.advance(42_000);
    const second = await checkInOk(v.apiKey, c.email.toUpperCase());
    expect(second.pos_session).toStrictEqual({ ...first.pos_session, date_created: opened, date_updated: nowSec() });
    expect(second.pos_session.date_updated).toBe(opened + 42);
    // the kiosk too finds the same session
    const kiosk = await checkInOk(v.kioskApiKey, c.email);
    expect(kiosk.pos_session.hash).toBe(first.pos_session.hash);

    const entries = await queueOk(v.apiKey);
    expect(entries).toStrictEqual([queueEntry(second.pos_session, { storeId: v.storeId, name: 'Main Store' }, c)]);
    expect(await openSessionsOf(c.userId)).toHaveLength(1);
  });

  it('the repeat check-in keeps the latest identification: card, then email (card back to null)', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const number = `Rep${Date.now().toString(36)}`;
    expect((await http(`${node.url}/cards`, { method: 'POST', token: v.accessToken, body: { number } })).status).toBe(201);
    expect((await http(`${node.url}${withSessionKey('/user/card/add', c.key)}`, { method: 'POST', body: { number } })).status).toBe(200);
    const byCard = await checkInOk(v.apiKey, number.toLowerCase());
    expect((await retrieveOk(v.apiKey, byCard.pos_session.hash)).pos_session.card).toBe(number);
    const byEmail = await checkInOk(v.apiKey, c.email);
    expect(byEmail.pos_session.hash).toBe(byCard.pos_session.hash);
    expect((await retrieveOk(v.apiKey, byEmail.pos_session.hash)).pos_session.card).toBeNull();
  });

  it('five simultaneous check-ins of one customer at one store all answer 201 with one session', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const replies = await Promise.all(Array.from({ length: 5 }, () => checkIn(v.apiKey, c.email)));
    for (const reply of replies) expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    expect(new Set(replies.map((r) => r.body.pos_session.hash)).size).toBe(1);
    expect(await queueHashes(v.apiKey)).toEqual([replies[0]!.body.pos_session.hash]);
    expect(await openSessionsOf(c.userId)).toHaveLength(1);
  });

  it("a check-in at another store of the vendor closes the first session (reason 'moved'): it leaves the first queue and its hash is 404 there", async () => {
    const v = await addVendor();
    const north = await addStore(v, 'North Store');
    const c = await signUp(v.vendorId);
    const other = await signUp(v.vendorId);
    const first = await checkInOk(v.apiKey, c.email);
    const stays = await checkInOk(v.apiKey, other.email);
    node.clock.advance(60_000);
    const moved = await checkInOk(north.apiKey, c.email);
    expect(moved.pos_session.hash).not.toBe(first.pos_session.hash);
    expect(moved.pos_session.id).not.toBe(first.pos_session.id);
    expect(moved.vendor.point_of_sale).toStrictEqual({ object: 'point_of_sale', id: north.posId, name: 'Counter 1', status: ACTIVE });

    expect(await queueHashes(v.apiKey)).toEqual([stays.pos_session.hash]);
    expect(await queueOk(north.apiKey)).toStrictEqual([queueEntry(moved.pos_session, { storeId: north.storeId, name: 'North Store' }, c)]);
    expectLegacyError(await retrieve(v.apiKey, first.pos_session.hash), 404, 'session_not_found', 'pos_session_hash');
    // Closing it at the first store is a no-op (closing is idempotent); it stays closed as moved.
    await closeOk(v.apiKey, first.pos_session.hash);
    expect(await sessionRow(first.pos_session.hash)).toMatchObject({ status: 'closed', closed_reason: 'moved', closed_at: node.clock.now() });
    expect(await openSessionsOf(c.userId)).toEqual([{ hash: moved.pos_session.hash, store_id: north.storeId }]);

    // back at the first store: a new session again, and the north one is closed
    const back = await checkInOk(v.apiKey, c.email);
    expect([first.pos_session.hash, moved.pos_session.hash]).not.toContain(back.pos_session.hash);
    expect(await queueOk(north.apiKey)).toEqual([]);
    expect(await queueHashes(v.apiKey)).toEqual([stays.pos_session.hash, back.pos_session.hash]);
  });

  it("a check-in at another vendor's store leaves the first program's session open (one open session per program): nothing of vendor A moves by vendor B's key", async () => {
    const a = await addVendor();
    const b = await addVendor();
    const c = await signUp(a.vendorId);
    const atA = await checkInOk(a.apiKey, c.email);
    const openedAtA = node.clock.now();
    node.clock.advance(5_000);
    const atB = await checkInOk(b.apiKey, c.email);
    expect(atB.pos_session.hash).not.toBe(atA.pos_session.hash);
    expect(await queueHashes(a.apiKey)).toEqual([atA.pos_session.hash]);
    expect(await queueHashes(b.apiKey)).toEqual([atB.pos_session.hash]);
    expect((await retrieveOk(a.apiKey, atA.pos_session.hash)).pos_session.hash).toBe(atA.pos_session.hash);
    expect(await sessionRow(atA.pos_session.hash)).toMatchObject({ status: 'active', closed_reason: null, updated_at: openedAtA });
    // Checking in again at B is B's session again, and A's still stands.
    expect((await checkInOk(b.apiKey, c.email)).pos_session.hash).toBe(atB.pos_session.hash);
    expect((await openSessionsOf(c.userId)).map((s) => s.hash).sort()).toEqual([atA.pos_session.hash, atB.pos_session.hash].sort());
    // Closing at B closes B's only.
    await closeOk(b.apiKey, atB.pos_session.hash);
    expect(await queueHashes(a.apiKey)).toEqual([atA.pos_session.hash]);
  });

  it('after a close, the next check-in opens a new session with a new hash', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const first = await checkInOk(v.apiKey, c.email);
    await closeOk(v.apiKey, first.pos_session.hash);
    node.clock.advance(3_000);
    const next = await checkInOk(v.apiKey, c.email);
    expect(next.pos_session.hash).not.toBe(first.pos_session.hash);
    expect(next.pos_session.date_created).toBe(nowSec());
    expect(await queueHashes(v.apiKey)).toEqual([next.pos_session.hash]);
  });
});

describe('GET /onscreen/queue', () => {
  it('is [] for a store where nobody is checked in', async () => {
    const v = await addVendor();
    const reply = await queue(v.apiKey);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expect(reply.body).toStrictEqual([]);
  });

  it('lists the open sessions of the store, oldest first, with every field (vendor is the store; user_id a string)', async () => {
    const v = await addVendor();
    const ana = await signUp(v.vendorId);
    const ben = await signUp(v.vendorId, { first_name: 'Ben', last_name: 'Ortiz' });
    const cruz = await signUp(v.vendorId, { first_name: 'Cruz', last_name: '' });
    node.clock.advance(10_000);
    const a = await checkInOk(v.apiKey, ana.email);
    node.clock.advance(5_000);
    const b = await checkInOk(v.kioskApiKey, ben.email);
    node.clock.advance(5_000);
    const c = await checkInOk(v.apiKey, cruz.email);
    // a repeat check-in of the first customer does not move them to the back
    node.clock.advance(5_000);
    const again = await checkInOk(v.apiKey, ana.email);
    const store = { storeId: v.storeId, name: 'Main Store' };
    const entries = await queueOk(v.apiKey);
    expect(entries).toStrictEqual([
      queueEntry(again.pos_session, store, ana),
      queueEntry(b.pos_session, store, { ...ben, first_name: 'Ben', last_name: 'Ortiz' }),
      queueEntry(c.pos_session, store, { ...cruz, first_name: 'Cruz', last_name: '' }),
    ]);
    expect(entries[0].pos_session.date_created).toBe(a.pos_session.date_created);
    expect(entries[0].pos_session.date_updated).toBe(a.pos_session.date_created + 15);
    for (const e of entries) expect(Number.isInteger(e.pos_session.id)).toBe(true);
    // the kiosk key reads whom a kiosk identified (Ben), by names only (onscreen-kiosk-view); the .json path the same
    const initial = (name: string) => (name ? `${name[0]}.` : '');
    const byName = ({ pos_session: s }: any) => ({ pos_session: { ...s, user: { ...s.user, last_name: initial(s.user.last_name), email_address: '' } } });
    expect((await queue(v.kioskApiKey)).body).toStrictEqual([entries[1]].map(byName));
    expect((await queue(v.apiKey, '/onscreen/queue.json')).body).toStrictEqual(entries);
  });

  it('sessions opened in the same millisecond keep the order they were opened in; a renamed store shows its new name at once', async () => {
    const v = await addVendor();
    const people = [];
    for (let i = 0; i < 4; i++) people.push(await signUp(v.vendorId, { first_name: `Same${i}` }));
    // The test clock stands still: all four sessions have one date_created.
    const opened = [];
    for (const p of people) opened.push((await checkInOk(v.apiKey, p.email)).pos_session);
    expect(new Set(opened.map((s) => s.date_created)).size).toBe(1);
    const ids = opened.map((s) => s.id);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(await queueHashes(v.apiKey)).toEqual(opened.map((s) => s.hash));

    const renamed = await http(`${node.url}/stores/${v.storeId}`, { method: 'PUT', token: v.accessToken, body: { name: 'Main Store II' } });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    const entries = await queueOk(v.apiKey);
    expect(entries.map((e: { pos_session: { vendor: unknown } }) => e.pos_session.vendor)).toEqual(opened.map(() => ({ vendor_id: v.storeId, name: 'Main Store II' })));
  });
  it("leaves out closed sessions, other stores' sessions and other vendors' sessions", async () => {
    const v = await addVendor();
    const north = await addStore(v, 'North Store');
    const w = await addVendor();
    const here = await signUp(v.vendorId);
    const closed = await signUp(v.vendorId);
    const there = await signUp(v.vendorId);
    const elsewhere = await signUp(w.vendorId);
    const mine = await checkInOk(v.apiKey, here.email);
    const gone = await checkInOk(v.apiKey, closed.email);
    await closeOk(v.apiKey, gone.pos_session.hash);
    const atNorth = await checkInOk(north.kioskApiKey, there.email);
    const atW = await checkInOk(w.apiKey, elsewhere.email);
    expect(await queueHashes(v.apiKey)).toEqual([mine.pos_session.hash]);
    expect(await queueHashes(v.kioskApiKey)).toEqual([]);
    expect(await queueHashes(north.kioskApiKey)).toEqual([atNorth.pos_session.hash]);
    expect(await queueHashes(w.apiKey)).toEqual([atW.pos_session.hash]);
  });

  it('includes a session the customer opened in the app (POST /vendor/store/check-in answers 201 {pos_session})', async () => {
    const v = await addVendor();
    const early = await signUp(v.vendorId);
    const appUser = await signUp(v.vendorId, { first_name: 'Dora', last_name: 'Vega' });
    const counter = await checkInOk(v.apiKey, early.email);
    node.clock.advance(7_000);
    const reply = await appCheckIn(appUser, v.storeId);
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    expect(reply.body).toStrictEqual({
      pos_session: { id: expect.any(Number), object: 'pos_session', hash: expect.stringMatching(HASH), date_created: nowSec(), date_updated: nowSec(), status: ACTIVE },
    });
    const app = reply.body.pos_session;
    const store = { storeId: v.storeId, name: 'Main Store' };
    expect(await queueOk(v.apiKey)).toStrictEqual([queueEntry(counter.pos_session, store, early), queueEntry(app, store, { ...appUser, first_name: 'Dora', last_name: 'Vega' })]);
    expect(await sessionRow(app.hash)).toMatchObject({ opened_by: 'app', pos_id: null, user_id: appUser.userId, store_id: v.storeId });

    // the counter retrieves and closes it like any other
    const customer = await retrieveOk(v.apiKey, app.hash);
    expect(customer.user.id).toBe(String(appUser.userId));
    expect(customer.pos_session).toStrictEqual({ pos_session_id: String(app.id), object: 'pos_session', hash: app.hash, status: ACTIVE, card: null, card_third_party: null, token: null });
    // a cashier scanning the customer then finds the same session
    expect((await checkInOk(v.apiKey, appUser.email)).pos_session.hash).toBe(app.hash);
    await closeOk(v.apiKey, app.hash);
    expect(await queueHashes(v.apiKey)).toEqual([counter.pos_session.hash]);
  });

  it('app check-in: the same store twice is the same session; another store of the vendor moves it; store ids as strings work', async () => {
    const v = await addVendor();
    const north = await addStore(v, 'North Store');
    const c = await signUp(v.vendorId);
    const first = await appCheckIn(c, v.storeId);
    const again = await appCheckIn(c, String(v.storeId));
    expect(first.status).toBe(201);
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    expect(again.body.pos_session.hash).toBe(first.body.pos_session.hash);
    const moved = await appCheckIn(c, north.storeId);
    expect(moved.status).toBe(201);
    expect(await queueOk(v.apiKey)).toEqual([]);
    expect(await queueHashes(north.apiKey)).toEqual([moved.body.pos_session.hash]);
  });

  it("app check-in refuses another vendor's store and an unknown store (404 store_not_found), a missing session (401) and a missing store (400)", async () => {
    const v = await addVendor();
    const w = await addVendor();
    const c = await signUp(v.vendorId);
    expectLegacyError(await appCheckIn(c, w.storeId), 404, 'store_not_found', 'store');
    expectLegacyError(await appCheckIn(c, 999_999_999), 404, 'store_not_found', 'store');
    expectLegacyError(await http(`${node.url}/vendor/store/check-in`, { method: 'POST', body: { store: v.storeId } }), 401, 'missing_credentials');
    expectLegacyError(await http(`${node.url}${withSessionKey('/vendor/store/check-in', c.key)}`, { method: 'POST', body: {} }), 400, 'validation_failed', 'store');
    expect(await queueOk(w.apiKey)).toEqual([]);
    expect(await openSessionsOf(c.userId)).toEqual([]);
  });

  it('answers 401 without an api_key or with an unknown one', async () => {
    expectLegacyError(await http(`${node.url}/onscreen/queue`), 401, 'missing_credentials');
    expectLegacyError(await queue('pcak_unknown'), 401, 'invalid_api_key');
  });
});

describe('GET /onscreen: retrieve customer', () => {
  it('answers 200 with every field for a new customer: session, user, empty balances in each currency, the default rules, Member tier', async () => {
    const v = await addVendor();
    node.clock.advance(11_000);
    const c = await signUp(v.vendorId);
    const joined = nowSec();
    node.clock.advance(60_000);
    const { pos_session: session } = await checkInOk(v.apiKey, c.email);
    node.clock.advance(5_000);
    const reply = await retrieve(v.apiKey, session.hash);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    const tier = await entryTier(v.vendorId);
    const tierWire = { object: 'tier', id: tier.id, name: 'Member', ...TIER_TEXT, threshold: 0 };
    const points = { id: v.loyaltyCurrencyId, name: 'Points', code: null };
    expect(reply.body).toStrictEqual({
      pos_session: { pos_session_id: String(session.id), object: 'pos_session', hash: session.hash, status: ACTIVE, card: null, card_third_party: null, token: null },
      user: {
        object: 'user',
        id: String(c.userId),
        first_name: 'Ana',
        last_name: 'López',
        email_address: c.email,
        phone_number: '',
        birthdate: null,
        language: 'en',
        contact_consent: 0,
        member_since: joined,
        is_verified: false,
        flagged: false,
        tier: tierWire,
      },
      favourite_items: [],
      reload: { amount: 0, threshold: 0, billing_profile: null },
      favorite: null,
      last_visit: null,
      loyalty_balance: { data: [{ amount: 0, currency: points, expiring: EMPTY_EXPIRING }] },
      quick_pay_balance: { amount: 0, currency: { id: v.quickPayCurrencyId, name: 'Quick Pay USD', code: 'USD' }, expiring: EMPTY_EXPIRING },
      rules: {
        earning: {
          object: 'earning_rules',
          data: [{ id: await defaultRuleId(v.vendorId), name: '1 point per unit spent', currency: points, points: 1, per_amount: 1, rounding: 'floor', max_award: null, starts: null, ends: null }],
        },
        spending: { object: 'spending_rules', data: [] },
        tier: { object: 'tier_rules', current: tierWire, next: null, currency: points },
      },
    });
    // reading does not touch the session
    expect((await queueOk(v.apiKey))[0].pos_session.date_updated).toBe(session.date_updated);
  });

  it('shows the profile the customer gave: phone (E.164), birthdate, language, contact consent', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId, { birthdate: 631_152_000, language: 2, contact_consent: 3 });
    const put = await http(`${node.url}${withSessionKey('/user/profile', c.key)}`, { method: 'PUT', body: { phone_number: { number: '(202) 555-0188', code: '1' } } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const { pos_session: session } = await checkInOk(v.apiKey, '202 555 0188');
    const { user } = await retrieveOk(v.apiKey, session.hash);
    expect(user).toMatchObject({ id: String(c.userId), email_address: c.email, phone_number: '+12025550188', birthdate: 631_152_000, language: 'es', contact_consent: 3 });
  });

  it('shows loyalty (one entry per loyalty currency) and quick-pay balances from the ledger, with what expires next', async () => {
    const v = await addVendor();
    const other = await addVendor();
    const c = await signUp(v.vendorId);
    const stars = await http(`${node.url}/currencies`, { method: 'POST', token: v.accessToken, body: { name: 'Stars' } });
    expect(stars.status, JSON.stringify(stars.body)).toBe(201);
    const starsId = (await node.engine.db.selectFrom('currencies').select('id').where('public_id', '=', stars.body.id).executeTakeFirstOrThrow()).id;

    const now = node.clock.now();
    const pointsExpire = now + 10 * 86_400_000;
    const moneyExpires = now + 3 * 86_400_000 + 1_500;
    await credit(v, v.loyaltyCurrencyId, c.userId, [{ amount: 100 }, { amount: 40, expiresAt: pointsExpire }]);
    await credit(v, v.quickPayCurrencyId, c.userId, [{ amount: 1000 }, { amount: 250, expiresAt: moneyExpires }]);
    await credit(v, starsId, c.userId, [{ amount: 7 }]);
    // the same account holds value with another program: never shown here
    await credit(other, other.loyaltyCurrencyId, c.userId, [{ amount: 999 }]);
    await credit(other, other.quickPayCurrencyId, c.userId, [{ amount: 99_999 }]);

    const { pos_session: session } = await checkInOk(v.apiKey, c.email);
    const body = await retrieveOk(v.apiKey, session.hash);
    expect(body.loyalty_balance).toStrictEqual({
      data: [
        { amount: 140, currency: { id: v.loyaltyCurrencyId, name: 'Points', code: null }, expiring: { data: [{ date: sec(pointsExpire), amount: 40 }], page_size: 25, count: 1, page: 1 } },
        { amount: 7, currency: { id: starsId, name: 'Stars', code: null }, expiring: EMPTY_EXPIRING },
      ],
    });
    expect(body.quick_pay_balance).toStrictEqual({
      amount: 12.5,
      currency: { id: v.quickPayCurrencyId, name: 'Quick Pay USD', code: 'USD' },
      expiring: { data: [{ date: sec(moneyExpires), amount: 2.5 }], page_size: 25, count: 1, page: 1 },
    });

    // once the dates pass, nothing is listed as expiring any more
    node.clock.advance(11 * 86_400_000);
    const later = await retrieveOk(v.apiKey, session.hash);
    expect(later.loyalty_balance.data[0].expiring).toStrictEqual(EMPTY_EXPIRING);
    expect(later.quick_pay_balance.expiring).toStrictEqual(EMPTY_EXPIRING);
  });

  it('names the next tier when the program has one above the current', async () => {
    const v = await addVendor();
    const gold = { id: 0, name: 'Gold', summary: 'For regulars.', description: 'Earn faster.', threshold: 500 };
    await transact(node.engine, async (trx) => {
      gold.id = await nextObjectId(trx, node.engine.nodeId);
      await trx.insertInto('tiers').values({ ...gold, vendor_id: v.vendorId, created_at: node.clock.now(), updated_at: node.clock.now() }).execute();
    });
    const c = await signUp(v.vendorId);
    const { pos_session: session } = await checkInOk(v.apiKey, c.email);
    const { rules } = await retrieveOk(v.apiKey, session.hash);
    expect(rules.tier).toStrictEqual({
      object: 'tier_rules',
      current: { object: 'tier', id: (await entryTier(v.vendorId)).id, name: 'Member', ...TIER_TEXT, threshold: 0 },
      next: { object: 'tier', ...gold },
      currency: { id: v.loyaltyCurrencyId, name: 'Points', code: null },
    });
  });

  it('shows the card number when a card identified the customer, null otherwise; token is always null', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const number = `Rt${Date.now().toString(36)}`;
    expect((await http(`${node.url}/cards`, { method: 'POST', token: v.accessToken, body: { number } })).status).toBe(201);
    expect((await http(`${node.url}${withSessionKey('/user/card/add', c.key)}`, { method: 'POST', body: { number } })).status).toBe(200);
    const byCard = await checkInOk(v.apiKey, number.toUpperCase());
    expect((await retrieveOk(v.apiKey, byCard.pos_session.hash)).pos_session).toStrictEqual({
      pos_session_id: String(byCard.pos_session.id),
      object: 'pos_session',
      hash: byCard.pos_session.hash,
      status: ACTIVE,
      card: number,
      card_third_party: null,
      token: null,
    });
    await closeOk(v.apiKey, byCard.pos_session.hash);

    const token = await http(`${node.url}${withSessionKey('/user/token/request', c.key)}`, { method: 'POST', body: { token_type: 2 } });
    expect(token.status).toBe(200);
    const byToken = await checkInOk(v.apiKey, token.body.token);
    const retrieved = await retrieveOk(v.apiKey, byToken.pos_session.hash);
    expect(retrieved.pos_session.card).toBeNull();
    expect(retrieved.pos_session.token).toBeNull();
  });

  it('last_visit is null on the first visit, then the date and store of the previous (closed) visit', async () => {
    const v = await addVendor();
    const north = await addStore(v, 'North Store');
    const c = await signUp(v.vendorId);
    node.clock.advance(1_500);
    const first = await checkInOk(v.apiKey, c.email);
    const firstAt = nowSec();
    expect((await retrieveOk(v.apiKey, first.pos_session.hash)).last_visit).toBeNull();
    node.clock.advance(600_000);
    await closeOk(v.apiKey, first.pos_session.hash);

    node.clock.advance(86_400_000);
    const second = await checkInOk(north.apiKey, c.email);
    const secondAt = nowSec();
    expect((await retrieveOk(north.apiKey, second.pos_session.hash)).last_visit).toStrictEqual({ date: firstAt, store: { id: v.storeId, name: 'Main Store' } });
    await closeOk(north.apiKey, second.pos_session.hash);

    node.clock.advance(86_400_000);
    const third = await checkInOk(v.apiKey, c.email);
    expect((await retrieveOk(v.apiKey, third.pos_session.hash)).last_visit).toStrictEqual({ date: secondAt, store: { id: north.storeId, name: 'North Store' } });
  });

  it('the kiosk key may retrieve whom a kiosk identified (names only: onscreen-kiosk-view); the .json path answers the same', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const { pos_session: session } = await checkInOk(v.kioskApiKey, c.email);
    const byCashier = await retrieveOk(v.apiKey, session.hash);
    expect(await retrieveOk(v.kioskApiKey, session.hash)).toStrictEqual({ ...byCashier, user: { ...byCashier.user, last_name: 'L.', email_address: '' } });
    const json = await http(`${node.url}/onscreen.json?pos_session_hash=${session.hash}&api_key=${enc(v.apiKey)}`);
    expect(json.status).toBe(200);
    expect(json.body).toStrictEqual(byCashier);
  });

  it("answers 404 session_not_found for an unknown hash, a closed session's hash, another store's and another vendor's", async () => {
    const v = await addVendor();
    const north = await addStore(v, 'North Store');
    const w = await addVendor();
    const [a, b, d] = [await signUp(v.vendorId), await signUp(v.vendorId), await signUp(w.vendorId)];
    const closed = await checkInOk(v.apiKey, a.email);
    await closeOk(v.apiKey, closed.pos_session.hash);
    const atNorth = await checkInOk(north.apiKey, b.email);
    const atW = await checkInOk(w.apiKey, d.email);
    for (const hash of ['0'.repeat(32), 'not-a-hash', closed.pos_session.hash, atNorth.pos_session.hash, atW.pos_session.hash, atW.pos_session.hash.toUpperCase()]) {
      expectLegacyError(await retrieve(v.apiKey, hash), 404, 'session_not_found', 'pos_session_hash');
    }
    // each is still readable where it is open
    expect((await retrieveOk(north.apiKey, atNorth.pos_session.hash)).user.id).toBe(String(b.userId));
    expect((await retrieveOk(w.apiKey, atW.pos_session.hash)).user.id).toBe(String(d.userId));
  });

  it('answers 400 validation_failed without pos_session_hash and 401 without a valid api_key', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const { pos_session: session } = await checkInOk(v.apiKey, c.email);
    expectLegacyError(await http(`${node.url}/onscreen?api_key=${enc(v.apiKey)}`), 400, 'validation_failed', 'pos_session_hash');
    expectLegacyError(await http(`${node.url}/onscreen?pos_session_hash=${session.hash}`), 401, 'missing_credentials');
    expectLegacyError(await retrieve('pcak_nope', session.hash), 401, 'invalid_api_key');
  });
});

describe('DELETE /onscreen', () => {
  it('closes the session with a JSON body: {} ; it leaves the queue, its hash is 404 to retrieve', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const stays = await signUp(v.vendorId);
    const { pos_session: session } = await checkInOk(v.apiKey, c.email);
    const other = await checkInOk(v.apiKey, stays.email);
    node.clock.advance(90_000);
    const reply = await close(v.apiKey, { pos_session_hash: session.hash });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expect(reply.body).toStrictEqual({});
    expect(await queueHashes(v.apiKey)).toEqual([other.pos_session.hash]);
    expectLegacyError(await retrieve(v.apiKey, session.hash), 404, 'session_not_found', 'pos_session_hash');
    expect(await sessionRow(session.hash)).toMatchObject({ status: 'closed', closed_reason: 'closed', closed_at: node.clock.now(), updated_at: node.clock.now() });
  });

  it('a repeated close (a POS retrying after a timeout) answers 200 {} again and changes nothing', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const { pos_session: session } = await checkInOk(v.apiKey, c.email);
    await closeOk(v.apiKey, session.hash);
    const closedAt = node.clock.now();
    node.clock.advance(30_000);
    for (let i = 0; i < 2; i++) await closeOk(v.apiKey, session.hash);
    expect(await sessionRow(session.hash)).toMatchObject({ status: 'closed', closed_reason: 'closed', closed_at: closedAt, updated_at: closedAt });
    expectLegacyError(await retrieve(v.apiKey, session.hash), 404, 'session_not_found', 'pos_session_hash');
  });

  it('closing after the order closed the session (the POS flow of compat-notes) answers 200 {}; it stays closed by the order', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const { pos_session: session } = await checkInOk(v.apiKey, c.email);
    await inStore.orderOk(v.apiKey, { pos_session_hash: session.hash, receipt_number: 'CLOSE-1', subtotal: 5 });
    const closedAt = (await sessionRow(session.hash)).closed_at;
    node.clock.advance(5_000);
    await closeOk(v.apiKey, session.hash);
    expect(await sessionRow(session.hash)).toMatchObject({ status: 'closed', closed_reason: 'order', closed_at: closedAt });
  });

  it("a closed session of another store or vendor, and a hash never issued, are still 404", async () => {
    const v = await addVendor();
    const north = await addStore(v, 'North Store');
    const w = await addVendor();
    const c = await signUp(v.vendorId);
    const { pos_session: session } = await checkInOk(v.apiKey, c.email);
    await closeOk(v.apiKey, session.hash);
    expectLegacyError(await close(north.apiKey, { pos_session_hash: session.hash }), 404, 'session_not_found', 'pos_session_hash');
    expectLegacyError(await close(w.apiKey, { pos_session_hash: session.hash }), 404, 'session_not_found', 'pos_session_hash');
    expectLegacyError(await close(v.apiKey, { pos_session_hash: '0'.repeat(32) }), 404, 'session_not_found', 'pos_session_hash');
  });

  it('closes with a form body and at DELETE /onscreen.json', async () => {
    const v = await addVendor();
    const a = await signUp(v.vendorId);
    const b = await signUp(v.vendorId);
    const first = await checkInOk(v.apiKey, a.email);
    const second = await checkInOk(v.apiKey, b.email);
    const form = await close(v.apiKey, `pos_session_hash=${first.pos_session.hash}`, FORM);
    expect(form.status, JSON.stringify(form.body)).toBe(200);
    expect(form.body).toStrictEqual({});
    const json = await http(`${node.url}/onscreen.json?api_key=${enc(v.apiKey)}`, { method: 'DELETE', body: { pos_session_hash: second.pos_session.hash } });
    expect(json.status, JSON.stringify(json.body)).toBe(200);
    expect(json.body).toStrictEqual({});
    expect(await queueOk(v.apiKey)).toEqual([]);
  });

  it('refuses a kiosk key with 403 forbidden (the session stays open); an integration key may close', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const { pos_session: session } = await checkInOk(v.kioskApiKey, c.email);
    expectLegacyError(await close(v.kioskApiKey, { pos_session_hash: session.hash }), 403, 'forbidden');
    expect(await queueHashes(v.apiKey)).toEqual([session.hash]);
    const integration = await transact(node.engine, (trx) => addApiKey(trx, node.engine, { vendorId: v.vendorId, storeId: v.storeId, posId: null, role: 'integration', label: 'POS bridge' }));
    await closeOk(integration.key, session.hash);
    expect(await queueOk(v.apiKey)).toEqual([]);
  });

  it("answers 404 session_not_found for another vendor's key and another store's key; the session stays open", async () => {
    const v = await addVendor();
    const north = await addStore(v, 'North Store');
    const w = await addVendor();
    const c = await signUp(v.vendorId);
    const { pos_session: session } = await checkInOk(v.apiKey, c.email);
    expectLegacyError(await close(w.apiKey, { pos_session_hash: session.hash }), 404, 'session_not_found', 'pos_session_hash');
    expectLegacyError(await close(north.apiKey, { pos_session_hash: session.hash }), 404, 'session_not_found', 'pos_session_hash');
    expect(await queueHashes(v.apiKey)).toEqual([session.hash]);
    expect((await sessionRow(session.hash)).status).toBe('active');
  });

  it('answers 400 validation_failed without pos_session_hash and 401 without an api_key', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const { pos_session: session } = await checkInOk(v.apiKey, c.email);
    expectLegacyError(await close(v.apiKey, {}), 400, 'validation_failed', 'pos_session_hash');
    expectLegacyError(await close(v.apiKey, undefined), 400, 'validation_failed', 'pos_session_hash');
    expectLegacyError(await http(`${node.url}/onscreen`, { method: 'DELETE', body: { pos_session_hash: session.hash } }), 401, 'missing_credentials');
    expectLegacyError(await close('pcak_nope', { pos_session_hash: session.hash }), 401, 'invalid_api_key');
    expect(await queueHashes(v.apiKey)).toEqual([session.hash]);
  });
});

describe('account deletion and open sessions', () => {
  it('a customer who deletes their account (two-step deletion) leaves the queue; the old hash is 404 session_not_found', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const stays = await signUp(v.vendorId);
    const { pos_session: session } = await checkInOk(v.apiKey, c.email);
    const other = await checkInOk(v.apiKey, stays.email);
    await deleteAccount(c);
    expect(await queueHashes(v.apiKey)).toEqual([other.pos_session.hash]);
    expectLegacyError(await retrieve(v.apiKey, session.hash), 404, 'session_not_found', 'pos_session_hash');
  });
});

describe('isolation between vendors', () => {
  it("vendor A's keys never see vendor B's sessions: not in the queue, not retrievable, not closable", async () => {
    const a = await addVendor();
    const b = await addVendor();
    const atA = await signUp(a.vendorId);
    const atB = await signUp(b.vendorId);
    // (checked in at each kiosk, so the kiosk keys read them too)
    const sessionA = (await checkInOk(a.kioskApiKey, atA.email)).pos_session;
    const sessionB = (await checkInOk(b.kioskApiKey, atB.email)).pos_session;
    for (const key of [a.apiKey, a.kioskApiKey]) {
      expect(await queueHashes(key)).toEqual([sessionA.hash]);
      expectLegacyError(await retrieve(key, sessionB.hash), 404, 'session_not_found', 'pos_session_hash');
    }
    expectLegacyError(await close(a.apiKey, { pos_session_hash: sessionB.hash }), 404, 'session_not_found', 'pos_session_hash');
    for (const key of [b.apiKey, b.kioskApiKey]) {
      expect(await queueHashes(key)).toEqual([sessionB.hash]);
      expectLegacyError(await retrieve(key, sessionA.hash), 404, 'session_not_found', 'pos_session_hash');
    }
    expectLegacyError(await close(b.apiKey, { pos_session_hash: sessionA.hash }), 404, 'session_not_found', 'pos_session_hash');
    // both are still open where they belong
    expect((await retrieveOk(a.apiKey, sessionA.hash)).user.id).toBe(String(atA.userId));
    expect((await retrieveOk(b.apiKey, sessionB.hash)).user.id).toBe(String(atB.userId));
  });
});
