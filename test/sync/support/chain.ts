import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach } from 'vitest';
import { type Engine, startEngine } from '../../../src/core/engine';
import { addApiKey } from '../../../src/core/credentials/api-keys';
import { authenticateApiKey, type StoreScope } from '../../../src/core/credentials/authenticate';
import { nextObjectId } from '../../../src/core/storage/ids';
import { migrateToLatest, openSqlite, type Database } from '../../../src/core/storage/database';
import { installChangeCapture } from '../../../src/core/sync/capture/install-capture';
import { acceptPushedEvents, type PairedNode } from '../../../src/core/sync/central/apply-push';
import { authenticateNode, issuePairingCode, pairNode } from '../../../src/core/sync/central/pairing';
import { readChangesForNode } from '../../../src/core/sync/central/read-changes';
import { readCustomerRows } from '../../../src/core/sync/central/read-customer-rows';
import { readSnapshotPage } from '../../../src/core/sync/central/read-snapshot';
import type { CustomerRows, PullResponse, PushRequest, PushResponse, SnapshotPage, SnapshotRequest } from '../../../src/core/sync/protocol';
import { setMeta } from '../../../src/core/storage/node-meta';
import { loadFirstSyncState, SyncClient, type SyncTransport } from '../../../src/core/sync/store/sync-client';
import { setUpVendor, type VendorCredentials } from '../../../src/core/tenancy/set-up-vendor';
import type { Backend } from '../../support/backends';
import { ManualClock } from '../../support/clock';

// A chain in one process for tests of sync: central and stores on in-memory SQLite databases cloned
// from one migrated image, a shared manual clock, and stores that reach central through a transport
// the test controls (a perfect one here; the simulation wraps it in a lossy network).

let image: Buffer | null = null;

/** An in-memory database, migrated: a copy of one migrated image, so a thousand nodes migrate once. */
export async function freshDatabase(): Promise<Database> {
  if (!image) {
    const file = join(mkdtempSync(join(tmpdir(), 'pc-sim-')), 'image.db');
    const first = openSqlite(':memory:');
    await migrateToLatest(first.db);
    await sql`vacuum into ${file}`.execute(first.db);
    await first.close();
    image = readFileSync(file);
    rmSync(file);
  }
  return openSqlite(image);
}

type Closable = { close(): Promise<unknown> };

/**
 * What a test opens, closed after it, last opened first: `const keep = closedAfterEach()` at the top
 * of a test file, then `keep(handle)` (which returns the handle).
 */
export function closedAfterEach(): <T extends Closable>(handle: T) => T {
  const open: Closable[] = [];
  afterEach(async () => {
    for (const handle of open.splice(0).reverse()) await handle.close();
  });
  return (handle) => {
    open.push(handle);
    return handle;
  };
}

/**
 * The databases a chain test's central runs on: an in-memory SQLite, and PostgreSQL when PG_URL names
 * a server (PGlite migrates too slowly for a fresh central per test). `onOpen` gets what must be
 * closed after the test (a PostgreSQL database to drop). For `describe.each(...)('… $name')`.
 */
export function centralDatabases(onOpen: (handle: { close(): Promise<void> }) => void): Array<{ name: string; database(): Promise<Database> }> {
  const sqlite = { name: 'sqlite', database: () => freshDatabase() };
  const postgres = {
    name: 'postgres',
    async database() {
      // Loaded here: the many chain tests on SQLite alone need not load PostgreSQL's drivers.
      const { openTestPostgres } = await import('../../support/postgres');
      const pg = await openTestPostgres();
      onOpen({ close: () => pg.drop() });
      return pg.database;
    },
  };
  return process.env.PG_URL ? [sqlite, postgres] : [sqlite];
}

/** A central on a test backend's database (SQLite or PostgreSQL), both closed after the test. */
export async function startCentralOn(backend: Backend, clock: ManualClock, keep: ReturnType<typeof closedAfterEach>): Promise<CentralHandle> {
  const opened = keep(await backend.open());
  return keep(await startCentral(clock, opened.database));
}

export interface CentralHandle {
  engine: Engine;
  vendor: VendorCredentials;
  /** The direct (perfect) transport of a paired node. */
  transportFor(credential: string): SyncTransport;
  close(): Promise<void>;
}

export async function startCentral(clock: ManualClock, given?: Database): Promise<CentralHandle> {
  const database = given ?? (await freshDatabase());
  const engine = await startEngine({ database, nodeKey: randomBytes(32), clock, role: 'central' });
  await installChangeCapture(engine.db, engine.dialect, 'central');
  const vendor = await setUpVendor(engine, { name: 'Chain', currency: 'USD', country: 'US', store: { name: 'A', address1: '1 Main', city: 'Springfield' } });
  return {
    engine,
    vendor,
    transportFor(credential: string): SyncTransport {
      return {
        async push(request: PushRequest): Promise<PushResponse> {
          const node = await authenticateNode(engine, credential);
          return acceptPushedEvents(engine, node, request.events);
        },
        async pull(after: number, limit: number): Promise<PullResponse> {
          const node = await authenticateNode(engine, credential);
          return readChangesForNode(engine.db, node, after, limit);
        },
        async snapshot(request: SnapshotRequest): Promise<SnapshotPage> {
          const node = await authenticateNode(engine, credential);
          return readSnapshotPage(engine.db, engine.dialect, node, request);
        },
        async customer(identification: string): Promise<CustomerRows> {
          const node = await authenticateNode(engine, credential);
          return readCustomerRows(engine, node, identification);
        },
      };
    },
    close: () => engine.close(),
  };
}

