import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORM, registerOkAt, ROOMY_RATE_LIMITS } from '../support/customers';
import { expectResourceError, ISO_MS_UTC, resourceApi } from '../support/resource-api';
import { http, type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// Tiers over real HTTP (/tiers): every field, each validation error, unique thresholds, the last
// tier that cannot go, members moved down when their tier is deleted, lists and isolation.

const TIER_ID = /^tier_[0-9a-z]{20}$/;
const FIELDS = ['date_created', 'date_updated', 'description', 'id', 'name', 'summary', 'threshold', 'window_days'];

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});

afterAll(async () => {
  await node?.close();
});

// ---------------------------------------------------------------------------------------------
// helpers

const nowIso = () => new Date(node.clock.now()).toISOString();
const tick = (ms = 1) => node.clock.advance(ms);

const { url, create, createOk, get, put, del, list, listAll } = resourceApi(() => node, '/tiers');

const expectError = (reply: HttpReply, status: number, code: string, field?: string) => expectResourceError(reply, status, code, field);

async function vendor() {
  const creds = await node.addVendor();
  const [member] = await listAll(creds.accessToken);
  expect(member?.name).toBe('Member');
  return { ...creds, token: creds.accessToken, member };
}

const tierRow = (publicId: string) => node.engine.db.selectFrom('tiers').selectAll().where('public_id', '=', publicId).executeTakeFirst();

/** A registered customer of the vendor: user id and its membership row's tier. */
async function customer(vendorId: number) {
  const { user } = await registerOkAt(node, vendorId);
  return Number(user.id);
}

const link = (userId: number, vendorId: number) =>
  node.engine.db.selectFrom('user_vendors').selectAll().where('user_id', '=', userId).where('vendor_id', '=', vendorId).executeTakeFirstOrThrow();

async function placeIn(userId: number, vendorId: number, tierPublicId: string): Promise<void> {
  const tier = await tierRow(tierPublicId);
  await node.engine.db.updateTable('user_vendors').set({ tier_id: tier!.id }).where('user_id', '=', userId).where('vendor_id', '=', vendorId).execute();
}

// ---------------------------------------------------------------------------------------------

describe('the entry tier', () => {
  it('"Member" (threshold 0, all time) is listed after vendor set-up', async () => {
    const creds = await node.addVendor();
    const created = nowIso();
    const tiers = await listAll(creds.accessToken);
    expect(tiers).toHaveLength(1);
    expect(Object.keys(tiers[0]).sort()).toEqual(FIELDS);
    expect(tiers[0].id).toMatch(TIER_ID);
    expect(tiers[0]).toEqual({
      id: tiers[0].id,
      name: 'Member',
      summary: 'Welcome to the program.',
      description: 'Every member earns points on every visit.',
      threshold: 0,
      window_days: null,
      date_created: created,
      date_updated: created,
    });
    expect((await get(creds.accessToken, tiers[0].id)).body).toEqual(tiers[0]);
  });

  it('gets a public id the first time it is listed when the row has none', async () => {
    const v = await vendor();
    await node.engine.db.updateTable('tiers').set({ public_id: null }).where('vendor_id', '=', v.vendorId).execute();
    const [tier] = await listAll(v.token);
    expect(tier.id).toMatch(TIER_ID);
    expect(tier.id).not.toBe(v.member.id);
    expect({ ...tier, id: v.member.id }).toEqual(v.member);
    expect((await listAll(v.token))[0].id).toBe(tier.id);
    expect((await get(v.token, tier.id)).body).toEqual(tier);
  });
});

