import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { registerCustomer } from '../../src/core/customers/register-customer';
import { type Engine, transact } from '../../src/core/engine';
import { findBalanceMismatches } from '../../src/core/ledger/ledger';
import { placeOrder } from '../../src/core/orders/place-order';
import { voidOrder } from '../../src/core/orders/void-order';
import { creditQuickPay } from '../../src/core/payments/quick-pay/credit-quick-pay';
import { isServiceError } from '../../src/shared/errors';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { BACKENDS, openEngine, testVendor } from '../support/backends';
import { ManualClock } from '../support/clock';

// Two orders spending the same quick-pay balance at the same moment (two tills, or a till and an
// integration): on PostgreSQL, with a connection pool, they run truly at once. Only one may take
// the last of the balance; the other is refused with insufficient_balance and changes nothing.

describe.each(BACKENDS)('concurrent spends on $name', (backend) => {
  let engine: Engine;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ engine, close } = await openEngine(backend, new ManualClock()));
  });

  afterAll(() => close?.());

  it('lets only one of two simultaneous orders take the last of the quick-pay balance', async () => {
    const vendor = await setUpVendor(engine, testVendor('Two Tills'));
    const scope = await authenticateApiKey(engine, vendor.apiKey);
    const email = 'race@example.com';
    const { user } = await registerCustomer(engine, { vendorId: vendor.vendorId, firstName: 'Rae', lastName: 'Race', email, password: 'correct horse 1', terms: true });
    await transact(engine, (trx) =>
      creditQuickPay(trx, engine, { vendorId: vendor.vendorId, userId: user.id, amountMinor: 1000, kind: 'reload', referenceType: 'test', referenceId: 'seed', receipts: [] }),
    );

    const spend = (till: string) => placeOrder(engine, scope, { identification: email, receiptNumber: `R-${till}`, subtotal: 8, quickPay: 8 });
    const outcomes = await Promise.allSettled([spend('a'), spend('b')]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.filter((o) => o.status === 'rejected');
    expect(refused).toHaveLength(1);
    const reason = (refused[0] as PromiseRejectedResult).reason as unknown;
    expect(isServiceError(reason) && reason.code).toBe('insufficient_balance');

    const account = await engine.db
      .selectFrom('ledger_accounts')
      .select('balance')
      .where('holder_type', '=', 'user')
      .where('holder_id', '=', user.id)
      .where('currency_id', '=', vendor.quickPayCurrencyId)
      .executeTakeFirstOrThrow();
    expect(Number(account.balance)).toBe(200);
    const orders = await engine.db.selectFrom('orders').select('receipt_number').where('user_id', '=', user.id).execute();
    expect(orders).toHaveLength(1);
    expect(await findBalanceMismatches(engine.db)).toEqual([]);
  });

  it('answers two copies of one receipt sent at once with the one sale, even when it spent the whole balance', async () => {
    const { vendor, scope, user, email } = await memberWithQuickPay('Resent Receipt', 'resend@example.com', 1000);
    const send = () => placeOrder(engine, scope, { identification: email, receiptNumber: 'R-resent', subtotal: 10, quickPay: 10 });
    const [first, second] = await Promise.all([send(), send()]);
    expect(second.orderId).toBe(first.orderId);
    expect(await quickPayBalance(user.id, vendor.quickPayCurrencyId)).toBe(0);
    expect(await engine.db.selectFrom('orders').select('id').where('user_id', '=', user.id).execute()).toHaveLength(1);
    expect(await findBalanceMismatches(engine.db)).toEqual([]);
  });

  it('reverses an order once when two voids of its receipt arrive at once', async () => {
    const { vendor, scope, user, email } = await memberWithQuickPay('Double Void', 'void@example.com', 1000);
    await placeOrder(engine, scope, { identification: email, receiptNumber: 'R-void', subtotal: 6, quickPay: 6 });
    const [first, second] = await Promise.all([voidOrder(engine, scope, 'R-void'), voidOrder(engine, scope, 'R-void')]);
    expect([first.status, second.status]).toEqual(['Voided', 'Voided']);
    expect(await quickPayBalance(user.id, vendor.quickPayCurrencyId)).toBe(1000);
    const reversals = await engine.db.selectFrom('ledger_entries').select('reverses_id').where('reverses_id', 'is not', null).where('kind', '=', 'spend_reversal').execute();
    expect(reversals).toHaveLength(1);
    expect(await findBalanceMismatches(engine.db)).toEqual([]);
  });

  async function memberWithQuickPay(name: string, email: string, amountMinor: number) {
    const vendor = await setUpVendor(engine, testVendor(name));
    const scope = await authenticateApiKey(engine, vendor.apiKey);
    const { user } = await registerCustomer(engine, { vendorId: vendor.vendorId, firstName: 'Rae', lastName: 'Race', email, password: 'correct horse 1', terms: true });
    await transact(engine, (trx) =>
      creditQuickPay(trx, engine, { vendorId: vendor.vendorId, userId: user.id, amountMinor, kind: 'reload', referenceType: 'test', referenceId: 'seed', receipts: [] }),
    );
    return { vendor, scope, user, email };
  }

  async function quickPayBalance(userId: number, currencyId: number): Promise<number> {
    const account = await engine.db
      .selectFrom('ledger_accounts')
      .select('balance')
      .where('holder_type', '=', 'user')
      .where('holder_id', '=', userId)
      .where('currency_id', '=', currencyId)
      .executeTakeFirstOrThrow();
    return Number(account.balance);
  }
});
