import { migrations } from '../../src/core/storage/migrations/index';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCard } from '../../src/core/cards/create-card';
import { listCards } from '../../src/core/cards/list-cards';
import { createCurrency } from '../../src/core/currencies/create-currency';
import { deleteCurrency } from '../../src/core/currencies/delete-currency';
import { listCurrencies } from '../../src/core/currencies/list-currencies';
import { updateCurrency } from '../../src/core/currencies/update-currency';
import { authenticateApiKey, authenticateBearer } from '../../src/core/credentials/authenticate';
import { exchangeClientCredentials } from '../../src/core/credentials/access-tokens';
import { type Engine, transact } from '../../src/core/engine';
import { findBalanceMismatches, openAccount, postEntry, rebuildBalances } from '../../src/core/ledger/ledger';
import { migrateToLatest } from '../../src/core/storage/database';
import { inList } from '../../src/core/storage/dialect';
import { nodeOfId, SEQUENCE_SPAN, UNPAIRED_NODE_FLOOR } from '../../src/core/storage/ids';
import { recordSyncEvent } from '../../src/core/sync/outbox/record-event';
import { insertUser, linkUserToVendor } from '../../src/core/customers/customer-store';
import { openSession } from '../../src/core/onscreen/pos-session';
import { addBillingProfile } from '../../src/core/payments/billing-profiles/manage-billing-profiles';
import { reloadQuickPay, reloadStatus } from '../../src/core/payments/reloads/reload-quick-pay';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ServiceError } from '../../src/shared/errors';
import { BACKENDS, openEngine, testVendor } from '../support/backends';
import { ManualClock } from '../support/clock';

// The same suite on both dialects: every storage rule the engine relies on must hold on SQLite
// (store nodes) and PostgreSQL (central nodes of a chain).

