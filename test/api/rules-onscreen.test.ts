import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerOkAt, ROOMY_RATE_LIMITS } from '../support/customers';
import { inStoreApi } from '../support/in-store';
import { resourceApi } from '../support/resource-api';
import { http, startTestNode, type TestNode } from '../support/test-node';

// What the counter sees of the rules a vendor manages: the retrieve-customer reply
// (GET /onscreen?pos_session_hash&api_key) after earning rules and tiers change over /earning-rules
// and /tiers.

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});

afterAll(async () => {
  await node?.close();
});

const enc = encodeURIComponent;
const sec = (ms: number) => Math.floor(ms / 1000);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const rules = resourceApi(() => node, '/earning-rules');
const tiers = resourceApi(() => node, '/tiers');
const currencies = resourceApi(() => node, '/currencies');

/** A vendor with a customer registered over /user/register and checked in with their email. */
async function checkedInCustomer() {
  const v = await node.addVendor();
  const { email, user } = await registerOkAt(node, v.vendorId);
  const checkIn = await http(`${node.url}/onscreen?api_key=${enc(v.apiKey)}`, { method: 'POST', body: { card_number: email } });
  expect(checkIn.status, JSON.stringify(checkIn.body)).toBe(201);
  const points = (await currencies.listAll(v.accessToken)).find((c) => c.name === 'Points');
  return { v, token: v.accessToken, userId: Number(user.id), hash: checkIn.body.pos_session.hash as string, pointsId: points.id as string };
}

async function retrieve(apiKey: string, hash: string): Promise<any> {
  const reply = await http(`${node.url}/onscreen?pos_session_hash=${enc(hash)}&api_key=${enc(apiKey)}`);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body;
}

const ruleRowId = async (publicId: string) =>
  (await node.engine.db.selectFrom('earning_rules').select('id').where('public_id', '=', publicId).executeTakeFirstOrThrow()).id;
const tierRowId = async (publicId: string) => (await node.engine.db.selectFrom('tiers').select('id').where('public_id', '=', publicId).executeTakeFirstOrThrow()).id;