describe('POST /tiers', () => {
  it('creates a tier with every field: 201, tier_ id', async () => {
    const v = await vendor();
    tick(500);
    const created = nowIso();
    const reply = await create(v.token, { name: ' Gold ', summary: 'For regulars. ', description: ' Double points.', threshold: 500, window_days: 365 });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    expect(Object.keys(reply.body).sort()).toEqual(FIELDS);
    expect(reply.body.id).toMatch(TIER_ID);
    expect(reply.body.date_created).toMatch(ISO_MS_UTC);
    expect(reply.body).toEqual({
      id: reply.body.id,
      name: 'Gold',
      summary: 'For regulars.',
      description: 'Double points.',
      threshold: 500,
      window_days: 365,
      date_created: created,
      date_updated: created,
    });
    expect((await get(v.token, reply.body.id)).body).toEqual(reply.body);
    expect(await tierRow(reply.body.id)).toMatchObject({ vendor_id: v.vendorId, threshold: 500, window_days: 365 });
  });

  it('defaults summary and description to empty and the window to all time', async () => {
    const v = await vendor();
    const tier = await createOk(v.token, { name: 'Silver', threshold: 100 });
    expect(tier).toMatchObject({ summary: '', description: '', window_days: null });
    const nulls = await createOk(v.token, { name: 'Bronze', threshold: 50, summary: null, description: null, window_days: null });
    expect(nulls).toMatchObject({ summary: '', description: '', window_days: null });
  });

  it('accepts form fields', async () => {
    const v = await vendor();
    const reply = await create(v.token, 'name=Platinum&threshold=2000&window_days=90', FORM);
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    expect(reply.body).toMatchObject({ name: 'Platinum', threshold: 2000, window_days: 90 });
  });

  it.each([['name'], ['threshold']])('requires %s (400 validation_failed)', async (field) => {
    const v = await vendor();
    const body: Record<string, unknown> = { name: 'Gold', threshold: 500 };
    delete body[field];
    expectError(await create(v.token, body), 400, 'validation_failed', field);
    expect(await listAll(v.token)).toHaveLength(1);
  });

  it.each([
    ['name', ' '],
    ['name', 'g'.repeat(101)],
    ['summary', 's'.repeat(201)],
    ['description', 'd'.repeat(2001)],
    ['threshold', -1],
    ['threshold', 10.5],
    ['threshold', 'high'],
    ['window_days', 0],
    ['window_days', -30],
    ['window_days', 1.5],
    ['window_days', 36_501],
  ])('refuses %s = %j with 400 validation_failed naming the field', async (field, value) => {
    const v = await vendor();
    expectError(await create(v.token, { name: 'Gold', threshold: 500, [field]: value }), 400, 'validation_failed', field);
    expect(await listAll(v.token)).toHaveLength(1);
  });

  it('refuses a threshold another tier of the vendor has (409 tier_threshold_taken); other vendors may use it', async () => {
    const v = await vendor();
    const other = await vendor();
    expectError(await create(v.token, { name: 'Zero', threshold: 0 }), 409, 'tier_threshold_taken', 'threshold');
    await createOk(v.token, { name: 'Gold', threshold: 500 });
    expectError(await create(v.token, { name: 'Also gold', threshold: 500 }), 409, 'tier_threshold_taken', 'threshold');
    expect(await listAll(v.token)).toHaveLength(2);
    expect((await create(other.token, { name: 'Gold', threshold: 500 })).status).toBe(201);
  });

  it('refuses a name another tier of the vendor has, in any case (409 tier_name_taken)', async () => {
    const v = await vendor();
    const gold = await createOk(v.token, { name: 'Gold', threshold: 200 });
    expectError(await create(v.token, { name: 'GOLD', threshold: 300 }), 409, 'tier_name_taken', 'name');
    const silver = await createOk(v.token, { name: 'Silver', threshold: 100 });
    expectError(await put(v.token, silver.id, { name: 'gold' }), 409, 'tier_name_taken', 'name');
    expect((await put(v.token, gold.id, { name: 'Gold ' })).status).toBe(200);
    expect(await listAll(v.token)).toHaveLength(3);
  });

  it('gives exactly one winner when the same threshold is created concurrently', async () => {
    const v = await vendor();
    const replies = await Promise.all(Array.from({ length: 6 }, (_, i) => create(v.token, { name: `Race ${i}`, threshold: 700 })));
    expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of replies.filter((x) => x.status !== 201)) expectError(r, 409, 'tier_threshold_taken', 'threshold');
    expect(await listAll(v.token)).toHaveLength(2);
  });
});

