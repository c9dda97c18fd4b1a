import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { voidOrder } from '../../src/core/orders/void-order';
import { type Database, migrateToLatest, openSqlite } from '../../src/core/storage/database';
import { buildApp } from '../../src/server/app';
import { httpTransport } from '../../src/server/sync/http-transport';
import { ManualClock } from '../support/clock';
import { openTestPostgres } from '../support/postgres';
import { makeTempDir } from '../support/temp-dir';
import { type CentralHandle, pairStore, type StoreHandle, startCentral } from './support/chain';

// A reversal written by a lower-numbered node (central voiding a store's sale, or one store node
// voiding another's) has a smaller id than the entry it reverses, so a snapshot in id order reaches
// it pages before its target. A new store's first sync must still take both (docs/sync.md,
// "First sync"): over HTTP, with SQLite files for the stores and central on SQLite or PostgreSQL.

const PAGE = 50; // the snapshot page of test/sync/support/chain.ts's stores

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const handle of open.splice(0).reverse()) await handle.close();
});

function sqliteFile(name: string): Database {
  const dir = makeTempDir('punchcard-reversals-');
  open.push({ close: async () => dir.remove() });
  return openSqlite(`${dir.path}/${name}.db`);
}

async function centralDatabase(kind: 'sqlite' | 'postgres'): Promise<Database> {
  if (kind === 'sqlite') {
    const database = sqliteFile('central');
    await migrateToLatest(database.db);
    return database;
  }
  const postgres = await openTestPostgres();
  open.push({ close: () => postgres.drop() });
  await migrateToLatest(postgres.database.db);
  return postgres.database;
}

/** Pushes until nothing is pending, then pulls what the others wrote. */
async function syncUntilQuiet(store: StoreHandle): Promise<void> {
  for (let round = 0; round < 20; round += 1) {
    await store.client.syncOnce();
    const pending = await store.engine.db.selectFrom('sync_events').select('node_seq').where('acked_at', 'is', null).execute();
    if (pending.length === 0) return;
  }
  throw new Error('events still pending after 20 rounds');
}

async function sellToNewCustomers(store: StoreHandle, prefix: string, count: number): Promise<void> {
  const scope = await store.scope();
  for (let i = 0; i < count; i += 1) {
    await registerInStore(store.engine, scope, { email: `${prefix}${i}@chain.test`, firstName: prefix });
    await placeOrder(store.engine, scope, { identification: `${prefix}${i}@chain.test`, receiptNumber: `${prefix}-${i}`, subtotal: 10 });
  }
  await syncUntilQuiet(store);
}

/** What a new store must agree with central on: every entry (and what it reverses), every balance, each the sum of its entries. */
async function ledgerState(db: CentralHandle['engine']['db']) {
  const accounts = await db.selectFrom('ledger_accounts').select(['id', 'holder_type', 'holder_id', 'currency_id', 'balance']).orderBy('holder_type').orderBy('holder_id').orderBy('currency_id').execute();
  const sums = new Map((await db.selectFrom('ledger_entries').select(['account_id', (eb) => eb.fn.sum<number>('amount').as('sum')]).groupBy('account_id').execute()).map((r) => [Number(r.account_id), Number(r.sum)]));
  for (const account of accounts) expect(Number(account.balance), `account ${account.id}`).toBe(sums.get(Number(account.id)) ?? 0);
  return {
    entries: (await db.selectFrom('ledger_entries').select(['id', 'reverses_id', 'amount']).orderBy('id').execute()).map((e) => `${e.id}:${e.reverses_id}:${e.amount}`),
    balances: accounts.map((a) => `${a.holder_type}:${a.holder_id}:${a.currency_id}:${a.balance}`),
    orders: (await db.selectFrom('orders').select(['id', 'status']).orderBy('id').execute()).map((o) => `${o.id}:${o.status}`),
  };
}

describe.each(['sqlite', 'postgres'] as const)('first sync with reversals of other nodes’ entries (central on %s)', (kind) => {
  it('brings a reversal whose target lies pages ahead, and the new store’s balances equal central’s', async () => {
    const clock = new ManualClock();
    const central = await startCentral(clock, await centralDatabase(kind));
    open.push(central);
    const app: FastifyInstance = await buildApp({ engine: central.engine, role: 'central', version: 'test' });
    open.push({ close: async () => void (await app.close()) });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const overHttp = (credential: string) => httpTransport(url, credential);
    const store = { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey };

    // Two nodes of one store (node numbers 1 and 2), each selling to its own customers.
    const a = await pairStore(central, clock, store, overHttp, sqliteFile('a'));
    open.push(a);
    const b = await pairStore(central, clock, store, overHttp, sqliteFile('b'));
    open.push(b);
    await sellToNewCustomers(a, 'A', 60);
    await sellToNewCustomers(b, 'B', 60);
    await syncUntilQuiet(a);

    // Central (node 0) voids A's last sale, and A (node 1) voids B's last sale.
    await voidOrder(central.engine, await authenticateApiKey(central.engine, central.vendor.apiKey), 'A-59');
    await voidOrder(a.engine, await a.scope(), 'B-59');
    await syncUntilQuiet(a);

    // Both reversals are pages before what they reverse (else this test proves nothing).
    const entries = await central.engine.db.selectFrom('ledger_entries').select(['id', 'reverses_id']).orderBy('id').execute();
    const pageOf = (id: number) => Math.floor(entries.findIndex((e) => Number(e.id) === id) / PAGE);
    const reversals = entries.filter((e) => e.reverses_id !== null);
    expect(reversals.length).toBeGreaterThanOrEqual(2);
    for (const r of reversals) expect(pageOf(Number(r.id)), `reversal ${r.id}`).toBeLessThan(pageOf(Number(r.reverses_id)));

    // A new node's first sync goes through, the reversals with it.
    const c = await pairStore(central, clock, store, overHttp, sqliteFile('c'), { firstSync: false });
    open.push(c);
    await c.client.syncOnce();
    expect(c.engine.centralLink.firstSyncDone).toBe(true);
    const atCentral = await ledgerState(central.engine.db);
    expect(await ledgerState(c.engine.db)).toEqual(atCentral);
    expect(atCentral.orders.filter((o) => o.endsWith(':voided'))).toHaveLength(2);
  }, 120_000);
});
