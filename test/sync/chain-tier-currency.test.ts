import { describe, expect, it } from 'vitest';
import { createCurrency } from '../../src/core/currencies/create-currency';
import type { Engine } from '../../src/core/engine';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { createEarningRule } from '../../src/core/rules/earning/create-earning-rule';
import { updateProgramSettings } from '../../src/core/rules/settings/update-program-settings';
import { createTier } from '../../src/core/rules/tiers/create-tier';
import { ManualClock } from '../support/clock';
import { centralDatabases, closedAfterEach, pairStoreBehindSwitch, startCentral } from './support/chain';

// The tier currency is program data (vendors.tier_currency_id, migration 0050): it travels central →
// stores with the vendor's row, and a store's sale judges the tier on that currency, as central does.

const HOUR = 3_600_000;
const keep = closedAfterEach();

const tierOf = async (engine: Engine, userId: number) =>
  (await engine.db.selectFrom('user_vendors as uv').innerJoin('tiers as t', 't.id', 'uv.tier_id').select('t.name').where('uv.user_id', '=', userId).executeTakeFirstOrThrow()).name;

describe.each(centralDatabases(keep))('a store counts the tier currency central chose ($name)', ({ database }) => {
  it('stamps move nobody up at the store until central makes them the tier currency; then the next sale there does', async () => {
    const clock = new ManualClock();
    const central = keep(await startCentral(clock, await database()));
    const vendor = { vendorId: central.vendor.vendorId };
    // Points (the program's, 1 per dollar) and Stamps (10 per dollar); Gold at 50.
    const stamps = await createCurrency(central.engine, vendor, { name: 'Stamps' });
    await createEarningRule(central.engine, vendor, { name: '10 stamps a dollar', currency: stamps.publicId, points: 10, perAmount: 1 });
    await createTier(central.engine, vendor, { name: 'Gold', threshold: 50, windowDays: null });
    const store = keep(await pairStoreBehindSwitch(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }));
    const sync = async () => {
      for (let round = 0; round < 3; round += 1) await store.client.syncOnce();
    };
    await sync();
    const { session } = await registerInStore(store.engine, await store.scope(), { email: 'sam@example.com', firstName: 'Sam' });
    const userId = Number(session.user_id);
    clock.advance(HOUR);

    // 10 points and 100 stamps: the tiers count Points.
    await placeOrder(store.engine, await store.scope(), { identification: 'sam@example.com', receiptNumber: 'R-1', subtotal: 10 });
    expect(await tierOf(store.engine, userId)).toBe('Member');
    await sync();
    expect(await tierOf(central.engine, userId)).toBe('Member');

    await updateProgramSettings(central.engine, vendor, { tierCurrency: stamps.publicId });
    await sync();
    const storeVendor = await store.engine.db.selectFrom('vendors').select('tier_currency_id').where('id', '=', vendor.vendorId).executeTakeFirstOrThrow();
    expect(Number(storeVendor.tier_currency_id)).toBe(stamps.id);
    clock.advance(HOUR);
    const next = await placeOrder(store.engine, await store.scope(), { identification: 'sam@example.com', receiptNumber: 'R-2', subtotal: 1 });
    expect(next.tierAfter?.current?.name).toBe('Gold');
    await sync();
    expect(await tierOf(central.engine, userId)).toBe('Gold');
  });
});