describe('PUT /tiers/:id', () => {
  it('changes only the fields sent; date_updated moves', async () => {
    const v = await vendor();
    const gold = await createOk(v.token, { name: 'Gold', summary: 'S', description: 'D', threshold: 500, window_days: 30 });
    tick(3000);
    const reply = await put(v.token, gold.id, { name: 'Golden', threshold: 600 });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toEqual({ ...gold, name: 'Golden', threshold: 600, date_updated: nowIso() });
    expect((await get(v.token, gold.id)).body).toEqual(reply.body);
  });

  it('changes every field, and null clears the window and the texts', async () => {
    const v = await vendor();
    const gold = await createOk(v.token, { name: 'Gold', summary: 'S', description: 'D', threshold: 500, window_days: 30 });
    const reply = await put(v.token, gold.id, { name: 'Silver', summary: null, description: 'New', threshold: 250, window_days: null });
    expect(reply.body).toMatchObject({ name: 'Silver', summary: '', description: 'New', threshold: 250, window_days: null });
    expect((await tierRow(gold.id))?.window_days).toBeNull();
  });

  it('accepts the whole object echoed back, keeping its own threshold', async () => {
    const v = await vendor();
    const reply = await put(v.token, v.member.id, v.member);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect({ ...reply.body, date_updated: v.member.date_updated }).toEqual(v.member);
  });

  it("refuses another tier's threshold (409) and invalid values (400), changing nothing", async () => {
    const v = await vendor();
    const gold = await createOk(v.token, { name: 'Gold', threshold: 500 });
    expectError(await put(v.token, gold.id, { threshold: 0 }), 409, 'tier_threshold_taken', 'threshold');
    expectError(await put(v.token, gold.id, { window_days: 0 }), 400, 'validation_failed', 'window_days');
    expectError(await put(v.token, gold.id, { threshold: -5 }), 400, 'validation_failed', 'threshold');
    expectError(await put(v.token, gold.id, { name: '' }), 400, 'validation_failed', 'name');
    expect((await get(v.token, gold.id)).body).toEqual(gold);
  });

  it('answers 404 tier_not_found for an unknown id', async () => {
    const v = await vendor();
    expectError(await put(v.token, 'tier_00000000000000000000', { name: 'x' }), 404, 'tier_not_found');
    expectError(await get(v.token, 'tier_00000000000000000000'), 404, 'tier_not_found');
  });
});

describe('DELETE /tiers/:id', () => {
  it('answers {} and removes a tier nobody is in: 404 afterwards, gone from the database', async () => {
    const v = await vendor();
    const gold = await createOk(v.token, { name: 'Gold', threshold: 500 });
    const reply = await del(v.token, gold.id);
    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual({});
    expectError(await get(v.token, gold.id), 404, 'tier_not_found');
    expectError(await del(v.token, gold.id), 404, 'tier_not_found');
    expect(await tierRow(gold.id)).toBeUndefined();
    expect(await listAll(v.token)).toEqual([v.member]);
  });

  it('refuses deleting the last tier with 409 last_tier', async () => {
    const v = await vendor();
    expectError(await del(v.token, v.member.id), 409, 'last_tier');
    expect(await listAll(v.token)).toEqual([v.member]);
  });

  it('moves the members of a deleted tier to the tier below it, with tier_since now', async () => {
    const v = await vendor();
    const silver = await createOk(v.token, { name: 'Silver', threshold: 100 });
    const gold = await createOk(v.token, { name: 'Gold', threshold: 500 });
    const inGold = await customer(v.vendorId);
    const inMember = await customer(v.vendorId);
    await placeIn(inGold, v.vendorId, gold.id);
    tick(60_000);
    expect((await del(v.token, gold.id)).status).toBe(200);
    const silverRow = await tierRow(silver.id);
    const memberRow = await tierRow(v.member.id);
    expect(await link(inGold, v.vendorId)).toMatchObject({ tier_id: silverRow!.id, tier_since: node.clock.now() });
    const untouched = await link(inMember, v.vendorId);
    expect(untouched.tier_id).toBe(memberRow!.id);
    expect(untouched.tier_since).toBeLessThan(node.clock.now());
  });

  it('moves the members of a deleted lowest tier up to the new lowest tier, the one new members join', async () => {
    const v = await vendor();
    const silver = await createOk(v.token, { name: 'Silver', threshold: 100 });
    await createOk(v.token, { name: 'Gold', threshold: 500 });
    const before = await customer(v.vendorId);
    expect((await del(v.token, v.member.id)).status).toBe(200);
    const silverRow = await tierRow(silver.id);
    expect((await link(before, v.vendorId)).tier_id).toBe(silverRow!.id);
    const after = await customer(v.vendorId);
    expect((await link(after, v.vendorId)).tier_id).toBe(silverRow!.id);
  });

  it('also moves memberships the customer deleted, so nothing points at a missing tier', async () => {
    const v = await vendor();
    const gold = await createOk(v.token, { name: 'Gold', threshold: 500 });
    const gone = await customer(v.vendorId);
    await placeIn(gone, v.vendorId, gold.id);
    await node.engine.db.updateTable('user_vendors').set({ removed_at: node.clock.now() }).where('user_id', '=', gone).execute();
    expect((await del(v.token, gold.id)).status).toBe(200);
    const memberRow = await tierRow(v.member.id);
    expect((await link(gone, v.vendorId)).tier_id).toBe(memberRow!.id);
  });
});

