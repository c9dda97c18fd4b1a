import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { checkIn } from '../../src/core/onscreen/check-in';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { type Database, migrateToLatest, openSqlite } from '../../src/core/storage/database';
import { getMeta } from '../../src/core/storage/node-meta';
import { SNAPSHOT_TABLES } from '../../src/core/sync/central/read-snapshot';
import type { SnapshotPageOnTheWire, SnapshotRequest } from '../../src/core/sync/protocol';
import type { SyncTransport } from '../../src/core/sync/store/sync-client';
import { buildApp } from '../../src/server/app';
import { httpTransport } from '../../src/server/sync/http-transport';
import { ManualClock } from '../support/clock';
import { openTestPostgres } from '../support/postgres';
import { makeTempDir } from '../support/temp-dir';
import { type CentralHandle, pairStore, startCentral } from './support/chain';
import { replicatedState, tablesWithRows } from './support/snapshot-tables';

// A first page's `counts` (docs/sync.md, "Tables empty at the cursor"): a store skips the tables
// central counted empty, and what is written to them after the cursor comes by the log. Over HTTP,
// central on SQLite or PostgreSQL, requests counted at central; a central of an earlier version
// (no counts) is the same central with the field taken off its pages on the way.

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const handle of open.splice(0).reverse()) await handle.close();
});

async function centralDatabase(kind: 'sqlite' | 'postgres'): Promise<Database> {
  if (kind === 'sqlite') {
    const dir = makeTempDir('punchcard-empty-tables-');
    open.push({ close: async () => dir.remove() });
    const database = openSqlite(`${dir.path}/central.db`);
    await migrateToLatest(database.db);
    return database;
  }
  const postgres = await openTestPostgres();
  open.push({ close: () => postgres.drop() });
  await migrateToLatest(postgres.database.db);
  return postgres.database;
}

/** A tiny program's central (the README's chain: the vendor's own rows, no customers yet) served over HTTP; `asked` lists the sync requests it received. */
async function tinyCentral(kind: 'sqlite' | 'postgres') {
  const clock = new ManualClock();
  const central = await startCentral(clock, await centralDatabase(kind));
  open.push(central);
  const app: FastifyInstance = await buildApp({ engine: central.engine, role: 'central', version: 'test' });
  open.push({ close: async () => void (await app.close()) });
  const asked: string[] = [];
  app.addHook('onRequest', async (request) => void (request.url.startsWith('/sync/') && asked.push(request.url)));
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { clock, central, url, asked, snapshotsAsked: () => asked.filter((u) => u.startsWith('/sync/snapshot?')).map((u) => new URLSearchParams(u.split('?')[1]).get('table')) };
}

/** The store's HTTP link, as it reaches central: `older` takes `counts` off every page (a central before them); `during` runs before a request; `budget` requests then "network: down". */
class CentralLink implements SyncTransport {
  budget = Infinity;
  during: ((request: SnapshotRequest) => Promise<void>) | null = null;
  constructor(
    private readonly inner: SyncTransport,
    private readonly older: boolean,
  ) {}
  push: SyncTransport['push'] = (r) => this.inner.push(r);
  pull: SyncTransport['pull'] = (a, l) => this.inner.pull(a, l);
  snapshot = async (request: SnapshotRequest): Promise<SnapshotPageOnTheWire> => {
    if (this.budget <= 0) throw new Error('network: down');
    this.budget -= 1;
    await this.during?.(request);
    const page = await this.inner.snapshot!(request);
    if (!this.older) return page;
    const { counts: _dropped, ...asAnOlderCentralSends } = page;
    return asAnOlderCentralSends;
  };
}

async function pairOver(central: CentralHandle, clock: ManualClock, url: string, older: boolean) {
  let link: CentralLink | null = null;
  const store = await pairStore(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }, (credential) => (link = new CentralLink(httpTransport(url, credential), older)), undefined, { firstSync: false });
  open.push(store);
  return { store, link: link! as CentralLink };
}

