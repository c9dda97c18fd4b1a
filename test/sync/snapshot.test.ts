import { type AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { checkIn } from '../../src/core/onscreen/check-in';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { migrateToLatest } from '../../src/core/storage/database';
import { getMeta } from '../../src/core/storage/node-meta';
import { readSnapshotPage, SNAPSHOT_TABLES } from '../../src/core/sync/central/read-snapshot';
import { authenticateNode, issuePairingCode, pairNode } from '../../src/core/sync/central/pairing';
import { compactChangeLog } from '../../src/core/sync/central/compact-change-log';
import { type RowTable, rowTableOf, type SnapshotPageOnTheWire, type SnapshotRequest } from '../../src/core/sync/protocol';
import type { SyncTransport } from '../../src/core/sync/store/sync-client';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { buildApp } from '../../src/server/app';
import { CentralError, httpTransport } from '../../src/server/sync/http-transport';
import { isServiceError } from '../../src/shared/errors';
import { ManualClock } from '../support/clock';
import { openTestPostgres } from '../support/postgres';
import { http } from '../support/test-node';
import { type CentralHandle, pairStore, startCentral } from './support/chain';
import { tablesWithRows } from './support/snapshot-tables';

// A new store's first sync by snapshot (docs/sync.md, "First sync"): central's rows table by table,
// written in bulk, check-in open once the customers and balances are in, then the log from the
// snapshot's cursor, so what changed at central meanwhile arrives too.

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const handle of open.splice(0).reverse()) await handle.close();
});

/** A link that counts snapshot pages, runs `during` before one of them, and fails after `budget`. */
class SnapshotLink implements SyncTransport {
  requests: SnapshotRequest[] = [];
  constructor(
    private readonly inner: SyncTransport,
    public budget = Infinity,
    public during: ((request: SnapshotRequest) => Promise<void>) | null = null,
  ) {}
  push: SyncTransport['push'] = (r) => this.inner.push(r);
  pull: SyncTransport['pull'] = (a, l) => this.inner.pull(a, l);
  snapshot = async (request: SnapshotRequest): Promise<SnapshotPageOnTheWire> => {
    if (this.budget <= 0) throw new Error('network: down');
    this.budget -= 1;
    this.requests.push(request);
    await this.during?.(request);
    return this.inner.snapshot!(request);
  };
  /** Asking central for one customer (a waiting counter) fails only while this is set. */
  customerDown = false;
  customer = async (identification: string) => {
    if (this.customerDown) throw new Error('network: down');
    return this.inner.customer!(identification);
  };
}

async function chainWithCustomers(clock: ManualClock, count: number): Promise<{ central: CentralHandle; emails: string[] }> {
  const central = await startCentral(clock);
  open.push(central);
  const scope = await authenticateApiKey(central.engine, central.vendor.apiKey);
  const emails = Array.from({ length: count }, (_, i) => `s${String(i).padStart(3, '0')}@chain.test`);
  for (const email of emails) await registerInStore(central.engine, scope, { email });
  // Points for some, and history: check-ins and orders.
  for (let i = 0; i < count; i += 3) {
    clock.advance(60_000);
    await placeOrder(central.engine, scope, { identification: emails[i]!, receiptNumber: `C-${i}`, subtotal: 10 + i });
  }
  return { central, emails };
}

/** A store paired with central, its first sync not started, over a SnapshotLink allowing `budget` pages. */
async function pairOverSnapshotLink(central: CentralHandle, clock: ManualClock, budget: number) {
  let link: SnapshotLink | null = null;
  const store = await pairStore(
    central,
    clock,
    { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey },
    (credential) => (link = new SnapshotLink(central.transportFor(credential), budget)),
    undefined,
    { firstSync: false },
  );
  open.push(store);
  return { store, link: link! as SnapshotLink };
}

const codeOf = (error: unknown) => (isServiceError(error) ? error.code : String(error));

