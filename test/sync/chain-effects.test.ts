import { afterEach, describe, expect, it } from 'vitest';
import { openAccount, postEntry } from '../../src/core/ledger/ledger';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { checkIn } from '../../src/core/onscreen/check-in';
import { closeSession } from '../../src/core/onscreen/close-session';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { createSpendingRule } from '../../src/core/rules/spending/create-spending-rule';
import { nextObjectId } from '../../src/core/storage/ids';
import { createWebhookEndpoint } from '../../src/core/webhooks/endpoints';
import { ManualClock } from '../support/clock';
import { addStore, type CentralHandle, pairStoreBehindSwitch, startCentral, type StoreHandle, type Switch } from './support/chain';

// What central does when a store's sales land, besides storing them: the webhook events a sale
// raises on a standalone node (with the store's original time), the auto reload a quick-pay spend
// crossing the threshold queues, and overdraft flags lifted by credits made at central itself.

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const handle of open.splice(0).reverse()) await handle.close();
});

async function chainOfOne(): Promise<{ clock: ManualClock; central: CentralHandle; store: StoreHandle & { link: Switch } }> {
  const clock = new ManualClock();
  const central = await startCentral(clock);
  open.push(central);
  const store = await pairStoreBehindSwitch(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey });
  open.push(store);
  return { clock, central, store };
}

const sync = async (store: StoreHandle) => {
  for (let round = 0; round < 2; round += 1) await store.client.syncOnce();
};

