import { describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import type { Engine } from '../../src/core/engine';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { tierPoints } from '../../src/core/orders/tier-points';
import { voidOrder } from '../../src/core/orders/void-order';
import { createTier } from '../../src/core/rules/tiers/create-tier';
import { ManualClock } from '../support/clock';
import { type CentralHandle, closedAfterEach, pairStore, startCentral, type StoreHandle } from './support/chain';

// A store's void judges the tier on what the store has seen; central, which has every point, judges
// a tier a store moved again: a sale made elsewhere that the store had not pulled yet keeps the
// member's tier (windowless tiers are never judged again by the demotion job).

const HOUR = 3_600_000;
const keep = closedAfterEach();

async function tierOf(engine: Engine, userId: number): Promise<string> {
  const row = await engine.db.selectFrom('user_vendors as uv').innerJoin('tiers as t', 't.id', 'uv.tier_id').select('t.name').where('uv.user_id', '=', userId).executeTakeFirstOrThrow();
  return row.name;
}

describe('a store’s void of its sale after central promoted the member on other points', () => {
  it('central keeps the tier the member’s standing points hold', async () => {
    const clock = new ManualClock();
    const central: CentralHandle = await startCentral(clock);
    keep(central);
    const vendor = { vendorId: central.vendor.vendorId };
    await createTier(central.engine, vendor, { name: 'Silver', threshold: 20, windowDays: null });
    await createTier(central.engine, vendor, { name: 'Gold', threshold: 50, windowDays: null });
    const store: StoreHandle = await pairStore(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }, central.transportFor);
    keep(store);
    const sync = async () => {
      for (let i = 0; i < 3; i += 1) await store.client.syncOnce();
    };
    await sync();
    const { session } = await registerInStore(store.engine, await store.scope(), { email: 'gil@example.com', firstName: 'Gil' });
    const userId = Number(session.user_id);
    clock.advance(HOUR);

    // The store's sale makes the member Silver; central has it.
    await placeOrder(store.engine, await store.scope(), { identification: 'gil@example.com', receiptNumber: 'R-store', subtotal: 30 });
    await sync();
    expect(await tierOf(central.engine, userId)).toBe('Silver');
    clock.advance(HOUR);

    // A sale at central (the app, another till) makes them Gold on its own points (80 ≥ 50).
    await placeOrder(central.engine, await authenticateApiKey(central.engine, central.vendor.apiKey), { identification: 'gil@example.com', receiptNumber: 'R-central', subtotal: 80 });
    expect(await tierOf(central.engine, userId)).toBe('Gold');
    clock.advance(HOUR);

    // The store, before its next pull, voids its own sale.
    await voidOrder(store.engine, await store.scope(), 'R-store');
    await sync();

    // Standing points at central: 80 (the central sale), Gold's threshold is 50, Gold has no window.
    expect(await tierPoints(central.engine.db, { vendorId: vendor.vendorId, userId }, null, clock.now())).toBe(80);
    expect.soft(await tierOf(central.engine, userId), 'central').toBe('Gold');
    expect.soft(await tierOf(store.engine, userId), 'store after pulling').toBe('Gold');
  });
});