/** What must agree between central and a store: rows by id, balances per holder, and each balance the sum of its entries. */
async function chainState(db: CentralHandle['engine']['db']) {
  const ids = async (table: 'users' | 'user_vendors' | 'ledger_entries' | 'pos_sessions' | 'orders' | 'transactions') =>
    (await db.selectFrom(table).select('id').orderBy('id').execute()).map((r) => Number(r.id));
  const accounts = await db.selectFrom('ledger_accounts').select(['id', 'holder_type', 'holder_id', 'currency_id', 'balance']).orderBy('holder_id').orderBy('currency_id').execute();
  const sums = new Map((await db.selectFrom('ledger_entries').select(['account_id', (eb) => eb.fn.sum<number>('amount').as('sum')]).groupBy('account_id').execute()).map((r) => [Number(r.account_id), Number(r.sum)]));
  for (const account of accounts) expect(Number(account.balance), `account ${account.id}`).toBe(sums.get(Number(account.id)) ?? 0);
  return {
    users: await ids('users'),
    memberships: await ids('user_vendors'),
    entries: await ids('ledger_entries'),
    sessions: await ids('pos_sessions'),
    orders: await ids('orders'),
    transactions: await ids('transactions'),
    balances: accounts.map((a) => `${a.holder_type}:${a.holder_id}:${a.currency_id}:${a.balance}`),
  };
}