describe('the retrieve-customer reply follows the managed rules', () => {
  it('shows a new earning rule with its fields, in the legacy units (major money units, Unix seconds)', async () => {
    const c = await checkedInCustomer();
    const now = node.clock.now();
    const [defaultRule] = await rules.listAll(c.token);
    const created = await rules.createOk(c.token, {
      name: 'Double weekend',
      currency: c.pointsId,
      points: 2,
      per_amount: 0.5,
      rounding: 'ceil',
      max_award: 50,
      starts_at: new Date(now - HOUR).toISOString(),
      ends_at: new Date(now + DAY).toISOString(),
    });
    const body = await retrieve(c.v.apiKey, c.hash);
    const points = { id: c.v.loyaltyCurrencyId, name: 'Points', code: null };
    expect(body.rules.earning).toStrictEqual({
      object: 'earning_rules',
      data: [
        { id: await ruleRowId(defaultRule.id), name: '1 point per unit spent', currency: points, points: 1, per_amount: 1, rounding: 'floor', max_award: null, starts: null, ends: null },
        { id: await ruleRowId(created.id), name: 'Double weekend', currency: points, points: 2, per_amount: 0.5, rounding: 'ceil', max_award: 50, starts: sec(now - HOUR), ends: sec(now + DAY) },
      ],
    });
  });

  it('leaves out paused, archived, not yet started and ended rules, and follows changes and deletions', async () => {
    const c = await checkedInCustomer();
    const now = node.clock.now();
    const base = { currency: c.pointsId, points: 1, per_amount: 1 };
    const [defaultRule] = await rules.listAll(c.token);
    await rules.createOk(c.token, { ...base, name: 'Paused', status: 'INACTIVE' });
    await rules.createOk(c.token, { ...base, name: 'Retired', status: 'ARCHIVED' });
    await rules.createOk(c.token, { ...base, name: 'Next month', starts_at: new Date(now + 30 * DAY).toISOString() });
    await rules.createOk(c.token, { ...base, name: 'Last month', ends_at: new Date(now - DAY).toISOString() });
    const live = await rules.createOk(c.token, { ...base, name: 'Live' });
    const names = async () => (await retrieve(c.v.apiKey, c.hash)).rules.earning.data.map((r: any) => r.name);
    expect(await names()).toEqual(['1 point per unit spent', 'Live']);

    expect((await rules.put(c.token, live.id, { name: 'Live and renamed', points: 3 })).status).toBe(200);
    expect((await retrieve(c.v.apiKey, c.hash)).rules.earning.data[1]).toMatchObject({ id: await ruleRowId(live.id), name: 'Live and renamed', points: 3 });

    expect((await rules.put(c.token, live.id, { status: 'INACTIVE' })).status).toBe(200);
    expect(await names()).toEqual(['1 point per unit spent']);
    expect((await rules.del(c.token, defaultRule.id)).status).toBe(200);
    expect(await names()).toEqual([]);
  });

  it('shows a rule in another loyalty currency with that currency', async () => {
    const c = await checkedInCustomer();
    const stars = await currencies.createOk(c.token, { name: 'Stars' });
    await rules.createOk(c.token, { name: 'Stars per visit', currency: stars.id, points: 5, per_amount: 20 });
    const starsId = (await node.engine.db.selectFrom('currencies').select('id').where('public_id', '=', stars.id).executeTakeFirstOrThrow()).id;
    const data = (await retrieve(c.v.apiKey, c.hash)).rules.earning.data;
    expect(data.find((r: any) => r.name === 'Stars per visit')).toMatchObject({ currency: { id: starsId, name: 'Stars', code: null }, points: 5, per_amount: 20 });
  });

  it('does not offer rules or rewards counting in a cash currency (one with an ISO code): orders skip such rules and refuse such rewards', async () => {
    const c = await checkedInCustomer();
    const stars = await currencies.createOk(c.token, { name: 'Stars' });
    await rules.createOk(c.token, { name: 'Stars per visit', currency: stars.id, points: 5, per_amount: 20 });
    const inStars = await http(`${node.url}/rewards`, { method: 'POST', token: c.token, body: { name: 'Star treat', cost: 3, currency: stars.id } });
    expect(inStars.status, JSON.stringify(inStars.body)).toBe(201);
    const points = await http(`${node.url}/rewards`, { method: 'POST', token: c.token, body: { name: 'Point treat', cost: 3, currency: c.pointsId } });
    expect(points.status, JSON.stringify(points.body)).toBe(201);
    // Made before a cash currency was refused, or written by SQL: a rule and a reward in quick pay,
    // and Stars given a code.
    const store = inStoreApi(() => node);
    await store.addRule(c.v, { name: 'Cash back', points: 10, per_amount: 100, rounding: 'floor', currency_id: c.v.quickPayCurrencyId });
    await store.addReward(c.v, { name: 'Dollar treat', cost: 300, currency_id: c.v.quickPayCurrencyId });
    await node.engine.db.updateTable('currencies').set({ code: 'EUR' }).where('public_id', '=', stars.id).execute();

    const body = await retrieve(c.v.apiKey, c.hash);
    expect(body.rules.earning.data.map((r: any) => r.name)).toEqual(['1 point per unit spent']);
    expect(body.rules.spending.data.map((r: any) => r.name)).toEqual(['Point treat']);
  });

  it('names a new tier as the next one, follows its changes, and shows the move when the current tier is deleted', async () => {
    const c = await checkedInCustomer();
    const [member] = await tiers.listAll(c.token);
    const memberWire = { object: 'tier', id: await tierRowId(member.id), name: 'Member', summary: member.summary, description: member.description, threshold: 0 };
    const first = await retrieve(c.v.apiKey, c.hash);
    expect(first.rules.tier).toStrictEqual({ object: 'tier_rules', current: memberWire, next: null, currency: { id: c.v.loyaltyCurrencyId, name: 'Points', code: null } });
    expect(first.user.tier).toStrictEqual(memberWire);

    const gold = await tiers.createOk(c.token, { name: 'Gold', summary: 'For regulars.', description: 'Earn faster.', threshold: 500, window_days: 365 });
    await tiers.createOk(c.token, { name: 'Platinum', threshold: 5000 });
    const goldWire = { object: 'tier', id: await tierRowId(gold.id), name: 'Gold', summary: 'For regulars.', description: 'Earn faster.', threshold: 500 };
    expect((await retrieve(c.v.apiKey, c.hash)).rules.tier).toStrictEqual({ object: 'tier_rules', current: memberWire, next: goldWire, currency: { id: c.v.loyaltyCurrencyId, name: 'Points', code: null } });

    expect((await tiers.put(c.token, gold.id, { name: 'Gold club', threshold: 400 })).status).toBe(200);
    const renamed = { ...goldWire, name: 'Gold club', threshold: 400 };
    expect((await retrieve(c.v.apiKey, c.hash)).rules.tier.next).toStrictEqual(renamed);

    expect((await tiers.del(c.token, member.id)).status).toBe(200);
    const after = await retrieve(c.v.apiKey, c.hash);
    expect(after.user.tier).toStrictEqual(renamed);
    expect(after.rules.tier.current).toStrictEqual(renamed);
    expect(after.rules.tier.next).toMatchObject({ name: 'Platinum', threshold: 5000 });
  });

  it("does not show another vendor's rules or tiers", async () => {
    const c = await checkedInCustomer();
    const other = await node.addVendor();
    const otherPoints = (await currencies.listAll(other.accessToken)).find((x) => x.name === 'Points');
    await rules.createOk(other.accessToken, { name: 'Elsewhere', currency: otherPoints.id, points: 9, per_amount: 1 });
    await tiers.createOk(other.accessToken, { name: 'Elsewhere tier', threshold: 10 });
    const body = await retrieve(c.v.apiKey, c.hash);
    expect(body.rules.earning.data.map((r: any) => r.name)).toEqual(['1 point per unit spent']);
    expect(body.rules.tier.next).toBeNull();
  });
});
