import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customerApi, expectLegacyError, ROOMY_RATE_LIMITS, setPhoneAt } from '../support/customers';
import { startTestNode, type TestNode } from '../support/test-node';

// The app's phone field beside a country picker (`{number, code}`): people outside North America
// write their number as they dial it from abroad, "0033 6 12 34 56 78" — the 00 prefix and the
// calling code the picker also sends. "+33 6 12…" was read; "0033 6 12…" was 400 invalid_phone
// (twelfth round's app developer).

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});

afterAll(async () => {
  await node?.close();
});

const { vendor, signUp, register, getProfile, putProfile } = customerApi(() => node, { vendorName: 'Boulangerie' });

describe('a phone written with the international prefix 00', () => {
  it('reads as the same number written with +, in the profile', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    const cases: Array<[string, string, string]> = [
      ['0033 6 12 34 56 78', '33', '+33612345678'],
      ['0044 20 7946 0958', '+44', '+442079460958'],
      ['00 39 06 1234 5678', '39', '+390612345678'],
      ['001 (202) 555-0147', '1', '+12025550147'],
    ];
    for (const [number, code, e164] of cases) expect(await setPhoneAt(node, c, number, code), `${number} (+${code})`).toBe(e164);
  });

  it('registers with one', async () => {
    const v = await vendor();
    const reply = await register(v.vendorId, { phone_number: { number: '0034 612 34 56 78', code: '34' } });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const stored = await node.engine.db.selectFrom('users').select('phone').where('id', '=', Number(reply.body.id)).executeTakeFirstOrThrow();
    expect(stored.phone).toBe('+34612345678');
  });

  it('naming another calling code than the picker, or too short, is still 400 invalid_phone and changes nothing', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    expect(await setPhoneAt(node, c, '06 12 34 56 78', '33')).toBe('+33612345678');
    expectLegacyError(await putProfile(c.key, { phone_number: { number: '0044 20 7946 0958', code: '33' } }), 400, 'invalid_phone', 'phone_number');
    expectLegacyError(await putProfile(c.key, { phone_number: { number: '0033 6 12', code: '33' } }), 400, 'invalid_phone', 'phone_number');
    expect((await getProfile(c.key)).body.user.phone_number).toBe('+33612345678');
  });
});
