import { describe, expect, it } from 'vitest';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { createSpendingRule } from '../../src/core/rules/spending/create-spending-rule';
import { ManualClock } from '../support/clock';
import { addStore, closedAfterEach, pairStoreBehindSwitch, startCentral } from './support/chain';

// Thirteenth round, a store's day offline played: store A spent a customer's points in two sales
// while B spent them too. Central's overdraft exception quoted what A believed before its *last*
// spend (its first spend already taken off), so a store that had seen the whole balance read as
// one that was behind. It quotes what the store believed before its first spend of the push.

const keep = closedAfterEach();

describe('the offline overdraft exception', () => {
  it('quotes what the store believed before its first spend, not what its own spends left', async () => {
    const clock = new ManualClock();
    const central = keep(await startCentral(clock));
    const storeB = await addStore(central, 'B');
    const pair = async (store: { storeId: number; apiKey: string }) => keep(await pairStoreBehindSwitch(central, clock, store));
    const a = await pair({ storeId: central.vendor.storeId, apiKey: central.vendor.apiKey });
    const b = await pair(storeB);
    const currency = await central.engine.db.selectFrom('currencies').select('public_id').where('id', '=', central.vendor.loyaltyCurrencyId).executeTakeFirstOrThrow();
    const tea = await createSpendingRule(central.engine, { vendorId: central.vendor.vendorId }, { name: 'Tea', cost: 4, currency: currency.public_id });
    await registerInStore(a.engine, await a.scope(), { email: 'cy@example.com' });
    await placeOrder(a.engine, await a.scope(), { identification: 'cy@example.com', receiptNumber: 'A-1', subtotal: 10 });
    const syncAll = async () => {
      for (let round = 0; round < 2; round += 1) for (const store of [b, a]) await store.client.syncOnce();
    };
    await syncAll();

    for (const store of [a, b]) {
      store.link.down = true;
      await store.client.syncOnce().catch(() => undefined);
    }
    // Both stores saw 10 points. A spends 4 twice (believing 10, then 6); B spends 8 (believing 10).
    await placeOrder(a.engine, await a.scope(), { identification: 'cy@example.com', receiptNumber: 'A-2', subtotal: 0, redemptions: [tea.publicId] });
    await placeOrder(a.engine, await a.scope(), { identification: 'cy@example.com', receiptNumber: 'A-3', subtotal: 0, redemptions: [tea.publicId] });
    await placeOrder(b.engine, await b.scope(), { identification: 'cy@example.com', receiptNumber: 'B-1', subtotal: 0, redemptions: [tea.publicId, tea.publicId] });
    a.link.down = false;
    b.link.down = false;
    // B lands first, so A's push takes the balance below zero.
    await syncAll();

    const exception = await central.engine.db.selectFrom('sync_exceptions').select(['node_id', 'message']).where('kind', '=', 'offline_overdraft').executeTakeFirstOrThrow();
    expect(Number(exception.node_id)).toBe(a.engine.nodeId);
    expect(exception.message).toBe('Points spent before the nodes heard of each other left a balance of -6 Points (the store believed 10 Points was available); settled from the next credits');
  });
});
