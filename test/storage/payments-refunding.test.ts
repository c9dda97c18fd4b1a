import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCurrency } from '../../src/core/currencies/create-currency';
import { registerCustomer } from '../../src/core/customers/register-customer';
import type { CustomerSession } from '../../src/core/customers/sessions';
import type { Engine } from '../../src/core/engine';
import { findBalanceMismatches, holderBalance } from '../../src/core/ledger/ledger';
import { addBillingProfile } from '../../src/core/payments/billing-profiles/manage-billing-profiles';
import { sendEgift } from '../../src/core/payments/egifts/send-egift';
import { resolvePaymentException } from '../../src/core/payments/exceptions/payment-exceptions';
import type { TestGateway } from '../../src/core/payments/gateway/test-gateway';
import { quickPayCurrencyOf } from '../../src/core/payments/quick-pay/credit-quick-pay';
import { RECONCILE_GRACE_MS, reconcileCharges } from '../../src/core/payments/reconcile/reconcile-charges';
import { reloadQuickPay, reloadStatus } from '../../src/core/payments/reloads/reload-quick-pay';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { BACKENDS, openEngine, testVendor } from '../support/backends';
import { ManualClock } from '../support/clock';

// A payment exception staff are refunding (`refunding`: the gateway is being asked, or its answer
// was lost) must not also pay out by the charge's own settlement, on both dialects:
// - the buyer's retry of an eGift paid without its gift is refused (409 payment_refund_pending)
//   while the refund is in flight, and told payment_refunded once it went through: no gift, no email;
// - a late reload refused after a quick-pay currency switch is not credited by the job or a status
//   poll while it is being refunded, even once the program switched back;
// - a refund the gateway refuses reopens the exception, and the buyer's retry then sends the gift;
// - a charge staff credited instead never also becomes a gift.

const SUCCESS_CARD = '4242424242424242';
const LATE_CARD = '4000002760003184';

