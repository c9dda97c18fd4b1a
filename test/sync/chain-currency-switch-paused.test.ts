import { describe, expect, it } from 'vitest';
import { updateCurrency } from '../../src/core/currencies/update-currency';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { ManualClock } from '../support/clock';
import { type CentralHandle, closedAfterEach, pairStoreBehindSwitch, startCentral } from './support/chain';

// Central's sale_in_other_currency flag (sync/central/sale-currency.ts) with quick pay paused: the
// sale's reply names no quick-pay currency then (balancesAfter leaves it null while it is INACTIVE;
// found in review). The sale's amounts are still in that currency's
// minor units (place-order reads digits from the quick-pay currency whatever its status, and the
// reply keeps them as `digits`), so a paused USD program's offline sale of 12.50 reaching a central
// switched to JPY as 1,250 yen is flagged by its digits.

const keep = closedAfterEach();

describe('a quick-pay currency switch at central while a store with quick pay paused sells offline', () => {
  it('flags the store’s sale made in the old currency (its amounts are in USD cents)', async () => {
    const clock = new ManualClock();
    const central: CentralHandle = await startCentral(clock);
    keep(central);
    const store = keep(await pairStoreBehindSwitch(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }));
    const scope = { vendorId: central.vendor.vendorId };
    const cash = (await central.engine.db.selectFrom('currencies').select('public_id').where('id', '=', central.vendor.quickPayCurrencyId).executeTakeFirstOrThrow()).public_id!;
    // Quick pay paused: the store learns it.
    await updateCurrency(central.engine, scope, cash, { status: 'INACTIVE' });
    for (let i = 0; i < 3; i += 1) await store.client.syncOnce();

    store.link.down = true;
    await registerInStore(store.engine, await store.scope(), { email: 'ana@example.com' });
    const sold = await placeOrder(store.engine, await store.scope(), { identification: 'ana@example.com', receiptNumber: 'USD-1', subtotal: 12.5 });
    expect(sold.digits).toBe(2);

    expect((await updateCurrency(central.engine, scope, cash, { code: 'JPY' })).code).toBe('JPY');
    store.link.down = false;
    await store.client.syncOnce();
    await store.client.syncOnce();
    const order = await central.engine.db.selectFrom('orders').select('subtotal').where('id', '=', sold.orderId).executeTakeFirstOrThrow();
    expect(Number(order.subtotal)).toBe(1250);
    const flagged = await central.engine.db.selectFrom('sync_exceptions').select(['kind', 'subject']).execute();
    expect(flagged).toEqual([{ kind: 'sale_in_other_currency', subject: `order ${sold.orderId}` }]);
  });
});
