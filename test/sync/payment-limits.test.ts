import { afterEach, describe, expect, it } from 'vitest';
import { paymentLimitsOf } from '../../src/core/rules/settings/payment-limits';
import { getProgramSettings } from '../../src/core/rules/settings/get-program-settings';
import { updateProgramSettings } from '../../src/core/rules/settings/update-program-settings';
import { ManualClock } from '../support/clock';
import { pairStore, startCentral } from './support/chain';

// The program's payment limits live on its vendor row, which central replicates to its stores: a
// limit changed at central is the one a store applies after its next sync (its program cache sees
// the pulled write).

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const handle of open.splice(0).reverse()) await handle.close();
});

describe('payment limits in a chain', () => {
  it('a store applies the limits central set, and central’s return to the default', async () => {
    const clock = new ManualClock();
    const central = await startCentral(clock);
    open.push(central);
    const store = await pairStore(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }, (credential) => central.transportFor(credential));
    open.push(store);
    const { vendorId } = central.vendor;
    // Read at the store first, so its program cache holds the defaults.
    expect(await paymentLimitsOf(store.engine, vendorId)).toEqual({ egiftMax: 100_000, reloadMax: 100_000 });

    await updateProgramSettings(central.engine, { vendorId }, { egiftMaxAmount: 25_000, reloadMaxAmount: 7_500 });
    await store.client.syncOnce();
    expect(await paymentLimitsOf(store.engine, vendorId)).toEqual({ egiftMax: 25_000, reloadMax: 7_500 });
    expect(await getProgramSettings(store.engine, { vendorId })).toMatchObject({ egiftMaxAmount: 25_000, reloadMaxAmount: 7_500 });

    await updateProgramSettings(central.engine, { vendorId }, { reloadMaxAmount: null });
    await store.client.syncOnce();
    expect(await paymentLimitsOf(store.engine, vendorId)).toEqual({ egiftMax: 25_000, reloadMax: 100_000 });
  });
});
