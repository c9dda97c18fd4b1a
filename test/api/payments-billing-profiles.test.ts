import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Customer, FORM, legacyErrorCheck, loginOkAt, PASSWORD, ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { CARDS, cardBody, DECLINED_AT_ADD, paymentsApi } from '../support/payments';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Billing profiles over real HTTP: add (tokenized by the built-in test gateway), list (the shape
// apps read, compat-notes), set default, delete; every refused card stores nothing; another
// customer's or another vendor's profile is a 404 like one that never existed.

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});

afterAll(async () => {
  await node?.close();
});

const expectLegacyError = legacyErrorCheck({ noStackTrace: true });
const api = paymentsApi(() => node);
const nowSec = () => Math.floor(node.clock.now() / 1000);
let vendorCount = 0;
const addVendor = () => node.addVendor(`Payments profiles ${++vendorCount}`);
const signUp = (vendorId: number) => signUpAt(node, vendorId);

async function storedCounts() {
  const db = node.engine.db;
  return {
    profiles: (await db.selectFrom('billing_profiles').select('id').execute()).length,
    tokens: (await db.selectFrom('test_gateway_cards').select('token').execute()).length,
  };
}

const profileKeys = ['card', 'created', 'description', 'expiry', 'expiry_month', 'expiry_year', 'id', 'is_default', 'name', 'object', 'postal_code', 'type', 'updated'];

describe('POST /user/billing-profile/add', () => {
  it('tokenizes a Visa card and answers the profile: masked number, brand, expiry, no card number', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const year = new Date(node.clock.now()).getUTCFullYear() + 3;
    const reply = await api.addProfile(c.key, cardBody(node, CARDS.visa));
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(Object.keys(reply.body).sort()).toEqual(profileKeys);
    expect(reply.body).toEqual({
      id: expect.any(Number),
      object: 'user_billingprofile',
      card: 'xxxx xxxx xxxx 4242',
      type: 'Visa',
      name: 'Ana López',
      description: 'My card',
      postal_code: '10001',
      expiry: `12/${year}`,
      expiry_month: '12',
      expiry_year: String(year),
      created: nowSec(),
      updated: nowSec(),
      is_default: true,
    });
    const row = await node.engine.db.selectFrom('billing_profiles').selectAll().where('id', '=', reply.body.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ user_id: c.userId, vendor_id: v.vendorId, gateway: 'test', brand: 'Visa', last4: '4242', expiry_month: 12, expiry_year: year });
    expect(row.token).toMatch(/^tok_test_[0-9a-f]{24}$/);
    expect(JSON.stringify(row)).not.toContain('4242424242424242');
  });

  it('knows Mastercard and American Express, and takes a form body with a two-digit year', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const mc = await api.addProfileOk(c.key, CARDS.mastercard);
    expect(mc).toMatchObject({ type: 'Mastercard', card: 'xxxx xxxx xxxx 4444', is_default: true });
    const year = (new Date(node.clock.now()).getUTCFullYear() + 2) % 100;
    const form = `number=${encodeURIComponent(CARDS.amex)}&expiry_month=4&expiry_year=${year}&cvv=1234&name=Ana`;
    const amex = await api.addProfile(c.key, form, FORM);
    expect(amex.status, JSON.stringify(amex.body)).toBe(200);
    expect(amex.body).toMatchObject({ type: 'American Express', card: 'xxxx xxxx xxxx 0005', expiry: `04/20${year}`, is_default: false, description: null, postal_code: null });
  });

  it.each(DECLINED_AT_ADD)('refuses $card with 422 $code and stores nothing', async ({ card, code }) => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const before = await storedCounts();
    expectLegacyError(await api.addProfile(c.key, cardBody(node, card)), 422, code, 'number');
    expect(await storedCounts()).toEqual(before);
    expect((await api.listOk(c.key)).count).toBe(0);
  });

  it('refuses a number that fails the Luhn check with 400 invalid_payment_card, storing nothing', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const before = await storedCounts();
    expectLegacyError(await api.addProfile(c.key, cardBody(node, CARDS.luhnFailure)), 400, 'invalid_payment_card', 'number');
    expectLegacyError(await api.addProfile(c.key, cardBody(node, '1234')), 400, 'invalid_payment_card', 'number');
    expectLegacyError(await api.addProfile(c.key, cardBody(node, '4242-4242-abcd-4242')), 400, 'invalid_payment_card', 'number');
    expect(await storedCounts()).toEqual(before);
  });

  it('refuses a past or impossible expiry, a CVV of the wrong length, a bad postal code and missing fields', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const before = await storedCounts();
    const now = new Date(node.clock.now());
    const thisYear = now.getUTCFullYear();
    const lastMonth = now.getUTCMonth() === 0 ? { m: '12', y: thisYear - 1 } : { m: String(now.getUTCMonth()).padStart(2, '0'), y: thisYear };
    expectLegacyError(await api.addProfile(c.key, cardBody(node, CARDS.visa, { expiry_month: lastMonth.m, expiry_year: String(lastMonth.y) })), 400, 'invalid_card_expiry');
    expectLegacyError(await api.addProfile(c.key, cardBody(node, CARDS.visa, { expiry_year: String(thisYear - 1) })), 400, 'invalid_card_expiry', 'expiry_year');
    expectLegacyError(await api.addProfile(c.key, cardBody(node, CARDS.visa, { expiry_month: '13' })), 400, 'invalid_card_expiry', 'expiry_month');
    expectLegacyError(await api.addProfile(c.key, cardBody(node, CARDS.visa, { cvv: '12' })), 400, 'invalid_card_cvv', 'cvv');
    expectLegacyError(await api.addProfile(c.key, cardBody(node, CARDS.amex, { cvv: '123' })), 400, 'invalid_card_cvv', 'cvv');
    expectLegacyError(await api.addProfile(c.key, cardBody(node, CARDS.visa, { zip_code: '#!' })), 400, 'invalid_postal_code', 'zip_code');
    const { cvv: _cvv, ...noCvv } = cardBody(node, CARDS.visa);
    expectLegacyError(await api.addProfile(c.key, noCvv), 400, 'validation_failed', 'cvv');
    expect(await storedCounts()).toEqual(before);
  });

  it('needs a session', async () => {
    const reply = await http(`${node.url}/user/billing-profile/add`, { method: 'POST', body: cardBody(node, CARDS.visa) });
    expectLegacyError(reply, 401, 'missing_credentials');
    expectLegacyError(await api.addProfile('pcsk_nope', cardBody(node, CARDS.visa)), 401, 'invalid_session');
  });
});

