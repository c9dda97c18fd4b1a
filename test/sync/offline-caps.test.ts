import { afterEach, describe, expect, it } from 'vitest';
import { transact } from '../../src/core/engine';
import { openAccount, postEntry } from '../../src/core/ledger/ledger';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { createSpendingRule } from '../../src/core/rules/spending/create-spending-rule';
import { type OfflinePolicy, setOfflinePolicy } from '../../src/core/sync/central/offline-policy';
import { isServiceError } from '../../src/shared/errors';
import { ManualClock } from '../support/clock';
import { addStore, type CentralHandle, pairStoreBehindSwitch, startCentral, type StoreHandle, type Switch } from './support/chain';

// The offline caps of docs/sync.md: a cap bounds what an order spends of its own kind. A customer
// whose offline quick pay is used up can still redeem points (and the other way round).

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const handle of open.splice(0).reverse()) await handle.close();
});

interface Setup {
  central: CentralHandle;
  store: StoreHandle & { link: Switch };
  rewardId: string;
}

/** A store with a customer holding 50.00 of quick pay and 50 points, synced with central. */
async function setUp(): Promise<Setup> {
  const clock = new ManualClock();
  const central = await startCentral(clock);
  open.push(central);
  const store = await pairStoreBehindSwitch(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey });
  open.push(store);
  const { vendorId, quickPayCurrencyId, loyaltyCurrencyId } = central.vendor;
  const currency = await central.engine.db.selectFrom('currencies').select('public_id').where('id', '=', loyaltyCurrencyId).executeTakeFirstOrThrow();
  const reward = await createSpendingRule(central.engine, { vendorId }, { name: 'Cake', cost: 5, currency: currency.public_id });
  await registerInStore(store.engine, await store.scope(), { email: 'di@example.com' });
  await placeOrder(store.engine, await store.scope(), { identification: 'di@example.com', receiptNumber: 'EARN', subtotal: 50 });
  await store.client.syncOnce();
  const user = await central.engine.db.selectFrom('users').select('id').where('email_key', '=', 'di@example.com').executeTakeFirstOrThrow();
  await transact(central.engine, async (trx) => {
    const account = await openAccount(trx, central.engine, { vendorId, currencyId: quickPayCurrencyId, holderType: 'user', holderId: Number(user.id) });
    await postEntry(trx, central.engine, account, { amount: 5_000, kind: 'adjustment' });
  });
  await store.client.syncOnce();
  return { central, store, rewardId: reward.publicId };
}

async function goOffline(s: Setup): Promise<void> {
  s.store.link.down = true;
  await s.store.client.syncOnce().catch(() => undefined);
}

/** Central lowers the caps below what the customer already spent offline today; the store hears of it, then loses central again. */
async function lowerCaps(s: Setup, policy: Partial<OfflinePolicy>): Promise<void> {
  s.store.link.down = false;
  await s.store.client.syncOnce();
  await setOfflinePolicy(s.central.engine, { vendorId: s.central.vendor.vendorId }, policy);
  await s.store.client.syncOnce();
  await goOffline(s);
}

const refusal = (error: unknown) => (isServiceError(error) ? { code: error.code, field: error.field } : error);

