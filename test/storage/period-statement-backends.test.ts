import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { registerCustomer } from '../../src/core/customers/register-customer';
import { createCurrency } from '../../src/core/currencies/create-currency';
import { loadDashboard } from '../../src/core/dashboard/dashboard';
import { loadPeriodStatement } from '../../src/core/dashboard/period-statement';
import { createEarningRule } from '../../src/core/rules/earning/create-earning-rule';
import { createSpendingRule } from '../../src/core/rules/spending/create-spending-rule';
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

  it('counts points per loyalty currency (Points and Stamps) from the orders’ ledger entries, the dashboard too', async () => {
    clock.set(Date.parse('2026-11-10T12:00:00Z'));
    const vendor = await setUpVendor(engine, testVendor('Stamp Café'));
    const scope = await authenticateApiKey(engine, vendor.apiKey);
    const stamps = await createCurrency(engine, { vendorId: vendor.vendorId }, { name: 'Stamps' });
    await createEarningRule(engine, { vendorId: vendor.vendorId }, { name: '1 stamp per 5', currency: stamps.publicId, points: 1, perAmount: 5 });
    const coffee = await createSpendingRule(engine, { vendorId: vendor.vendorId }, { name: 'Coffee', cost: 5, currency: stamps.publicId });
    const email = 'sol@example.com';
    await registerCustomer(engine, { vendorId: vendor.vendorId, firstName: 'Sol', lastName: 'Vera', email, password: 'correct horse 1', terms: true });
    await placeOrder(engine, scope, { identification: email, receiptNumber: 'S-1', subtotal: 40 });
    await placeOrder(engine, scope, { identification: email, receiptNumber: 'S-2', subtotal: 0, redemptions: [coffee.publicId] });
    await placeOrder(engine, scope, { identification: email, receiptNumber: 'S-3', subtotal: 10 });
    await voidOrder(engine, scope, 'S-3');

    const stampsId = Number(stamps.id);
    const expected = { [vendor.loyaltyCurrencyId]: { issued: 40, redeemed: 0 }, [stampsId]: { issued: 8, redeemed: 5 } };
    const p = await loadPeriodStatement(engine, vendor.vendorId, null, '2026-11-01', '2026-11-30');
    expect(p.loyaltyCurrencies.map((c) => [c.id, c.name])).toEqual([[vendor.loyaltyCurrencyId, 'Points'], [stampsId, 'Stamps']]);
    expect(p.total).toMatchObject({ pointsIssued: 48, pointsRedeemed: 5, loyalty: expected });
    expect(p.stores[0]!.loyalty).toEqual(expected);
    const d = await loadDashboard(engine, vendor.vendorId, null);
    expect(d.today).toMatchObject({ pointsIssued: 48, loyalty: expected });
  });
});
