import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { insertUser } from '../../src/core/customers/customer-store';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { acceptPushedEvents } from '../../src/core/sync/central/apply-push';
import { authenticateNode, issuePairingCode, pairNode } from '../../src/core/sync/central/pairing';
import { readPendingEvents } from '../../src/core/sync/outbox/pending-events';
import type { SyncTransport } from '../../src/core/sync/store/sync-client';
import { isServiceError } from '../../src/shared/errors';
import { ManualClock } from '../support/clock';
import { openTestPostgres } from '../support/postgres';
import { addStore, type CentralHandle, pairStore, startCentral, type StoreHandle, Switch } from './support/chain';

// Central on PostgreSQL meets pushes (and pairings) that run at the same time. Each interleaving is
// staged: another connection holds what the first transaction needs (the change log's lock, taken by
// any write to a replicated table; a pairing code's row) until every contender is seen waiting, and
// then lets go. Stores are in-memory SQLite, as in the other chain tests; it needs a server (PG_URL).

interface Race {
  clock: ManualClock;
  central: CentralHandle;
  url: string;
  /** Runs SQL outside the engine's pool (to hold locks) and watches who waits. */
  holder: pg.Client;
  watcher: pg.Client;
}

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const handle of open.splice(0).reverse()) await handle.close();
});

async function race(): Promise<Race> {
  const clock = new ManualClock();
  const database = await openTestPostgres();
  const central = await startCentral(clock, database.database);
  open.push({ close: () => database.drop() }, central);
  const client = async () => {
    const c = new pg.Client({ connectionString: database.url });
    await c.connect();
    open.push({ close: () => c.end() });
    return c;
  };
  return { clock, central, url: database.url!, holder: await client(), watcher: await client() };
}

/** A store of the chain whose pushes central takes event by event (the path that can refuse an event). */
async function store(r: Race, at: { storeId: number; apiKey: string }, options: { oneByOne?: boolean } = {}): Promise<StoreHandle & { link: Switch; credential: string }> {
  let credential = '';
  let link: Switch | null = null;
  const handle = await pairStore(r.central, r.clock, at, (c) => {
    credential = c;
    const direct = r.central.transportFor(c);
    const transport: SyncTransport = options.oneByOne ? { ...direct, push: async (request) => acceptPushedEvents(r.central.engine, await authenticateNode(r.central.engine, c), request.events, { oneByOne: true }) } : direct;
    link = new Switch(transport);
    return link;
  });
  open.push(handle);
  return Object.assign(handle, { link: link!, credential });
}

/** Holds the change log's lock (as any write to a replicated table does) until `release`. */
async function holdChangeLog(r: Race): Promise<{ release(): Promise<void> }> {
  await r.holder.query('begin');
  await r.holder.query('update vendors set name = name where id = $1', [r.central.vendor.vendorId]);
  return { release: async () => void (await r.holder.query('commit')) };
}