/** A second store of the chain's vendor, with a cashier key. */
export async function addStore(central: CentralHandle, name: string): Promise<{ storeId: number; apiKey: string }> {
  const { engine, vendor } = central;
  return engine.db.transaction().execute(async (trx) => {
    const storeId = await nextObjectId(trx, engine.nodeId);
    const now = engine.clock.now();
    await trx
      .insertInto('stores')
      .values({ id: storeId, vendor_id: vendor.vendorId, name, address1: '2 High St', address2: null, city: 'Shelbyville', region: null, country: 'US', postal_code: null, phone: null, latitude: null, longitude: null, hours: null, created_at: now, updated_at: now })
      .execute();
    const key = await addApiKey(trx, engine, { vendorId: vendor.vendorId, storeId, posId: null, role: 'cashier', label: name });
    return { storeId, apiKey: key.key };
  });
}

export interface StoreHandle {
  engine: Engine;
  client: SyncClient;
  storeId: number;
  /** The node credential central issued at pairing (a node started again on this database uses it). */
  credential: string;
  scope(): Promise<StoreScope>;
  close(): Promise<void>;
}

/** Pairs a new store node with central (as `punchcard store --pair` does) and runs its first sync. */
export async function pairStore(
  central: CentralHandle,
  clock: ManualClock,
  store: { storeId: number; apiKey: string },
  transport: (credential: string) => SyncTransport,
  given?: Database,
  options: { firstSync?: boolean; pushPage?: number; snapshotPage?: number } = {},
): Promise<StoreHandle> {
  const database = given ?? (await freshDatabase());
  const { code } = await issuePairingCode(central.engine, central.vendor.vendorId, store.storeId);
  const paired = await pairNode(central.engine, code, `store ${store.storeId}`);
  await migrateToLatest(database.db);
  await setMeta(database.db, 'node_id', String(paired.node_id));
  const handle = await startStoreNode(clock, database, { ...store, vendorId: paired.vendor_id, credential: paired.credential }, transport(paired.credential), options.pushPage, options.snapshotPage);
  if (options.firstSync !== false) await handle.client.syncOnce();
  return handle;
}

/**
 * A paired store's node started on its database as `punchcard store` starts it: after a restart,
 * or on a data folder restored from a backup. No sync round is run.
 */
export async function startStoreNode(
  clock: ManualClock,
  database: Database,
  store: { storeId: number; apiKey: string; vendorId: number; credential: string },
  transport: SyncTransport,
  /** Events a push sends at most (small by default: tests see several pages). */
  pushPage = 20,
  /** Rows per snapshot page (small: tests see several pages). */
  snapshotPage = 50,
): Promise<StoreHandle> {
  const engine = await startEngine({ database, nodeKey: randomBytes(32), clock, role: 'store', programRole: 'replica' });
  await installChangeCapture(engine.db, engine.dialect, 'store');
  await loadFirstSyncState(engine);
  const client = new SyncClient(engine, transport, { vendorId: store.vendorId, storeId: store.storeId, pullPage: 50, pushPage, snapshotPage });
  return {
    engine,
    client,
    storeId: store.storeId,
    credential: store.credential,
    scope: () => authenticateApiKey(engine, store.apiKey),
    close: () => engine.close(),
  };
}

/**
 * Central's first store paired over central's in-process transport, with the node as central
 * authenticates it: for tests that hand central pushes of their own making.
 */
export async function pairFirstStore(central: CentralHandle, clock: ManualClock): Promise<{ store: StoreHandle; node: PairedNode }> {
  let credential = '';
  const store = await pairStore(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }, (given) => {
    credential = given;
    return central.transportFor(given);
  });
  return { store, node: await authenticateNode(central.engine, credential) };
}

/** A store paired with central behind a `Switch` the test turns off and on (its first sync run). */
export async function pairStoreBehindSwitch(central: CentralHandle, clock: ManualClock, store: { storeId: number; apiKey: string }): Promise<StoreHandle & { link: Switch }> {
  let link: Switch | null = null;
  const handle = await pairStore(central, clock, store, (credential) => (link = new Switch(central.transportFor(credential))));
  return { ...handle, link: link! };
}

/** A store's link to central that a test turns off (`down`) and on again. */
export class Switch implements SyncTransport {
  down = false;
  constructor(private readonly inner: SyncTransport) {}
  push: SyncTransport['push'] = (r) => (this.down ? Promise.reject(new Error('down')) : this.inner.push(r));
  pull: SyncTransport['pull'] = (a, l) => (this.down ? Promise.reject(new Error('down')) : this.inner.pull(a, l));
  snapshot: SyncTransport['snapshot'] = (r) => (this.down ? Promise.reject(new Error('down')) : this.inner.snapshot!(r));
}
