import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORM } from '../support/customers';
import { expectResourceError, ISO_MS_UTC, resourceApi, vendorWithCurrencies } from '../support/resource-api';
import { http, type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// Rewards (spending rules) over real HTTP (/rewards): every field, each validation error, status
// moves, soft delete, lists and vendor isolation.

const REWARD_ID = /^rwd_[0-9a-z]{20}$/;
const FIELDS = ['cost', 'currency', 'date_created', 'date_updated', 'description', 'ends_at', 'id', 'name', 'starts_at', 'status', 'summary'];

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode();
});

afterAll(async () => {
  await node?.close();
});

// ---------------------------------------------------------------------------------------------
// helpers

const nowIso = () => new Date(node.clock.now()).toISOString();
const tick = (ms = 1) => node.clock.advance(ms);

const { url, create, createOk, get, put, del, list, listAll } = resourceApi(() => node, '/rewards');
const currencies = resourceApi(() => node, '/currencies');

const expectError = (reply: HttpReply, status: number, code: string, field?: string) => expectResourceError(reply, status, code, field);

const vendor = () => vendorWithCurrencies(node);

const storedReward = (publicId: string) => node.engine.db.selectFrom('spending_rules').selectAll().where('public_id', '=', publicId).executeTakeFirst();

const coffee = (v: { points: string }, extra: Record<string, unknown> = {}) => ({ name: 'Free coffee', cost: 100, currency: v.points, ...extra });

// ---------------------------------------------------------------------------------------------