describe('GET /user/billing-profile/list', () => {
  it('is a legacy collection of the live profiles, newest first, exactly one default', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    expect(await api.listOk(c.key)).toEqual({ object: 'collection', count: 0, data: [], next_page_url: null });
    const first = await api.addProfileOk(c.key, CARDS.visa);
    node.clock.advance(1000);
    const second = await api.addProfileOk(c.key, CARDS.mastercard);
    const list = await api.listOk(c.key);
    expect(list).toMatchObject({ object: 'collection', count: 2, next_page_url: null });
    expect(list.data.map((p: any) => [p.id, p.is_default])).toEqual([
      [second.id, false],
      [first.id, true],
    ]);
    expect(list.data[1]).toEqual(first);
  });
});

describe('POST /user/billing-profile/default and DELETE /user/billing-profile', () => {
  it('moves the default, answering the profile; takes the id as user_billingProfile_id or user_billingprofile, JSON or form', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const a = await api.addProfileOk(c.key, CARDS.visa);
    const b = await api.addProfileOk(c.key, CARDS.mastercard);
    const reply = await api.setDefault(c.key, { user_billingProfile_id: b.id });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ id: b.id, is_default: true });
    expect((await api.listOk(c.key)).data.map((p: any) => [p.id, p.is_default])).toEqual([
      [b.id, true],
      [a.id, false],
    ]);
    const form = await api.setDefault(c.key, `user_billingprofile=${a.id}`);
    expect(form.status, JSON.stringify(form.body)).toBe(200);
    expect((await api.listOk(c.key)).data.filter((p: any) => p.is_default).map((p: any) => p.id)).toEqual([a.id]);
    expectLegacyError(await api.setDefault(c.key, {}), 400, 'validation_failed', 'user_billingProfile_id');
  });

  it('deletes a profile ({}); it leaves the list, cannot be deleted or charged again, and the newest remaining becomes default', async () => {
    const v = await addVendor();
    const c = await signUp(v.vendorId);
    const a = await api.addProfileOk(c.key, CARDS.visa);
    node.clock.advance(1000);
    const b = await api.addProfileOk(c.key, CARDS.mastercard);
    const reply = await api.remove(c.key, { user_billingProfile_id: a.id });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toStrictEqual({});
    expect((await api.listOk(c.key)).data).toEqual([expect.objectContaining({ id: b.id, is_default: true })]);
    expectLegacyError(await api.remove(c.key, { user_billingProfile_id: a.id }), 404, 'billing_profile_not_found');
    expectLegacyError(await api.setDefault(c.key, { user_billingProfile_id: a.id }), 404, 'billing_profile_not_found');
    expectLegacyError(await api.reload(c.key, { user_billingprofile: a.id, amount: 10 }), 404, 'billing_profile_not_found');
    // A form body on DELETE works too.
    const form = await api.remove(c.key, `user_billingProfile_id=${b.id}`, FORM);
    expect(form.status, JSON.stringify(form.body)).toBe(200);
    expect((await api.listOk(c.key)).count).toBe(0);
  });
});

