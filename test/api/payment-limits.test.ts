import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { ownerOf, staffCall } from '../support/backoffice';
import { type Customer, expectLegacyError, freshEmail, ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { expectBalancesAddUp } from '../support/in-store';
import { CARDS, paymentsApi } from '../support/payments';
import { expectResourceError } from '../support/resource-api';
import { http, type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// The program's payment limits (largest eGift, largest single reload, auto reload amounts) over real
// HTTP: defaults by the currency's minor units when not set, set in the program settings (bearer
// API and back office), in force at the next request, and a refusal that charges nothing.

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});
afterEach(async () => {
  await expectBalancesAddUp(node);
});
afterAll(async () => {
  await node?.close();
});

const api = paymentsApi(() => node);
let count = 0;

async function vendorIn(currency: string) {
  return setUpVendor(node.engine, { name: `Limits ${currency} ${++count}`, currency, country: currency === 'JPY' ? 'JP' : 'US', store: { name: 'Main', address1: '1 Main St', city: 'Town' } });
}

const settings = (token: string, body?: unknown): Promise<HttpReply> =>
  http(`${node.url}/program/settings`, body === undefined ? { token } : { method: 'PUT', token, body });

function gift(vendorId: number, amount: number): Promise<HttpReply> {
  return http(`${node.url}/vendor/${vendorId}/egift`, {
    method: 'POST',
    body: {
      amount,
      buyer: { name: 'Mateo Ruiz', email: freshEmail('buyer') },
      recipient: { name: 'Ana López', email: freshEmail('ana') },
      billing: { name: 'Mateo Ruiz', number: CARDS.visa, expiry: { month: '12', year: '2030' }, cvv: '123', zip_code: '10001' },
    },
  });
}

/** What a refused payment must leave as it was: charges (ours and the gateway's), ledger entries, gifts. */
async function moneyTrail(vendorId: number) {
  const db = node.engine.db;
  const count = async (q: { execute(): Promise<unknown[]> }) => (await q.execute()).length;
  return {
    charges: await count(db.selectFrom('payment_charges').select('id').where('vendor_id', '=', vendorId)),
    gatewayCharges: await count(db.selectFrom('test_gateway_charges').select('id')),
    entries: await count(db.selectFrom('ledger_entries as e').innerJoin('ledger_accounts as a', 'a.id', 'e.account_id').select('e.id').where('a.vendor_id', '=', vendorId)),
    gifts: await count(db.selectFrom('egifts').select('id').where('vendor_id', '=', vendorId)),
  };
}

const messageOf = (reply: HttpReply): string => reply.body.error.errors[0].message;

describe('defaults by currency', () => {
  it('a JPY program sells a ¥50,000 eGift by default and refuses one above ¥100,000, saying so in yen', async () => {
    const v = await vendorIn('JPY');
    expect((await settings(v.accessToken)).body).toMatchObject({ egift_max_amount: null, egift_max_amount_default: 100_000 });
    const sold = await gift(v.vendorId, 50_000);
    expect(sold.status, JSON.stringify(sold.body)).toBe(200);
    const charge = await node.engine.db.selectFrom('payment_charges').select(['amount', 'currency']).where('vendor_id', '=', v.vendorId).executeTakeFirstOrThrow();
    expect([Number(charge.amount), charge.currency]).toEqual([50_000, 'JPY']);

    const before = await moneyTrail(v.vendorId);
    const above = await gift(v.vendorId, 100_001);
    expectLegacyError(above, 400, 'validation_failed', 'amount');
    expect(messageOf(above)).toBe('amount must be at most 100000 JPY.');
    expect(await moneyTrail(v.vendorId)).toEqual(before);
  });

  it('a USD program’s default reload limit is 1,000.00, not 100,000', async () => {
    const v = await vendorIn('USD');
    const c = await signUpAt(node, v.vendorId);
    const profile = await api.addProfileOk(c.key);
    const before = await moneyTrail(v.vendorId);
    const refused = await api.reload(c.key, { user_billingprofile: profile.id, amount: 1000.01 });
    expectLegacyError(refused, 400, 'validation_failed', 'amount');
    expect(messageOf(refused)).toBe('amount must be at most 1000.00 USD.');
    expect(await moneyTrail(v.vendorId)).toEqual(before);
    await api.reloadOk(c.key, { user_billingprofile: profile.id, amount: 1000 });
  });
});