describe('first sync by snapshot', () => {
  it('brings the chain in bulk, opens check-in, and takes what central changed meanwhile from the log', async () => {
    const clock = new ManualClock();
    const { central, emails } = await chainWithCustomers(clock, 60);
    await compactChangeLog(central.engine.db);
    const withRows = await tablesWithRows(central.engine.db);
    expect(withRows.length).toBeLessThan(SNAPSHOT_TABLES.length);
    const scope = await authenticateApiKey(central.engine, central.vendor.apiKey);
    let link: SnapshotLink | null = null;
    let changed = false;
    const store = await pairStore(
      central,
      clock,
      { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey },
      (credential) =>
        (link = new SnapshotLink(central.transportFor(credential), Infinity, async (request) => {
          // Half-way through the customers, central registers one more and a customer earns points.
          if (request.table !== 'user_vendors' || request.after === 0 || changed) return;
          changed = true;
          await registerInStore(central.engine, scope, { email: 'during@chain.test' });
          await placeOrder(central.engine, scope, { identification: emails[1]!, receiptNumber: 'DURING', subtotal: 40 });
        })),
    );
    open.push(store);
    expect(changed).toBe(true);
    // The snapshot path was taken, in REPLICATED_TABLES order, in pages (pairStore's are 50 rows),
    // over the tables with rows only: those central counted empty were not asked.
    expect(link!.requests.length).toBeGreaterThan(withRows.length);
    expect([...new Set(link!.requests.map((r) => r.table))]).toEqual(withRows);
    expect(JSON.parse((await getMeta(store.engine.db, 'sync_snapshot'))!)).toMatchObject({ done: true });
    expect(store.engine.centralLink.firstSyncDone).toBe(true);
    expect(await getMeta(store.engine.db, 'sync_first_sync_done')).not.toBeNull();

    expect(await chainState(store.engine.db)).toEqual(await chainState(central.engine.db));
    const storeScope = await store.scope();
    // Identifiers resolve: the last customer, and the one registered during the snapshot, check in.
    await expect(checkIn(store.engine, storeScope, { identification: emails[59]! })).resolves.toMatchObject({ session: { status: 'active' } });
    await expect(checkIn(store.engine, storeScope, { identification: 'during@chain.test' })).resolves.toMatchObject({ session: { status: 'active' } });
    expect(await store.engine.db.selectFrom('orders').select('id').where('receipt_number', '=', 'DURING').executeTakeFirst()).toBeDefined();
    expect(codeOf(await checkIn(store.engine, storeScope, { identification: 'stranger@chain.test' }).catch((e: unknown) => e))).toBe('customer_not_found');
    // The store's sales reach central as before.
    await placeOrder(store.engine, storeScope, { identification: emails[59]!, receiptNumber: 'S-1', subtotal: 5 });
    await store.client.syncOnce();
    expect(await chainState(store.engine.db)).toEqual(await chainState(central.engine.db));
  });

  it('resumes an interrupted snapshot from its saved position, with nothing written twice; check-in opens after the ledger', async () => {
    const clock = new ManualClock();
    const { central, emails } = await chainWithCustomers(clock, 120);
    // The small tables with rows (those counted empty are not asked), then the customers in pages of
    // 50 (the next page travels while one is written): the link fails inside the customers.
    const { store, link } = await pairOverSnapshotLink(central, clock, (await tablesWithRows(central.engine.db)).indexOf('users') + 2);
    await expect(store.client.syncOnce()).rejects.toThrow('network: down');
    const scope = await store.scope();
    const saved = JSON.parse((await getMeta(store.engine.db, 'sync_snapshot'))!) as { table: number; after: number; rows: number; done: boolean };
    expect(SNAPSHOT_TABLES[saved.table]).toBe('users');
    expect(saved.after).toBeGreaterThan(0);
    expect(store.engine.centralLink.firstSyncDone).toBe(false);
    // (Central is not asked here: the next test covers a counter served before its customer's turn.)
    link.customerDown = true;
    expect(codeOf(await checkIn(store.engine, scope, { identification: emails[119]! }).catch((e: unknown) => e))).toBe('first_sync_in_progress');
    link.customerDown = false;
    const status = await store.client.status();
    expect(status.firstSync).toMatchObject({ done: false, ready: false, rows: saved.rows });
    expect(status.firstSync.progress).toBeGreaterThan(0);
    expect(status.firstSync.progress).toBeLessThan(1);

    // Back up until just past the ledger: check-in opens before the history is in.
    const before = link.requests.length;
    const upToLedger = SNAPSHOT_TABLES.indexOf('ledger_entries');
    link.budget = 1;
    for (;;) {
      const position = JSON.parse((await getMeta(store.engine.db, 'sync_snapshot'))!) as { table: number };
      if (position.table > upToLedger) break;
      link.budget = 1;
      await store.client.syncOnce().catch(() => undefined);
    }
    // The first request after the failure asked from the saved position, not from the start.
    expect(link.requests[before]).toMatchObject({ table: 'users', after: saved.after });
    expect(store.engine.centralLink.firstSyncDone).toBe(true);
    expect(await getMeta(store.engine.db, 'sync_first_sync_done')).toBeNull();
    expect((await store.client.status()).firstSync).toMatchObject({ done: false, ready: true });
    await expect(checkIn(store.engine, scope, { identification: emails[119]! })).resolves.toMatchObject({ session: { status: 'active' } });

    // A restart keeps check-in open; the rest of the snapshot and the log follow.
    link.budget = Infinity;
    await store.client.syncOnce();
    expect(await getMeta(store.engine.db, 'sync_first_sync_done')).not.toBeNull();
    expect(await chainState(store.engine.db)).toEqual(await chainState(central.engine.db));
    expect((await store.client.status()).firstSync).toMatchObject({ done: true, ready: true, progress: 1 });
  });

  it('brings a customer the snapshot has not reached from central for a waiting counter; the rest still converges', async () => {
    const clock = new ManualClock();
    const { central, emails } = await chainWithCustomers(clock, 120);
    const { store, link } = await pairOverSnapshotLink(central, clock, 5);
    const last = emails[117]!; // far down the customers, with points earned at central
    const userAt = async (db: CentralHandle['engine']['db'], email: string) => db.selectFrom('users').select(['id', 'first_name']).where('email_key', '=', email).executeTakeFirst();
    const balanceAt = async (db: CentralHandle['engine']['db'], userId: number) =>
      (await db.selectFrom('ledger_accounts').select(['currency_id', 'balance']).where('holder_type', '=', 'user').where('holder_id', '=', userId).orderBy('currency_id').execute()).map((a) => `${a.currency_id}:${a.balance}`);

    const position = async () => JSON.parse((await getMeta(store.engine.db, 'sync_snapshot'))!) as { table: number; after: number };
    // Still in the program's own tables (stores, keys, rules, tiers): nobody can be served yet.
    await expect(store.client.syncOnce()).rejects.toThrow('network: down');
    expect((await position()).table).toBeLessThan(SNAPSHOT_TABLES.indexOf('users'));
    const scope = await store.scope();
    expect(codeOf(await checkIn(store.engine, scope, { identification: last }).catch((e: unknown) => e))).toBe('first_sync_in_progress');
    expect(await userAt(store.engine.db, last)).toBeUndefined();

    // Into the customers: the last one is far away, yet checks in at once, with their balance.
    while ((await position()).table < SNAPSHOT_TABLES.indexOf('users') || (await position()).after === 0) {
      link.budget = 1;
      await store.client.syncOnce().catch(() => undefined);
    }
    expect(SNAPSHOT_TABLES[(await position()).table]).toBe('users');
    expect(await userAt(store.engine.db, last)).toBeUndefined();
    await expect(checkIn(store.engine, scope, { identification: last })).resolves.toMatchObject({ session: { status: 'active' } });
    const atCentral = (await userAt(central.engine.db, last))!;
    expect(await userAt(store.engine.db, last)).toEqual(atCentral);
    expect(await balanceAt(store.engine.db, Number(atCentral.id))).toEqual(await balanceAt(central.engine.db, Number(atCentral.id)));
    expect((await balanceAt(store.engine.db, Number(atCentral.id))).length).toBeGreaterThan(0);
    // They buy; an order by identification brings its customer the same way.
    await placeOrder(store.engine, scope, { identification: last, receiptNumber: 'EARLY-1', subtotal: 20 });
    await expect(placeOrder(store.engine, scope, { identification: emails[116]!, receiptNumber: 'EARLY-2', subtotal: 7 })).resolves.toMatchObject({ status: 'Complete' });
    // Central knows everyone: a stranger is really unknown, even now.
    expect(codeOf(await checkIn(store.engine, scope, { identification: 'stranger@chain.test' }).catch((e: unknown) => e))).toBe('customer_not_found');
    // Central unreachable: the counter is told the chain is still arriving, and nothing is written.
    link.customerDown = true;
    expect(codeOf(await checkIn(store.engine, scope, { identification: emails[118]! }).catch((e: unknown) => e))).toBe('first_sync_in_progress');
    expect(await userAt(store.engine.db, emails[118]!)).toBeUndefined();
    expect(store.engine.centralLink.firstSyncDone).toBe(false);

    // The snapshot goes on over rows already here and the store's own sales; all converge.
    link.customerDown = false;
    link.budget = Infinity;
    await store.client.syncOnce();
    await store.client.syncOnce();
    expect(await getMeta(store.engine.db, 'sync_first_sync_done')).not.toBeNull();
    expect(await central.engine.db.selectFrom('orders').select('id').where('receipt_number', 'in', ['EARLY-1', 'EARLY-2']).execute()).toHaveLength(2);
    expect(await chainState(store.engine.db)).toEqual(await chainState(central.engine.db));
  });

  it('serves only the node’s vendor, and refuses bad input with 400 and a machine code', async () => {
    const clock = new ManualClock();
    const central = await startCentral(clock);
    open.push(central);
    const other = await setUpVendor(central.engine, { name: 'Other', currency: 'USD', country: 'US', store: { name: 'O', address1: '9 Side St', city: 'Elsewhere' } });
    const mine = await authenticateApiKey(central.engine, central.vendor.apiKey);
    const theirs = await authenticateApiKey(central.engine, other.apiKey);
    await registerInStore(central.engine, mine, { email: 'mine@chain.test' });
    await placeOrder(central.engine, mine, { identification: 'mine@chain.test', receiptNumber: 'M-1', subtotal: 10 });
    await registerInStore(central.engine, theirs, { email: 'theirs@chain.test' });
    await placeOrder(central.engine, theirs, { identification: 'theirs@chain.test', receiptNumber: 'T-1', subtotal: 10 });
    const { code } = await issuePairingCode(central.engine, central.vendor.vendorId, central.vendor.storeId);
    const paired = await pairNode(central.engine, code, 'store');
    const node = await authenticateNode(central.engine, paired.credential);

    const theirUser = await central.engine.db.selectFrom('users').select('id').where('email_key', '=', 'theirs@chain.test').executeTakeFirstOrThrow();
    for (const table of SNAPSHOT_TABLES) {
      const page = await readSnapshotPage(central.engine.db, central.engine.dialect, node, { table, after: 0, limit: 10_000 });
      for (const row of page.rows) {
        if (table === 'vendors') expect(row['id']).toBe(central.vendor.vendorId);
        else if (table === 'users') expect(row['id']).not.toBe(Number(theirUser.id));
        else expect(row['vendor_id'], `${table} ${String(row['id'])}`).toBe(central.vendor.vendorId);
        // Shaped as the pull ships them: secrets stay at central, entries carry their holder.
        if (table === 'users') expect(row).not.toHaveProperty('password_hash');
        if (table === 'ledger_entries') expect(row).toMatchObject({ holder_type: 'user', currency_id: expect.any(Number), holder_id: expect.any(Number) });
      }
    }

    const app: FastifyInstance = await buildApp({ engine: central.engine, role: 'central', version: 'test' });
    open.push({ close: async () => void (await app.close()) });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const get = (query: string, token: string | null = paired.credential) => http(`${url}/sync/snapshot?${query}`, token ? { token } : {});
    const first = await get('table=users&after=0&limit=10&estimate=true');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ table: 'users', more: false, head: expect.any(Number), estimate: expect.any(Number) });
    expect((first.body.rows as Array<{ email: string }>).map((r) => r.email)).toEqual(['mine@chain.test']);
    // With the estimate, each table's count of this vendor's rows (the other program's are not counted), summing to it.
    const counts = first.body.counts as Record<string, number>;
    expect(Object.keys(counts)).toEqual(SNAPSHOT_TABLES);
    expect(counts).toMatchObject({ vendors: 1, stores: 1, users: 1, user_vendors: 1, orders: 1 });
    expect(Object.values(counts).reduce((sum, n) => sum + n, 0)).toBe(first.body.estimate);
    expect((await get('table=users&after=0&limit=10')).body).not.toHaveProperty('counts');
    for (const query of ['table=nope', 'table=sync_changes', 'table=ledger_accounts', 'table=users&after=-1', 'table=users&after=abc', 'table=users&limit=0', 'table=users&limit=100000', 'table=users&after=1e300', 'after=0', `table=${'x'.repeat(100)}`]) {
      const reply = await get(query);
      expect(reply.status, query).toBe(400);
      expect(reply.body, query).toMatchObject({ code: expect.any(String) });
    }
    expect((await get('table=users', null)).status).toBe(401);
    expect((await get('table=users', 'pcn_garbage')).status).toBe(401);

    // One customer for a waiting counter: their rows of this vendor only, shaped as the snapshot's.
    const ask = (body: unknown, token: string | null = paired.credential) => http(`${url}/sync/customer`, { method: 'POST', body, ...(token ? { token } : {}) });
    const rowsOf = (reply: { body: { tables: Array<{ table: string; rows: Array<Record<string, unknown>> }> } }, table: string) => reply.body.tables.find((t) => t.table === table)?.rows ?? [];
    const mineReply = await ask({ card_number: ' MINE@chain.test ' });
    expect(mineReply.status).toBe(200);
    expect(rowsOf(mineReply, 'users').map((r) => r['email'])).toEqual(['mine@chain.test']);
    expect(rowsOf(mineReply, 'users')[0]).not.toHaveProperty('password_hash');
    expect(rowsOf(mineReply, 'user_vendors')).toHaveLength(1);
    expect(rowsOf(mineReply, 'ledger_entries').length).toBeGreaterThan(0);
    for (const row of rowsOf(mineReply, 'ledger_entries')) expect(row).toMatchObject({ vendor_id: central.vendor.vendorId, holder_type: 'user', holder_id: rowsOf(mineReply, 'users')[0]!['id'] });
    // Another program's member is not this store's to know, as in the snapshot.
    expect(await ask({ card_number: 'theirs@chain.test' })).toMatchObject({ status: 404, body: { code: 'customer_not_found' } });
    expect(await ask({ card_number: 'nobody@chain.test' })).toMatchObject({ status: 404, body: { code: 'customer_not_found' } });
    for (const body of [{}, { card_number: '' }, { card_number: null }, { card_number: 'x'.repeat(300) }]) expect((await ask(body)).status, JSON.stringify(body)).toBe(400);
    expect((await ask({ card_number: 'mine@chain.test' }, null)).status).toBe(401);
    // Over the store's HTTP link, central's verdict arrives as the store's own error.
    const transport = httpTransport(url, paired.credential);
    expect(codeOf(await transport.customer!('nobody@chain.test').catch((e: unknown) => e))).toBe('customer_not_found');
    await expect(httpTransport(url, 'pcn_garbage').customer!('mine@chain.test')).rejects.toThrow(CentralError);
    // A central that does not answer: the counter is let go after 3 s, not the link's 15 s.
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    open.push({
      close: async () => {
        silent.closeAllConnections();
        await new Promise((resolve) => silent.close(resolve));
      },
    });
    const asked = Date.now();
    const outcome = await httpTransport(`http://127.0.0.1:${(silent.address() as AddressInfo).port}`, paired.credential).customer!('mine@chain.test').catch((e: unknown) => e);
    expect(isServiceError(outcome)).toBe(false);
    expect(Date.now() - asked).toBeLessThan(6_000);
  });
});