describe('another customer, another vendor', () => {
  let v1: Awaited<ReturnType<typeof addVendor>>;
  let owner: Customer;
  let other: Customer;
  let profileId: number;

  beforeAll(async () => {
    v1 = await addVendor();
    owner = await signUp(v1.vendorId);
    other = await signUp(v1.vendorId);
    profileId = (await api.addProfileOk(owner.key, CARDS.visa)).id;
  });

  it("answers 404 billing_profile_not_found for another customer's profile on every call, and changes nothing", async () => {
    expectLegacyError(await api.setDefault(other.key, { user_billingProfile_id: profileId }), 404, 'billing_profile_not_found');
    expectLegacyError(await api.remove(other.key, { user_billingProfile_id: profileId }), 404, 'billing_profile_not_found');
    expectLegacyError(await api.reload(other.key, { user_billingprofile: profileId, amount: 10 }), 404, 'billing_profile_not_found');
    expectLegacyError(await api.putSettings(other.key, { amount: 10, threshold: 5, user_billingprofile: profileId }), 404, 'billing_profile_not_found');
    expect((await api.listOk(other.key)).count).toBe(0);
    expect((await api.listOk(owner.key)).data).toEqual([expect.objectContaining({ id: profileId, is_default: true })]);
    expect(await api.gatewayCharges(profileId)).toBe(0);
    expect(await api.quickPay(other.key)).toBe(0);
  });

  it('does not show or charge a profile from the same person logged in at another vendor', async () => {
    const v2 = await addVendor();
    const session = await loginOkAt(node, owner.email, PASSWORD, v2.vendorId);
    const key2 = session.session_identifier as string;
    expect((await api.listOk(key2)).count).toBe(0);
    expectLegacyError(await api.reload(key2, { user_billingprofile: profileId, amount: 10 }), 404, 'billing_profile_not_found');
    expectLegacyError(await api.setDefault(key2, { user_billingProfile_id: profileId }), 404, 'billing_profile_not_found');
    expectLegacyError(await api.remove(key2, { user_billingProfile_id: profileId }), 404, 'billing_profile_not_found');
    expect(await api.gatewayCharges(profileId)).toBe(0);
  });

  it('answers an unknown or malformed id like another customer’s', async () => {
    expectLegacyError(await api.setDefault(owner.key, { user_billingProfile_id: profileId + 1_000_000 }), 404, 'billing_profile_not_found');
    expectLegacyError(await api.setDefault(owner.key, { user_billingProfile_id: 'abc' }), 400, 'validation_failed', 'user_billingProfile_id');
  });
});

describe('card entry limit', () => {
  it('answers 429 rate_limited after the codeEntry limit of cards added by one account, storing nothing more', async () => {
    const limited = await startTestNode({ rateLimits: { ...ROOMY_RATE_LIMITS, codeEntry: { perClient: 100, perAccount: 3, windowSeconds: 900 } } });
    try {
      const v = await limited.addVendor('Limited');
      const c = await signUpAt(limited, v.vendorId);
      const limitedApi = paymentsApi(() => limited);
      expect((await limitedApi.addProfile(c.key, cardBody(limited, CARDS.visa))).status).toBe(200);
      expect((await limitedApi.addProfile(c.key, cardBody(limited, CARDS.genericDecline))).status).toBe(422);
      expect((await limitedApi.addProfile(c.key, cardBody(limited, CARDS.luhnFailure))).status).toBe(400);
      const reply = await limitedApi.addProfile(c.key, cardBody(limited, CARDS.mastercard));
      expectLegacyError(reply, 429, 'rate_limited');
      expect(reply.headers.get('retry-after')).toMatch(/^\d+$/);
      expect((await limitedApi.listOk(c.key)).count).toBe(1);
      limited.clock.advance(901_000);
      expect((await limitedApi.addProfile(c.key, cardBody(limited, CARDS.mastercard))).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
