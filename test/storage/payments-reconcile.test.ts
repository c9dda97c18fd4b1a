import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCurrency } from '../../src/core/currencies/create-currency';
import { registerCustomer } from '../../src/core/customers/register-customer';
import type { CustomerSession } from '../../src/core/customers/sessions';
import { type Engine, transact } from '../../src/core/engine';
import { findBalanceMismatches } from '../../src/core/ledger/ledger';
import { queueAutoReloadOnCrossing, runDueAutoReloads } from '../../src/core/payments/auto-reload/auto-reloads';
import { updateReloadSettings } from '../../src/core/payments/auto-reload/reload-settings';
import { addBillingProfile } from '../../src/core/payments/billing-profiles/manage-billing-profiles';
import { gatewayKeyOf } from '../../src/core/payments/charges/payment-charges';
import { sendEgift } from '../../src/core/payments/egifts/send-egift';
import type { TestGateway } from '../../src/core/payments/gateway/test-gateway';
import { CHARGE_GIVE_UP_MS, RECONCILE_GRACE_MS, reconcileCharges } from '../../src/core/payments/reconcile/reconcile-charges';
import { reloadQuickPay, reloadStatus } from '../../src/core/payments/reloads/reload-quick-pay';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { BACKENDS, openEngine, testVendor } from '../support/backends';
import { ManualClock } from '../support/clock';

// The reconciliation of charges whose outcome the node does not know, on both dialects:
// - a charge the gateway made but whose answer was lost (503, row still `created`) is found under
//   the node's gateway key and settled: a reload credited once however often the job runs, an
//   auto reload the worker gave up on completed, an eGift finished only when its gift exists;
// - a charge the gateway never saw is left alone until the deadline, then `failed` for good;
// - a reload that settles late credits the currency it was charged in, and is refused (nothing
//   moves, the charge stays pending) while the program uses another quick-pay currency.

const SUCCESS_CARD = '4242424242424242';
const LATE_CARD = '4000002760003184';
const AFTER_GRACE = RECONCILE_GRACE_MS + 1000;

