import { describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import type { Engine } from '../../src/core/engine';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { voidOrder } from '../../src/core/orders/void-order';
import { createTier } from '../../src/core/rules/tiers/create-tier';
import { BACKENDS } from '../support/backends';
import { ManualClock } from '../support/clock';
import { closedAfterEach, pairStore, startCentralOn } from './support/chain';

// Clocks never order anything (docs/sync.md): a tier's tier_since is the promoting node's clock, a
// sale's time the selling node's. Found in review: judging "did points ever get this tier" by
// comparing the two made a store clock running ahead keep a tier a void should take back.

const MINUTE = 60_000;
const keep = closedAfterEach();

async function tierOf(engine: Engine, userId: number): Promise<string> {
  const row = await engine.db.selectFrom('user_vendors as uv').innerJoin('tiers as t', 't.id', 'uv.tier_id').select('t.name').where('uv.user_id', '=', userId).executeTakeFirstOrThrow();
  return row.name;
}

describe.each(BACKENDS)('a store clock 10 minutes ahead, central on $name', (backend) => {
  it('voiding central’s own sale takes back the Gold it got, though a store sale stamped "later" helped reach it', async () => {
    const clock = new ManualClock();
    const storeClock = new ManualClock(clock.now() + 10 * MINUTE);
    const advance = (ms: number) => {
      clock.advance(ms);
      storeClock.advance(ms);
    };
    const central = await startCentralOn(backend, clock, keep);
    const vendor = { vendorId: central.vendor.vendorId };
    await createTier(central.engine, vendor, { name: 'Silver', threshold: 20, windowDays: null });
    await createTier(central.engine, vendor, { name: 'Gold', threshold: 50, windowDays: null });
    const store = await pairStore(central, storeClock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }, central.transportFor);
    keep(store);
    const sync = async () => {
      for (let i = 0; i < 3; i += 1) await store.client.syncOnce();
    };
    await sync();
    const { session } = await registerInStore(store.engine, await store.scope(), { email: 'skew@example.com', firstName: 'Sky' });
    const userId = Number(session.user_id);
    advance(MINUTE);
    // 30 points at the store (stamped by its clock): Silver.
    await placeOrder(store.engine, await store.scope(), { identification: 'skew@example.com', receiptNumber: 'R-store', subtotal: 30 });
    await sync();
    expect(await tierOf(central.engine, userId)).toBe('Silver');
    advance(MINUTE);
    // 25 more at central a minute later: 55, Gold.
    const centralScope = await authenticateApiKey(central.engine, central.vendor.apiKey);
    await placeOrder(central.engine, centralScope, { identification: 'skew@example.com', receiptNumber: 'R-central', subtotal: 25 });
    expect(await tierOf(central.engine, userId)).toBe('Gold');
    advance(MINUTE);
    // The sale that got Gold is voided: 30 points stand, Gold needs 50.
    await voidOrder(central.engine, centralScope, 'R-central');
    expect(await tierOf(central.engine, userId)).toBe('Silver');
  });
});
