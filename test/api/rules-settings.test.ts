import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORM } from '../support/customers';
import { expectResourceError } from '../support/resource-api';
import { http, type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// The program settings over real HTTP (GET/PUT /program/settings): the points expiry.


let node: TestNode;

beforeAll(async () => {
  node = await startTestNode();
});

afterAll(async () => {
  await node?.close();
});

/** The payment limits of a program that never set them (payment-limits.test.ts covers them), and its tier currency (tier-currency.test.ts). */
const LIMITS = { egift_max_amount: null, reload_max_amount: null, egift_max_amount_default: 100_000, reload_max_amount_default: 100_000, tier_currency: expect.stringMatching(/^curr_/) };
const settingsUrl = () => `${node.url}/program/settings`;
const read = (token?: string) => http(settingsUrl(), token ? { token } : {});
const write = (token: string | undefined, body: unknown, headers?: Record<string, string>) =>
  http(settingsUrl(), { method: 'PUT', ...(token ? { token } : {}), body, ...(headers ? { headers } : {}) });

const expectError = (reply: HttpReply, status: number, code: string, field?: string) => expectResourceError(reply, status, code, field, { contentType: false, message: false });

const storedDays = async (vendorId: number) =>
  (await node.engine.db.selectFrom('vendors').select('points_expiry_days').where('id', '=', vendorId).executeTakeFirstOrThrow()).points_expiry_days;

describe('GET /program/settings', () => {
  it('answers {points_expiry_days: null} for a new program: points never expire', async () => {
    const v = await node.addVendor();
    const reply = await read(v.accessToken);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type') ?? '').toMatch(/application\/json/);
    expect(reply.body).toStrictEqual({ points_expiry_days: null, referral_points: 0, ...LIMITS });
  });
});

describe('PUT /program/settings', () => {
  it('sets, keeps (empty body) and clears the expiry', async () => {
    const v = await node.addVendor();
    const set = await write(v.accessToken, { points_expiry_days: 365 });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toStrictEqual({ points_expiry_days: 365, referral_points: 0, ...LIMITS });
    expect((await read(v.accessToken)).body).toStrictEqual({ points_expiry_days: 365, referral_points: 0, ...LIMITS });
    expect(await storedDays(v.vendorId)).toBe(365);

    const kept = await write(v.accessToken, {});
    expect(kept.status).toBe(200);
    expect(kept.body).toStrictEqual({ points_expiry_days: 365, referral_points: 0, ...LIMITS });

    const cleared = await write(v.accessToken, { points_expiry_days: null });
    expect(cleared.body).toStrictEqual({ points_expiry_days: null, referral_points: 0, ...LIMITS });
    expect(await storedDays(v.vendorId)).toBeNull();
  });

  it('moves the vendor updated_at only when something changes', async () => {
    const v = await node.addVendor();
    const updatedAt = async () => (await node.engine.db.selectFrom('vendors').select('updated_at').where('id', '=', v.vendorId).executeTakeFirstOrThrow()).updated_at;
    const before = await updatedAt();
    node.clock.advance(1000);
    await write(v.accessToken, {});
    expect(await updatedAt()).toBe(before);
    await write(v.accessToken, { points_expiry_days: 30 });
    expect(await updatedAt()).toBe(node.clock.now());
  });

  it('accepts form fields', async () => {
    const v = await node.addVendor();
    const reply = await write(v.accessToken, 'points_expiry_days=90', FORM);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toStrictEqual({ points_expiry_days: 90, referral_points: 0, ...LIMITS });
  });

  it.each([[0], [-1], [1.5], ['soon'], [36_501]])('refuses points_expiry_days = %j with 400 validation_failed and keeps the setting', async (value) => {
    const v = await node.addVendor();
    await write(v.accessToken, { points_expiry_days: 180 });
    expectError(await write(v.accessToken, { points_expiry_days: value }), 400, 'validation_failed', 'points_expiry_days');
    expect(await storedDays(v.vendorId)).toBe(180);
  });

  it('accepts the bounds 1 and 36500', async () => {
    const v = await node.addVendor();
    expect((await write(v.accessToken, { points_expiry_days: 1 })).body).toStrictEqual({ points_expiry_days: 1, referral_points: 0, ...LIMITS });
    expect((await write(v.accessToken, { points_expiry_days: 36_500 })).body).toStrictEqual({ points_expiry_days: 36_500, referral_points: 0, ...LIMITS });
  });
});

describe('authentication and vendor isolation', () => {
  it('answers 401 without a bearer token, and changes nothing', async () => {
    const v = await node.addVendor();
    expectError(await read(), 401, 'missing_credentials');
    expectError(await write(undefined, { points_expiry_days: 5 }), 401, 'missing_credentials');
    expectError(await write('not-a-token', { points_expiry_days: 5 }), 401, 'invalid_token');
    expect(await storedDays(v.vendorId)).toBeNull();
  });

  it("changes only the calling vendor's setting", async () => {
    const a = await node.addVendor();
    const b = await node.addVendor();
    await write(a.accessToken, { points_expiry_days: 10 });
    expect((await read(b.accessToken)).body).toStrictEqual({ points_expiry_days: null, referral_points: 0, ...LIMITS });
    expect(await storedDays(b.vendorId)).toBeNull();
    expect(await storedDays(a.vendorId)).toBe(10);
  });
});
