import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { expectLegacyError, ROOMY_RATE_LIMITS, signUpAt, withSessionKey } from '../support/customers';
import { inStoreApi } from '../support/in-store';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Passport numbers (issue 17, item 3) are set and changed, not only looked up: by the customer in
// PUT /user/profile and at the counter with POST /onscreen/register; a check-in by passport finds them.

let node: TestNode;
let v: VendorCredentials;
const api = inStoreApi(() => node);

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
  v = await node.addVendor('Passport Café');
});
afterAll(() => node?.close());

const profile = async (key: string) => (await http(`${node.url}${withSessionKey('/user/profile', key)}`)).body;
const putProfile = (key: string, body: unknown) => http(`${node.url}${withSessionKey('/user/profile', key)}`, { method: 'PUT', body });
const register = (apiKey: string, body: unknown) => http(`${node.url}/onscreen/register?api_key=${apiKey}`, { method: 'POST', body });
async function checkedInName(identification: string): Promise<string> {
  const session = await api.checkInSessionOk(v.apiKey, identification);
  const panel = await api.retrieveOk(v.apiKey, session.hash);
  await api.closeOk(v.apiKey, session.hash);
  return panel.user.first_name;
}

describe('passport numbers', () => {
  it('the customer sets, changes and clears theirs in the profile; check-in finds it', async () => {
    const c = await signUpAt(node, v.vendorId, { first_name: 'Pia' });
    expect((await putProfile(c.key, { passport_number: 'x1234 567' })).status).toBe(200);
    expect((await profile(c.key)).user.passport_number).toBe('X1234567');
    expect(await checkedInName('X1234567')).toBe('Pia');
    expect((await putProfile(c.key, { passport_number: 'Y7654321' })).status).toBe(200);
    expect((await api.checkIn(v.apiKey, 'X1234567')).status).toBe(404);
    expect(await checkedInName('y7654321')).toBe('Pia');
    expect((await putProfile(c.key, { passport_number: null })).status).toBe(200);
    expect((await profile(c.key)).user.passport_number).toBeNull();
  });

  it('refuses a malformed number (400) and one another account holds (409), changing nothing', async () => {
    const a = await signUpAt(node, v.vendorId);
    const b = await signUpAt(node, v.vendorId);
    await putProfile(a.key, { passport_number: 'AB123456' });
    expectLegacyError(await putProfile(b.key, { passport_number: 'A!' }), 400, 'validation_failed', 'passport_number');
    expectLegacyError(await putProfile(b.key, { passport_number: 'ab-123456' }), 409, 'passport_taken', 'passport_number');
    expect((await profile(b.key)).user.passport_number).toBeNull();
  });

  it('the counter sets it when registering, and changes an existing customer’s; a kiosk may not change one', async () => {
    const made = await register(v.apiKey, { email: 'passport.new@example.com', first_name: 'Ola', passport_number: 'P0001111' });
    expect(made.status).toBe(201);
    await api.closeOk(v.apiKey, made.body.pos_session.hash);
    expect(await checkedInName('P0001111')).toBe('Ola');
    const changed = await register(v.apiKey, { email: 'passport.new@example.com', passport_number: 'P0002222' });
    expect(changed.status).toBe(201);
    await api.closeOk(v.apiKey, changed.body.pos_session.hash);
    expect(await checkedInName('P0002222')).toBe('Ola');
    const kiosk = await register(v.kioskApiKey, { email: 'passport.new@example.com', passport_number: 'P0003333' });
    expectLegacyError(kiosk, 403, 'forbidden', 'passport_number');
    expect(await checkedInName('P0002222')).toBe('Ola');
    const taken = await register(v.apiKey, { email: 'passport.other@example.com', passport_number: 'P0002222' });
    expectLegacyError(taken, 409, 'passport_taken', 'passport_number');
  });
});