describe.each(BACKENDS)('charge reconciliation on $name', (backend) => {
  let engine: Engine;
  let close: () => Promise<void>;
  const clock = new ManualClock();
  let count = 0;

  beforeAll(async () => {
    ({ engine, close } = await openEngine(backend, clock));
  });

  afterAll(() => close?.());

  const gateway = () => engine.payments as TestGateway;
  const year = () => String(new Date(clock.now()).getUTCFullYear() + 2);

  async function member(): Promise<{ v: VendorCredentials; session: CustomerSession }> {
    const v = await setUpVendor(engine, testVendor(`Reconcile ${++count}`));
    const { user } = await registerCustomer(engine, { vendorId: v.vendorId, firstName: 'Ana', lastName: 'López', email: `ana-${count}@example.com`, password: 'correct horse 1', terms: true });
    return { v, session: { sessionId: 0, userId: user.id, vendorId: v.vendorId } };
  }

  const profileOf = (session: CustomerSession, number = SUCCESS_CARD) => addBillingProfile(engine, session, { number, expiryMonth: '12', expiryYear: year(), cvv: '123' });
  const chargesOf = (vendorId: number) => engine.db.selectFrom('payment_charges').selectAll().where('vendor_id', '=', vendorId).orderBy('id').execute();
  const gatewayChargesFor = (chargeId: number) => engine.db.selectFrom('test_gateway_charges').selectAll().where('idempotency_key', '=', gatewayKeyOf(chargeId)).execute();
  const credits = (userId: number) =>
    engine.db
      .selectFrom('ledger_entries as e')
      .innerJoin('ledger_accounts as a', 'a.id', 'e.account_id')
      .select(['a.currency_id', 'e.amount', 'e.reference_id'])
      .where('a.holder_type', '=', 'user')
      .where('a.holder_id', '=', userId)
      .where('e.reference_type', '=', 'payment_charge')
      .execute();
  const historyOf = (userId: number) => engine.db.selectFrom('transactions').select(['id', 'status', 'quick_pay_loaded']).where('user_id', '=', userId).execute();

  it('credits a reload whose gateway answer was lost, once, however many times the job runs', async () => {
    const { v, session } = await member();
    const profile = await profileOf(session);
    gateway().loseNextAnswers(1);
    await expect(reloadQuickPay(engine, session, { profileId: profile.id, amount: 20, idempotencyKey: 'lost' })).rejects.toMatchObject({ code: 'payment_gateway_unavailable' });
    const [charge] = await chargesOf(v.vendorId);
    expect(charge).toMatchObject({ status: 'created', credited_at: null });
    // The gateway took the money under the node's key.
    expect((await gatewayChargesFor(charge!.id)).map((c) => c.status)).toEqual(['succeeded']);

    // Within the grace period the charge is left alone (a retry may be on its way).
    await reconcileCharges(engine);
    expect((await chargesOf(v.vendorId))[0]!.status).toBe('created');
    expect(await credits(session.userId)).toEqual([]);

    clock.advance(AFTER_GRACE);
    const first = await reconcileCharges(engine);
    expect(first.succeeded).toBeGreaterThanOrEqual(1);
    await reconcileCharges(engine);
    await reconcileCharges(engine);
    const [after] = await chargesOf(v.vendorId);
    expect(after).toMatchObject({ status: 'succeeded' });
    expect(after!.credited_at).not.toBeNull();
    expect(await credits(session.userId)).toEqual([{ currency_id: v.quickPayCurrencyId, amount: 2000, reference_id: String(charge!.id) }]);
    expect(await historyOf(session.userId)).toHaveLength(1);
    // Never re-sent: one charge at the gateway.
    expect(await gatewayChargesFor(charge!.id)).toHaveLength(1);

    // The client's retry with the same key answers the credited reload and charges nothing more.
    const retry = await reloadQuickPay(engine, session, { profileId: profile.id, amount: 20, idempotencyKey: 'lost' });
    expect(retry.charge).toMatchObject({ id: charge!.id, status: 'succeeded' });
    expect(retry.balance).toBe(2000);
    expect(await credits(session.userId)).toHaveLength(1);
    expect(await findBalanceMismatches(engine.db)).toEqual([]);
  });

  it('leaves a charge the gateway never saw until the deadline, then marks it failed for good', async () => {
    const { v, session } = await member();
    const profile = await profileOf(session);
    gateway().refuseNextRequests(1);
    await expect(reloadQuickPay(engine, session, { profileId: profile.id, amount: 5, idempotencyKey: 'never' })).rejects.toMatchObject({ code: 'payment_gateway_unavailable' });
    const [charge] = await chargesOf(v.vendorId);
    expect(charge!.status).toBe('created');
    expect(await gatewayChargesFor(charge!.id)).toEqual([]);

    clock.advance(AFTER_GRACE);
    await reconcileCharges(engine);
    expect((await chargesOf(v.vendorId))[0]!.status).toBe('created');

    clock.advance(CHARGE_GIVE_UP_MS);
    const report = await reconcileCharges(engine);
    expect(report.failed).toBeGreaterThanOrEqual(1);
    expect((await chargesOf(v.vendorId))[0]).toMatchObject({ status: 'failed', decline_reason: 'processing_error', credited_at: null });
    await reconcileCharges(engine);

    // A retry of the same key is not re-sent: it answers the processing error, nothing is charged.
    await expect(reloadQuickPay(engine, session, { profileId: profile.id, amount: 5, idempotencyKey: 'never' })).rejects.toMatchObject({ code: 'card_processing_error' });
    expect((await reloadStatus(engine, session, charge!.id)).charge).toMatchObject({ status: 'declined', decline_reason: 'processing_error' });
    expect(await gatewayChargesFor(charge!.id)).toEqual([]);
    expect(await credits(session.userId)).toEqual([]);
  });

  it('never re-sends a created charge past the re-send window: a retry only looks it up', async () => {
    const { v, session } = await member();
    const profile = await profileOf(session);
    gateway().refuseNextRequests(1);
    await expect(reloadQuickPay(engine, session, { profileId: profile.id, amount: 7, idempotencyKey: 'old' })).rejects.toMatchObject({ code: 'payment_gateway_unavailable' });
    const [charge] = await chargesOf(v.vendorId);
    clock.advance(CHARGE_GIVE_UP_MS - 30 * 60_000);
    const retry = await reloadQuickPay(engine, session, { profileId: profile.id, amount: 7, idempotencyKey: 'old' });
    expect(retry.charge).toMatchObject({ id: charge!.id, status: 'created' });
    expect(await gatewayChargesFor(charge!.id)).toEqual([]);
  });

  it('completes an auto reload the worker gave up on when its charge is found paid', async () => {
    const { v, session } = await member();
    const profile = await profileOf(session);
    await updateReloadSettings(engine, session, { amount: 25, threshold: 10, profileId: profile.id });
    const rowId = await transact(engine, (trx) => queueAutoReloadOnCrossing(trx, engine, { vendorId: v.vendorId, userId: session.userId, balanceBefore: 1500, balanceAfter: 500, orderId: null }));
    expect(rowId).not.toBeNull();
    // Every try charges (the same gateway charge, under the same key) and loses the answer.
    gateway().loseNextAnswers(100);
    try {
      for (let i = 0; i < 10; i++) {
        await runDueAutoReloads(engine);
        clock.advance(3600_000);
      }
    } finally {
      gateway().loseNextAnswers(0);
    }
    const row = await engine.db.selectFrom('auto_reloads').selectAll().where('id', '=', rowId!).executeTakeFirstOrThrow();
    expect(row.status).toBe('failed');
    const [charge] = await chargesOf(v.vendorId);
    expect(charge!.status).toBe('created');
    expect(await gatewayChargesFor(charge!.id)).toHaveLength(1);

    await reconcileCharges(engine);
    await reconcileCharges(engine);
    expect((await chargesOf(v.vendorId))[0]!.status).toBe('succeeded');
    expect(await credits(session.userId)).toEqual([expect.objectContaining({ amount: 2500, reference_id: String(charge!.id) })]);
    const finished = await engine.db.selectFrom('auto_reloads').select(['status', 'charge_id']).where('id', '=', rowId!).executeTakeFirstOrThrow();
    expect(finished).toEqual({ status: 'completed', charge_id: charge!.id });
    expect(await findBalanceMismatches(engine.db)).toEqual([]);
  });

  it('finishes an eGift only when its gift exists: a paid charge without one waits for the buyer retry, which sends it once', async () => {
    const { v } = await member();
    const recipient = `gift-${count}@example.com`;
    const gift = () =>
      sendEgift(engine, {
        vendorId: v.vendorId,
        amount: 15,
        buyer: { name: 'Mateo', email: 'mateo@example.com' },
        recipient: { name: 'Ana', email: recipient },
        billing: { number: SUCCESS_CARD, expiry: { month: '12', year: year() }, cvv: '123' },
        session: null,
        idempotencyKey: 'gift-lost',
      });
    gateway().loseNextAnswers(1);
    await expect(gift()).rejects.toMatchObject({ code: 'payment_gateway_unavailable' });
    const [charge] = await chargesOf(v.vendorId);
    expect(charge!.status).toBe('created');

    clock.advance(AFTER_GRACE);
    const report = await reconcileCharges(engine);
    expect(report.paidWithoutGift).toContain(charge!.id);
    expect((await chargesOf(v.vendorId))[0]!.status).toBe('succeeded');
    // No gift row: nothing was invented, nothing emailed.
    expect(await engine.db.selectFrom('egifts').select('id').where('charge_id', '=', charge!.id).execute()).toEqual([]);

    // The buyer's retry of the same request records the gift and sends it, once, without charging again.
    const sent = await gift();
    expect(sent).toMatchObject({ status: 'sent', chargeId: charge!.id, amount: 1500 });
    await gift();
    await reconcileCharges(engine);
    const emails = await engine.db.selectFrom('messages_outbox').select('id').where('recipient', '=', recipient).where('template', '=', 'egift_received').execute();
    expect(emails).toHaveLength(1);
    expect(await gatewayChargesFor(charge!.id)).toHaveLength(1);
  });

  it('sends a pending eGift whose charge it finds paid (its gift row exists)', async () => {
    const { v } = await member();
    const recipient = `late-gift-${count}@example.com`;
    const pending = await sendEgift(engine, {
      vendorId: v.vendorId,
      amount: 10,
      buyer: { name: 'Mateo', email: 'mateo@example.com' },
      recipient: { name: 'Ana', email: recipient },
      billing: { number: LATE_CARD, expiry: { month: '12', year: year() }, cvv: '123' },
      session: null,
    });
    expect(pending.status).toBe('pending');
    clock.advance(61_000);
    await reconcileCharges(engine);
    await reconcileCharges(engine);
    expect((await engine.db.selectFrom('egifts').select('status').where('id', '=', pending.id).executeTakeFirstOrThrow()).status).toBe('sent');
    const emails = await engine.db.selectFrom('messages_outbox').select('id').where('recipient', '=', recipient).where('template', '=', 'egift_received').execute();
    expect(emails).toHaveLength(1);
  });

  it("credits a late reload in the charge's own currency, refusing while the program uses another", async () => {
    const { v, session } = await member();
    const profile = await profileOf(session, LATE_CARD);
    const reload = await reloadQuickPay(engine, session, { profileId: profile.id, amount: 30, idempotencyKey: 'late' });
    expect(reload.charge.status).toBe('pending');
    const charged = (await engine.db.selectFrom('vendors').select('quick_pay_currency_id').where('id', '=', v.vendorId).executeTakeFirstOrThrow()).quick_pay_currency_id!;
    expect((await chargesOf(v.vendorId))[0]!.currency_id).toBe(charged);

    // The program switches its quick pay to another currency (of the same ISO code) meanwhile.
    const other = await createCurrency(engine, { vendorId: v.vendorId }, { name: 'Store dollars', code: 'USD' });
    await engine.db.updateTable('vendors').set({ quick_pay_currency_id: other.id }).where('id', '=', v.vendorId).execute();
    clock.advance(61_000);
    await expect(reloadStatus(engine, session, reload.charge.id)).rejects.toMatchObject({ code: 'currency_not_active', status: 422 });
    const report = await reconcileCharges(engine);
    expect(report.refused).toContain(reload.charge.id);
    // Nothing moved: the charge waits, pending and uncredited, in no currency at all.
    expect((await chargesOf(v.vendorId))[0]).toMatchObject({ status: 'pending', credited_at: null });
    expect(await credits(session.userId)).toEqual([]);
    expect(await historyOf(session.userId)).toEqual([]);

    // Back on the charge's currency, the job credits that currency, once.
    await engine.db.updateTable('vendors').set({ quick_pay_currency_id: charged }).where('id', '=', v.vendorId).execute();
    await reconcileCharges(engine);
    await reconcileCharges(engine);
    expect((await reloadStatus(engine, session, reload.charge.id)).charge.status).toBe('succeeded');
    expect(await credits(session.userId)).toEqual([{ currency_id: charged, amount: 3000, reference_id: String(reload.charge.id) }]);
    expect(await findBalanceMismatches(engine.db)).toEqual([]);
  });
});
