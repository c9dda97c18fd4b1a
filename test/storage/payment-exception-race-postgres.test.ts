import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCurrency } from '../../src/core/currencies/create-currency';
import { registerCustomer } from '../../src/core/customers/register-customer';
import { type Engine, startEngine } from '../../src/core/engine';
import { addBillingProfile } from '../../src/core/payments/billing-profiles/manage-billing-profiles';
import { resolvePaymentException } from '../../src/core/payments/exceptions/payment-exceptions';
import { reconcileCharges } from '../../src/core/payments/reconcile/reconcile-charges';
import { reloadQuickPay } from '../../src/core/payments/reloads/reload-quick-pay';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { ManualClock } from '../support/clock';
import { openTestPostgres, waitForLockWait } from '../support/postgres';

// Staff's refund of a payment exception and the charge's own settlement, at the same moment, on
// PostgreSQL. The settlement (a poll crediting a late reload once the program switched back) takes
// the charge's row first; the staff refund takes it too before it claims the exception, so it goes
// second and finds the reload credited: 409, and the gateway is never asked to refund. Without
// that, the claim read the exception before the credit committed and both paid. The interleaving
// is staged on a separate connection; it needs a server (PGlite has one connection).
describe.skipIf(!process.env.PG_URL)('a refund claimed while the charge settles by itself, on PostgreSQL (PG_URL)', () => {
  let database: Awaited<ReturnType<typeof openTestPostgres>>;
  let engine: Engine;
  const clock = new ManualClock();
  let holder: pg.Client;

  beforeAll(async () => {
    database = await openTestPostgres();
    engine = await startEngine({ database: database.database, nodeKey: randomBytes(32), clock, role: 'central' });
    holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
  });

  afterAll(async () => {
    await holder?.end();
    await engine?.close();
    await database?.drop();
  });

  it('waits for the settlement holding the charge, then finds it settled: 409, nothing refunded', async () => {
    const v = await setUpVendor(engine, { name: 'Race Refunds', currency: 'USD', country: 'US', store: { name: 'Main', address1: '1 Main', city: 'Springfield' } });
    const { user } = await registerCustomer(engine, { vendorId: v.vendorId, firstName: 'Ana', lastName: 'Race', email: 'ana@refund-race.test', password: 'correct horse 1', terms: true });
    const session = { sessionId: 0, userId: user.id, vendorId: v.vendorId };
    const year = String(new Date(clock.now()).getUTCFullYear() + 2);
    const profile = await addBillingProfile(engine, session, { number: '4000002760003184', expiryMonth: '12', expiryYear: year, cvv: '123' });
    const reload = await reloadQuickPay(engine, session, { profileId: profile.id, amount: 30 });
    const other = await createCurrency(engine, { vendorId: v.vendorId }, { name: 'Store dollars', code: 'USD' });
    await engine.db.updateTable('vendors').set({ quick_pay_currency_id: other.id }).where('id', '=', v.vendorId).execute();
    clock.advance(61_000);
    expect((await reconcileCharges(engine)).refused).toEqual([reload.charge.id]);
    const exception = await engine.db.selectFrom('payment_exceptions').select('id').where('charge_id', '=', reload.charge.id).executeTakeFirstOrThrow();

    // The charge's own settlement is under way: it has taken the charge's row.
    await holder.query('begin');
    await holder.query('select id from payment_charges where id = $1 for update', [reload.charge.id]);
    const refund = resolvePaymentException(engine, v, exception.id, 'refund').then(
      () => 'refunded',
      (error: { code?: string }) => error.code,
    );
    await waitForLockWait(holder);
    // It credits the reload and commits.
    await holder.query("update payment_charges set status = 'succeeded', credited_at = $2 where id = $1", [reload.charge.id, clock.now()]);
    await holder.query('commit');

    expect(await refund).toBe('invalid_status_transition');
    expect(await engine.db.selectFrom('payment_exceptions').select('status').where('id', '=', exception.id).executeTakeFirstOrThrow()).toEqual({ status: 'settled' });
    const charge = await engine.db.selectFrom('payment_charges').select(['status', 'gateway_charge_id']).where('id', '=', reload.charge.id).executeTakeFirstOrThrow();
    expect(charge.status).toBe('succeeded');
    const atGateway = await engine.db.selectFrom('test_gateway_charges').select('refunded_at').where('id', '=', charge.gateway_charge_id!).executeTakeFirstOrThrow();
    expect(atGateway.refunded_at).toBeNull();
  });
});
