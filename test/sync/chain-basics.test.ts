import { afterEach, describe, expect, it } from 'vitest';
import { findBalanceMismatches, holderBalance } from '../../src/core/ledger/ledger';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { ManualClock } from '../support/clock';
import { addStore, type CentralHandle, pairStore, startCentral, type StoreHandle } from './support/chain';

describe('a chain: central and two paired stores', () => {
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const handle of open.splice(0).reverse()) await handle.close();
  });

  async function chain(): Promise<{ clock: ManualClock; central: CentralHandle; a: StoreHandle; b: StoreHandle }> {
    const clock = new ManualClock();
    const central = await startCentral(clock);
    open.push(central);
    const storeB = await addStore(central, 'B');
    const a = await pairStore(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }, central.transportFor);
    open.push(a);
    const b = await pairStore(central, clock, storeB, central.transportFor);
    open.push(b);
    return { clock, central, a, b };
  }

  it('a customer registered at A earns there and spends those points at B', async () => {
    const { clock, central, a, b } = await chain();
    const registered = await registerInStore(a.engine, await a.scope(), { email: 'ana@example.com', firstName: 'Ana' });
    const userId = registered.session.user_id;
    await placeOrder(a.engine, await a.scope(), { identification: 'ana@example.com', receiptNumber: 'A-1', subtotal: 40 });
    clock.advance(1000);
    await a.client.syncOnce();
    await b.client.syncOnce();
    const points = central.vendor.loyaltyCurrencyId;
    const key = { holderType: 'user' as const, holderId: Number(userId), currencyId: points };
    expect(await holderBalance(central.engine.db, key)).toBe(40);
    expect(await holderBalance(b.engine.db, key)).toBe(40);
    for (const node of [central, a, b]) expect(await findBalanceMismatches(node.engine.db)).toEqual([]);
  });
});
