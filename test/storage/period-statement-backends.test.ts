import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { registerCustomer } from '../../src/core/customers/register-customer';
import { loadPeriodStatement } from '../../src/core/dashboard/period-statement';
import { type Engine, transact } from '../../src/core/engine';
import { placeOrder } from '../../src/core/orders/place-order';
import { voidOrder } from '../../src/core/orders/void-order';
import { creditQuickPay } from '../../src/core/payments/quick-pay/credit-quick-pay';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { BACKENDS, openEngine, testVendor } from '../support/backends';
import { ManualClock } from '../support/clock';

// The period statement's query on both databases: a spend and a void's return are the store's of
// the order their entry references (a cast of the reference on PostgreSQL, where text and bigint do
// not compare), a reload is the program's; the month's edges are the store's midnights.

describe.each(BACKENDS)('a period statement on $name', (backend) => {
  let engine: Engine;
  let close: () => Promise<void>;
  const clock = new ManualClock();

  beforeAll(async () => {
    ({ engine, close } = await openEngine(backend, clock));
  });

  afterAll(() => close?.());

  it('puts spends and returns on the order’s store, loads on the program, and reconciles with the balances', async () => {
    clock.set(Date.parse('2026-10-15T12:00:00Z'));
    const vendor = await setUpVendor(engine, testVendor('Statement Café'));
    const scope = await authenticateApiKey(engine, vendor.apiKey);
    const email = 'lia@example.com';
    const { user } = await registerCustomer(engine, { vendorId: vendor.vendorId, firstName: 'Lia', lastName: 'Mora', email, password: 'correct horse 1', terms: true });
    await transact(engine, (trx) => creditQuickPay(trx, engine, { vendorId: vendor.vendorId, userId: user.id, amountMinor: 3000, kind: 'reload', referenceType: 'test', referenceId: 'october', receipts: [] }));
    clock.set(Date.parse('2026-11-02T12:00:00Z'));
    await transact(engine, (trx) => creditQuickPay(trx, engine, { vendorId: vendor.vendorId, userId: user.id, amountMinor: 1000, kind: 'reload', referenceType: 'test', referenceId: 'november', receipts: [] }));
    await placeOrder(engine, scope, { identification: email, receiptNumber: 'R-1', subtotal: 8, quickPay: 8 });
    clock.set(Date.parse('2026-11-03T12:00:00Z'));
    await voidOrder(engine, scope, 'R-1');
    await placeOrder(engine, scope, { identification: email, receiptNumber: 'R-2', subtotal: 5, quickPay: 2.5 });
    clock.set(Date.parse('2026-12-01T00:00:01Z'));
    await placeOrder(engine, scope, { identification: email, receiptNumber: 'R-3', subtotal: 1, quickPay: 1 });

    const p = await loadPeriodStatement(engine, vendor.vendorId, null, '2026-11-01', '2026-11-30');
    expect([p.openingStoredValue, p.closingStoredValue]).toEqual([3000, 3000 + 1000 - 800 + 800 - 250]);
    expect(p.stores).toEqual([expect.objectContaining({ id: vendor.storeId, spent: 1050, returned: 800, loaded: 0, orders: 1, pointsIssued: 5 })]);
    expect(p.program).toMatchObject({ loaded: 1000, reloadAmount: 1000, spent: 0, returned: 0, other: 0 });
    expect(p.rows).toHaveLength(60);
    expect(p.rows.at(-1)).toMatchObject({ day: '2026-11-30', storeId: null, outstandingEndOfDay: 3750 });
  });
});
