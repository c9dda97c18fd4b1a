import { afterEach, describe, expect, it } from 'vitest';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { listStores } from '../../src/core/stores/list-stores';
import { ManualClock } from '../support/clock';
import { type CentralHandle, pairStore, startCentral, type StoreHandle } from './support/chain';

// Store hours that this version refuses (overlapping ranges, an empty day, a late range running
// into the next day's) may still be in a store row central wrote before the checks: an older
// central, or one that kept a row from before. Stores travel central → store only and a store
// applies them as rows, unchecked: the row arrives, its hours are still read for open_now, and
// the store's pushes go on (a check at apply time would stall the pull, and with it the link).

describe('a store row whose hours this version would refuse', () => {
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const handle of open.splice(0).reverse()) await handle.close();
  });

  it('is applied by a paired store, read for open_now, and its sales still reach central', async () => {
    const clock = new ManualClock(); // Saturday 2026-11-21 09:30 UTC
    const central: CentralHandle = await startCentral(clock);
    open.push(central);
    const store: StoreHandle = await pairStore(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }, central.transportFor);
    open.push(store);

    // As an older central stored them (written past today's checks).
    const oldHours = { fri: '20:00-10:00', sat: '08:00-12:00,11:00-14:00', sun: '' };
    await central.engine.db.updateTable('stores').set({ hours: JSON.stringify(oldHours), updated_at: clock.now() }).where('id', '=', central.vendor.storeId).execute();
    clock.advance(1000);
    await store.client.syncOnce();

    const [here] = await listStores(store.engine, { vendorId: central.vendor.vendorId });
    expect(here?.hours).toEqual(oldHours);
    expect(here?.openNow).toBe(true);

    // The link is not stalled: a sale made after the pull reaches central.
    await registerInStore(store.engine, await store.scope(), { email: 'ana@example.com', firstName: 'Ana' });
    await placeOrder(store.engine, await store.scope(), { identification: 'ana@example.com', receiptNumber: 'H-1', subtotal: 12 });
    clock.advance(1000);
    await store.client.syncOnce();
    const atCentral = await central.engine.db.selectFrom('orders').select('receipt_number').where('receipt_number', '=', 'H-1').execute();
    expect(atCentral).toHaveLength(1);
    expect(await store.engine.db.selectFrom('sync_events').select('node_seq').where('acked_at', 'is', null).execute()).toEqual([]);
  });
});