describe('POST /rewards', () => {
  it('a new program has no rewards', async () => {
    const v = await vendor();
    expect((await list(v.token)).body).toEqual({ items: [], next: null, prev: null });
  });

  it('creates a reward with every field: 201, rwd_ id, ISO dates', async () => {
    const v = await vendor();
    tick(1000);
    const created = nowIso();
    const reply = await create(v.token, {
      name: ' Free  coffee ',
      summary: ' Any size. ',
      description: 'Any coffee on the menu.\nOne per visit.',
      cost: 150,
      currency: v.points,
      starts_at: '2026-12-01T00:00:00-03:00',
      ends_at: '2027-12-01T00:00:00Z',
      status: 'Inactive',
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    expect(Object.keys(reply.body).sort()).toEqual(FIELDS);
    expect(reply.body.id).toMatch(REWARD_ID);
    expect(reply.body).toEqual({
      id: reply.body.id,
      name: 'Free coffee',
      summary: 'Any size.',
      description: 'Any coffee on the menu.\nOne per visit.',
      cost: 150,
      currency: v.points,
      starts_at: '2026-12-01T03:00:00.000Z',
      ends_at: '2027-12-01T00:00:00.000Z',
      date_created: created,
      date_updated: created,
      status: 'INACTIVE',
    });
    expect(reply.body.date_created).toMatch(ISO_MS_UTC);
    expect((await get(v.token, reply.body.id)).body).toEqual(reply.body);
    expect(await storedReward(reply.body.id)).toMatchObject({ vendor_id: v.vendorId, currency_id: v.loyaltyCurrencyId, cost: 150, deleted_at: null });
  });

  it('defaults summary and description to empty, no dates, ACTIVE; null texts are empty', async () => {
    const v = await vendor();
    const plain = await createOk(v.token, coffee(v));
    expect(plain).toMatchObject({ summary: '', description: '', starts_at: null, ends_at: null, status: 'ACTIVE' });
    const nulls = await createOk(v.token, coffee(v, { name: 'Free tea', summary: null, description: null }));
    expect(nulls).toMatchObject({ summary: '', description: '' });
  });

  it('accepts form fields', async () => {
    const v = await vendor();
    const reply = await create(v.token, `name=Muffin&cost=40&currency=${v.points}&summary=Blueberry`, FORM);
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    expect(reply.body).toMatchObject({ name: 'Muffin', cost: 40, currency: v.points, summary: 'Blueberry' });
  });

  it.each([['name'], ['cost'], ['currency']])('requires %s (400 validation_failed)', async (field) => {
    const v = await vendor();
    const body: Record<string, unknown> = coffee(v);
    delete body[field];
    expectError(await create(v.token, body), 400, 'validation_failed', field);
    expect(await listAll(v.token)).toEqual([]);
  });

  it.each([
    ['name', '  '],
    ['name', 'n'.repeat(101)],
    ['summary', 's'.repeat(201)],
    ['description', 'd'.repeat(2001)],
    ['cost', 0],
    ['cost', -5],
    ['cost', 2.5],
    ['cost', null],
    ['starts_at', 'next week'],
    ['ends_at', '2026-04-31T00:00:00Z'],
    ['status', 'GONE'],
  ])('refuses %s = %j with 400 validation_failed naming the field', async (field, value) => {
    const v = await vendor();
    expectError(await create(v.token, coffee(v, { [field]: value })), 400, 'validation_failed', field);
    expect(await listAll(v.token)).toEqual([]);
  });

  it('refuses an ends_at not after starts_at with 400 invalid_date_range', async () => {
    const v = await vendor();
    const at = '2026-12-01T00:00:00Z';
    expectError(await create(v.token, coffee(v, { starts_at: at, ends_at: at })), 400, 'invalid_date_range', 'ends_at');
    expect(await listAll(v.token)).toEqual([]);
  });

  it('refuses a cash currency (422 currency_not_loyalty) and an unknown one (422 unknown_currency)', async () => {
    const v = await vendor();
    const other = await vendor();
    expectError(await create(v.token, coffee(v, { currency: v.cash })), 422, 'currency_not_loyalty', 'currency');
    expectError(await create(v.token, coffee(v, { currency: other.points })), 422, 'unknown_currency', 'currency');
    expectError(await create(v.token, coffee(v, { currency: 'rwd_00000000000000000000' })), 422, 'unknown_currency', 'currency');
    expect(await listAll(v.token)).toEqual([]);
  });
});

describe('PUT /rewards/:id', () => {
  async function rewardOf() {
    const v = await vendor();
    const reward = await createOk(v.token, coffee(v, { summary: 'Any size', description: 'Hot or iced', starts_at: '2026-12-01T00:00:00Z', ends_at: '2027-01-01T00:00:00Z' }));
    return { v, reward };
  }

  it('changes only the fields sent; date_updated moves', async () => {
    const { v, reward } = await rewardOf();
    tick(2000);
    const reply = await put(v.token, reward.id, { cost: 120, summary: 'Small only' });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toEqual({ ...reward, cost: 120, summary: 'Small only', date_updated: nowIso() });
    expect((await get(v.token, reward.id)).body).toEqual(reply.body);
  });

  it('changes every field at once and clears texts and dates with null', async () => {
    const { v, reward } = await rewardOf();
    const stars = await currencies.createOk(v.token, { name: 'Stars' });
    const reply = await put(v.token, reward.id, { name: 'Tea', summary: null, description: null, cost: 3, currency: stars.id, starts_at: null, ends_at: null, status: 'ARCHIVED' });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ name: 'Tea', summary: '', description: '', cost: 3, currency: stars.id, starts_at: null, ends_at: null, status: 'ARCHIVED' });
    expect((await get(v.token, reward.id)).body).toEqual(reply.body);
  });

  it('accepts the whole object echoed back', async () => {
    const { v, reward } = await rewardOf();
    const reply = await put(v.token, reward.id, reward);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect({ ...reply.body, date_updated: reward.date_updated }).toEqual(reward);
  });

  it.each([
    ['cost', 0],
    ['name', ''],
    ['ends_at', 'never'],
    ['status', 'nope'],
  ])('refuses %s = %j with 400 and changes nothing', async (field, value) => {
    const { v, reward } = await rewardOf();
    expectError(await put(v.token, reward.id, { [field]: value }), 400, 'validation_failed', field);
    expect((await get(v.token, reward.id)).body).toEqual(reward);
  });

  it('checks the window against the stored other end, and the currency', async () => {
    const { v, reward } = await rewardOf();
    expectError(await put(v.token, reward.id, { ends_at: '2026-11-01T00:00:00Z' }), 400, 'invalid_date_range', 'ends_at');
    expectError(await put(v.token, reward.id, { currency: v.cash }), 422, 'currency_not_loyalty', 'currency');
    expect((await get(v.token, reward.id)).body).toEqual(reward);
  });

  it('moves between statuses; ARCHIVED -> INACTIVE is 409', async () => {
    const { v, reward } = await rewardOf();
    expect((await put(v.token, reward.id, { status: 'INACTIVE' })).body.status).toBe('INACTIVE');
    expect((await put(v.token, reward.id, { status: 'ARCHIVED' })).body.status).toBe('ARCHIVED');
    expectError(await put(v.token, reward.id, { status: 'INACTIVE' }), 409, 'invalid_status_transition');
    expect((await put(v.token, reward.id, { status: 'active' })).body.status).toBe('ACTIVE');
  });
});

