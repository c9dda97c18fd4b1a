import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { legacyErrorCheck, ROOMY_RATE_LIMITS, signUpAt, withSessionKey } from '../support/customers';
import { paymentsApi } from '../support/payments';
import { expectResourceError, resourceApi, vendorWithCurrencies } from '../support/resource-api';
import { http, type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// Times clients send, read the same on every node whatever its host's zone, and exactly: an
// earning rule's window in the years 0–99 (Date.UTC made 0001 into 1901), an eGift's send_date
// without a zone (Date.parse read it in the host's zone) or on 30 February (moved to 2 March), a
// birthdate after today (accepted up to 2100). Over real HTTP.

let node: TestNode;
const hostZone = process.env.TZ;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});

afterEach(() => {
  if (hostZone === undefined) delete process.env.TZ;
  else process.env.TZ = hostZone;
});

afterAll(async () => {
  await node?.close();
});

const rules = resourceApi(() => node, '/earning-rules');
const expectLegacyError = legacyErrorCheck({ depth: 'basic', noStackTrace: true });

describe('an earning rule’s window in the first centuries', () => {
  it('"0001-01-01T00:00:00Z" (.NET’s DateTime.MinValue) is the year 1, not 1901, and comes back as sent', async () => {
    const v = await vendorWithCurrencies(node);
    const rule = await rules.createOk(v.token, { name: 'Always', currency: v.points, points: 1, per_amount: 1, starts_at: '0001-01-01T00:00:00Z', ends_at: '9999-12-31T23:59:59.999Z' });
    expect([rule.starts_at, rule.ends_at]).toEqual(['0001-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z']);
    const row = await node.engine.db.selectFrom('earning_rules').select('starts_at').where('public_id', '=', rule.id).executeTakeFirstOrThrow();
    expect(row.starts_at).toBe(Date.parse('0001-01-01T00:00:00Z'));
  });

  it('29 February of the year 4 exists (a leap year), of the year 3 does not; of 2100 neither', async () => {
    const v = await vendorWithCurrencies(node);
    const leap = await rules.createOk(v.token, { name: 'Leap', currency: v.points, points: 1, per_amount: 1, starts_at: '0004-02-29T12:00:00Z' });
    expect(leap.starts_at).toBe('0004-02-29T12:00:00.000Z');
    for (const starts_at of ['0003-02-29T12:00:00Z', '2100-02-29T12:00:00Z']) {
      expectResourceError(await rules.create(v.token, { name: 'Not leap', currency: v.points, points: 1, per_amount: 1, starts_at }), 400, 'validation_failed', 'starts_at');
    }
  });
});

describe('an eGift’s send_date', () => {
  const buy = (vendorId: number, body: unknown, session: string): Promise<HttpReply> => http(`${node.url}${withSessionKey(`/vendor/${vendorId}/egift`, session)}`, { method: 'POST', body });
  const gift = (profile: number, send_date: unknown) => ({ amount: 15, recipient: { name: 'Ana López', email: 'ana.sendday@example.com' }, message: 'For you', billing: { id: profile }, send_date });

  async function buyer() {
    const v = await node.addVendor();
    const customer = await signUpAt(node, v.vendorId);
    const profile = await paymentsApi(() => node).addProfileOk(customer.key);
    return { v, customer, profile: profile.id as number };
  }

  it('a time without a zone is UTC, on a node whose host is in Madrid too', async () => {
    const { v, customer, profile } = await buyer();
    process.env.TZ = 'Europe/Madrid';
    const reply = await buy(v.vendorId, gift(profile, '2026-12-24T09:00'), customer.key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ status: 'Scheduled', send_date: Date.UTC(2026, 11, 24, 9) / 1000 });
    const spaced = await buy(v.vendorId, gift(profile, '2026-12-25 09:00:00+0100'), customer.key);
    expect(spaced.body).toMatchObject({ status: 'Scheduled', send_date: Date.UTC(2026, 11, 25, 8) / 1000 });
  });

  it('30 February is refused, never moved to 2 March; nothing is charged', async () => {
    const { v, customer, profile } = await buyer();
    for (const send_date of ['2027-02-30', '2027-02-29T10:00:00Z', '2027-01-10T24:00']) {
      expectLegacyError(await buy(v.vendorId, gift(profile, send_date), customer.key), 400, 'validation_failed', 'send_date');
    }
    const charges = await node.engine.db.selectFrom('payment_charges').select('id').where('vendor_id', '=', v.vendorId).where('purpose', '=', 'egift').execute();
    expect(charges).toEqual([]);
  });
});

describe('a birthdate at sign-up', () => {
  const register = (vendorId: number, email: string, birthdate: number) =>
    http(`${node.url}/user/register`, { method: 'POST', body: { first_name: 'Bea', last_name: 'Born', anonymous: false, email_address: email, password: 'Secret-pass-123', terms: true, vendor: vendorId, birthdate } });

  it('after today (2090 typed for 1990) is refused on birthdate, and no account is made', async () => {
    const v = await node.addVendor();
    const nowSec = Math.floor(node.clock.now() / 1000);
    expectLegacyError(await register(v.vendorId, 'bea.2090@example.com', Date.UTC(2090, 4, 1) / 1000), 400, 'validation_failed', 'birthdate');
    expectLegacyError(await register(v.vendorId, 'bea.week@example.com', nowSec + 7 * 86_400), 400, 'validation_failed', 'birthdate');
    const made = await node.engine.db.selectFrom('users').select('id').where('email', 'in', ['bea.2090@example.com', 'bea.week@example.com']).execute();
    expect(made).toEqual([]);
  });

  it('today’s local midnight east of UTC, 1990 and 1900 are taken, and come back as sent', async () => {
    const v = await node.addVendor();
    const tonight = Math.floor(node.clock.now() / 1000) + 14 * 3_600;
    for (const [email, birthdate] of [['bea.today@example.com', tonight], ['bea.1990@example.com', Date.UTC(1990, 4, 1) / 1000], ['bea.1900@example.com', Date.UTC(1900, 0, 1) / 1000]] as const) {
      const reply = await register(v.vendorId, email, birthdate);
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(reply.body.birthdate).toBe(birthdate);
    }
  });
});