describe.each(BACKENDS)('storage contract on $name', (backend) => {
  let engine: Engine;
  let close: () => Promise<void>;
  const clock = new ManualClock();
  let vendor: VendorCredentials;

  beforeAll(async () => {
    ({ engine, close } = await openEngine(backend, clock));
    vendor = await setUpVendor(engine, testVendor('Contract Coffee'));
  });

  afterAll(() => close?.());

  it('migrates idempotently and records the migration', async () => {
    await migrateToLatest(engine.db);
    const rows = await sql<{ name: string }>`select name from schema_migrations`.execute(engine.db);
    // Every registered migration ran, once, in the registry's order.
    expect(rows.rows.map((r) => r.name)).toEqual(Object.keys(migrations));
    expect(Object.keys(migrations)).toContain('0010-sync');
  });

  it('gives an unpaired store node a number in the unpaired range, kept across restarts', async () => {
    expect(engine.nodeId).toBeGreaterThanOrEqual(UNPAIRED_NODE_FLOOR);
    const again = await engine.db.selectFrom('node_meta').select('value').where('key', '=', 'node_id').executeTakeFirstOrThrow();
    expect(Number(again.value)).toBe(engine.nodeId);
  });

  it('composes legacy ids from the node number and a local sequence, below 2^53', async () => {
    const ids = [vendor.vendorId, vendor.storeId, vendor.posId, vendor.loyaltyCurrencyId, vendor.quickPayCurrencyId];
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(Number.isSafeInteger(id)).toBe(true);
      expect(nodeOfId(id)).toBe(engine.nodeId);
      expect(id % SEQUENCE_SPAN).toBeGreaterThan(0);
    }
    const vendorRow = await engine.db.selectFrom('vendors').select(['id', 'created_at']).where('id', '=', vendor.vendorId).executeTakeFirstOrThrow();
    expect(typeof vendorRow.id).toBe('number');
    expect(vendorRow.created_at).toBe(clock.now());
  });

  it('resolves credentials to their vendor, and only by the secret itself', async () => {
    await expect(authenticateBearer(engine, vendor.accessToken)).resolves.toEqual({ vendorId: vendor.vendorId, scope: 'admin' });
    const cashier = await authenticateApiKey(engine, vendor.apiKey);
    expect(cashier).toMatchObject({ vendorId: vendor.vendorId, storeId: vendor.storeId, posId: vendor.posId, role: 'cashier', errorMode: 'http' });
    expect((await authenticateApiKey(engine, vendor.kioskApiKey)).role).toBe('kiosk');
    await expect(authenticateBearer(engine, `${vendor.accessToken}x`)).rejects.toMatchObject({ code: 'invalid_token' });
    const exchanged = await exchangeClientCredentials(engine, { clientId: vendor.clientId, clientSecret: vendor.clientSecret });
    await expect(authenticateBearer(engine, exchanged.accessToken)).resolves.toMatchObject({ vendorId: vendor.vendorId });
    await expect(exchangeClientCredentials(engine, { clientId: vendor.clientId, clientSecret: 'nope' })).rejects.toMatchObject({ code: 'invalid_client' });
  });

  it('enforces unique currency names among live rows only, ignoring case', async () => {
    const scope = { vendorId: vendor.vendorId };
    const stars = await createCurrency(engine, scope, { name: 'Stars' });
    await expect(createCurrency(engine, scope, { name: ' STARS ' })).rejects.toMatchObject({ code: 'currency_name_taken' });
    await deleteCurrency(engine, scope, stars.publicId);
    const again = await createCurrency(engine, scope, { name: 'stars' });
    expect(again.publicId).not.toBe(stars.publicId);
    const other = await setUpVendor(engine, testVendor('Other Coffee'));
    await expect(createCurrency(engine, { vendorId: other.vendorId }, { name: 'Stars' })).resolves.toMatchObject({ name: 'Stars' });
  });

  it('filters by prefix in byte order, newest first, and pages without overlap', async () => {
    const { vendorId } = await setUpVendor(engine, testVendor('Prefix Tea'));
    for (const number of ['AB100', 'ab200', 'AC300', 'ABZ', 'B1']) {
      clock.advance(1);
      await createCard(engine, { vendorId }, { number });
    }
    const page = await listCards(engine, { vendorId }, { query: 'n:ab' });
    expect(page.items.map((c) => c.number)).toEqual(['ABZ', 'ab200', 'AB100']);
    const first = await listCards(engine, { vendorId }, { limit: 2, page: 1 });
    const second = await listCards(engine, { vendorId }, { limit: 2, page: 2 });
    const third = await listCards(engine, { vendorId }, { limit: 2, page: 3 });
    expect([first.hasMore, second.hasMore, third.hasMore]).toEqual([true, true, false]);
    const all = [...first.items, ...second.items, ...third.items].map((c) => c.number);
    expect(all).toEqual(['B1', 'ABZ', 'AC300', 'ab200', 'AB100']);
    const byName = await listCurrencies(engine, { vendorId }, { sort: 'name', order: 'ASC' });
    expect(byName.items.map((c) => c.name)).toEqual(['Points', 'Quick Pay USD']);
  });

  it('matches a long list as `in` does, text with quotes, commas, braces and backslashes included', async () => {
    const keys = ['list 1', 'list "2"', 'list,3', 'list{4}', 'list\\5', "list'6", 'list NULL', 'NULL'];
    await engine.db.insertInto('node_meta').values(keys.map((key, i) => ({ key, value: String(i) }))).execute();
    const asked = [...keys.filter((_, i) => i % 2 === 1), 'absent', ...Array.from({ length: 1_200 }, (_, i) => `list ${i + 10}`)];
    const found = await engine.db.selectFrom('node_meta').select(['key', 'value']).where(inList(engine.db, 'key', asked, 'text')).execute();
    expect(found.map((r) => r.key).sort()).toEqual(keys.filter((_, i) => i % 2 === 1).sort());
    const byId = await engine.db.selectFrom('vendors').select('id').where(inList(engine.db, 'id', [vendor.vendorId, 0], 'bigint')).execute();
    expect(byId.map((r) => Number(r.id))).toEqual([vendor.vendorId]);
  });

  it('rolls a failed command back completely', async () => {
    const scope = { vendorId: vendor.vendorId };
    const before = await engine.db.selectFrom('id_sequences').select('value').where('name', '=', 'objects').executeTakeFirstOrThrow();
    await expect(
      transact(engine, async (trx) => {
        await trx.insertInto('node_meta').values({ key: 'rollback-probe', value: '1' }).execute();
        throw new ServiceError('business_rule');
      }),
    ).rejects.toBeInstanceOf(ServiceError);
    const probe = await engine.db.selectFrom('node_meta').select('value').where('key', '=', 'rollback-probe').executeTakeFirst();
    expect(probe).toBeUndefined();
    await expect(updateCurrency(engine, scope, 'curr_missing', { name: 'x' })).rejects.toMatchObject({ code: 'currency_not_found' });
    const after = await engine.db.selectFrom('id_sequences').select('value').where('name', '=', 'objects').executeTakeFirstOrThrow();
    expect(after.value).toBe(before.value);
  });

  it('keeps cached balances equal to the sum of immutable entries', async () => {
    const account = await transact(engine, (trx) =>
      openAccount(trx, engine, { vendorId: vendor.vendorId, currencyId: vendor.quickPayCurrencyId, holderType: 'user', holderId: 42 }),
    );
    const sameAccount = await transact(engine, (trx) =>
      openAccount(trx, engine, { vendorId: vendor.vendorId, currencyId: vendor.quickPayCurrencyId, holderType: 'user', holderId: 42 }),
    );
    expect(sameAccount).toBe(account);
    const movements = [2500, -700, 1234, -34];
    let last = { id: 0, balance: 0 };
    for (const amount of movements) last = await transact(engine, (trx) => postEntry(trx, engine, account, { amount, kind: amount > 0 ? 'reload' : 'spend' }));
    expect(last.balance).toBe(3000);
    const reversal = await transact(engine, (trx) => postEntry(trx, engine, account, { amount: 34, kind: 'reversal', reversesId: last.id }));
    expect(reversal.balance).toBe(3034);
    expect(await findBalanceMismatches(engine.db)).toEqual([]);
    await expect(transact(engine, (trx) => postEntry(trx, engine, account, { amount: 1.5, kind: 'spend' }))).rejects.toThrow(RangeError);
  });

  it('refuses to update or delete a ledger entry, in the database itself', async () => {
    const entry = await engine.db.selectFrom('ledger_entries').select('id').executeTakeFirstOrThrow();
    await expect(engine.db.updateTable('ledger_entries').set({ amount: 1 }).where('id', '=', entry.id).execute()).rejects.toThrow(/immutable/);
    await expect(engine.db.deleteFrom('ledger_entries').where('id', '=', entry.id).execute()).rejects.toThrow(/immutable/);
  });

  it('rebuilds a cached balance that drifted from its entries', async () => {
    const account = await engine.db.selectFrom('ledger_accounts').select(['id', 'balance']).where('holder_id', '=', 42).executeTakeFirstOrThrow();
    await engine.db.updateTable('ledger_accounts').set({ balance: 999_999 }).where('id', '=', account.id).execute();
    expect(await findBalanceMismatches(engine.db)).toEqual([{ accountId: account.id, cached: 999_999, fromEntries: account.balance }]);
    expect(await rebuildBalances(engine.db, engine)).toBe(1);
    expect(await findBalanceMismatches(engine.db)).toEqual([]);
  });

  it('refuses a currency code change once the currency holds balances', async () => {
    const scope = { vendorId: vendor.vendorId };
    const quickPay = (await listCurrencies(engine, scope, { query: 'n:"quick pay"' })).items[0]!;
    await expect(updateCurrency(engine, scope, quickPay.publicId, { code: 'EUR' })).rejects.toMatchObject({ code: 'currency_in_use' });
    await expect(updateCurrency(engine, scope, quickPay.publicId, { code: 'usd', name: 'Wallet' })).resolves.toMatchObject({ code: 'USD', name: 'Wallet' });
  });

  it('numbers sync events gaplessly, and a rolled-back event leaves no gap', async () => {
    const first = await transact(engine, (trx) => recordSyncEvent(trx, engine, { type: 'probe', version: 1, payload: { n: 1 } }));
    await expect(
      transact(engine, async (trx) => {
        await recordSyncEvent(trx, engine, { type: 'probe', version: 1, payload: { n: 2 } });
        throw new Error('crash before commit');
      }),
    ).rejects.toThrow('crash before commit');
    const second = await transact(engine, (trx) => recordSyncEvent(trx, engine, { type: 'probe', version: 1, payload: { n: 3 }, offline: true }));
    expect(second.nodeSeq).toBe(first.nodeSeq + 1);
    const rows = await engine.db.selectFrom('sync_events').selectAll().orderBy('node_seq').execute();
    expect(rows.map((r) => JSON.parse(r.payload).n)).toEqual([1, 3]);
    expect(rows[1]).toMatchObject({ node_id: engine.nodeId, type: 'probe', version: 1, offline: 1, acked_at: null });
  });

  it('keeps one open session per customer per program: a check-in in another program leaves it open; a second open one in the program is refused by the database', async () => {
    const other = await setUpVendor(engine, testVendor('Contract Tea'));
    const user = await transact(engine, (trx) =>
      insertUser(trx, engine, { email: null, email_key: null, password_hash: null, first_name: 'Two', last_name: 'Programs', phone: null, cedula: null, birthdate: null, first_vendor_id: vendor.vendorId }),
    );
    const checkInAt = (v: VendorCredentials) =>
      transact(engine, (trx) => openSession(trx, engine, { vendorId: v.vendorId, storeId: v.storeId, posId: v.posId }, { userId: user.id, identifiedBy: 'email', cardNumber: null, openedBy: 'cashier' }));
    const here = await checkInAt(vendor);
    const there = await checkInAt(other);
    expect(there.events.map((e) => e.type)).toEqual(['session.opened']);
    const open = await engine.db.selectFrom('pos_sessions').select(['hash', 'vendor_id']).where('user_id', '=', user.id).where('status', '=', 'active').orderBy('vendor_id').execute();
    expect(open.map((s) => s.hash).sort()).toEqual([here.session.hash, there.session.hash].sort());
    const twin = { ...here.session, id: here.session.id + 1_000_000, hash: `${here.session.hash.slice(0, 31)}x` };
    await expect(engine.db.insertInto('pos_sessions').values(twin).execute()).rejects.toThrow(/unique|UNIQUE/);
  });

  it('charges once per idempotency key and credits a late result once, even when asked at the same moment', async () => {
    const user = await transact(engine, async (trx) => {
      const row = await insertUser(trx, engine, { email: null, email_key: null, password_hash: null, first_name: 'Pay', last_name: 'Er', phone: null, cedula: null, birthdate: null, first_vendor_id: vendor.vendorId });
      await linkUserToVendor(trx, engine, { userId: row.id, vendorId: vendor.vendorId });
      return row;
    });
    const session = { sessionId: 0, userId: user.id, vendorId: vendor.vendorId };
    const year = String(new Date(clock.now()).getUTCFullYear() + 2);
    const visa = await addBillingProfile(engine, session, { number: '4242424242424242', expiryMonth: '01', expiryYear: year, cvv: '123' });
    const late = await addBillingProfile(engine, session, { number: '4000002760003184', expiryMonth: '01', expiryYear: year, cvv: '123' });

    const same = await Promise.all([1, 2, 3].map(() => reloadQuickPay(engine, session, { profileId: visa.id, amount: 10, idempotencyKey: 'contract-1' })));
    expect(new Set(same.map((r) => r.charge.id)).size).toBe(1);
    await reloadQuickPay(engine, session, { profileId: visa.id, amount: 1 });
    await expect(reloadQuickPay(engine, session, { profileId: visa.id, amount: 2, idempotencyKey: 'contract-1' })).rejects.toMatchObject({ code: 'idempotency_key_reused' });

    const pending = await reloadQuickPay(engine, session, { profileId: late.id, amount: 5 });
    expect(pending.charge.status).toBe('pending');
    await reloadStatus(engine, session, pending.charge.id);
    const polls = await Promise.all([1, 2, 3].map(() => reloadStatus(engine, session, pending.charge.id)));
    expect(polls.map((p) => p.charge.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);

    const charges = await engine.db.selectFrom('payment_charges').select(['amount', 'status']).where('user_id', '=', user.id).orderBy('id').execute();
    expect(charges.map((c) => [Number(c.amount), c.status])).toEqual([[1000, 'succeeded'], [100, 'succeeded'], [500, 'succeeded']]);
    const account = await engine.db.selectFrom('ledger_accounts').select('balance').where('holder_id', '=', user.id).executeTakeFirstOrThrow();
    expect(Number(account.balance)).toBe(1600);
    expect((await engine.db.selectFrom('transactions').select('id').where('user_id', '=', user.id).execute()).length).toBe(3);
    expect(await findBalanceMismatches(engine.db)).toEqual([]);
  });
});