describe('central acting on the sales stores push', () => {
  it('raises the webhook events of a store’s offline sale, dated when the sale happened', async () => {
    const { clock, central, store } = await chainOfOne();
    const events = ['customer.registered', 'check_in.opened', 'check_in.closed', 'order.placed', 'balance.updated'];
    await createWebhookEndpoint(central.engine, { vendorId: central.vendor.vendorId }, { url: 'https://hooks.example.com/punchcard', events }, { allowPrivate: false });
    store.link.down = true;
    const soldAt = clock.now();
    await registerInStore(store.engine, await store.scope(), { email: 'ana@example.com', firstName: 'Ana' });
    const order = await placeOrder(store.engine, await store.scope(), { identification: 'ana@example.com', receiptNumber: 'R-1', subtotal: 12 });
    expect(await central.engine.db.selectFrom('webhook_events').select('id').execute()).toEqual([]);
    // A store replica raises nothing itself: the program's owner does, once.
    expect(await store.engine.db.selectFrom('webhook_events').select('id').execute()).toEqual([]);

    clock.advance(3_600_000);
    store.link.down = false;
    await sync(store);
    const raised = await central.engine.db.selectFrom('webhook_events').select(['type', 'data', 'created_at', 'recorded_at']).orderBy('recorded_at').orderBy('id').execute();
    const types = raised.map((e) => e.type).sort();
    expect(types).toEqual(['balance.updated', 'check_in.closed', 'check_in.opened', 'customer.registered', 'order.placed']);
    for (const event of raised) {
      expect(event.created_at).toBe(soldAt);
      expect(event.recorded_at).toBe(soldAt + 3_600_000);
    }
    const placed = JSON.parse(raised.find((e) => e.type === 'order.placed')!.data);
    expect(placed).toMatchObject({ order_id: order.orderId, receipt_number: 'R-1', user: { email_address: 'ana@example.com', first_name: 'Ana' } });
    const balance = JSON.parse(raised.find((e) => e.type === 'balance.updated')!.data);
    expect(balance.balance.amount).toBeGreaterThan(0);
    expect(JSON.parse(raised.find((e) => e.type === 'check_in.closed')!.data)).toMatchObject({ closed_reason: 'order' });
    // One pending delivery per event; a second push of the same events raises nothing new.
    expect(await central.engine.db.selectFrom('webhook_deliveries').select('id').where('status', '=', 'pending').execute()).toHaveLength(5);
    await sync(store);
    expect(await central.engine.db.selectFrom('webhook_events').select('id').execute()).toHaveLength(5);
  });

  it('raises check_in.closed for a check-in central closes as moved when the customer checked in at a store', async () => {
    const clock = new ManualClock();
    const central = await startCentral(clock);
    open.push(central);
    const storeB = await addStore(central, 'B');
    const store = await pairStoreBehindSwitch(central, clock, storeB);
    open.push(store);
    await createWebhookEndpoint(central.engine, { vendorId: central.vendor.vendorId }, { url: 'https://hooks.example.com/punchcard', events: ['check_in.closed'] }, { allowPrivate: false });
    const { session: first } = await registerInStore(store.engine, await store.scope(), { email: 'di@example.com' });
    await closeSession(store.engine, await store.scope(), first.hash);
    await sync(store);
    await central.engine.db.deleteFrom('webhook_deliveries').execute();
    await central.engine.db.deleteFrom('webhook_events').execute();

    // While store B is offline the customer checks in at store A (through central), then at B.
    store.link.down = true;
    const atA = await checkIn(central.engine, await authenticateApiKey(central.engine, central.vendor.apiKey), { identification: 'di@example.com' });
    clock.advance(60_000);
    await checkIn(store.engine, await store.scope(), { identification: 'di@example.com' });
    store.link.down = false;
    await sync(store);
    const closed = await central.engine.db.selectFrom('webhook_events').select(['type', 'data']).where('type', '=', 'check_in.closed').execute();
    expect(closed.map((e) => JSON.parse(e.data))).toEqual([expect.objectContaining({ check_in_id: atA.session.id, closed_reason: 'moved' })]);
    const row = await central.engine.db.selectFrom('pos_sessions').select(['status', 'closed_reason']).where('id', '=', atA.session.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'closed', closed_reason: 'moved' });
  });

  it('queues the auto reload a quick-pay spend at a store crosses into', async () => {
    const { central, store } = await chainOfOne();
    const { vendorId, quickPayCurrencyId } = central.vendor;
    await registerInStore(store.engine, await store.scope(), { email: 'bo@example.com' });
    await sync(store);
    const user = await central.engine.db.selectFrom('users').select('id').where('email_key', '=', 'bo@example.com').executeTakeFirstOrThrow();
    const userId = Number(user.id);
    // At central: 20.00 of quick pay, a saved card, and auto reload of 25.00 at or below 5.00.
    await central.engine.db.transaction().execute(async (trx) => {
      const account = await openAccount(trx, central.engine, { vendorId, currencyId: quickPayCurrencyId, holderType: 'user', holderId: userId });
      await postEntry(trx, central.engine, account, { amount: 2_000, kind: 'reload' });
      const profileId = await nextObjectId(trx, central.engine.nodeId);
      const now = central.engine.clock.now();
      await trx
        .insertInto('billing_profiles')
        .values({ id: profileId, vendor_id: vendorId, user_id: userId, gateway: 'test', token: 'tok_visa', brand: 'visa', last4: '4242', expiry_month: 12, expiry_year: 2040, postal_code: null, name: 'Bo', description: null, is_default: 1, expiry_reminded_at: null, created_at: now, updated_at: now, deleted_at: null })
        .execute();
      await trx.updateTable('user_vendors').set({ reload_amount: 2_500, reload_threshold: 500, billing_profile_id: profileId }).where('user_id', '=', userId).where('vendor_id', '=', vendorId).execute();
    });
    await sync(store);

    store.link.down = true;
    const order = await placeOrder(store.engine, await store.scope(), { identification: 'bo@example.com', receiptNumber: 'Q-1', subtotal: 16, quickPay: 16 });
    expect(await store.engine.db.selectFrom('auto_reloads').select('id').execute()).toEqual([]);
    store.link.down = false;
    await sync(store);
    const queued = await central.engine.db.selectFrom('auto_reloads').select(['user_id', 'amount', 'threshold', 'order_id', 'status']).execute();
    expect(queued).toEqual([{ user_id: userId, amount: 2_500, threshold: 500, order_id: order.orderId, status: 'queued' }]);

    // A spend that stays above the threshold queues nothing more.
    await placeOrder(store.engine, await store.scope(), { identification: 'bo@example.com', receiptNumber: 'Q-2', subtotal: 1, quickPay: 1 });
    await sync(store);
    expect(await central.engine.db.selectFrom('auto_reloads').select('id').execute()).toHaveLength(1);
  });

  it('tells an offline quick-pay overdraft in the currency, as staff read money', async () => {
    const { central, store } = await chainOfOne();
    const { vendorId, quickPayCurrencyId } = central.vendor;
    await registerInStore(store.engine, await store.scope(), { email: 'di@example.com' });
    await sync(store);
    const userId = Number((await central.engine.db.selectFrom('users').select('id').where('email_key', '=', 'di@example.com').executeTakeFirstOrThrow()).id);
    const move = (amount: number, kind: 'reload' | 'adjustment') =>
      central.engine.db.transaction().execute(async (trx) =>
        postEntry(trx, central.engine, await openAccount(trx, central.engine, { vendorId, currencyId: quickPayCurrencyId, holderType: 'user', holderId: userId }), { amount, kind }),
      );
    await move(5_000, 'reload');
    await sync(store);
    // Central takes 49.99 back while the store, offline, still sees 50.00 and spends 30.00.
    store.link.down = true;
    await move(-4_999, 'adjustment');
    await placeOrder(store.engine, await store.scope(), { identification: 'di@example.com', receiptNumber: 'Q-1', subtotal: 30, quickPay: 30 });
    store.link.down = false;
    await sync(store);
    const exception = await central.engine.db.selectFrom('sync_exceptions').select('message').where('kind', '=', 'offline_overdraft').executeTakeFirstOrThrow();
    expect(exception.message).toBe('Quick Pay USD spent before the nodes heard of each other left a balance of -29.99 USD (the store believed 50.00 USD was available); settled from the next credits');
  });

  it('lifts an offline-overdraft flag when a credit made at central settles the debt', async () => {
    const { central, store } = await chainOfOne();
    const { vendorId, loyaltyCurrencyId } = central.vendor;
    const currency = await central.engine.db.selectFrom('currencies').select('public_id').where('id', '=', loyaltyCurrencyId).executeTakeFirstOrThrow();
    const reward = await createSpendingRule(central.engine, { vendorId }, { name: 'Tea', cost: 8, currency: currency.public_id });
    await registerInStore(store.engine, await store.scope(), { email: 'cy@example.com' });
    await placeOrder(store.engine, await store.scope(), { identification: 'cy@example.com', receiptNumber: 'A-1', subtotal: 10 });
    await sync(store);
    const user = await central.engine.db.selectFrom('users').select('id').where('email_key', '=', 'cy@example.com').executeTakeFirstOrThrow();
    const userId = Number(user.id);
    // Central takes 5 points away (a correction) while the store, offline, still sees 10 and spends 8.
    store.link.down = true;
    await central.engine.db.transaction().execute(async (trx) => {
      const account = await openAccount(trx, central.engine, { vendorId, currencyId: loyaltyCurrencyId, holderType: 'user', holderId: userId });
      await postEntry(trx, central.engine, account, { amount: -5, kind: 'adjustment' });
    });
    await placeOrder(store.engine, await store.scope(), { identification: 'cy@example.com', receiptNumber: 'A-2', subtotal: 0, redemptions: [reward.publicId] });
    store.link.down = false;
    await sync(store);
    const membership = () => central.engine.db.selectFrom('user_vendors').select(['flagged', 'flagged_reason']).where('user_id', '=', userId).executeTakeFirstOrThrow();
    const exception = () => central.engine.db.selectFrom('sync_exceptions').select('resolved_at').where('kind', '=', 'offline_overdraft').executeTakeFirstOrThrow();
    expect(await membership()).toEqual({ flagged: 1, flagged_reason: 'offline_overdraft' });

    // A credit at central that leaves the balance still negative keeps the flag; one that settles it lifts it.
    const credit = (amount: number) =>
      central.engine.db.transaction().execute(async (trx) => {
        const account = await openAccount(trx, central.engine, { vendorId, currencyId: loyaltyCurrencyId, holderType: 'user', holderId: userId });
        return postEntry(trx, central.engine, account, { amount, kind: 'adjustment' });
      });
    expect((await credit(1)).balance).toBe(-2);
    expect(await membership()).toEqual({ flagged: 1, flagged_reason: 'offline_overdraft' });
    expect((await exception()).resolved_at).toBeNull();
    expect((await credit(2)).balance).toBe(0);
    expect(await membership()).toEqual({ flagged: 0, flagged_reason: null });
    expect((await exception()).resolved_at).not.toBeNull();
    // The store learns the flag is gone.
    await sync(store);
    const atStore = await store.engine.db.selectFrom('user_vendors').select('flagged').where('user_id', '=', userId).executeTakeFirstOrThrow();
    expect(atStore.flagged).toBe(0);
  });
});
