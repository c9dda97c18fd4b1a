import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currencyHasAccounts } from '../../src/core/currencies/currency-store';
import { getOfflinePolicy, setOfflinePolicy } from '../../src/core/sync/central/offline-policy';
import { signUpAt } from '../support/customers';
import { inStoreApi, receiptCounter } from '../support/in-store';
import { CARDS, paymentsApi } from '../support/payments';
import { expectResourceError, resourceApi, vendorWithCurrencies } from '../support/resource-api';
import { http, startTestNode, type TestNode } from '../support/test-node';

// The quick-pay currency is the program's money (docs/decisions.md, "Currencies and cards"): sales,
// payments, auto reload amounts, earning rules' per_amount and the offline caps are kept in minor
// units of it. Changing its code (PUT /currencies/:id, also the back office's currency screen) read
// them all in the new currency's minor units: USD 2.50 per point became 250 yen per point, a 12.50
// sale a 1,250 yen one, a 20.00 auto reload 2,000 yen, an unclaimed 10.00 eGift 1,000 yen. Now the
// program's settings are restated (the same major units) and money already recorded keeps the code.

let node: TestNode;
const currencies = resourceApi(() => node, '/currencies');
const rules = resourceApi(() => node, '/earning-rules');
const store = inStoreApi(() => node);
const pay = paymentsApi(() => node);
const receipt = receiptCounter('QPC');

beforeAll(async () => {
  node = await startTestNode();
});
afterAll(() => node?.close());

const setCode = (v: { token: string; cash: string }, code: string) => currencies.put(v.token, v.cash, { code });
const perAmounts = async (v: { token: string }) => Object.fromEntries((await rules.listAll(v.token)).map((r) => [r.name, r.per_amount]));
const storedPerAmounts = async (vendorId: number) =>
  Object.fromEntries((await node.engine.db.selectFrom('earning_rules').select(['name', 'per_amount']).where('vendor_id', '=', vendorId).execute()).map((r) => [r.name, Number(r.per_amount)]));

