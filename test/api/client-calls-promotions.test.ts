import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { type Customer, legacyErrorCheck, ROOMY_RATE_LIMITS, signUpAt, withSessionKey } from '../support/customers';
import { expectBalancesAddUp, inStoreApi } from '../support/in-store';
import { http, type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// Promotions (issue 12), over real HTTP: the program creates, lists, pauses and resumes codes
// (POST/GET/PUT /promotions, bearer) with a window, a total cap and a per-customer cap; a customer
// enters one (POST /vendor/promotion/award, session_key) for points or a reward, once per customer
// unless the cap says more. Bad input, other customers and other vendors are refused.

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

const expectLegacyError = legacyErrorCheck({ depth: 'basic', noStackTrace: true });
const { addReward, balanceOf } = inStoreApi(() => node);
let codes = 0;
const newCode = (prefix = 'SAVE') => `${prefix}-${++codes}${Date.now().toString(36).slice(-3).toUpperCase()}`;
const iso = (ms: number) => new Date(ms).toISOString();

const create = (v: VendorCredentials, body: Record<string, unknown>) => http(`${node.url}/promotions`, { method: 'POST', token: v.accessToken, body });
async function createOk(v: VendorCredentials, body: Record<string, unknown>): Promise<any> {
  const reply = await create(v, { name: 'Summer', ...body });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body;
}
const put = (v: VendorCredentials, id: string, body: unknown) => http(`${node.url}/promotions/${id}`, { method: 'PUT', token: v.accessToken, body });
const award = (c: Customer, code: unknown) => http(`${node.url}${withSessionKey('/vendor/promotion/award', c.key)}`, { method: 'POST', body: { code } });
async function awardOk(c: Customer, code: string): Promise<any> {
  const reply = await award(c, code);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body;
}
function resourceError(reply: HttpReply, status: number, code: string): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  expect(reply.body.code).toBe(code);
}

