import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { drainAutoReloads } from '../../src/core/payments/auto-reload/auto-reloads';
import { PaymentGatewayError } from '../../src/core/payments/gateway/payment-gateway';
import { type Customer, freshEmail, legacyErrorCheck, ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { expectBalancesAddUp, inStoreApi, receiptCounter } from '../support/in-store';
import { CARDS, paymentsApi } from '../support/payments';
import { resourceApi, vendorWithCurrencies } from '../support/resource-api';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Stripe takes BHD, JOD, KWD, OMR and TND amounts in thousandths whose last digit is 0 ("round to
// the nearest ten", docs.stripe.com/currencies). The node refuses KWD 12.345 paid by card before
// charging anything (400 naming the field), for reloads, eGifts and the auto-reload amount; the
// test gateway refuses it as Stripe does.

let node: TestNode;
beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});
afterAll(() => node?.close());
afterEach(() => expectBalancesAddUp(node));

const expectLegacyError = legacyErrorCheck({ noStackTrace: true });
const api = paymentsApi(() => node);
const currencies = resourceApi(() => node, '/currencies');
const store = inStoreApi(() => node);
const receipt = receiptCounter('KWD');

async function footprint() {
  const count = async (table: 'payment_charges' | 'test_gateway_charges' | 'test_gateway_cards' | 'egifts' | 'ledger_entries') =>
    Number((await node.engine.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  return { charges: await count('payment_charges'), atGateway: await count('test_gateway_charges'), cards: await count('test_gateway_cards'), egifts: await count('egifts'), ledger: await count('ledger_entries') };
}

describe('a program paid in Kuwaiti dinars', () => {
  let vendorId: number;
  let apiKey: string;
  let c: Customer;
  let profile: any;
  const refusal = /^amount must be a multiple of 0\.010: KWD amounts paid by card are charged in steps of 0\.010\.$/;

  beforeAll(async () => {
    const v = await vendorWithCurrencies(node);
    expect((await currencies.put(v.token, v.cash, { code: 'KWD' })).status).toBe(200);
    vendorId = v.vendorId;
    apiKey = v.apiKey;
    c = await signUpAt(node, vendorId);
    profile = await api.addProfileOk(c.key, CARDS.visa);
  });

  it('refuses a reload of 12.345 before charging (400 naming amount); 12.34 goes through', async () => {
    const before = await footprint();
    const refused = await api.reload(c.key, { user_billingprofile: profile.id, amount: 12.345 }, { 'Idempotency-Key': 'kwd-1' });
    expectLegacyError(refused, 400, 'validation_failed', 'amount');
    expect(refused.body.error.errors[0].message).toMatch(refusal);
    expect(await footprint()).toEqual(before);
    expect((await api.reloadOk(c.key, { user_billingprofile: profile.id, amount: 12.34 })).amount).toBe(12.34);
    expect(await api.quickPay(c.key)).toBe(12.34);
  });

  it('refuses an eGift of 12.345 before the card is even tokenized, guest or saved card; 12.35 goes through', async () => {
    const buy = (amount: number, pay: Record<string, unknown>, session?: string) =>
      http(`${node.url}/vendor/${vendorId}/egift${session ? `?session_key=${encodeURIComponent(session)}` : ''}`, {
        method: 'POST',
        body: { amount, buyer: { name: 'Ana', email: freshEmail('buyer') }, recipient: { name: 'Leo', email: freshEmail('leo') }, ...pay },
      });
    const guestCard = { billing: { name: 'Ana', number: CARDS.visa, expiry: { month: '12', year: '2030' }, cvv: '123', zip_code: '10001' } };
    const before = await footprint();
    for (const refused of [await buy(12.345, guestCard), await buy(12.345, { user_billingprofile: profile.id }, c.key)]) {
      expectLegacyError(refused, 400, 'validation_failed', 'amount');
      expect(refused.body.error.errors[0].message).toMatch(refusal);
    }
    expect(await footprint()).toEqual(before);
    const paid = await buy(12.35, guestCard);
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body.amount).toBe(12.35);
  });

  it('refuses an auto-reload amount of 12.345 (the threshold is a balance, never charged, and keeps fils)', async () => {
    const refused = await api.putSettings(c.key, { amount: 12.345, threshold: 5, user_billingprofile: profile.id });
    expectLegacyError(refused, 400, 'validation_failed', 'amount');
    expect(refused.body.error.errors[0].message).toMatch(refusal);
    expect(await api.getSettingsOk(c.key)).toMatchObject({ enabled: false, amount: 0, threshold: 0 });
    expect(await api.putSettingsOk(c.key, { amount: 12.34, threshold: 5.005, user_billingprofile: profile.id })).toMatchObject({ enabled: true, amount: 12.34, threshold: 5.005 });
  });

  it('an auto-reload amount saved before the rule is charged at the chargeable amount below it', async () => {
    await node.engine.db.updateTable('user_vendors').set({ reload_amount: 12_345 }).where('user_id', '=', c.userId).where('vendor_id', '=', vendorId).execute();
    const balance = await api.quickPay(c.key);
    await store.orderOk(apiKey, { card_number: c.email, receipt_number: receipt(), subtotal: 8, total: 8, quick_pay: 8 });
    await drainAutoReloads(node.engine);
    const rows = await node.engine.db.selectFrom('auto_reloads').select(['status', 'amount']).where('user_id', '=', c.userId).execute();
    expect(rows.map((r) => [r.status, Number(r.amount)])).toEqual([['completed', 12_340]]);
    expect(await api.quickPay(c.key)).toBeCloseTo(balance - 8 + 12.34, 3);
  });

  it('the test gateway refuses such an amount as Stripe does: an invalid request, not worth retrying', async () => {
    const token = await api.tokenOf(profile.id);
    const charge = (amountMinor: number, currency: string) => node.engine.payments.charge({ token, amountMinor, currency, idempotencyKey: `kwd-direct-${amountMinor}-${currency}` });
    for (const code of ['KWD', 'bhd', 'JOD', 'OMR', 'TND']) {
      await expect(charge(12_345, code)).rejects.toSatisfy((e: unknown) => e instanceof PaymentGatewayError && !e.retryable && /multiple of 10/.test(e.message));
    }
    expect((await charge(12_340, 'KWD')).status).toBe('succeeded');
    expect((await charge(12_345, 'USD')).status).toBe('succeeded');
  });
});