describe('offline caps', () => {
  it('a quick-pay cap used up refuses quick pay only: an order that redeems points and spends no quick pay goes through', async () => {
    const s = await setUp();
    await setOfflinePolicy(s.central.engine, { vendorId: s.central.vendor.vendorId }, { quickPayPerDay: 1_000 });
    await s.store.client.syncOnce();
    await goOffline(s);
    await placeOrder(s.store.engine, await s.store.scope(), { identification: 'di@example.com', receiptNumber: 'QP-1', subtotal: 10, quickPay: 10 });
    // 10.00 spent offline today, then the cap goes down to 5.00: the customer is over it.
    await lowerCaps(s, { quickPayPerDay: 500, quickPayPerOrder: 0 });
    const scope = await s.store.scope();
    const points = await placeOrder(s.store.engine, scope, { identification: 'di@example.com', receiptNumber: 'PTS-1', subtotal: 0, redemptions: [s.rewardId] });
    expect(points.redeemed).toHaveLength(1);
    await placeOrder(s.store.engine, scope, { identification: 'di@example.com', receiptNumber: 'PTS-2', subtotal: 3, quickPay: 0, redemptions: [s.rewardId] });
    // Quick pay itself is still refused.
    const overCap = await placeOrder(s.store.engine, scope, { identification: 'di@example.com', receiptNumber: 'QP-2', subtotal: 1, quickPay: 0.01 }).catch((e: unknown) => e);
    expect(refusal(overCap)).toEqual({ code: 'offline_limit', field: 'quick_pay' });
  });

  it('a points cap used up refuses points only: an order that spends quick pay and redeems nothing goes through', async () => {
    const s = await setUp();
    await setOfflinePolicy(s.central.engine, { vendorId: s.central.vendor.vendorId }, { pointsPerDay: 10 });
    await s.store.client.syncOnce();
    await goOffline(s);
    await placeOrder(s.store.engine, await s.store.scope(), { identification: 'di@example.com', receiptNumber: 'PTS-1', subtotal: 0, redemptions: [s.rewardId, s.rewardId] });
    await lowerCaps(s, { pointsPerDay: 3, pointsPerOrder: 0 });
    const scope = await s.store.scope();
    await placeOrder(s.store.engine, scope, { identification: 'di@example.com', receiptNumber: 'QP-1', subtotal: 2, quickPay: 2 });
    await placeOrder(s.store.engine, scope, { identification: 'di@example.com', receiptNumber: 'PLAIN', subtotal: 4 });
    const overCap = await placeOrder(s.store.engine, scope, { identification: 'di@example.com', receiptNumber: 'PTS-2', subtotal: 0, redemptions: [s.rewardId] }).catch((e: unknown) => e);
    expect(refusal(overCap)).toEqual({ code: 'offline_limit', field: 'redemptions' });
  });

  it("counts this node's offline spending only: another store's, pulled here, is already in the balance", async () => {
    const s = await setUp();
    await setOfflinePolicy(s.central.engine, { vendorId: s.central.vendor.vendorId }, { quickPayPerDay: 1_500 });
    const other = await pairStoreBehindSwitch(s.central, s.central.engine.clock as ManualClock, await addStore(s.central, 'Other'));
    open.push(other);
    await other.client.syncOnce();
    await s.store.client.syncOnce();

    // Offline at the other store, the customer spends 12.00 there; it reaches central, then this store.
    other.link.down = true;
    await other.client.syncOnce().catch(() => undefined);
    await placeOrder(other.engine, await other.scope(), { identification: 'di@example.com', receiptNumber: 'ELSEWHERE', subtotal: 12, quickPay: 12 });
    other.link.down = false;
    await other.client.syncOnce();
    await s.store.client.syncOnce();
    expect(await s.store.engine.db.selectFrom('orders').select('offline').where('receipt_number', '=', 'ELSEWHERE').executeTakeFirstOrThrow()).toEqual({ offline: 1 });

    // Offline here: the whole 15.00 a day, then nothing more, and the refusal says what is left.
    await goOffline(s);
    const scope = await s.store.scope();
    await placeOrder(s.store.engine, scope, { identification: 'di@example.com', receiptNumber: 'HERE-1', subtotal: 10, quickPay: 10 });
    const over = await placeOrder(s.store.engine, scope, { identification: 'di@example.com', receiptNumber: 'HERE-2', subtotal: 6, quickPay: 6 }).catch((e: unknown) => e);
    expect(refusal(over)).toEqual({ code: 'offline_limit', field: 'quick_pay' });
    expect((over as Error).message).toContain('(5.00 left)');
    await placeOrder(s.store.engine, scope, { identification: 'di@example.com', receiptNumber: 'HERE-3', subtotal: 5, quickPay: 5 });
  });
});
