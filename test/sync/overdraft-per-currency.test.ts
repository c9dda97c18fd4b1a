import { describe, expect, it } from 'vitest';
import { withCustomersNamed } from '../../src/core/chain-health/exception-customers';
import { transact } from '../../src/core/engine';
import { openAccount, postEntry } from '../../src/core/ledger/ledger';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { createSpendingRule } from '../../src/core/rules/spending/create-spending-rule';
import { listSyncExceptions } from '../../src/core/sync/central/sync-exceptions';
import type { Database } from '../../src/core/storage/database';
import { ManualClock } from '../support/clock';
import { addStore, centralDatabases, closedAfterEach, pairStoreBehindSwitch, startCentral } from './support/chain';

// Fourteenth round: an offline overdraft is one sync exception per currency. A quick-pay debt paid
// back used to stay open while the customer's points were still below zero (the flag is the
// membership's), and staff could not tell which currency was owed. Each currency's exception now
// closes when its balance is back to zero or more; the flag lifts when every balance is.

const keep = closedAfterEach();

const DATABASES = centralDatabases(keep);

/**
 * Two stores that both saw 10 points and 10.00 of quick pay, and each spent 8.00 of the quick pay
 * (earning 8 points) and 16 points while neither reached central: the customer ends at -6 points
 * and -6.00 quick pay at central.
 */
async function overdrawnInBoth(open: () => Promise<Database>) {
  const clock = new ManualClock();
  const central = keep(await startCentral(clock, await open()));
  const { vendorId, loyaltyCurrencyId, quickPayCurrencyId } = central.vendor;
  const a = keep(await pairStoreBehindSwitch(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }));
  const b = keep(await pairStoreBehindSwitch(central, clock, await addStore(central, 'B')));
  const points = await central.engine.db.selectFrom('currencies').select('public_id').where('id', '=', loyaltyCurrencyId).executeTakeFirstOrThrow();
  const tea = await createSpendingRule(central.engine, { vendorId }, { name: 'Tea', cost: 8, currency: points.public_id });
  const joined = await registerInStore(a.engine, await a.scope(), { email: 'eve@example.com', firstName: 'Eve', lastName: 'Debtor' });
  await placeOrder(a.engine, await a.scope(), { identification: 'eve@example.com', receiptNumber: 'A-1', subtotal: 10 });
  const syncAll = async () => {
    for (let round = 0; round < 2; round += 1) for (const store of [a, b]) await store.client.syncOnce();
  };
  await syncAll();
  const userId = Number(joined.session.user_id);
  const creditAtCentral = (currencyId: number, amount: number) =>
    transact(central.engine, async (trx) => {
      const account = await openAccount(trx, central.engine, { vendorId, currencyId, holderType: 'user', holderId: userId });
      await postEntry(trx, central.engine, account, { amount, kind: 'adjustment' });
    });
  await creditAtCentral(quickPayCurrencyId, 1_000);
  await syncAll();

  for (const store of [a, b]) {
    store.link.down = true;
    await store.client.syncOnce().catch(() => undefined);
  }
  for (const [store, prefix] of [[a, 'A'], [b, 'B']] as const) {
    // The quick-pay sale earns 8 points; the store, seeing 18, redeems two teas (16).
    await placeOrder(store.engine, await store.scope(), { identification: 'eve@example.com', receiptNumber: `${prefix}-2`, subtotal: 8, quickPay: 8 });
    await placeOrder(store.engine, await store.scope(), { identification: 'eve@example.com', receiptNumber: `${prefix}-3`, subtotal: 0, redemptions: [tea.publicId, tea.publicId] });
  }
  a.link.down = false;
  b.link.down = false;
  await syncAll();

  const db = central.engine.db;
  return {
    central,
    a,
    userId,
    syncAll,
    creditAtCentral,
    flag: async () => (await db.selectFrom('user_vendors').select('flagged_reason').where('user_id', '=', userId).where('vendor_id', '=', vendorId).executeTakeFirstOrThrow()).flagged_reason,
    balance: async (currencyId: number) =>
      Number((await db.selectFrom('ledger_accounts').select('balance').where('holder_id', '=', userId).where('currency_id', '=', currencyId).executeTakeFirstOrThrow()).balance),
    /** The overdraft exceptions, oldest first: subject, whether open, message. */
    overdrafts: async () =>
      (await db.selectFrom('sync_exceptions').select(['subject', 'resolved_at', 'message']).where('kind', '=', 'offline_overdraft').orderBy('id').execute()).map((e) => ({
        subject: e.subject,
        open: e.resolved_at === null,
        message: e.message,
      })),
  };
}

