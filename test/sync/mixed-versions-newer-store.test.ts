import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { voidOrder } from '../../src/core/orders/void-order';
import { sqliteColumns } from '../../src/core/sync/capture/install-capture';
import type { PushRequest } from '../../src/core/sync/protocol';
import { REPLICATED_TABLES } from '../../src/core/sync/replicated-tables';
import { tableColumns } from '../../src/core/sync/table-columns';
import { SCHEMA_LEVEL, SCHEMA_LEVEL_HEADER } from '../../src/core/sync/schema-level';
import { SyncClient, type SyncTransport } from '../../src/core/sync/store/sync-client';
import { buildApp } from '../../src/server/app';
import { httpTransport } from '../../src/server/sync/http-transport';
import { ManualClock } from '../support/clock';
import { http } from '../support/test-node';
import { type CentralHandle, centralDatabases, pairStore, startCentral, type StoreHandle } from './support/chain';

// A store upgraded before its central (docs/sync.md, "Mixed versions"). A store of a later version
// sends its schema level (its last migration) with every sync request. When its push carries what
// this central's database cannot hold — a column or a table that only a later migration adds —
// central refuses the push (409 store_newer_than_central, naming both levels, nothing applied)
// and the store keeps its sales until central is upgraded. Before, the unknown column was dropped
// without a word (the sale reached central without it, for good) and an unknown table's change
// rejected the whole sale. A store of central's level, or of no level (an earlier version), is
// judged as before. The later store is simulated: its pushes carry a later level and its rows a
// column central lacks, as a store migrated past central's last migration sends them.

const open: Array<{ close(): Promise<void> }> = [];

/** A level after this version's own, as a store a migration ahead would send it. */
const LATER_LEVEL = `${String(Number(SCHEMA_LEVEL.slice(0, 4)) + 1).padStart(4, '0')}-orders-gift-wrap`;

