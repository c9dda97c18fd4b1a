import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshEmail, legacyErrorCheck, ROOMY_RATE_LIMITS, signUpAt, withSessionKey } from '../support/customers';
import { paymentsApi } from '../support/payments';
import { http, startTestNode, type TestNode } from '../support/test-node';

// A billing profile number arrives as `user_billingprofile` (the reload, auto-reload and eGift
// fields of the contract) or `user_billingProfile_id` (the contract's text, and the field of
// default and delete). An unknown one is refused under the name the request used: a reload naming
// `user_billingprofile` answered `field: "user_billingProfile_id"`, a name it never sent.

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});

afterAll(async () => {
  await node?.close();
});

const expectLegacyError = legacyErrorCheck({ noStackTrace: true });
const api = paymentsApi(() => node);
const UNKNOWN = 987_654_321;
let vendorCount = 0;

async function customerWithCard() {
  const v = await node.addVendor(`Profile fields ${++vendorCount}`);
  const c = await signUpAt(node, v.vendorId);
  const profile = await api.addProfileOk(c.key);
  return { v, c, profile };
}

describe('an unknown billing profile is refused under the field the request named it', () => {
  it('POST /user/billing-profile/reload: user_billingprofile or user_billingProfile_id, as sent; missing, the reload field', async () => {
    const { c, profile } = await customerWithCard();
    expectLegacyError(await api.reload(c.key, { user_billingprofile: UNKNOWN, amount: 10 }), 404, 'billing_profile_not_found', 'user_billingprofile');
    expectLegacyError(await api.reload(c.key, { user_billingProfile_id: UNKNOWN, amount: 10 }), 404, 'billing_profile_not_found', 'user_billingProfile_id');
    expectLegacyError(await api.reload(c.key, 'user_billingprofile=987654321&amount=10'), 404, 'billing_profile_not_found', 'user_billingprofile');
    expectLegacyError(await api.reload(c.key, { amount: 10 }), 400, 'validation_failed', 'user_billingprofile');
    expect(await api.gatewayCharges(profile.id)).toBe(0);
    expect(await api.quickPay(c.key)).toBe(0);
  });

  it('PUT /user/reload/settings: user_billingprofile', async () => {
    const { c } = await customerWithCard();
    const before = await api.getSettingsOk(c.key);
    expectLegacyError(await api.putSettings(c.key, { amount: 20, threshold: 5, user_billingprofile: UNKNOWN }), 404, 'billing_profile_not_found', 'user_billingprofile');
    expect(await api.getSettingsOk(c.key)).toEqual(before);
  });

  it('POST /user/billing-profile/default and DELETE /user/billing-profile: either name, as sent', async () => {
    const { c, profile } = await customerWithCard();
    expectLegacyError(await api.setDefault(c.key, { user_billingProfile_id: UNKNOWN }), 404, 'billing_profile_not_found', 'user_billingProfile_id');
    expectLegacyError(await api.setDefault(c.key, { user_billingprofile: UNKNOWN }), 404, 'billing_profile_not_found', 'user_billingprofile');
    expectLegacyError(await api.remove(c.key, { user_billingprofile: UNKNOWN }), 404, 'billing_profile_not_found', 'user_billingprofile');
    expectLegacyError(await api.remove(c.key, { user_billingProfile_id: UNKNOWN }), 404, 'billing_profile_not_found', 'user_billingProfile_id');
    expectLegacyError(await api.setDefault(c.key, {}), 400, 'validation_failed', 'user_billingProfile_id');
    expect((await api.listOk(c.key)).data.map((p: { id: number }) => p.id)).toEqual([profile.id]);
  });

  it('POST /vendor/{vendor_id}/egift: user_billingprofile, user_billingProfile_id or billing.id, as sent', async () => {
    const { v, c, profile } = await customerWithCard();
    const buy = (fields: Record<string, unknown>) =>
      http(`${node.url}${withSessionKey(`/vendor/${v.vendorId}/egift`, c.key)}`, { method: 'POST', body: { amount: 10, recipient: { name: 'Ana', email: freshEmail('ana') }, ...fields } });
    expectLegacyError(await buy({ user_billingprofile: UNKNOWN }), 404, 'billing_profile_not_found', 'user_billingprofile');
    expectLegacyError(await buy({ user_billingProfile_id: UNKNOWN }), 404, 'billing_profile_not_found', 'user_billingProfile_id');
    expectLegacyError(await buy({ billing: { id: UNKNOWN } }), 404, 'billing_profile_not_found', 'billing.id');
    expect(await api.gatewayCharges(profile.id)).toBe(0);
  });
});
