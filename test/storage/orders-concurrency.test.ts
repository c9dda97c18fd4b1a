import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { registerCustomer } from '../../src/core/customers/register-customer';
import { type Engine, transact } from '../../src/core/engine';
import { findBalanceMismatches } from '../../src/core/ledger/ledger';
import { placeOrder } from '../../src/core/orders/place-order';
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
});