const savedPosition = async (store: { engine: CentralHandle['engine'] }) => JSON.parse((await getMeta(store.engine.db, 'sync_snapshot'))!) as { table: number; empty?: string[]; done: boolean };

describe.each(['sqlite', 'postgres'] as const)('a first sync skips the tables empty at the cursor (central on %s)', (kind) => {
  it('asks only the tables with rows, and what central writes to the others after the cursor arrives by the log', async () => {
    const { clock, central, url, asked, snapshotsAsked } = await tinyCentral(kind);
    const withRows = await tablesWithRows(central.engine.db);
    expect(withRows).not.toContain('users');
    expect(withRows.length).toBeLessThan(SNAPSHOT_TABLES.length / 2);
    const { store, link } = await pairOver(central, clock, url, false);
    // Once the cursor is taken (the first page answered), central gets its first customer, who
    // buys: rows in tables the first page counted empty (customers, memberships, entries, history).
    const scope = await authenticateApiKey(central.engine, central.vendor.apiKey);
    link.during = async (request) => {
      if (request.table === 'vendors') return;
      link.during = null;
      await registerInStore(central.engine, scope, { email: 'first@chain.test' });
      await placeOrder(central.engine, scope, { identification: 'first@chain.test', receiptNumber: 'AFTER-CURSOR', subtotal: 25 });
    };
    await store.client.syncOnce();
    expect(link.during).toBeNull();

    // One page per table with rows, each asked once; then the log.
    expect(snapshotsAsked()).toEqual(withRows);
    expect(asked.filter((u) => u.startsWith('/sync/pull?')).length).toBeGreaterThan(0);
    expect(await savedPosition(store)).toMatchObject({ done: true, empty: expect.arrayContaining(['users', 'user_vendors', 'ledger_entries', 'orders']) });
    expect(await getMeta(store.engine.db, 'sync_first_sync_done')).not.toBeNull();
    expect((await store.client.status()).firstSync).toMatchObject({ done: true, ready: true, progress: 1 });
    // Converged: every table's rows and every balance, the customer written after the cursor included.
    expect(await replicatedState(store.engine.db)).toEqual(await replicatedState(central.engine.db));
    expect((await replicatedState(store.engine.db))['orders']).toHaveLength(1);
    await expect(checkIn(store.engine, await store.scope(), { identification: 'first@chain.test' })).resolves.toMatchObject({ session: { status: 'active' } });
  });

  it('against a central that sends no counts (an earlier version) asks every table, and converges', async () => {
    const { clock, central, url, snapshotsAsked } = await tinyCentral(kind);
    const scope = await authenticateApiKey(central.engine, central.vendor.apiKey);
    await registerInStore(central.engine, scope, { email: 'one@chain.test' });
    const { store } = await pairOver(central, clock, url, true);
    await store.client.syncOnce();
    expect(snapshotsAsked()).toEqual(SNAPSHOT_TABLES);
    expect((await savedPosition(store)).empty).toEqual([]);
    expect(await getMeta(store.engine.db, 'sync_first_sync_done')).not.toBeNull();
    expect(await replicatedState(store.engine.db)).toEqual(await replicatedState(central.engine.db));
  });

  it('over a link that fails after every request, each round moves on: no table is asked twice', async () => {
    const { clock, central, url, snapshotsAsked } = await tinyCentral(kind);
    const withRows = await tablesWithRows(central.engine.db);
    const { store, link } = await pairOver(central, clock, url, false);
    let rounds = 0;
    while ((await getMeta(store.engine.db, 'sync_first_sync_done')) === null) {
      if (++rounds > SNAPSHOT_TABLES.length + 2) throw new Error(`no first sync after ${rounds - 1} rounds: ${JSON.stringify(await savedPosition(store))}`);
      // One page answered a round; the next (the prefetch) is lost.
      link.budget = 1;
      await store.client.syncOnce().catch(() => undefined);
    }
    expect(rounds).toBe(withRows.length);
    expect(snapshotsAsked()).toEqual(withRows);
    expect(await replicatedState(store.engine.db)).toEqual(await replicatedState(central.engine.db));
  });
});