describe('changing the quick-pay currency’s code', () => {
  it('restates the program’s settings in the new currency: no amount is multiplied or divided by its minor unit', async () => {
    const v = await vendorWithCurrencies(node);
    const made = await rules.createOk(v.token, { name: 'Stars', currency: v.points, points: 1, per_amount: 2.5 });
    await setOfflinePolicy(node.engine, { vendorId: v.vendorId }, { quickPayPerOrder: 5_000, quickPayPerDay: 20_000 });
    expect(await perAmounts(v)).toEqual({ '1 point per unit spent': 1, Stars: 2.5 });

    // 2.50 has no yen: refused, naming the rule, and nothing changes.
    const refused = await setCode(v, 'JPY');
    expectResourceError(refused, 409, 'currency_in_use', 'code');
    expect(refused.body.message).toContain('"Stars"');
    expect((await currencies.get(v.token, v.cash)).body.code).toBe('USD');
    expect(await storedPerAmounts(v.vendorId)).toEqual({ '1 point per unit spent': 100, Stars: 250 });

    expect((await rules.put(v.token, made.id, { per_amount: 3 })).status).toBe(200);
    const yen = await setCode(v, 'JPY');
    expect(yen.status, JSON.stringify(yen.body)).toBe(200);
    expect(yen.body.code).toBe('JPY');
    expect(await perAmounts(v)).toEqual({ '1 point per unit spent': 1, Stars: 3 });
    expect(await storedPerAmounts(v.vendorId)).toEqual({ '1 point per unit spent': 1, Stars: 3 });
    expect(await getOfflinePolicy(node.engine, { vendorId: v.vendorId })).toMatchObject({ quickPayPerOrder: 50, quickPayPerDay: 200 });

    // To three digits (Kuwaiti dinar): the same numbers again, in fils.
    expect((await setCode(v, 'KWD')).status).toBe(200);
    expect(await perAmounts(v)).toEqual({ '1 point per unit spent': 1, Stars: 3 });
    expect(await storedPerAmounts(v.vendorId)).toEqual({ '1 point per unit spent': 1_000, Stars: 3_000 });
    expect(await getOfflinePolicy(node.engine, { vendorId: v.vendorId })).toMatchObject({ quickPayPerOrder: 50_000, quickPayPerDay: 200_000 });

    // The rules count in the new money: 7.5 dinars earn 7 points by the first rule and 2 by "Stars".
    await store.orderOk(v.apiKey, { card_number: (await signUpAt(node, v.vendorId)).email, receipt_number: receipt(), subtotal: 7.5 });
    const points = await node.engine.db
      .selectFrom('ledger_entries')
      .select((eb) => eb.fn.sum<number>('amount').as('sum'))
      .where('vendor_id', '=', v.vendorId)
      .where('kind', '=', 'earn')
      .executeTakeFirstOrThrow();
    expect(Number(points.sum)).toBe(9);
  });

  it('restates the payment limits the program set (same major units, rounded down); limits left at their default stay so', async () => {
    const v = await vendorWithCurrencies(node);
    const settings = (body?: unknown) => http(`${node.url}/program/settings`, body === undefined ? { token: v.token } : { method: 'PUT', token: v.token, body });
    const limits = async () => {
      const row = await node.engine.db.selectFrom('vendors').select(['egift_max_amount', 'reload_max_amount']).where('id', '=', v.vendorId).executeTakeFirstOrThrow();
      return [row.egift_max_amount, row.reload_max_amount].map((x) => (x === null ? null : Number(x)));
    };
    expect((await setCode(v, 'BHD')).status).toBe(200);
    // 1.000 BHD for an eGift, 0.001 BHD for a reload (the smallest each may be).
    expect((await settings({ egift_max_amount: 1_000, reload_max_amount: 1 })).status).toBe(200);

    const usd = await setCode(v, 'USD');
    expect(usd.status, JSON.stringify(usd.body)).toBe(200);
    // 1.00 USD, not 10.00; the fils rounds down to nothing, so the smallest reload limit, 0.01.
    expect(await limits()).toEqual([100, 1]);
    expect((await settings()).body).toMatchObject({ egift_max_amount: 100, reload_max_amount: 1 });

    expect((await settings({ egift_max_amount: 2_550, reload_max_amount: null })).status).toBe(200);
    expect((await setCode(v, 'KWD')).status).toBe(200);
    expect(await limits()).toEqual([25_500, null]);
    // 25.500 KWD in yen: 25 (rounded down, not refused as a rule's 2.50 is).
    expect((await setCode(v, 'JPY')).status).toBe(200);
    expect(await limits()).toEqual([25, null]);
    expect((await setCode(v, 'USD')).status).toBe(200);
    expect(await limits()).toEqual([2_500, null]);

    // In force: an eGift of 26 is above 25.00 USD; 25 is sold.
    const gift = (amount: number) =>
      http(`${node.url}/vendor/${v.vendorId}/egift`, {
        method: 'POST',
        body: {
          amount,
          buyer: { name: 'Mateo Ruiz', email: 'mateo@example.com' },
          recipient: { name: 'Bea', email: 'bea@example.com' },
          billing: { name: 'Mateo Ruiz', number: CARDS.visa, expiry: { month: '12', year: '2030' }, cvv: '123', zip_code: '10001' },
        },
      });
    const above = await gift(26);
    expect(above.status).toBe(400);
    expect(JSON.stringify(above.body)).toContain('at most 25.00 USD');
    expect((await gift(25)).status).toBe(200);
  });

  it('is refused once the program recorded money in it, even where no customer holds a balance in it yet', async () => {
    const noBalanceYet = async (v: { quickPayCurrencyId: number }) => expect(await currencyHasAccounts(node.engine.db, v.quickPayCurrencyId)).toBe(false);
    const refusedAndKept = async (v: { token: string; cash: string }, what: string) => {
      for (const code of ['JPY', 'EUR']) {
        const reply = await setCode(v, code);
        expectResourceError(reply, 409, 'currency_in_use', 'code');
        expect(reply.body.message).toContain(what);
      }
      expect((await currencies.get(v.token, v.cash)).body.code).toBe('USD');
    };

    // A sale earning points only: the history keeps 12.50 as 1250 cents.
    const sold = await vendorWithCurrencies(node);
    await store.orderOk(sold.apiKey, { card_number: (await signUpAt(node, sold.vendorId)).email, receipt_number: receipt(), subtotal: 12.5 });
    await noBalanceYet(sold);
    await refusedAndKept(sold, 'sales');

    // An auto reload a customer set (20.00 when below 5.00) before any reload ran.
    const reloads = await vendorWithCurrencies(node);
    const customer = await signUpAt(node, reloads.vendorId);
    const profile = await pay.addProfileOk(customer.key, CARDS.visa);
    await pay.putSettingsOk(customer.key, { amount: 20, threshold: 5, user_billingprofile: profile.id });
    await noBalanceYet(reloads);
    await refusedAndKept(reloads, 'auto reload');

    // An eGift paid for and not claimed yet: the 10.00 its buyer paid.
    const gifts = await vendorWithCurrencies(node);
    const gift = await http(`${node.url}/vendor/${gifts.vendorId}/egift`, {
      method: 'POST',
      body: {
        amount: 10,
        buyer: { name: 'Mateo Ruiz', email: 'mateo@example.com' },
        recipient: { name: 'Bea', email: 'bea@example.com' },
        billing: { name: 'Mateo Ruiz', number: CARDS.visa, expiry: { month: '12', year: '2030' }, cvv: '123', zip_code: '10001' },
      },
    });
    expect(gift.status, JSON.stringify(gift.body)).toBe(200);
    await noBalanceYet(gifts);
    await refusedAndKept(gifts, 'payments');
  });
});
