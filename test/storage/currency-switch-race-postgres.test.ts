import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateApiKey, type StoreScope } from '../../src/core/credentials/authenticate';
import { updateCurrency } from '../../src/core/currencies/update-currency';
import { registerCustomer } from '../../src/core/customers/register-customer';
import { type Engine, startEngine } from '../../src/core/engine';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { addBillingProfile } from '../../src/core/payments/billing-profiles/manage-billing-profiles';
import { reloadQuickPay } from '../../src/core/payments/reloads/reload-quick-pay';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ManualClock } from '../support/clock';
import { openTestPostgres } from '../support/postgres';

// Switching the quick-pay currency's code (USD → JPY) is refused once a sale exists, since a sale's
// amounts are minor units of it. On PostgreSQL the switch's "no sale yet" and a sale committing at
// that moment could both pass: the switch locks the vendor row FOR UPDATE before its check, and a
// sale holds it FOR KEY SHARE before it reads the program (currencies/program-money.ts). Each
// interleaving is staged step by step with a third connection holding a row one side needs.
describe.skipIf(!process.env.PG_URL)('a quick-pay currency switch and a sale at once, on PostgreSQL (PG_URL)', () => {
  let database: Awaited<ReturnType<typeof openTestPostgres>>;
  let engine: Engine;
  const clock = new ManualClock();
  let holder: pg.Client;
  let observer: pg.Client;

  beforeAll(async () => {
    database = await openTestPostgres();
    engine = await startEngine({ database: database.database, nodeKey: randomBytes(32), clock, role: 'store' });
    holder = new pg.Client({ connectionString: database.url });
    observer = new pg.Client({ connectionString: database.url });
    await holder.connect();
    await observer.connect();
  });

  afterAll(async () => {
    await holder?.end().catch(() => undefined);
    await observer?.end().catch(() => undefined);
    await engine?.close();
    await database?.drop();
  });

  async function program(name: string): Promise<{ vendor: VendorCredentials; scope: StoreScope; cash: string; email: string }> {
    const vendor = await setUpVendor(engine, { name, currency: 'USD', country: 'US', store: { name: 'Main', address1: '1 Main', city: 'Springfield' } });
    const scope = await authenticateApiKey(engine, vendor.apiKey);
    const cash = (await engine.db.selectFrom('currencies').select('public_id').where('id', '=', vendor.quickPayCurrencyId).executeTakeFirstOrThrow()).public_id;
    const email = `buyer@${name.toLowerCase().replace(/\W/g, '')}.test`;
    await registerInStore(engine, scope, { email });
    clock.advance(1_000);
    return { vendor, scope, cash, email };
  }

  /** Resolves once `n` connections wait for a lock. */
  async function lockWaiters(n: number): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const waiting = await observer.query("select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'");
      if (waiting.rows[0].n >= n) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`fewer than ${n} connections waited for a lock within 10 s`);
  }

  const settled = <T>(promise: Promise<T>) => promise.then((value) => ({ ok: true as const, value }), (error: unknown) => ({ ok: false as const, error }));
  const codeOf = async (vendorId: number) =>
    (await engine.db.selectFrom('vendors as v').innerJoin('currencies as c', 'c.id', 'v.quick_pay_currency_id').select('c.code').where('v.id', '=', vendorId).executeTakeFirstOrThrow()).code;

  it('a sale in flight: the switch waits for it, then finds it and is refused (409 currency_in_use)', async () => {
    const { vendor, scope, cash, email } = await program('Sale First');
    await holder.query('begin');
    try {
      // The holder takes the node's id counter: the sale has read the program (USD) and waits for its order's id …
      await holder.query("select value from id_sequences where name = 'objects' for update");
      const sale = settled(placeOrder(engine, scope, { identification: email, receiptNumber: 'R1', subtotal: 12.5 }));
      await lockWaiters(1);
      // … as the owner switches to yen. Unlocked, the switch saw no sale yet and committed here.
      const switched = settled(updateCurrency(engine, { vendorId: vendor.vendorId }, cash, { code: 'JPY' }));
      await Promise.race([switched, lockWaiters(2)]);
      await holder.query('rollback');
      expect((await sale).ok).toBe(true);
      const outcome = await switched;
      expect(outcome.ok).toBe(false);
      expect(outcome.ok ? null : outcome.error).toMatchObject({ code: 'currency_in_use' });
    } finally {
      await holder.query('rollback').catch(() => undefined);
    }
    expect(await codeOf(vendor.vendorId)).toBe('USD');
    const order = await engine.db.selectFrom('orders').select(['subtotal']).where('vendor_id', '=', vendor.vendorId).executeTakeFirstOrThrow();
    expect(Number(order.subtotal)).toBe(1250);
  });

  it('a switch in flight: the sale waits for it, then sells in the new currency', async () => {
    const { vendor, scope, cash, email } = await program('Switch First');
    const cashId = vendor.quickPayCurrencyId;
    await holder.query('begin');
    try {
      // The holder takes the currency row: the switch has checked (no sale) and restated the rules, and waits to write its code …
      await holder.query('select id from currencies where id = $1 for update', [cashId]);
      const switched = settled(updateCurrency(engine, { vendorId: vendor.vendorId }, cash, { code: 'JPY' }));
      await lockWaiters(1);
      // … as a till sells 12. Unlocked, the sale read USD, wrote 1200 cents and committed first.
      const sale = settled(placeOrder(engine, scope, { identification: email, receiptNumber: 'R1', subtotal: 12 }));
      await Promise.race([sale, lockWaiters(2)]);
      await holder.query('rollback');
      expect((await switched).ok).toBe(true);
      expect((await sale).ok).toBe(true);
    } finally {
      await holder.query('rollback').catch(() => undefined);
    }
    expect(await codeOf(vendor.vendorId)).toBe('JPY');
    // Sold in yen: 12 yen, and the rule "1 point per unit spent" (restated to per 1 yen) earns 12.
    const order = await engine.db.selectFrom('orders').select(['subtotal', 'points_earned']).where('vendor_id', '=', vendor.vendorId).executeTakeFirstOrThrow();
    expect([Number(order.subtotal), Number(order.points_earned)]).toEqual([12, 12]);
  });

  it('a switch in flight: a reload that read the old currency waits for it, then is refused with nothing charged', async () => {
    const { vendor, cash } = await program('Reload Behind');
    const { user } = await registerCustomer(engine, { vendorId: vendor.vendorId, firstName: 'Ana', lastName: 'Reload', email: 'ana@reload.test', password: 'correct horse 1', terms: true });
    const session = { sessionId: 0, userId: user.id, vendorId: vendor.vendorId };
    const year = String(new Date(clock.now()).getUTCFullYear() + 2);
    const visa = await addBillingProfile(engine, session, { number: '4242424242424242', expiryMonth: '01', expiryYear: year, cvv: '123' });
    await holder.query('begin');
    try {
      await holder.query('select id from currencies where id = $1 for update', [vendor.quickPayCurrencyId]);
      const switched = settled(updateCurrency(engine, { vendorId: vendor.vendorId }, cash, { code: 'JPY' }));
      await lockWaiters(1);
      // The reload reads USD and asks to record a 10.00 charge. Unlocked, it was charged and credited
      // before the switch committed: 1000 USD cents then read as 1,000 yen.
      const reload = settled(reloadQuickPay(engine, session, { profileId: visa.id, amount: 10 }));
      await Promise.race([reload, lockWaiters(2)]);
      await holder.query('rollback');
      expect((await switched).ok).toBe(true);
      const outcome = await reload;
      expect(outcome.ok ? null : outcome.error).toMatchObject({ code: 'currency_not_active' });
    } finally {
      await holder.query('rollback').catch(() => undefined);
    }
    expect(await codeOf(vendor.vendorId)).toBe('JPY');
    expect(await engine.db.selectFrom('payment_charges').select('id').where('vendor_id', '=', vendor.vendorId).execute()).toEqual([]);
  });
});