const asObjects = (table: RowTable) => table.rows.map((values) => Object.fromEntries(table.columns.map((c, i) => [c, values[i]])));

describe.each(['sqlite', 'postgres'] as const)('snapshot pages as columns (central on %s)', (kind) => {
  it('read back as exactly the objects central would send, in fewer bytes; stores ask for them', async () => {
    const clock = new ManualClock();
    let database;
    if (kind === 'postgres') {
      const postgres = await openTestPostgres();
      open.push({ close: () => postgres.drop() });
      await migrateToLatest(postgres.database.db);
      database = postgres.database;
    }
    const central = await startCentral(clock, database);
    open.unshift(central);
    const scope = await authenticateApiKey(central.engine, central.vendor.apiKey);
    for (let i = 0; i < 6; i += 1) {
      await registerInStore(central.engine, scope, { email: `col${i}@chain.test`, firstName: i === 0 ? 'Zoë "Q"' : `N${i}` });
      await placeOrder(central.engine, scope, { identification: `col${i}@chain.test`, receiptNumber: `COL-${i}`, subtotal: 10 + i });
    }
    await checkIn(central.engine, scope, { identification: 'col1@chain.test' });
    const { code } = await issuePairingCode(central.engine, central.vendor.vendorId, central.vendor.storeId);
    const paired = await pairNode(central.engine, code, 'store');
    const node = await authenticateNode(central.engine, paired.credential);
    const app: FastifyInstance = await buildApp({ engine: central.engine, role: 'central', version: 'test' });
    open.unshift({ close: async () => void (await app.close()) });
    const asked: string[] = [];
    app.addHook('onRequest', async (request) => void asked.push(request.url));
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const get = (query: string) => http(`${url}/sync/snapshot?${query}`, { token: paired.credential });

    let withRows = 0;
    for (const table of SNAPSHOT_TABLES) {
      const objects = await get(`table=${table}&limit=100`);
      const columns = await get(`table=${table}&limit=100&format=columns`);
      expect(objects.status, table).toBe(200);
      expect(columns.status, table).toBe(200);
      expect(objects.body, table).not.toHaveProperty('columns');
      expect(columns.body.columns, table).toEqual(expect.arrayContaining(['id']));
      const { columns: names, rows, ...rest } = columns.body as RowTable & Record<string, unknown>;
      expect({ ...rest, rows: asObjects({ columns: names, rows }) }, table).toEqual(objects.body);
      // The store's link asks for columns; the store reads them as it reads objects.
      const linked = await httpTransport(url, paired.credential).snapshot!({ table, after: 0, limit: 100 });
      const direct = await readSnapshotPage(central.engine.db, central.engine.dialect, node, { table, after: 0, limit: 100 });
      expect(linked, table).toHaveProperty('columns');
      expect(asObjects(rowTableOf(linked)), table).toEqual(direct.rows);
      if (objects.body.rows.length > 2) withRows += 1;
      // The bulk of a chain's snapshot: customers, memberships and entries (an order's size is its stored reply).
      if (['users', 'user_vendors', 'ledger_entries'].includes(table)) expect(JSON.stringify(columns.body).length, table).toBeLessThan(0.7 * JSON.stringify(objects.body).length);
    }
    expect(withRows).toBeGreaterThanOrEqual(5); // customers, memberships, entries, check-ins, orders, history
    // Ours: one page per table as objects and one as columns; the store's link asks for columns too.
    expect(asked.filter((u) => !u.includes('format=')).length).toBe(SNAPSHOT_TABLES.length);
    expect(asked.filter((u) => u.includes('format=columns')).length).toBe(SNAPSHOT_TABLES.length * 2);
    expect((await get('table=users&format=xml')).status).toBe(400);
  });
});