describe.each(BACKENDS)('payouts while staff refund the charge, on $name', (backend) => {
  let engine: Engine;
  let close: () => Promise<void>;
  const clock = new ManualClock();
  let count = 0;

  beforeAll(async () => {
    ({ engine, close } = await openEngine(backend, clock));
  });
  afterAll(() => close?.());

  const gateway = () => engine.payments as TestGateway;
  // A test replaces the gateway's refund with its own; dropping it brings back the real one.
  afterEach(() => void Reflect.deleteProperty(gateway(), 'refund'));

  /** Makes the gateway's refunds wait until `release()`: a refund in flight. */
  function holdRefunds(): { release(): void } {
    const original = gateway().refund.bind(gateway());
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    gateway().refund = async (chargeId, key) => {
      await gate;
      return original(chargeId, key);
    };
    return { release };
  }

  const year = () => String(new Date(clock.now()).getUTCFullYear() + 2);

  async function member(v: VendorCredentials): Promise<CustomerSession> {
    const { user } = await registerCustomer(engine, { vendorId: v.vendorId, firstName: 'Ana', lastName: 'López', email: `ana-refunding-${++count}@example.com`, password: 'correct horse 1', terms: true });
    return { sessionId: 0, userId: user.id, vendorId: v.vendorId };
  }

  async function exceptionOf(chargeId: number) {
    return engine.db.selectFrom('payment_exceptions').selectAll().where('charge_id', '=', chargeId).executeTakeFirstOrThrow();
  }

  async function until(check: () => Promise<boolean>): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error('timed out');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  /** A guest's eGift whose charge the gateway made but whose answer was lost: paid, no gift, an open exception. */
  async function giftPaidWithoutGift(): Promise<{ v: VendorCredentials; retry: () => ReturnType<typeof sendEgift>; chargeId: number; recipient: string }> {
    const v = await setUpVendor(engine, testVendor(`Refunding ${++count}`));
    const recipient = `rae-${count}@example.com`;
    const retry = () =>
      sendEgift(engine, {
        vendorId: v.vendorId,
        amount: 15,
        buyer: { name: 'Mateo', email: 'mateo@example.com' },
        recipient: { name: 'Rae', email: recipient },
        billing: { number: SUCCESS_CARD, expiry: { month: '12', year: year() }, cvv: '123' },
        session: null,
        idempotencyKey: 'gift-1',
      });
    gateway().loseNextAnswers(1);
    await expect(retry()).rejects.toMatchObject({ code: 'payment_gateway_unavailable' });
    clock.advance(RECONCILE_GRACE_MS + 1000);
    const [chargeId] = (await reconcileCharges(engine)).paidWithoutGift;
    expect(await exceptionOf(chargeId!)).toMatchObject({ kind: 'paid_without_gift', status: 'open' });
    return { v, retry, chargeId: chargeId!, recipient };
  }

  const giftsOf = (chargeId: number) => engine.db.selectFrom('egifts').select(['id', 'status']).where('charge_id', '=', chargeId).execute();
  const emailsTo = (recipient: string) => engine.db.selectFrom('messages_outbox').select('id').where('recipient', '=', recipient).where('template', '=', 'egift_received').execute();
  const refundedAtGateway = async (chargeId: number) => {
    const { gateway_charge_id } = await engine.db.selectFrom('payment_charges').select('gateway_charge_id').where('id', '=', chargeId).executeTakeFirstOrThrow();
    return (await engine.db.selectFrom('test_gateway_charges').select('refunded_at').where('id', '=', gateway_charge_id!).executeTakeFirstOrThrow()).refunded_at !== null;
  };

  it("refuses the buyer's retry while the refund is in flight, and once it went through: no gift, no email, the money back once", async () => {
    const { v, retry, chargeId, recipient } = await giftPaidWithoutGift();
    const refunds = holdRefunds();
    const refund = resolvePaymentException(engine, v, Number((await exceptionOf(chargeId)).id), 'refund');
    await until(async () => (await exceptionOf(chargeId)).status === 'refunding');

    await expect(retry()).rejects.toMatchObject({ code: 'payment_refund_pending', status: 409 });
    expect(await giftsOf(chargeId)).toEqual([]);

    refunds.release();
    await expect(refund).resolves.toMatchObject({ status: 'refunded' });
    await expect(retry()).rejects.toMatchObject({ code: 'payment_refunded', status: 409 });
    await reconcileCharges(engine);
    expect(await giftsOf(chargeId)).toEqual([]);
    expect(await emailsTo(recipient)).toEqual([]);
    expect(await refundedAtGateway(chargeId)).toBe(true);
  });

  it("a refund whose answer was lost keeps refusing the buyer's retry until a refund goes through", async () => {
    const { v, retry, chargeId, recipient } = await giftPaidWithoutGift();
    const id = Number((await exceptionOf(chargeId)).id);
    gateway().loseNextAnswers(1);
    await expect(resolvePaymentException(engine, v, id, 'refund')).rejects.toMatchObject({ code: 'payment_gateway_unavailable' });
    expect((await exceptionOf(chargeId)).status).toBe('refunding');
    await expect(retry()).rejects.toMatchObject({ code: 'payment_refund_pending' });
    await expect(resolvePaymentException(engine, v, id, 'refund')).resolves.toMatchObject({ status: 'refunded' });
    await expect(retry()).rejects.toMatchObject({ code: 'payment_refunded' });
    expect(await giftsOf(chargeId)).toEqual([]);
    expect(await emailsTo(recipient)).toEqual([]);
  });

  it("a refund the gateway refuses reopens the exception: the buyer's retry then sends the gift, once, and settles it", async () => {
    const { v, retry, chargeId, recipient } = await giftPaidWithoutGift();
    gateway().refund = async (gatewayChargeId) => ({ refundId: `tre_${gatewayChargeId}`, status: 'failed' });
    await expect(resolvePaymentException(engine, v, Number((await exceptionOf(chargeId)).id), 'refund')).rejects.toMatchObject({ code: 'business_rule' });
    expect((await exceptionOf(chargeId)).status).toBe('open');

    await expect(retry()).resolves.toMatchObject({ status: 'sent', chargeId });
    await retry();
    expect(await giftsOf(chargeId)).toHaveLength(1);
    expect(await emailsTo(recipient)).toHaveLength(1);
    expect((await exceptionOf(chargeId)).status).toBe('settled');
  });

  it('a late reload refused after a currency switch is not credited while it is being refunded, even once the program switched back', async () => {
    const v = await setUpVendor(engine, testVendor(`Refunding reload ${++count}`));
    const session = await member(v);
    const profile = await addBillingProfile(engine, session, { number: LATE_CARD, expiryMonth: '12', expiryYear: year(), cvv: '123' });
    const reload = await reloadQuickPay(engine, session, { profileId: profile.id, amount: 30 });
    const usd = await quickPayCurrencyOf(engine.db, v.vendorId);
    const other = await createCurrency(engine, { vendorId: v.vendorId }, { name: 'Store dollars', code: 'USD' });
    await engine.db.updateTable('vendors').set({ quick_pay_currency_id: other.id }).where('id', '=', v.vendorId).execute();
    clock.advance(61_000);
    expect((await reconcileCharges(engine)).refused).toContain(reload.charge.id);

    const refunds = holdRefunds();
    const refund = resolvePaymentException(engine, v, Number((await exceptionOf(reload.charge.id)).id), 'refund');
    await until(async () => (await exceptionOf(reload.charge.id)).status === 'refunding');
    // The program switches back: the job and the customer's poll would now credit it.
    await engine.db.updateTable('vendors').set({ quick_pay_currency_id: usd.id }).where('id', '=', v.vendorId).execute();
    expect((await reconcileCharges(engine)).refunding).toContain(reload.charge.id);
    await expect(reloadStatus(engine, session, reload.charge.id)).rejects.toMatchObject({ code: 'payment_refund_pending' });
    expect(await holderBalance(engine.db, { holderType: 'user', holderId: session.userId, currencyId: usd.id })).toBe(0);

    refunds.release();
    await expect(refund).resolves.toMatchObject({ status: 'refunded' });
    await expect(reloadStatus(engine, session, reload.charge.id)).rejects.toMatchObject({ code: 'payment_refunded' });
    const report = await reconcileCharges(engine);
    expect([...report.refused, ...report.refunding]).not.toContain(reload.charge.id);
    expect(await holderBalance(engine.db, { holderType: 'user', holderId: session.userId, currencyId: usd.id })).toBe(0);
    expect((await engine.db.selectFrom('payment_charges').select(['status', 'credited_at']).where('id', '=', reload.charge.id).executeTakeFirstOrThrow())).toEqual({ status: 'refunded', credited_at: null });
    expect(await findBalanceMismatches(engine.db)).toEqual([]);
  });

  it("an eGift charge staff credited to the buyer never also becomes a gift on the buyer's retry", async () => {
    const v = await setUpVendor(engine, testVendor(`Credited ${++count}`));
    const session = await member(v);
    const profile = await addBillingProfile(engine, session, { number: SUCCESS_CARD, expiryMonth: '12', expiryYear: year(), cvv: '123' });
    const recipient = `rae-credited-${count}@example.com`;
    const retry = () => sendEgift(engine, { vendorId: v.vendorId, amount: 12, recipient: { name: 'Rae', email: recipient }, billingProfileId: profile.id, session, idempotencyKey: 'gift-credited' });
    gateway().loseNextAnswers(1);
    await expect(retry()).rejects.toMatchObject({ code: 'payment_gateway_unavailable' });
    clock.advance(RECONCILE_GRACE_MS + 1000);
    const [chargeId] = (await reconcileCharges(engine)).paidWithoutGift;
    await expect(resolvePaymentException(engine, v, Number((await exceptionOf(chargeId!)).id), 'credit')).resolves.toMatchObject({ status: 'credited' });

    await expect(retry()).rejects.toMatchObject({ code: 'payment_credited', status: 409 });
    expect(await giftsOf(chargeId!)).toEqual([]);
    expect(await emailsTo(recipient)).toEqual([]);
    const currency = await quickPayCurrencyOf(engine.db, v.vendorId);
    expect(await holderBalance(engine.db, { holderType: 'user', holderId: session.userId, currencyId: currency.id })).toBe(1200);
  });
});