describe('DELETE /rewards/:id', () => {
  it('answers {}; the reward is 404 and unlisted, but its row stays, marked deleted', async () => {
    const v = await vendor();
    const reward = await createOk(v.token, coffee(v));
    tick(10);
    const reply = await del(v.token, reward.id);
    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual({});
    expectError(await get(v.token, reward.id), 404, 'reward_not_found');
    expectError(await put(v.token, reward.id, { cost: 1 }), 404, 'reward_not_found');
    expectError(await del(v.token, reward.id), 404, 'reward_not_found');
    expect(await listAll(v.token)).toEqual([]);
    expect((await list(v.token, { query: 'n:free' })).body.items).toEqual([]);
    const row = await storedReward(reward.id);
    expect(row?.deleted_at).toBe(node.clock.now());
    // Its name is free again.
    expect((await create(v.token, coffee(v))).status).toBe(201);
  });

  it('a name another live reward of the program has is refused, in any case (409 reward_name_taken)', async () => {
    const v = await vendor();
    await createOk(v.token, coffee(v));
    expectError(await create(v.token, coffee(v, { name: 'FREE  coffee' })), 409, 'reward_name_taken', 'name');
    const tea = await createOk(v.token, coffee(v, { name: 'Free tea' }));
    expectError(await put(v.token, tea.id, { name: 'free coffee' }), 409, 'reward_name_taken', 'name');
    expect(await listAll(v.token)).toHaveLength(2);
  });
});

describe('GET /rewards (list)', () => {
  async function fixtures() {
    const v = await vendor();
    const made: any[] = [];
    for (const [name, cost, status] of [
      ['Free coffee', 100, 'ACTIVE'],
      ['free muffin', 60, 'INACTIVE'],
      ['Tote bag', 500, 'ACTIVE'],
    ] as const) {
      tick();
      made.push(await createOk(v.token, { name, cost, currency: v.points, status }));
    }
    return { v, made };
  }

  it('lists newest first; n: name prefix in any case; s: status; AND', async () => {
    const { v, made } = await fixtures();
    expect((await list(v.token)).body.items.map((r: any) => r.id)).toEqual([made[2].id, made[1].id, made[0].id]);
    expect(new Set((await list(v.token, { query: 'n:FREE' })).body.items.map((r: any) => r.id))).toEqual(new Set([made[0].id, made[1].id]));
    expect((await list(v.token, { query: 's:INACTIVE' })).body.items.map((r: any) => r.id)).toEqual([made[1].id]);
    expect((await list(v.token, { query: 'n:free s:active' })).body.items.map((r: any) => r.id)).toEqual([made[0].id]);
    expectError(await list(v.token, { query: 'c:1' }), 400, 'invalid_query', 'query');
  });

  it('sorts by cost and by name', async () => {
    const { v } = await fixtures();
    expect((await list(v.token, { sort: 'cost', order: 'ASC' })).body.items.map((r: any) => r.cost)).toEqual([60, 100, 500]);
    expect((await list(v.token, { sort: 'cost' })).body.items.map((r: any) => r.cost)).toEqual([500, 100, 60]);
    expect((await list(v.token, { sort: 'name', order: 'ASC' })).body.items.map((r: any) => r.name)).toEqual(['Free coffee', 'free muffin', 'Tote bag']);
    expectError(await list(v.token, { sort: 'threshold' }), 400, 'invalid_sort', 'sort');
  });

  it('pages with next and prev', async () => {
    const { v, made } = await fixtures();
    const first = await list(v.token, { limit: 2 });
    expect(first.body.items.map((r: any) => r.id)).toEqual([made[2].id, made[1].id]);
    expect(first.body.prev).toBeNull();
    const second = await http(first.body.next, { token: v.token });
    expect(second.body.items.map((r: any) => r.id)).toEqual([made[0].id]);
    expect(second.body.next).toBeNull();
    expect(new URL(second.body.prev).searchParams.get('page')).toBe('1');
  });
});

describe('authentication and vendor isolation', () => {
  it('answers 401 without a bearer token', async () => {
    const v = await vendor();
    const reward = await createOk(v.token, coffee(v));
    expectError(await http(url('/rewards')), 401, 'missing_credentials');
    expectError(await http(url('/rewards'), { method: 'POST', body: coffee(v) }), 401, 'missing_credentials');
    expectError(await http(url(`/rewards/${reward.id}`)), 401, 'missing_credentials');
    expectError(await http(url(`/rewards/${reward.id}`), { method: 'PUT', body: { cost: 1 } }), 401, 'missing_credentials');
    expectError(await http(url(`/rewards/${reward.id}`), { method: 'DELETE' }), 401, 'missing_credentials');
    expect(await listAll(v.token)).toEqual([reward]);
  });

  it("answers 404 reward_not_found for another vendor's reward and leaves it alone", async () => {
    const a = await vendor();
    const b = await vendor();
    const theirs = await createOk(b.token, coffee(b));
    expectError(await get(a.token, theirs.id), 404, 'reward_not_found');
    expectError(await put(a.token, theirs.id, { cost: 1 }), 404, 'reward_not_found');
    expectError(await del(a.token, theirs.id), 404, 'reward_not_found');
    expect((await get(b.token, theirs.id)).body).toEqual(theirs);
    expect(await listAll(a.token)).toEqual([]);
  });
});