describe('POST /promotions and POST /vendor/promotion/award', () => {
  it('creates a points promotion; a customer enters the code in any case, once; it shows in the history', async () => {
    const v = await node.addVendor();
    const code = newCode();
    const promo = await createOk(v, { code, name: 'Summer', description: 'Fifty on us', points: 50, ends_at: iso(node.clock.now() + 86_400_000) });
    expect(promo).toEqual({
      id: expect.stringMatching(/^promo_/),
      code,
      name: 'Summer',
      description: 'Fifty on us',
      points: 50,
      currency: expect.stringMatching(/^curr_/),
      reward: null,
      starts_at: null,
      ends_at: iso(node.clock.now() + 86_400_000),
      total_cap: null,
      per_customer_cap: 1,
      awarded_count: 0,
      status: 'ACTIVE',
      date_created: iso(node.clock.now()),
      date_updated: iso(node.clock.now()),
    });
    const c = await signUpAt(node, v.vendorId);
    const body = await awardOk(c, ` ${code.toLowerCase().replace('-', '')} `);
    expect(body).toEqual({
      object: 'promotion_award',
      promotion: { code, name: 'Summer', description: 'Fifty on us' },
      reward: null,
      amount: 50,
      currency: { id: v.loyaltyCurrencyId, name: 'Points', code: null, object: 'currency' },
      balance: 50,
      transaction_id: expect.any(Number),
    });
    expect(await balanceOf(v.loyaltyCurrencyId, c.userId)).toBe(50);
    const history = await http(`${node.url}${withSessionKey('/user/transaction/list', c.key)}`);
    expect(history.body.data[0]).toMatchObject({ object: 'promotion', id: body.transaction_id, total: 0, status: 'Complete', rewards: [{ kind: 'promotion', amount: 50, currency: 'Points' }] });

    expectLegacyError(await award(c, code), 409, 'promotion_already_awarded');
    expect(await balanceOf(v.loyaltyCurrencyId, c.userId)).toBe(50);
    const listed = await http(`${node.url}/promotions/${promo.id}`, { token: v.accessToken });
    expect(listed.body.awarded_count).toBe(1);
  });

  it('a reward promotion credits the reward’s cost so it can be redeemed at once', async () => {
    const v = await node.addVendor();
    const reward = await addReward(v, { name: 'Free muffin', cost: 30 });
    const code = newCode('MUFFIN');
    await createOk(v, { code, reward: reward.id });
    const c = await signUpAt(node, v.vendorId);
    const body = await awardOk(c, code);
    expect(body).toMatchObject({ reward: { id: reward.id, name: 'Free muffin' }, amount: 30, balance: 30 });
    const rewards = await http(`${node.url}${withSessionKey('/user/reward/list', c.key)}`);
    expect(rewards.body.data.find((r: { id: unknown; name: string }) => r.name === 'Free muffin')).toMatchObject({ available: 1 });
  });

  it('respects the total cap and a per-customer cap above 1', async () => {
    const v = await node.addVendor();
    const code = newCode();
    await createOk(v, { code, points: 5, total_cap: 3, per_customer_cap: 2 });
    const [a, b, c] = [await signUpAt(node, v.vendorId), await signUpAt(node, v.vendorId), await signUpAt(node, v.vendorId)];
    await awardOk(a, code);
    await awardOk(a, code);
    expectLegacyError(await award(a, code), 409, 'promotion_already_awarded');
    await awardOk(b, code);
    expectLegacyError(await award(c, code), 422, 'promotion_exhausted');
    expect((await http(`${node.url}/promotions?query=${encodeURIComponent(`n:${code}`)}`, { token: v.accessToken })).body.items[0].awarded_count).toBe(3);
    expect([await balanceOf(v.loyaltyCurrencyId, a.userId), await balanceOf(v.loyaltyCurrencyId, b.userId), await balanceOf(v.loyaltyCurrencyId, c.userId)]).toEqual([10, 5, 0]);
  });

  it('never exceeds its caps under simultaneous entries', async () => {
    const v = await node.addVendor();
    const code = newCode();
    await createOk(v, { code, points: 4, total_cap: 2 });
    const customers = await Promise.all([1, 2, 3, 4, 5].map(() => signUpAt(node, v.vendorId)));
    const replies = await Promise.all([...customers, customers[0]!].map((c) => award(c, code)));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(2);
    for (const r of replies.filter((x) => x.status !== 200)) expect(['promotion_exhausted', 'promotion_already_awarded']).toContain(r.body.error.errors[0].reason);
    const awarded = await node.engine.db.selectFrom('promotion_awards').select('user_id').execute();
    const mine = awarded.filter((a) => customers.some((c) => c.userId === a.user_id));
    expect(mine).toHaveLength(2);
    expect(new Set(mine.map((a) => a.user_id)).size).toBe(2);
    const total = await Promise.all(customers.map((c) => balanceOf(v.loyaltyCurrencyId, c.userId)));
    expect(total.reduce((sum, b) => sum + b, 0)).toBe(8);
  });

  it('awards nothing while paused or outside its window; resumes when set ACTIVE', async () => {
    const v = await node.addVendor();
    const code = newCode();
    const promo = await createOk(v, { code, points: 7, status: 'PAUSED' });
    const c = await signUpAt(node, v.vendorId);
    expectLegacyError(await award(c, code), 422, 'promotion_not_active');
    expect((await put(v, promo.id, { status: 'ACTIVE', starts_at: iso(node.clock.now() + 3_600_000) })).body).toMatchObject({ status: 'ACTIVE' });
    expectLegacyError(await award(c, code), 422, 'promotion_not_active');
    node.clock.advance(3_600_000);
    await awardOk(c, code);
    const paused = await put(v, promo.id, { status: 'PAUSED', per_customer_cap: 5 });
    expect(paused.body).toMatchObject({ status: 'PAUSED', per_customer_cap: 5, awarded_count: 1 });
    expectLegacyError(await award(c, code), 422, 'promotion_not_active');
    await put(v, promo.id, { status: 'ACTIVE', ends_at: iso(node.clock.now() + 1000) });
    node.clock.advance(1000);
    expectLegacyError(await award(c, code), 422, 'promotion_not_active');
    expect(await balanceOf(v.loyaltyCurrencyId, c.userId)).toBe(7);
  });

  it('refuses bad promotions: prize, code, caps, dates, status, duplicates', async () => {
    const v = await node.addVendor();
    const code = newCode();
    await createOk(v, { code, points: 1 });
    const reward = await addReward(v, { cost: 10 });
    const bad: Array<[Record<string, unknown>, number, string]> = [
      [{ code: newCode(), name: 'x' }, 400, 'validation_failed'],
      [{ code: newCode(), name: 'x', points: 5, reward: reward.id }, 400, 'validation_failed'],
      [{ code: newCode(), name: 'x', points: 0 }, 400, 'validation_failed'],
      [{ code: 'ab', name: 'x', points: 5 }, 400, 'validation_failed'],
      [{ code: 'no!pe', name: 'x', points: 5 }, 400, 'validation_failed'],
      [{ code: newCode(), name: 'x', points: 5, total_cap: 0 }, 400, 'validation_failed'],
      [{ code: newCode(), name: 'x', points: 5, per_customer_cap: 0 }, 400, 'validation_failed'],
      [{ code: newCode(), name: 'x', points: 5, status: 'OFF' }, 400, 'validation_failed'],
      [{ code: newCode(), name: 'x', points: 5, starts_at: 'soon' }, 400, 'validation_failed'],
      [{ code: newCode(), name: 'x', points: 5, starts_at: iso(node.clock.now() + 2000), ends_at: iso(node.clock.now() + 1000) }, 400, 'invalid_date_range'],
      [{ code: newCode(), name: 'x', points: 5, currency: `curr_${v.quickPayCurrencyId}` }, 422, 'unknown_currency'],
      [{ code: newCode(), name: 'x', reward: 'rwd_nope' }, 404, 'reward_not_found'],
      [{ code: code.toLowerCase(), name: 'x', points: 5 }, 409, 'promotion_code_taken'],
    ];
    for (const [body, status, reason] of bad) resourceError(await create(v, body), status, reason);
    const list = await http(`${node.url}/promotions`, { token: v.accessToken });
    expect(list.body.items).toHaveLength(1);
    expect((await http(`${node.url}/promotions`, { method: 'POST', body: { code: newCode(), name: 'x', points: 1 } })).status).toBe(401);
  });

  it("refuses codes of other programs, other vendors' promotions and bad award input", async () => {
    const v = await node.addVendor();
    const code = newCode();
    const promo = await createOk(v, { code, points: 3 });
    const other = await node.addVendor();
    const stranger = await signUpAt(node, other.vendorId);
    expectLegacyError(await award(stranger, code), 404, 'promotion_code_unknown');
    resourceError(await http(`${node.url}/promotions/${promo.id}`, { token: other.accessToken }), 404, 'promotion_not_found');
    resourceError(await put(other, promo.id, { status: 'PAUSED' }), 404, 'promotion_not_found');
    expect((await http(`${node.url}/promotions/${promo.id}`, { token: v.accessToken })).body.status).toBe('ACTIVE');
    expect((await http(`${node.url}/promotions`, { token: other.accessToken })).body.items).toEqual([]);

    const c = await signUpAt(node, v.vendorId);
    expectLegacyError(await award(c, ''), 400, 'validation_failed');
    expectLegacyError(await award(c, 'NOPE-NOPE'), 404, 'promotion_code_unknown');
    expectLegacyError(await http(`${node.url}/vendor/promotion/award`, { method: 'POST', body: { code } }), 401, 'missing_credentials');
    expect(await balanceOf(v.loyaltyCurrencyId, c.userId)).toBe(0);
  });

  it('lists the program’s promotions newest first, filtered by status', async () => {
    const v = await node.addVendor();
    const first = await createOk(v, { code: newCode(), points: 1 });
    node.clock.advance(1000);
    const second = await createOk(v, { code: newCode(), points: 1, status: 'PAUSED' });
    const all = await http(`${node.url}/promotions`, { token: v.accessToken });
    expect(all.body).toEqual({ items: [second, first], next: null, prev: null });
    const paused = await http(`${node.url}/promotions?query=${encodeURIComponent('s:PAUSED')}`, { token: v.accessToken });
    expect(paused.body.items.map((p: { id: string }) => p.id)).toEqual([second.id]);
  });
});
