import { describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import type { Engine } from '../../src/core/engine';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { voidOrder } from '../../src/core/orders/void-order';
import { createTier } from '../../src/core/rules/tiers/create-tier';
import { BACKENDS, type Backend } from '../support/backends';
import { ManualClock } from '../support/clock';
import { closedAfterEach, pairStore, startCentralOn, type StoreHandle } from './support/chain';

// Central judges a store's void that took a tier back on its own points (orders/tier-progress.ts,
// judgeStoreTierMove). A tier set by hand at central below what central's points reach: a store that
// had not pulled it voids its sale; the void raises nobody past the tier central held, and the store
// pulls it.
// Central on an SQLite file and on PostgreSQL; the store on SQLite.

const HOUR = 3_600_000;
const keep = closedAfterEach();

async function chain(backend: Backend) {
  const clock = new ManualClock();
  const central = await startCentralOn(backend, clock, keep);
  const vendor = { vendorId: central.vendor.vendorId };
  await createTier(central.engine, vendor, { name: 'Silver', threshold: 20, windowDays: null });
  await createTier(central.engine, vendor, { name: 'Gold', threshold: 50, windowDays: null });
  const store: StoreHandle = await pairStore(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }, central.transportFor);
  keep(store);
  const sync = async () => {
    for (let i = 0; i < 3; i += 1) await store.client.syncOnce();
  };
  await sync();
  const { session } = await registerInStore(store.engine, await store.scope(), { email: 'hal@example.com', firstName: 'Hal' });
  clock.advance(HOUR);
  // The store's sale makes the member Silver; central has it.
  await placeOrder(store.engine, await store.scope(), { identification: 'hal@example.com', receiptNumber: 'R-store', subtotal: 30 });
  await sync();
  clock.advance(HOUR);
  return { clock, central, store, sync, userId: Number(session.user_id) };
}

async function membership(engine: Engine, userId: number) {
  return engine.db.selectFrom('user_vendors as uv').innerJoin('tiers as t', 't.id', 'uv.tier_id').select(['t.name as tier', 'uv.tier_since']).where('uv.user_id', '=', userId).executeTakeFirstOrThrow();
}
/** Staff set the member's tier by hand at central (no screen does yet: the row, as one would write it). */
async function setByHand(c: Awaited<ReturnType<typeof chain>>, name: string): Promise<void> {
  const tier = await c.central.engine.db.selectFrom('tiers').select('id').where('name', '=', name).executeTakeFirstOrThrow();
  const now = c.clock.now();
  await c.central.engine.db.updateTable('user_vendors').set({ tier_id: tier.id, tier_since: now, updated_at: now }).where('user_id', '=', c.userId).execute();
  c.clock.advance(HOUR);
}

describe.each(BACKENDS)('a store’s void of a sale made before central set the tier by hand (central on $name)', (backend) => {
  it('a tier set below the points: the void raises nobody past it', async () => {
    const c = await chain(backend);
    // A sale at central makes them Gold (90 ≥ 50); staff set them back to Silver by hand.
    await placeOrder(c.central.engine, await authenticateApiKey(c.central.engine, c.central.vendor.apiKey), { identification: 'hal@example.com', receiptNumber: 'R-central', subtotal: 60 });
    expect((await membership(c.central.engine, c.userId)).tier).toBe('Gold');
    c.clock.advance(HOUR);
    await setByHand(c, 'Silver');
    const handSet = await membership(c.central.engine, c.userId);
    await voidOrder(c.store.engine, await c.store.scope(), 'R-store');
    await c.sync();
    // 60 points stand, Gold's threshold is 50: the next sale promotes them, not a void.
    expect.soft((await membership(c.central.engine, c.userId)).tier, 'central').toBe('Silver');
    expect.soft((await membership(c.store.engine, c.userId)).tier, 'store after pulling').toBe('Silver');
    expect(await membership(c.central.engine, c.userId)).toEqual(handSet);
  });
});
