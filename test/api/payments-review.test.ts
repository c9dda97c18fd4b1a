import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { drainAutoReloads } from '../../src/core/payments/auto-reload/auto-reloads';
import { freshEmail, legacyErrorCheck, ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { expectBalancesAddUp, inStoreApi, receiptCounter } from '../support/in-store';
import { CARDS, paymentsApi } from '../support/payments';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Regressions found in review of the payments work: an auto reload queued before the customer
// turned auto reload off is not charged, and the guest eGift (a public call taking card numbers)
// is limited per IP like adding a card, so it cannot be used to test stolen numbers.

let node: TestNode;
const CARD_ENTRY_LIMIT = 3;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: { ...ROOMY_RATE_LIMITS, codeEntry: { perClient: CARD_ENTRY_LIMIT, perAccount: CARD_ENTRY_LIMIT, windowSeconds: 900 } } });
});

afterAll(async () => {
  await node?.close();
});

afterEach(async () => {
  await expectBalancesAddUp(node);
});

const expectLegacyError = legacyErrorCheck({ noStackTrace: true });
const api = paymentsApi(() => node);
const store = inStoreApi(() => node);
const newReceipt = receiptCounter('RV');
let vendorCount = 0;

describe('auto reload turned off after a crossing queued it', () => {
  it.each([
    { how: 'amount 0', settings: { amount: 0 } },
    { how: 'threshold 0', settings: { threshold: 0 } },
    { how: 'profile null', settings: { user_billingprofile: null } },
  ])('is cancelled, not charged ($how)', async ({ settings }) => {
    const v = await node.addVendor(`Review auto reload ${++vendorCount}`);
    const c = await signUpAt(node, v.vendorId);
    const profile = await api.addProfileOk(c.key, CARDS.visa);
    await api.reloadOk(c.key, { user_billingprofile: profile.id, amount: 20 });
    await api.putSettingsOk(c.key, { amount: 25, threshold: 10, user_billingprofile: profile.id });
    await store.orderOk(v.apiKey, { card_number: c.email, receipt_number: newReceipt(), subtotal: 15, total: 15, quick_pay: 15 });
    const charges = await api.gatewayCharges(profile.id);

    expect((await api.putSettingsOk(c.key, settings)).enabled).toBe(false);
    await drainAutoReloads(node.engine);

    const rows = await node.engine.db.selectFrom('auto_reloads').selectAll().where('user_id', '=', c.userId).execute();
    expect(rows).toMatchObject([{ status: 'cancelled', charge_id: null }]);
    expect(await api.gatewayCharges(profile.id)).toBe(charges);
    expect(await api.quickPay(c.key)).toBe(5);
  });
});

describe('guest eGift card entry', () => {
  it('is limited per IP like adding a card: 429 rate_limited with Retry-After, nothing charged', async () => {
    const v = await node.addVendor(`Review eGift ${++vendorCount}`);
    const buy = (n: number) =>
      http(`${node.url}/vendor/${v.vendorId}/egift`, {
        method: 'POST',
        body: {
          amount: 10,
          buyer: { name: 'Mateo Ruiz', email: freshEmail('buyer') },
          recipient: { name: 'Ana López', email: freshEmail('ana') },
          billing: { name: 'Mateo Ruiz', number: n % 2 === 0 ? CARDS.insufficientFunds : CARDS.incorrectCvc, expiry: { month: '12', year: '2030' }, cvv: '123' },
        },
      });
    for (let i = 0; i < CARD_ENTRY_LIMIT; i++) expect((await buy(i)).status).toBe(422);
    const limited = await buy(CARD_ENTRY_LIMIT);
    expectLegacyError(limited, 429, 'rate_limited');
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    const charges = await node.engine.db.selectFrom('payment_charges').select('id').where('vendor_id', '=', v.vendorId).execute();
    expect(charges).toHaveLength(0);
  });
});
