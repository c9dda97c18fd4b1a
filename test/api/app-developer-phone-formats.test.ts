import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customerApi, expectLegacyError, ROOMY_RATE_LIMITS, setPhoneAt } from '../support/customers';
import { startTestNode, type TestNode } from '../support/test-node';

// The app's phone field sends `{number, code}`: the number as the customer typed it in their
// country's own format, the calling code from a country picker.

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});

afterAll(async () => {
  await node?.close();
});

const { vendor, signUp, register, putProfile } = customerApi(() => node, { vendorName: 'Trattoria' });

describe('phone numbers as people of each country write them', () => {
  it('an Italian landline keeps its 0 after +39 (it is part of the number there, not a trunk prefix)', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    expect(await setPhoneAt(node, c, '06 1234 5678', '39')).toBe('+390612345678');
    expect(await setPhoneAt(node, c, '02 8765 4321', '+39')).toBe('+390287654321');
  });

  it('registers with an Italian landline given as {number, code}', async () => {
    const v = await vendor();
    const reply = await register(v.vendorId, { phone_number: { number: '06 4567 8901', code: '39' } });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const stored = await node.engine.db.selectFrom('users').select('phone').where('id', '=', Number(reply.body.id)).executeTakeFirstOrThrow();
    expect(stored.phone).toBe('+390645678901');
  });

  it('national formats with a trunk 0 or punctuation keep reading as before', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    const cases: Array<[string, string, string]> = [
      ['07911 123456', '44', '+447911123456'],
      ['0151 23456789', '49', '+4915123456789'],
      ['(11) 98765-4321', '55', '+5511987654321'],
      ['011 15-2345-6789', '54', '+5491123456789'],
      ['090-1234-5678', '81', '+819012345678'],
      ['099 123 4567', '593', '+593991234567'],
      ['(202) 555-0147', '1', '+12025550147'],
      ['333 123 4567', '39', '+393331234567'],
    ];
    for (const [number, code, e164] of cases) expect(await setPhoneAt(node, c, number, code), `${number} (+${code})`).toBe(e164);
  });

  it('a number that is not one in the calling code’s country is still 400 invalid_phone', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    expectLegacyError(await putProfile(c.key, { phone_number: { number: '12', code: '39' } }), 400, 'invalid_phone', 'phone_number');
    expectLegacyError(await putProfile(c.key, { phone_number: { number: '0000 000', code: '44' } }), 400, 'invalid_phone', 'phone_number');
  });
});
