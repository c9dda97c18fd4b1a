import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainAutoReloads } from '../../src/core/payments/auto-reload/auto-reloads';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { deliverDueWebhooks } from '../../src/core/webhooks/deliver';
import { WEBHOOK_KINDS } from '../../src/core/webhooks/kinds';
import { type Customer, signUpAt } from '../support/customers';
import { inStoreApi, receiptCounter } from '../support/in-store';
import { CARDS, paymentsApi } from '../support/payments';
import { http, startTestNode, type TestNode } from '../support/test-node';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

// `currency` in webhook payloads (thirteenth round): reload.succeeded and reload.failed carried the
// ISO code as a string while balance.updated, egift.* and points.expired carry an object. The
// contract shows currencies as objects `{id, name, code}` (the retrieve-customer balances) and the
// original service's webhooks as `<entity>_id` keys, so every event now carries
// `{currency_id, name, code}`: walked in every payload of a day's flows, over a real receiver.

let node: TestNode;
let receiver: WebhookReceiver;
let v: VendorCredentials;
let c: Customer;
const store = inStoreApi(() => node);
const pay = paymentsApi(() => node);
const receipt = receiptCounter('CUR');

beforeAll(async () => {
  node = await startTestNode({ webhooksAllowPrivate: true });
  receiver = await startWebhookReceiver();
  v = await node.addVendor('Currency Café');
  const reply = await http(`${node.url}/webhooks`, { method: 'POST', token: v.accessToken, body: { url: receiver.url, events: [...WEBHOOK_KINDS] } });
  expect(reply.status).toBe(201);
  receiver.secrets = [reply.body.secret];
  c = await signUpAt(node, v.vendorId);
});

afterAll(async () => {
  await receiver?.close();
  await node?.close();
});

/** Every `currency` value anywhere in `value`, with where it is. */
function currencies(value: unknown, at = 'data'): Array<{ at: string; currency: unknown }> {
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) => [...(key === 'currency' ? [{ at: `${at}.${key}`, currency: inner }] : []), ...currencies(inner, `${at}.${key}`)]);
}

describe('currency in webhook payloads', () => {
  it('is {currency_id, name, code} in every event that carries one: reloads (card and automatic, succeeded and failed), balances, eGifts', async () => {
    const profile = await pay.addProfileOk(c.key, CARDS.visa);
    await pay.reloadOk(c.key, { user_billingprofile: profile.id, amount: 20 });
    const declining = await pay.addProfileOk(c.key, CARDS.chargeDeclined);
    expect((await pay.reload(c.key, { user_billingprofile: declining.id, amount: 5 })).status).toBe(422);
    await pay.putSettingsOk(c.key, { amount: 25, threshold: 10, user_billingprofile: profile.id });
    await store.orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt(), subtotal: 15, total: 15, quick_pay: 15 });
    await drainAutoReloads(node.engine);
    const gift = await http(`${node.url}/vendor/${v.vendorId}/egift`, {
      method: 'POST',
      body: {
        amount: 10,
        buyer: { name: 'Mateo Ruiz', email: 'mateo@example.com' },
        recipient: { name: 'Bea', email: 'bea@example.com' },
        billing: { name: 'Mateo Ruiz', number: CARDS.visa, expiry: { month: '12', year: '2030' }, cvv: '123', zip_code: '10001' },
      },
    });
    expect(gift.status, JSON.stringify(gift.body)).toBe(200);
    while ((await deliverDueWebhooks(node.engine, { allowPrivate: true })).succeeded > 0);

    const quickPay = { currency_id: v.quickPayCurrencyId, name: 'Quick Pay USD', code: 'USD' };
    const points = { currency_id: v.loyaltyCurrencyId, name: 'Points', code: null };
    const found = receiver.received.flatMap((hit) => currencies(hit.body.data).map((one) => ({ type: hit.body.type as string, ...one })));
    const kinds = new Set(found.map((one) => one.type));
    for (const kind of ['reload.succeeded', 'reload.failed', 'balance.updated', 'egift.sent']) expect(kinds, kind).toContain(kind);
    expect(found.filter((one) => one.type === 'reload.succeeded')).toHaveLength(2); // the app's and the automatic one
    for (const one of found) expect([quickPay, points], `${one.type} ${one.at}`).toContainEqual(one.currency);
    // Not an additive change: events written from now on name the version whose reloads carry the object.
    for (const hit of receiver.received) expect(hit.body.api_version, hit.body.type).toBe('2026-12-06');
  });
});