/** Waits until `count` sessions of the database wait for a lock. */
async function waitForWaiters(r: Race, count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { rows } = await r.watcher.query("select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'");
    if (rows[0].n >= count) return;
    if (Date.now() > deadline) throw new Error(`expected ${count} sessions waiting for a lock, saw ${rows[0].n}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const verdictsOf = (s: StoreHandle) => s.engine.db.selectFrom('sync_events').select(['node_seq', 'verdict']).orderBy('node_seq').execute();
const kindsOf = async (central: CentralHandle) => (await central.engine.db.selectFrom('sync_exceptions').select('kind').execute()).map((e) => e.kind);

describe.skipIf(!process.env.PG_URL)('pushes that meet at central, on PostgreSQL (PG_URL)', () => {
  it('a push the store retries while central still applies the first answers the first’s events as applied', async () => {
    const r = await race();
    const a = await store(r, { storeId: r.central.vendor.storeId, apiKey: r.central.vendor.apiKey }, { oneByOne: true });
    a.link.down = true;
    for (let i = 0; i < 3; i += 1) {
      await registerInStore(a.engine, await a.scope(), { email: `c${i}@example.com`, firstName: 'C' });
      await placeOrder(a.engine, await a.scope(), { identification: `c${i}@example.com`, receiptNumber: `R-${i}`, subtotal: 10 });
    }
    const node = await authenticateNode(r.central.engine, a.credential);
    const events = await readPendingEvents(a.engine, 100);

    // The first request (the one the store gave up on after 15 s) is held mid-apply; the store sends the page again.
    const log = await holdChangeLog(r);
    const first = acceptPushedEvents(r.central.engine, node, events, { oneByOne: true });
    await waitForWaiters(r, 1);
    a.link.down = false;
    const retried = a.client.pushAll();
    await waitForWaiters(r, 2);
    await log.release();

    expect((await first).results.map((v) => v.verdict)).toEqual(events.map(() => 'applied'));
    await retried;
    expect(await verdictsOf(a)).toEqual(events.map((e) => ({ node_seq: e.node_seq, verdict: 'applied' })));
    expect(await r.central.engine.db.selectFrom('sync_verdicts').selectAll().execute()).toEqual([]);
    expect(await kindsOf(r.central)).toEqual([]);
    const orders = await r.central.engine.db.selectFrom('orders').select('receipt_number').orderBy('receipt_number').execute();
    expect(orders.map((o) => o.receipt_number)).toEqual(['R-0', 'R-1', 'R-2']);
  });

  it('a customer’s email central registers while a store’s push brings it merges the store’s customer instead of refusing it', async () => {
    const r = await race();
    const a = await store(r, { storeId: r.central.vendor.storeId, apiKey: r.central.vendor.apiKey }, { oneByOne: true });
    a.link.down = true;
    await registerInStore(a.engine, await a.scope(), { email: 'ana@example.com', firstName: 'Ana' });
    await placeOrder(a.engine, await a.scope(), { identification: 'ana@example.com', receiptNumber: 'A-1', subtotal: 10 });

    // Central's own registration of the same email is under way (not committed) when the push inserts.
    let commit!: () => void;
    let inserted!: () => void;
    const committed = new Promise<void>((resolve) => (commit = resolve));
    const written = new Promise<void>((resolve) => (inserted = resolve));
    let centralUserId = 0;
    const registration = r.central.engine.db.transaction().execute(async (trx) => {
      const user = await insertUser(trx, r.central.engine, { email: 'ana@example.com', email_key: 'ana@example.com', password_hash: null, first_name: 'Ana', last_name: 'App', phone: null, cedula: null, birthdate: null, first_vendor_id: r.central.vendor.vendorId });
      centralUserId = user.id;
      inserted();
      await committed;
    });
    await written;
    a.link.down = false;
    const pushed = a.client.pushAll();
    await waitForWaiters(r, 1);
    commit();
    await registration;
    await pushed;

    expect((await verdictsOf(a)).map((v) => v.verdict)).toEqual(['applied', 'applied']);
    const atCentral = await r.central.engine.db.selectFrom('users').select(['id', 'merged_into', 'status']).where('first_name', '=', 'Ana').orderBy('id').execute();
    expect(atCentral).toHaveLength(2);
    const pointer = atCentral.find((u) => Number(u.id) !== centralUserId)!;
    expect([Number(pointer.merged_into), pointer.status]).toEqual([centralUserId, 'merged']);
    expect(await kindsOf(r.central)).toEqual(['customer_merged']);
  });

  it('one phone registered at two stores, pushed at once, becomes one customer', async () => {
    const r = await race();
    const a = await store(r, { storeId: r.central.vendor.storeId, apiKey: r.central.vendor.apiKey });
    const b = await store(r, await addStore(r.central, 'B'));
    a.link.down = true;
    b.link.down = true;
    const phone = { number: '+12025550143' };
    await registerInStore(a.engine, await a.scope(), { phone, firstName: 'Ana' });
    await registerInStore(b.engine, await b.scope(), { phone, firstName: 'Ana' });

    const log = await holdChangeLog(r);
    a.link.down = false;
    b.link.down = false;
    const pushA = a.client.pushAll();
    await waitForWaiters(r, 1);
    const pushB = b.client.pushAll();
    await waitForWaiters(r, 2);
    await log.release();
    await Promise.all([pushA, pushB]);

    for (const s of [a, b]) expect((await verdictsOf(s)).map((v) => v.verdict)).toEqual(['applied']);
    const customers = await r.central.engine.db.selectFrom('users').select(['id', 'merged_into']).where('first_name', '=', 'Ana').orderBy('id').execute();
    expect(customers).toHaveLength(2);
    expect(customers.filter((u) => u.merged_into === null)).toHaveLength(1);
    expect(await kindsOf(r.central)).toEqual(['customer_merged']);
  });
});

describe.skipIf(!process.env.PG_URL)('a pairing code redeemed twice at once, on PostgreSQL (PG_URL)', () => {
  it('pairs one node; the other redemption is refused as an invalid code', async () => {
    const r = await race();
    const { code } = await issuePairingCode(r.central.engine, r.central.vendor.vendorId, r.central.vendor.storeId);
    const nodesBefore = await r.central.engine.db.selectFrom('sync_nodes').select('id').execute();

    // Something holds the code's row (a third redemption, say) while both read and try to spend it.
    await r.holder.query('begin');
    await r.holder.query('select * from sync_pairing_codes for update');
    const both = Promise.allSettled([pairNode(r.central.engine, code, 'till 1'), pairNode(r.central.engine, code, 'till 2')]);
    await waitForWaiters(r, 2);
    await r.holder.query('commit');

    const outcomes = await both;
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult | undefined;
    expect(isServiceError(refused?.reason) && refused.reason.code).toBe('pairing_code_invalid');
    const nodesAfter = await r.central.engine.db.selectFrom('sync_nodes').select('id').execute();
    expect(nodesAfter.length - nodesBefore.length).toBe(1);
  });
});
