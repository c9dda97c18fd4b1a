import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { FORM } from '../support/customers';
import { expectResourceError, ISO_MS_UTC, resourceApi, vendorWithCurrencies } from '../support/resource-api';
import { http, type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// Earning rules over real HTTP (/earning-rules): every field, each validation error, status moves,
// lists, vendor isolation, and the default rule every program starts with.

const RULE_ID = /^erul_[0-9a-z]{20}$/;
const FIELDS = ['currency', 'date_created', 'date_updated', 'ends_at', 'id', 'max_award', 'name', 'per_amount', 'points', 'rounding', 'starts_at', 'status'];

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

const { url, create, createOk, get, put, del, list, listAll } = resourceApi(() => node, '/earning-rules');
const currencies = resourceApi(() => node, '/currencies');

/** The resource-style error envelope: exactly internal_code, message, code and maybe field. */
const expectError = (reply: HttpReply, status: number, code: string, field?: string) => expectResourceError(reply, status, code, field, { messageNonEmpty: true });

/** A new vendor with the curr_ ids of its "Points" and quick-pay currencies. */
const vendor = () => vendorWithCurrencies(node);

const storedRule = (publicId: string) => node.engine.db.selectFrom('earning_rules').selectAll().where('public_id', '=', publicId).executeTakeFirst();

function expectRuleShape(rule: any): void {
  expect(Object.keys(rule).sort()).toEqual(FIELDS);
  expect(rule.id).toMatch(RULE_ID);
  expect(rule.currency).toMatch(/^curr_/);
  expect(rule.date_created).toMatch(ISO_MS_UTC);
  expect(rule.date_updated).toMatch(ISO_MS_UTC);
  expect(['floor', 'round', 'ceil']).toContain(rule.rounding);
  expect(['ACTIVE', 'INACTIVE', 'ARCHIVED']).toContain(rule.status);
}

// ---------------------------------------------------------------------------------------------

describe('the default earning rule', () => {
  it('is listed after vendor set-up: 1 point per whole dollar of subtotal, in Points, floor, no cap, no dates', async () => {
    const v = await vendor();
    const created = nowIso();
    const rules = await listAll(v.token);
    expect(rules).toHaveLength(1);
    expectRuleShape(rules[0]);
    expect(rules[0]).toEqual({
      id: rules[0].id,
      name: '1 point per unit spent',
      currency: v.points,
      points: 1,
      per_amount: 1,
      rounding: 'floor',
      max_award: null,
      starts_at: null,
      ends_at: null,
      date_created: created,
      date_updated: created,
      status: 'ACTIVE',
    });
    expect((await get(v.token, rules[0].id)).body).toEqual(rules[0]);
    expect((await storedRule(rules[0].id))?.per_amount).toBe(100);
  });

  it('gets a public id the first time it is listed when the row has none, and keeps it', async () => {
    const v = await vendor();
    const [rule] = await listAll(v.token);
    await node.engine.db.updateTable('earning_rules').set({ public_id: null }).where('public_id', '=', rule.id).execute();
    const first = await listAll(v.token);
    expect(first).toHaveLength(1);
    expect(first[0].id).toMatch(RULE_ID);
    expect(first[0].id).not.toBe(rule.id);
    expect({ ...first[0], id: rule.id }).toEqual(rule);
    expect((await listAll(v.token))[0].id).toBe(first[0].id);
    expect((await get(v.token, first[0].id)).status).toBe(200);
    const row = await node.engine.db.selectFrom('earning_rules').select('public_id').where('vendor_id', '=', v.vendorId).executeTakeFirstOrThrow();
    expect(row.public_id).toBe(first[0].id);
  });
});

describe('POST /earning-rules', () => {
  it('creates a rule with every field: 201, erul_ id, per_amount kept in minor units, dates in UTC', async () => {
    const v = await vendor();
    tick(1000);
    const created = nowIso();
    const reply = await create(v.token, {
      name: '  Double  points  ',
      currency: v.points,
      points: 2,
      per_amount: 2.5,
      rounding: 'CEIL',
      max_award: 500,
      starts_at: '2026-12-01T08:00:00+05:00',
      ends_at: '2027-01-01T00:00:00.250Z',
      status: 'inactive',
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    expectRuleShape(reply.body);
    expect(reply.body).toEqual({
      id: reply.body.id,
      name: 'Double points',
      currency: v.points,
      points: 2,
      per_amount: 2.5,
      rounding: 'ceil',
      max_award: 500,
      starts_at: '2026-12-01T03:00:00.000Z',
      ends_at: '2027-01-01T00:00:00.250Z',
      date_created: created,
      date_updated: created,
      status: 'INACTIVE',
    });
    expect((await get(v.token, reply.body.id)).body).toEqual(reply.body);
    const row = await storedRule(reply.body.id);
    expect(row).toMatchObject({ vendor_id: v.vendorId, currency_id: v.loyaltyCurrencyId, per_amount: 250, points: 2, max_award: 500, rounding: 'ceil' });
    expect(row?.starts_at).toBe(Date.UTC(2026, 11, 1, 3));
  });

  it('defaults rounding to floor, no cap, no dates, ACTIVE', async () => {
    const v = await vendor();
    const rule = await createOk(v.token, { name: 'Plain', currency: v.points, points: 1, per_amount: 10 });
    expect(rule).toMatchObject({ rounding: 'floor', max_award: null, starts_at: null, ends_at: null, status: 'ACTIVE', per_amount: 10 });
  });

  it('gives each rule its own id', async () => {
    const v = await vendor();
    const a = await createOk(v.token, { name: 'A', currency: v.points, points: 1, per_amount: 1 });
    const b = await createOk(v.token, { name: 'B', currency: v.points, points: 1, per_amount: 1 });
    expect(a.id).not.toBe(b.id);
    expect(await listAll(v.token)).toHaveLength(3);
  });

  it('refuses a name another rule of the program has, in any case (409 earning_rule_name_taken), on create and rename; other programs may use it', async () => {
    const v = await vendor();
    const other = await vendor();
    // Every program starts with "1 point per unit spent": a second one would award every sale twice.
    expectError(await create(v.token, { name: ' 1 POINT per unit  spent ', currency: v.points, points: 1, per_amount: 1 }), 409, 'earning_rule_name_taken', 'name');
    const bonus = await createOk(v.token, { name: 'Bonus', currency: v.points, points: 10, per_amount: 20 });
    expectError(await put(v.token, bonus.id, { name: '1 point per unit spent' }), 409, 'earning_rule_name_taken', 'name');
    expect((await put(v.token, bonus.id, { name: 'bonus' })).status).toBe(200);
    expect(await listAll(v.token)).toHaveLength(2);
    expect((await create(other.token, { name: 'Bonus', currency: other.points, points: 10, per_amount: 20 })).status).toBe(201);
  });

  it('counts in any loyalty currency of the vendor', async () => {
    const v = await vendor();
    const stars = await currencies.createOk(v.token, { name: 'Stars' });
    const rule = await createOk(v.token, { name: 'Stars rule', currency: stars.id, points: 3, per_amount: 0.5 });
    expect(rule.currency).toBe(stars.id);
    expect((await storedRule(rule.id))?.per_amount).toBe(50);
  });

  it('reads per_amount in the major units of the quick-pay currency (JPY has none below the yen)', async () => {
    const creds = await setUpVendor(node.engine, { name: 'Yen shop', currency: 'JPY', country: 'JP', store: { name: 'Tokyo', address1: '1-1', city: 'Tokyo' } });
    const token = creds.accessToken;
    const points = (await currencies.listAll(token)).find((c) => c.name === 'Points');
    const [defaultRule] = await listAll(token);
    expect(defaultRule.per_amount).toBe(1);
    const rule = await createOk(token, { name: 'Per 100 yen', currency: points.id, points: 1, per_amount: 100 });
    expect(rule.per_amount).toBe(100);
    expect((await storedRule(rule.id))?.per_amount).toBe(100);
    expectError(await create(token, { name: 'Half yen', currency: points.id, points: 1, per_amount: 0.5 }), 400, 'validation_failed', 'per_amount');
  });

  it('accepts form fields', async () => {
    const v = await vendor();
    const reply = await create(v.token, `name=Form%20rule&currency=${v.points}&points=4&per_amount=1.25&rounding=round&max_award=9`, FORM);
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    expect(reply.body).toMatchObject({ name: 'Form rule', currency: v.points, points: 4, per_amount: 1.25, rounding: 'round', max_award: 9 });
  });

  describe('validation (creates nothing)', () => {
    const base = (v: { points: string }) => ({ name: 'Rule', currency: v.points, points: 1, per_amount: 1 });

    it.each([['name'], ['currency'], ['points'], ['per_amount']])('requires %s (400 validation_failed)', async (field) => {
      const v = await vendor();
      const body: Record<string, unknown> = base(v);
      delete body[field];
      expectError(await create(v.token, body), 400, 'validation_failed', field);
      expect(await listAll(v.token)).toHaveLength(1);
    });

    it.each([
      ['name', '   '],
      ['name', ''],
      ['name', 'x'.repeat(101)],
      ['points', 0],
      ['points', -3],
      ['points', 1.5],
      ['points', 'many'],
      ['per_amount', 0],
      ['per_amount', -1],
      ['per_amount', 0.001],
      ['per_amount', 1.005],
      ['per_amount', 'ten'],
      ['rounding', 'up'],
      ['rounding', ''],
      ['max_award', 0],
      ['max_award', 2.5],
      ['starts_at', 'tomorrow'],
      ['starts_at', '2026-12-01T00:00:00'],
      ['starts_at', '2026-02-30T00:00:00Z'],
      ['starts_at', '2026-12-01'],
      ['ends_at', '2026-12-01T25:00:00Z'],
      ['ends_at', 12345],
      ['status', 'PAUSED'],
    ])('refuses %s = %j with 400 validation_failed naming the field', async (field, value) => {
      const v = await vendor();
      expectError(await create(v.token, { ...base(v), [field]: value }), 400, 'validation_failed', field);
      expect(await listAll(v.token)).toHaveLength(1);
    });

    it('refuses ends_at at or before starts_at with 400 invalid_date_range', async () => {
      const v = await vendor();
      const starts_at = '2026-12-01T00:00:00Z';
      expectError(await create(v.token, { ...base(v), starts_at, ends_at: '2026-11-30T23:59:59Z' }), 400, 'invalid_date_range', 'ends_at');
      expectError(await create(v.token, { ...base(v), starts_at, ends_at: '2026-12-01T01:00:00+01:00' }), 400, 'invalid_date_range', 'ends_at');
      expect(await listAll(v.token)).toHaveLength(1);
      const ok = await createOk(v.token, { ...base(v), starts_at, ends_at: '2026-12-01T00:00:00.001Z' });
      expect(ok.ends_at).toBe('2026-12-01T00:00:00.001Z');
    });

    it('accepts only one end of the window, and null or empty for none', async () => {
      const v = await vendor();
      const from = await createOk(v.token, { ...base(v), starts_at: '2026-12-01T00:00:00Z', ends_at: null });
      expect(from).toMatchObject({ starts_at: '2026-12-01T00:00:00.000Z', ends_at: null });
      const until = await createOk(v.token, { ...base(v), name: 'Until the new year', starts_at: '', ends_at: '2027-01-01T00:00:00Z' });
      expect(until).toMatchObject({ starts_at: null, ends_at: '2027-01-01T00:00:00.000Z' });
    });

    it('refuses a cash currency with 422 currency_not_loyalty', async () => {
      const v = await vendor();
      expectError(await create(v.token, { ...base(v), currency: v.cash }), 422, 'currency_not_loyalty', 'currency');
      const eur = await currencies.createOk(v.token, { name: 'Euro', code: 'EUR' });
      expectError(await create(v.token, { ...base(v), currency: eur.id }), 422, 'currency_not_loyalty', 'currency');
      expect(await listAll(v.token)).toHaveLength(1);
    });

    it('refuses an unknown, deleted or other vendor\'s currency with 422 unknown_currency', async () => {
      const v = await vendor();
      const other = await vendor();
      expectError(await create(v.token, { ...base(v), currency: 'curr_00000000000000000000' }), 422, 'unknown_currency', 'currency');
      expectError(await create(v.token, { ...base(v), currency: other.points }), 422, 'unknown_currency', 'currency');
      const gone = await currencies.createOk(v.token, { name: 'Gone' });
      expect((await currencies.del(v.token, gone.id)).status).toBe(200);
      expectError(await create(v.token, { ...base(v), currency: gone.id }), 422, 'unknown_currency', 'currency');
      expect(await listAll(v.token)).toHaveLength(1);
    });
  });
});

describe('GET /earning-rules/:id', () => {
  it('answers 404 earning_rule_not_found for an unknown id or an id of another kind', async () => {
    const v = await vendor();
    expectError(await get(v.token, 'erul_00000000000000000000'), 404, 'earning_rule_not_found');
    expectError(await get(v.token, v.points), 404, 'earning_rule_not_found');
    const tiers = await http(url('/tiers'), { token: v.token });
    expect(tiers.status).toBe(200);
    expectError(await get(v.token, tiers.body.items[0].id), 404, 'earning_rule_not_found');
  });
});

describe('PUT /earning-rules/:id', () => {
  async function ruleOf() {
    const v = await vendor();
    const rule = await createOk(v.token, {
      name: 'Weekend',
      currency: v.points,
      points: 2,
      per_amount: 5,
      rounding: 'round',
      max_award: 100,
      starts_at: '2026-12-05T00:00:00Z',
      ends_at: '2026-12-07T00:00:00Z',
    });
    return { v, rule };
  }

  it('changes only the fields sent; date_updated moves with the clock, date_created does not', async () => {
    const { v, rule } = await ruleOf();
    tick(5000);
    const reply = await put(v.token, rule.id, { name: 'Long weekend', per_amount: 7.5 });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toEqual({ ...rule, name: 'Long weekend', per_amount: 7.5, date_updated: nowIso() });
    expect(reply.body.date_created).toBe(rule.date_created);
    expect((await get(v.token, rule.id)).body).toEqual(reply.body);
    expect((await storedRule(rule.id))?.per_amount).toBe(750);
  });

  it('changes every field at once', async () => {
    const { v, rule } = await ruleOf();
    const stars = await currencies.createOk(v.token, { name: 'Stars' });
    const reply = await put(v.token, rule.id, {
      name: 'Everything',
      currency: stars.id,
      points: 9,
      per_amount: 0.25,
      rounding: 'Floor',
      max_award: 7,
      starts_at: '2027-01-01T00:00:00Z',
      ends_at: '2027-02-01T00:00:00Z',
      status: 'INACTIVE',
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({
      name: 'Everything',
      currency: stars.id,
      points: 9,
      per_amount: 0.25,
      rounding: 'floor',
      max_award: 7,
      starts_at: '2027-01-01T00:00:00.000Z',
      ends_at: '2027-02-01T00:00:00.000Z',
      status: 'INACTIVE',
    });
    expect((await get(v.token, rule.id)).body).toEqual(reply.body);
  });

  it('clears max_award, starts_at and ends_at with null', async () => {
    const { v, rule } = await ruleOf();
    const reply = await put(v.token, rule.id, { max_award: null, starts_at: null, ends_at: null });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ max_award: null, starts_at: null, ends_at: null, points: 2, per_amount: 5 });
    const row = await storedRule(rule.id);
    expect(row).toMatchObject({ max_award: null, starts_at: null, ends_at: null });
  });

  it('accepts the whole object echoed back', async () => {
    const { v, rule } = await ruleOf();
    const reply = await put(v.token, rule.id, rule);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect({ ...reply.body, date_updated: rule.date_updated }).toEqual(rule);
  });

  it('checks the window against the stored other end', async () => {
    const { v, rule } = await ruleOf();
    expectError(await put(v.token, rule.id, { ends_at: '2026-12-04T00:00:00Z' }), 400, 'invalid_date_range', 'ends_at');
    expectError(await put(v.token, rule.id, { starts_at: '2026-12-07T00:00:00Z' }), 400, 'invalid_date_range', 'ends_at');
    expect((await get(v.token, rule.id)).body).toEqual(rule);
  });

  it.each([
    ['name', '  '],
    ['name', null],
    ['points', 0],
    ['points', null],
    ['per_amount', 0.005],
    ['per_amount', null],
    ['rounding', 'truncate'],
    ['max_award', -1],
    ['starts_at', 'soon'],
    ['status', 'DELETED'],
  ])('refuses %s = %j with 400 validation_failed and changes nothing', async (field, value) => {
    const { v, rule } = await ruleOf();
    expectError(await put(v.token, rule.id, { [field]: value }), 400, 'validation_failed', field);
    expect((await get(v.token, rule.id)).body).toEqual(rule);
  });

  it('refuses moving the rule to a cash or unknown currency (422)', async () => {
    const { v, rule } = await ruleOf();
    expectError(await put(v.token, rule.id, { currency: v.cash }), 422, 'currency_not_loyalty', 'currency');
    expectError(await put(v.token, rule.id, { currency: 'curr_nope' }), 422, 'unknown_currency', 'currency');
    expect((await get(v.token, rule.id)).body).toEqual(rule);
  });

  it('moves between statuses; ARCHIVED cannot become INACTIVE (409), but can come back to ACTIVE', async () => {
    const { v, rule } = await ruleOf();
    for (const status of ['INACTIVE', 'ACTIVE', 'ARCHIVED']) {
      const reply = await put(v.token, rule.id, { status: status.toLowerCase() });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(reply.body.status).toBe(status);
    }
    expectError(await put(v.token, rule.id, { status: 'INACTIVE' }), 409, 'invalid_status_transition');
    expect((await get(v.token, rule.id)).body.status).toBe('ARCHIVED');
    expect((await put(v.token, rule.id, { status: 'ACTIVE' })).body.status).toBe('ACTIVE');
  });

  it('answers 404 for an unknown id', async () => {
    const v = await vendor();
    expectError(await put(v.token, 'erul_00000000000000000000', { name: 'x' }), 404, 'earning_rule_not_found');
  });
});

describe('DELETE /earning-rules/:id', () => {
  it('answers {} and removes the rule: 404 afterwards, gone from lists and from the database', async () => {
    const v = await vendor();
    const rule = await createOk(v.token, { name: 'Short lived', currency: v.points, points: 1, per_amount: 1 });
    const reply = await del(v.token, rule.id);
    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual({});
    expectError(await get(v.token, rule.id), 404, 'earning_rule_not_found');
    expectError(await put(v.token, rule.id, { name: 'Back' }), 404, 'earning_rule_not_found');
    expectError(await del(v.token, rule.id), 404, 'earning_rule_not_found');
    expect((await listAll(v.token)).map((r) => r.id)).not.toContain(rule.id);
    expect(await storedRule(rule.id)).toBeUndefined();
  });

  it('can remove the default rule too (a program may earn nothing)', async () => {
    const v = await vendor();
    const [rule] = await listAll(v.token);
    expect((await del(v.token, rule.id)).status).toBe(200);
    expect(await listAll(v.token)).toEqual([]);
  });
});

describe('GET /earning-rules (list)', () => {
  async function fixtures() {
    const v = await vendor();
    const made: any[] = [];
    for (const [name, status] of [
      ['Gold rush', 'ACTIVE'],
      ['golden hour', 'INACTIVE'],
      ['Élan', 'ACTIVE'],
      ['Silver gold', 'ARCHIVED'],
    ] as const) {
      tick();
      made.push(await createOk(v.token, { name, currency: v.points, points: 1, per_amount: 1, status }));
    }
    return { v, made };
  }

  it('lists newest first by default, as {items, next, prev}', async () => {
    const { v, made } = await fixtures();
    const reply = await list(v.token);
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body).sort()).toEqual(['items', 'next', 'prev']);
    expect(reply.body.items.map((r: any) => r.id).slice(0, 4)).toEqual([...made].reverse().map((r) => r.id));
    expect(reply.body.items).toHaveLength(5);
    expect(reply.body.next).toBeNull();
    expect(reply.body.prev).toBeNull();
  });

  it('n: keeps names starting with the value, ignoring case and Unicode form', async () => {
    const { v, made } = await fixtures();
    for (const value of ['gold', 'GOLD']) {
      const reply = await list(v.token, { query: `n:${value}` });
      expect(reply.status).toBe(200);
      expect(new Set(reply.body.items.map((r: any) => r.id))).toEqual(new Set([made[0].id, made[1].id]));
    }
    expect((await list(v.token, { query: 'n:"gold r"' })).body.items.map((r: any) => r.id)).toEqual([made[0].id]);
    expect((await list(v.token, { query: 'n:élan' })).body.items.map((r: any) => r.id)).toEqual([made[2].id]);
    expect((await list(v.token, { query: 'n:ÉLAN' })).body.items.map((r: any) => r.id)).toEqual([made[2].id]);
    const nothing = await list(v.token, { query: 'n:old' });
    expect(nothing.status).toBe(200);
    expect(nothing.body).toEqual({ items: [], next: null, prev: null });
  });

  it('s: keeps one status; pairs combine with AND', async () => {
    const { v, made } = await fixtures();
    expect((await list(v.token, { query: 's:inactive' })).body.items.map((r: any) => r.id)).toEqual([made[1].id]);
    expect((await list(v.token, { query: 's:ARCHIVED' })).body.items.map((r: any) => r.id)).toEqual([made[3].id]);
    expect((await list(v.token, { query: 's:ACTIVE' })).body.items).toHaveLength(3);
    expect((await list(v.token, { query: 'n:gold s:ACTIVE' })).body.items.map((r: any) => r.id)).toEqual([made[0].id]);
    expect((await list(v.token, { query: 'n:silver s:ACTIVE' })).body.items).toEqual([]);
  });

  it.each([['x:1'], ['gold'], ['n:'], ['s:a s:b']])('refuses query=%s with 400 invalid_query', async (query) => {
    const v = await vendor();
    expectError(await list(v.token, { query }), 400, 'invalid_query', 'query');
  });

  it('refuses an unknown status in s: with 400', async () => {
    const v = await vendor();
    expectError(await list(v.token, { query: 's:LIVE' }), 400, 'validation_failed', 'query');
  });

  it('sorts by name (ignoring case) and by date_updated', async () => {
    const { v, made } = await fixtures();
    const asc = await list(v.token, { sort: 'name', order: 'ASC', query: 'n:g' });
    expect(asc.body.items.map((r: any) => r.name)).toEqual(['Gold rush', 'golden hour']);
    const desc = await list(v.token, { sort: 'name', order: 'DESC', query: 'n:g' });
    expect(desc.body.items.map((r: any) => r.name)).toEqual(['golden hour', 'Gold rush']);
    tick();
    expect((await put(v.token, made[0].id, { points: 2 })).status).toBe(200);
    expect((await list(v.token, { sort: 'date_updated' })).body.items[0].id).toBe(made[0].id);
    expectError(await list(v.token, { sort: 'points' }), 400, 'invalid_sort', 'sort');
  });

  it('pages with limit, next and prev, keeping the other parameters', async () => {
    const { v, made } = await fixtures();
    const first = await list(v.token, { limit: 2, order: 'ASC' });
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(2);
    expect(first.body.prev).toBeNull();
    const next = new URL(first.body.next);
    expect(next.pathname).toBe('/earning-rules');
    expect(next.searchParams.get('page')).toBe('2');
    expect(next.searchParams.get('limit')).toBe('2');
    expect(next.searchParams.get('order')).toBe('ASC');
    const second = await http(first.body.next, { token: v.token });
    expect(second.body.items.map((r: any) => r.id)).toEqual([made[1].id, made[2].id]);
    expect(new URL(second.body.prev).searchParams.get('page')).toBe('1');
    const third = await http(second.body.next, { token: v.token });
    expect(third.body.items.map((r: any) => r.id)).toEqual([made[3].id]);
    expect(third.body.next).toBeNull();
    expectError(await list(v.token, { limit: 101 }), 400, 'validation_failed', 'limit');
  });
});

describe('authentication and vendor isolation', () => {
  it('answers 401 without a bearer token on every endpoint', async () => {
    const v = await vendor();
    const [rule] = await listAll(v.token);
    expectError(await http(url('/earning-rules')), 401, 'missing_credentials');
    expectError(await http(url('/earning-rules'), { method: 'POST', body: { name: 'x', currency: v.points, points: 1, per_amount: 1 } }), 401, 'missing_credentials');
    expectError(await http(url(`/earning-rules/${rule.id}`)), 401, 'missing_credentials');
    expectError(await http(url(`/earning-rules/${rule.id}`), { method: 'PUT', body: { name: 'x' } }), 401, 'missing_credentials');
    expectError(await http(url(`/earning-rules/${rule.id}`), { method: 'DELETE' }), 401, 'missing_credentials');
    expectError(await list('not-a-token'), 401, 'invalid_token');
    expect(await listAll(v.token)).toEqual([rule]);
  });

  it("answers 404 for another vendor's rule on GET, PUT and DELETE, and leaves it alone", async () => {
    const a = await vendor();
    const b = await vendor();
    const theirs = await createOk(b.token, { name: 'B only', currency: b.points, points: 1, per_amount: 1 });
    expectError(await get(a.token, theirs.id), 404, 'earning_rule_not_found');
    expectError(await put(a.token, theirs.id, { name: 'Hijacked', status: 'ARCHIVED' }), 404, 'earning_rule_not_found');
    expectError(await del(a.token, theirs.id), 404, 'earning_rule_not_found');
    expect((await get(b.token, theirs.id)).body).toEqual(theirs);
    expect((await listAll(a.token)).map((r) => r.id)).not.toContain(theirs.id);
    expect((await list(a.token, { query: 'n:b' })).body.items).toEqual([]);
  });
});