describe.each(DATABASES)('an offline overdraft, one exception per currency ($name)', ({ database: open }) => {
  it('opens one per currency, resolves each when its balance is settled, and lifts the flag when all are', async () => {
    const { central, a, userId, syncAll, creditAtCentral, flag, balance, overdrafts } = await overdrawnInBoth(open);
    const { vendorId, loyaltyCurrencyId, quickPayCurrencyId } = central.vendor;
    const pointsSubject = `user ${userId} currency ${loyaltyCurrencyId}`;
    const quickPaySubject = `user ${userId} currency ${quickPayCurrencyId}`;
    expect([await balance(loyaltyCurrencyId), await balance(quickPayCurrencyId)]).toEqual([-6, -600]);
    expect(await flag()).toBe('offline_overdraft');
    const both = await overdrafts();
    const states = async () => Object.fromEntries((await overdrafts()).map((e) => [e.subject, e.open]));
    expect(await states()).toEqual({ [pointsSubject]: true, [quickPaySubject]: true });
    expect(both).toHaveLength(2);
    // Each names its currency, not only an amount's code.
    expect(both.find((e) => e.subject === pointsSubject)?.message).toMatch(/^Points spent before the nodes heard of each other left a balance of -6 Points /);
    expect(both.find((e) => e.subject === quickPaySubject)?.message).toMatch(/^Quick Pay USD spent before the nodes heard of each other left a balance of -6\.00 USD /);
    // The chain page still names the customer the subject is about.
    const named = await withCustomersNamed(central.engine, vendorId, await listSyncExceptions(central.engine, vendorId, { open: true }));
    expect(named.map((e) => e.customers)).toEqual([
      [{ id: userId, name: 'Eve Debtor' }],
      [{ id: userId, name: 'Eve Debtor' }],
    ]);

    // Quick pay paid back (a reload at central): its exception closes, the points one stays, and so does the flag.
    await creditAtCentral(quickPayCurrencyId, 600);
    expect(await balance(quickPayCurrencyId)).toBe(0);
    expect(await states()).toEqual({ [pointsSubject]: true, [quickPaySubject]: false });
    expect(await flag()).toBe('offline_overdraft');

    // Points earned back at a store (6 from a 6.00 sale): everything settled, the flag lifts.
    await placeOrder(a.engine, await a.scope(), { identification: 'eve@example.com', receiptNumber: 'A-4', subtotal: 6 });
    await syncAll();
    expect(await balance(loyaltyCurrencyId)).toBe(0);
    expect(await states()).toEqual({ [pointsSubject]: false, [quickPaySubject]: false });
    expect(await overdrafts()).toHaveLength(2);
    expect(await flag()).toBeNull();
  });

  it('an exception written before per-currency ones ("user N") is not doubled and resolves when every balance is settled', async () => {
    const { central, a, userId, syncAll, creditAtCentral, flag, balance, overdrafts } = await overdrawnInBoth(open);
    const { loyaltyCurrencyId, quickPayCurrencyId } = central.vendor;
    // A live database's row from the old code: one exception, no currency, subject "user N".
    await central.engine.db.deleteFrom('sync_exceptions').where('kind', '=', 'offline_overdraft').execute();
    await central.engine.db
      .insertInto('sync_exceptions')
      .values({
        vendor_id: central.vendor.vendorId,
        store_id: central.vendor.storeId,
        node_id: null,
        kind: 'offline_overdraft',
        subject: `user ${userId}`,
        message: 'spends made before the nodes heard of each other left a balance of -6 Points; settled from the next credits',
        created_at: 1,
        resolved_at: null,
      })
      .execute();

    // Quick pay settled: the old row cannot say which currency it was about, so it stays open with the flag.
    await creditAtCentral(quickPayCurrencyId, 600);
    expect((await overdrafts()).map(({ subject, open }) => ({ subject, open }))).toEqual([{ subject: `user ${userId}`, open: true }]);
    // A store's sale reaches the still negative points account (earning 1): no second exception beside the old one.
    await placeOrder(a.engine, await a.scope(), { identification: 'eve@example.com', receiptNumber: 'A-4', subtotal: 1 });
    await syncAll();
    expect(await balance(loyaltyCurrencyId)).toBe(-5);
    expect((await overdrafts()).map((e) => e.subject)).toEqual([`user ${userId}`]);
    expect(await flag()).toBe('offline_overdraft');

    // Every balance back to zero or more: the old row resolves as it did, and the flag lifts.
    await placeOrder(a.engine, await a.scope(), { identification: 'eve@example.com', receiptNumber: 'A-5', subtotal: 5 });
    await syncAll();
    expect((await overdrafts()).map((e) => e.open)).toEqual([false]);
    expect(await flag()).toBeNull();
  });
});
