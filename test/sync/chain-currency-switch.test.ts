import { afterEach, describe, expect, it } from 'vitest';
import { updateCurrency } from '../../src/core/currencies/update-currency';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { ManualClock } from '../support/clock';
import { type CentralHandle, pairStoreBehindSwitch, startCentral, type StoreHandle, type Switch } from './support/chain';

// Central may switch the quick-pay currency's code (USD → JPY) while it holds no money in it, but a
// paired store that cannot reach central may have sold in USD meanwhile. Those sales happened: central
// applies them as recorded (1250 cents stays 1250), and flags each one sold in another currency than
// its own (sync exception sale_in_other_currency), since it would read them as yen.

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const handle of open.splice(0).reverse()) await handle.close();
});

async function chain(): Promise<{ central: CentralHandle; store: StoreHandle & { link: Switch }; cash: string }> {
  const clock = new ManualClock();
  const central = await startCentral(clock);
  open.push(central);
  const store = await pairStoreBehindSwitch(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey });
  open.push(store);
  const cash = (await central.engine.db.selectFrom('currencies').select('public_id').where('id', '=', central.vendor.quickPayCurrencyId).executeTakeFirstOrThrow()).public_id;
  return { central, store, cash };
}

const exceptionsAt = (central: CentralHandle) => central.engine.db.selectFrom('sync_exceptions').select(['kind', 'subject', 'message']).execute();

describe('a quick-pay currency switch at central while a store sells offline', () => {
  it('applies the store’s sales in the old currency as recorded and flags each for staff', async () => {
    const { central, store, cash } = await chain();
    store.link.down = true;
    await registerInStore(store.engine, await store.scope(), { email: 'ana@example.com' });
    const sold = await placeOrder(store.engine, await store.scope(), { identification: 'ana@example.com', receiptNumber: 'USD-1', subtotal: 12.5 });

    // Central holds no money yet: the switch is allowed there.
    expect((await updateCurrency(central.engine, { vendorId: central.vendor.vendorId }, cash, { code: 'JPY' })).code).toBe('JPY');

    store.link.down = false;
    await store.client.syncOnce();
    await store.client.syncOnce();
    const order = await central.engine.db.selectFrom('orders').select(['id', 'subtotal']).where('vendor_id', '=', central.vendor.vendorId).executeTakeFirstOrThrow();
    expect([Number(order.id), Number(order.subtotal)]).toEqual([sold.orderId, 1250]);
    expect(await exceptionsAt(central)).toEqual([
      {
        kind: 'sale_in_other_currency',
        subject: `order ${sold.orderId}`,
        message: 'receipt USD-1 was sold in USD, before the program’s quick pay became JPY: its amounts (subtotal 12.50 USD) are kept as recorded in USD minor units, which the program now reads as JPY',
      },
    ]);

    // The store now sells in yen, and its next sale is not flagged.
    const store2 = await placeOrder(store.engine, await store.scope(), { identification: 'ana@example.com', receiptNumber: 'JPY-1', subtotal: 1200 });
    await store.client.syncOnce();
    const yen = await central.engine.db.selectFrom('orders').select('subtotal').where('id', '=', store2.orderId).executeTakeFirstOrThrow();
    expect(Number(yen.subtotal)).toBe(1200);
    expect(await exceptionsAt(central)).toHaveLength(1);
  });
});