describe.each(centralDatabases((handle) => open.push(handle)))('a store of a later version than its central (central on $name)', ({ database }) => {
  afterEach(async () => {
    for (const handle of open.splice(0).reverse()) await handle.close();
  });

  async function chainOverHttp(): Promise<{ central: CentralHandle; url: string; store: StoreHandle; credential: string }> {
    const clock = new ManualClock();
    const central = await startCentral(clock, await database());
    open.push(central);
    const app: FastifyInstance = await buildApp({ engine: central.engine, role: 'central', version: 'test' });
    open.push({ close: async () => void (await app.close()) });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    let credential = '';
    const store = await pairStore(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }, (given) => {
      credential = given;
      return httpTransport(url, given);
    });
    open.push(store);
    return { central, url, store, credential };
  }

  /** The store's link as a later version's: its level in the header, a column central lacks in its orders. */
  function laterStoreLink(url: string, credential: string, inner: SyncTransport): SyncTransport {
    return {
      ...inner,
      async push(request: PushRequest) {
        const events = request.events.map((e) => ({ ...e, changes: e.changes.map((c) => (c.tbl === 'orders' ? { ...c, data: { ...c.data, gift_wrap: 1 } } : c)) }));
        const reply = await http(`${url}/sync/push`, { method: 'POST', token: credential, headers: { [SCHEMA_LEVEL_HEADER]: LATER_LEVEL }, body: { events } });
        if (reply.status !== 200) throw Object.assign(new Error(reply.body.message as string), { status: reply.status, code: reply.body.code });
        return reply.body;
      },
    };
  }

  const ordersAt = async (central: CentralHandle) => (await central.engine.db.selectFrom('orders').select(['receipt_number', 'status']).orderBy('receipt_number').execute()).map((o) => `${o.receipt_number}:${o.status}`);
  const pendingAt = async (store: StoreHandle) => (await store.engine.db.selectFrom('sync_events').select('node_seq').where('acked_at', 'is', null).execute()).length;

  it('is refused with both levels named, nothing applied, and its sales wait at the store', async () => {
    const { central, url, store, credential } = await chainOverHttp();
    await registerInStore(store.engine, await store.scope(), { email: 'ana@example.com', firstName: 'Ana' });
    await placeOrder(store.engine, await store.scope(), { identification: 'ana@example.com', receiptNumber: 'W-1', subtotal: 12 });
    const waiting = await pendingAt(store);
    expect(waiting).toBeGreaterThan(0);

    const direct = await http(`${url}/sync/push`, {
      method: 'POST',
      token: credential,
      headers: { [SCHEMA_LEVEL_HEADER]: LATER_LEVEL },
      body: { events: [{ node_seq: 1, event_id: 'e-1', type: 'order.placed', offline: false, created_at: 1, changes: [{ tbl: 'orders', op: 'insert', data: { id: 1, gift_wrap: 1 } }] }] },
    });
    expect(direct.status).toBe(409);
    expect(direct.body.code).toBe('store_newer_than_central');
    expect(direct.body.message).toBe(
      `This store runs a newer Punchcard than central (store's database at ${LATER_LEVEL}, central's at ${SCHEMA_LEVEL}): it sent column orders.gift_wrap, which central does not have. Upgrade central to the store's version or later; the store keeps its sales until then.`,
    );

    // The store's own round: refused (a refusal, not central away), nothing lost or applied.
    const later = new SyncClient(store.engine, laterStoreLink(url, credential, httpTransport(url, credential)), { vendorId: central.vendor.vendorId, storeId: store.storeId });
    await expect(later.syncOnce()).rejects.toThrow('Upgrade central');
    expect(later.lastError).toContain('Upgrade central');
    expect(later.refused).toBe(true);
    expect(await pendingAt(store)).toBe(waiting);
    expect(await ordersAt(central)).toEqual([]);

    // A table no central of this version has: refused alike, for a push and for a first sync's page.
    const table = await http(`${url}/sync/push`, {
      method: 'POST',
      token: credential,
      headers: { [SCHEMA_LEVEL_HEADER]: LATER_LEVEL },
      body: { events: [{ node_seq: 1, event_id: 'e-1', type: 'gift.wrapped', offline: false, created_at: 1, changes: [{ tbl: 'gift_wraps', op: 'insert', data: { id: 1 } }] }] },
    });
    expect([table.status, table.body.code]).toEqual([409, 'store_newer_than_central']);
    expect(table.body.message).toContain('it sent table gift_wraps, which central does not have');
    const page = await http(`${url}/sync/snapshot?table=gift_wraps`, { token: credential, headers: { [SCHEMA_LEVEL_HEADER]: LATER_LEVEL } });
    expect([page.status, page.body.code]).toEqual([409, 'store_newer_than_central']);
    // Without a later level the name is just wrong: a 400, as before.
    expect((await http(`${url}/sync/snapshot?table=gift_wraps`, { token: credential })).status).toBe(400);

    // Once its rows fit (central upgraded: here, the store's rows without the later column), the waiting sales land once.
    await store.client.syncOnce();
    expect(await pendingAt(store)).toBe(0);
    expect(await ordersAt(central)).toEqual(['W-1:complete']);
  });

  it('is taken as before when its rows fit central: a sale, a void and a registration under a later level', async () => {
    const { central, url, store, credential } = await chainOverHttp();
    await registerInStore(store.engine, await store.scope(), { email: 'bo@example.com', firstName: 'Bo' });
    await placeOrder(store.engine, await store.scope(), { identification: 'bo@example.com', receiptNumber: 'L-1', subtotal: 30 });
    await placeOrder(store.engine, await store.scope(), { identification: 'bo@example.com', receiptNumber: 'L-2', subtotal: 5 });
    await voidOrder(store.engine, await store.scope(), 'L-1');
    // The store's real rows (every replicated table it writes, ledger entries with their holder keys), under a later level.
    const plain: SyncTransport = {
      ...httpTransport(url, credential),
      async push(request) {
        const reply = await http(`${url}/sync/push`, { method: 'POST', token: credential, headers: { [SCHEMA_LEVEL_HEADER]: LATER_LEVEL }, body: request });
        expect(reply.status, JSON.stringify(reply.body)).toBe(200);
        return reply.body;
      },
    };
    const later = new SyncClient(store.engine, plain, { vendorId: central.vendor.vendorId, storeId: store.storeId });
    await later.syncOnce();
    expect(later.lastError).toBeNull();
    expect(await pendingAt(store)).toBe(0);
    expect(await ordersAt(central)).toEqual(['L-1:voided', 'L-2:complete']);

    // Every table a store writes carries only columns central has (ledger entries: plus their holder keys), whatever the dialects.
    for (const table of REPLICATED_TABLES.filter((t) => t.push)) {
      const atCentral = await tableColumns(central.engine.db, central.engine.dialect, table.name);
      const extra = (await sqliteColumns(store.engine.db, table)).filter((c) => !atCentral.has(c));
      expect(extra, table.name).toEqual([]);
    }
  });

  it('judges a store of its own level or of none (an earlier version) as before: an unknown table rejects that event only', async () => {
    const { url, credential } = await chainOverHttp();
    const event = { node_seq: 1, event_id: 'e-1', type: 'gift.wrapped', offline: false, created_at: 1, changes: [{ tbl: 'gift_wraps', op: 'insert', data: { id: 1 } }] };
    for (const headers of [{ [SCHEMA_LEVEL_HEADER]: SCHEMA_LEVEL }, {}] as Array<Record<string, string>>) {
      const reply = await http(`${url}/sync/push`, { method: 'POST', token: credential, headers, body: { events: [event] } });
      expect(reply.status).toBe(200);
      expect(reply.body.results[0]).toMatchObject({ verdict: 'rejected', code: 'table_not_accepted' });
    }
  });
});