describe('limits the program sets', () => {
  it('a USD program’s reload above its set limit is refused and changes nothing: no charge at the gateway, no ledger entry', async () => {
    const v = await vendorIn('USD');
    const set = await settings(v.accessToken, { reload_max_amount: 5_000 });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toMatchObject({ reload_max_amount: 5_000, reload_max_amount_default: 100_000, egift_max_amount: null });
    const c = await signUpAt(node, v.vendorId);
    const profile = await api.addProfileOk(c.key);
    const before = await moneyTrail(v.vendorId);
    const gatewayBefore = await api.gatewayCharges(profile.id);

    const refused = await api.reload(c.key, { user_billingprofile: profile.id, amount: 50.01 }, { 'idempotency-key': 'over-limit' });
    expectLegacyError(refused, 400, 'validation_failed', 'amount');
    expect(messageOf(refused)).toBe('amount must be at most 50.00 USD.');
    expect(await moneyTrail(v.vendorId)).toEqual(before);
    expect(await api.gatewayCharges(profile.id)).toBe(gatewayBefore);
    expect(await api.quickPay(c.key)).toBe(0);

    await api.reloadOk(c.key, { user_billingprofile: profile.id, amount: 50 });
    expect(await api.quickPay(c.key)).toBe(50);
  });

  it('a changed limit is in force at the next request, for reloads, eGifts and auto reload settings', async () => {
    const v = await vendorIn('USD');
    const c: Customer = await signUpAt(node, v.vendorId);
    const profile = await api.addProfileOk(c.key);
    const reload = (amount: number) => api.reload(c.key, { user_billingprofile: profile.id, amount });
    // Read once under each limit, so a stale program cache would show.
    expect((await reload(40)).status).toBe(200);
    expect((await gift(v.vendorId, 40)).status).toBe(200);
    expect((await api.putSettings(c.key, { amount: 40, threshold: 10 })).status).toBe(200);

    expect((await settings(v.accessToken, { reload_max_amount: 3_000, egift_max_amount: 2_500 })).status).toBe(200);
    expectLegacyError(await reload(40), 400, 'validation_failed', 'amount');
    expectLegacyError(await gift(v.vendorId, 40), 400, 'validation_failed', 'amount');
    expect((await gift(v.vendorId, 25)).status).toBe(200);
    // Auto reload: the amount and the threshold are bounded by the same limit.
    const tooMuch = await api.putSettings(c.key, { amount: 31 });
    expect(tooMuch.status).toBe(400);
    expect(JSON.stringify(tooMuch.body)).toContain('amount must be at most 30.00 USD.');
    expect((await api.putSettings(c.key, { threshold: 30.5 })).status).toBe(400);
    expect((await api.putSettings(c.key, { amount: 30, threshold: 30 })).status).toBe(200);

    // Back to the defaults (null) through the back office, audited.
    const owner = await ownerOf(node, v.vendorId);
    const reset = await staffCall(node, owner.token, 'PUT', '/backoffice/program/settings', { reload_max_amount: null, egift_max_amount: null });
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    expect(reset.body).toMatchObject({ reload_max_amount: null, egift_max_amount: null });
    expect((await reload(40)).status).toBe(200);
    expect((await gift(v.vendorId, 40)).status).toBe(200);
    expect((await staffCall(node, owner.token, 'GET', '/backoffice/program')).body.settings).toMatchObject({ reload_max_amount: null, egift_max_amount_default: 100_000 });
  });

  it.each([
    [{ egift_max_amount: 99 }, 'egift_max_amount'],
    [{ egift_max_amount: 0 }, 'egift_max_amount'],
    [{ egift_max_amount: 150.5 }, 'egift_max_amount'],
    [{ reload_max_amount: 0 }, 'reload_max_amount'],
    [{ reload_max_amount: -100 }, 'reload_max_amount'],
    [{ reload_max_amount: 'lots' }, 'reload_max_amount'],
  ])('refuses %j with 400 validation_failed and keeps the limits', async (body, field) => {
    const v = await vendorIn('USD');
    await settings(v.accessToken, { egift_max_amount: 20_000, reload_max_amount: 30_000 });
    expectResourceError(await settings(v.accessToken, body), 400, 'validation_failed', field);
    expect((await settings(v.accessToken)).body).toMatchObject({ egift_max_amount: 20_000, reload_max_amount: 30_000 });
  });

  it('takes a yen eGift limit of ¥1 (one major unit is the smallest eGift)', async () => {
    const v = await vendorIn('JPY');
    expect((await settings(v.accessToken, { egift_max_amount: 1 })).body).toMatchObject({ egift_max_amount: 1 });
    expectLegacyError(await gift(v.vendorId, 2), 400, 'validation_failed', 'amount');
  });
});