describe('GET /tiers (list)', () => {
  async function fixtures() {
    const v = await vendor();
    const made: any[] = [];
    for (const [name, threshold] of [
      ['Gold', 500],
      ['silver', 100],
      ['Golden circle', 5000],
    ] as const) {
      tick();
      made.push(await createOk(v.token, { name, threshold }));
    }
    return { v, made };
  }

  it('lists newest first; sort=threshold gives the ladder', async () => {
    const { v, made } = await fixtures();
    expect((await list(v.token)).body.items.map((t: any) => t.id)).toEqual([made[2].id, made[1].id, made[0].id, v.member.id]);
    expect((await list(v.token, { sort: 'threshold', order: 'ASC' })).body.items.map((t: any) => t.threshold)).toEqual([0, 100, 500, 5000]);
    expect((await list(v.token, { sort: 'name', order: 'ASC' })).body.items.map((t: any) => t.name)).toEqual(['Gold', 'Golden circle', 'Member', 'silver']);
  });

  it('n: keeps names starting with the value in any case; s: is not a tier filter', async () => {
    const { v, made } = await fixtures();
    expect(new Set((await list(v.token, { query: 'n:gold' })).body.items.map((t: any) => t.id))).toEqual(new Set([made[0].id, made[2].id]));
    expect((await list(v.token, { query: 'n:SIL' })).body.items.map((t: any) => t.id)).toEqual([made[1].id]);
    expect((await list(v.token, { query: 'n:zzz' })).body.items).toEqual([]);
    expectError(await list(v.token, { query: 's:ACTIVE' }), 400, 'invalid_query', 'query');
    expectError(await list(v.token, { sort: 'cost' }), 400, 'invalid_sort', 'sort');
  });

  it('pages with next and prev', async () => {
    const { v } = await fixtures();
    const first = await list(v.token, { limit: 3, sort: 'threshold', order: 'ASC' });
    expect(first.body.items.map((t: any) => t.threshold)).toEqual([0, 100, 500]);
    const next = new URL(first.body.next);
    expect(next.searchParams.get('sort')).toBe('threshold');
    const second = await http(first.body.next, { token: v.token });
    expect(second.body.items.map((t: any) => t.threshold)).toEqual([5000]);
    expect(second.body.next).toBeNull();
    expect(second.body.prev).not.toBeNull();
  });
});

describe('authentication and vendor isolation', () => {
  it('answers 401 without a bearer token', async () => {
    const v = await vendor();
    expectError(await http(url('/tiers')), 401, 'missing_credentials');
    expectError(await http(url('/tiers'), { method: 'POST', body: { name: 'Gold', threshold: 5 } }), 401, 'missing_credentials');
    expectError(await http(url(`/tiers/${v.member.id}`)), 401, 'missing_credentials');
    expectError(await http(url(`/tiers/${v.member.id}`), { method: 'PUT', body: { name: 'x' } }), 401, 'missing_credentials');
    expectError(await http(url(`/tiers/${v.member.id}`), { method: 'DELETE' }), 401, 'missing_credentials');
    expect(await listAll(v.token)).toEqual([v.member]);
  });

  it("answers 404 tier_not_found for another vendor's tier and leaves it alone", async () => {
    const a = await vendor();
    const b = await vendor();
    const gold = await createOk(b.token, { name: 'Gold', threshold: 500 });
    for (const id of [gold.id, b.member.id]) {
      expectError(await get(a.token, id), 404, 'tier_not_found');
      expectError(await put(a.token, id, { name: 'Hijacked' }), 404, 'tier_not_found');
      expectError(await del(a.token, id), 404, 'tier_not_found');
    }
    expect((await get(b.token, gold.id)).body).toEqual(gold);
    expect(await listAll(a.token)).toEqual([a.member]);
    expect(await listAll(b.token)).toHaveLength(2);
  });
});
