import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAccount, postEntry } from '../../src/core/ledger/ledger';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { resourceApi } from '../support/resource-api';
import { http, type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// Currencies over real HTTP: a real node on a temp SQLite file, fetch from the test process.

const ISO_MS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const CURRENCY_ID = /^curr_[0-9a-z]{20}$/i;
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode();
});

afterAll(async () => {
  await node?.close();
});

// ---------------------------------------------------------------------------------------------
// helpers

function nowIso(): string {
  return new Date(node.clock.now()).toISOString();
}

function tick(ms = 1): void {
  node.clock.advance(ms);
}

async function vendor(): Promise<VendorCredentials> {
  return node.addVendor();
}

const { url, create, createOk, get, put, del, list, listAll } = resourceApi(() => node, '/currencies');

async function findByName(token: string, name: string): Promise<any> {
  const all = await listAll(token);
  const found = all.find((c) => c.name === name);
  expect(found, `currency named ${name}`).toBeDefined();
  return found;
}

/** The resource-style error envelope: exactly internal_code, message, code and maybe field. */
function expectError(reply: HttpReply, status: number, code: string | string[], field?: string): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  expect(reply.headers.get('content-type') ?? '').toMatch(/application\/json/);
  const body = reply.body;
  expect(body).toBeTypeOf('object');
  const codes = Array.isArray(code) ? code : [code];
  expect(codes).toContain(body.code);
  expect(body.internal_code).toBeNull();
  expect(typeof body.message).toBe('string');
  expect(body.message.length).toBeGreaterThan(0);
  expect(body.message).not.toMatch(/\n\s+at /);
  for (const key of Object.keys(body)) expect(['internal_code', 'message', 'code', 'field']).toContain(key);
  expect(body).not.toHaveProperty('stack');
  if (field !== undefined) expect(body.field).toBe(field);
  if (body.field !== undefined) expect(typeof body.field).toBe('string');
}

function expectCurrencyShape(currency: any): void {
  expect(Object.keys(currency).sort()).toEqual(['code', 'date_created', 'date_updated', 'id', 'name', 'status']);
  expect(currency.id).toMatch(CURRENCY_ID);
  expect(currency.date_created).toMatch(ISO_MS_UTC);
  expect(currency.date_updated).toMatch(ISO_MS_UTC);
  expect(['ACTIVE', 'INACTIVE', 'ARCHIVED']).toContain(currency.status);
  expect(currency.code === null || /^[A-Z]{3}$/.test(currency.code)).toBe(true);
  expect(typeof currency.name).toBe('string');
}

// ---------------------------------------------------------------------------------------------

describe('POST /currencies', () => {
  it('creates a loyalty currency: 201, prefixed id, code null, ACTIVE, timestamps from the clock', async () => {
    const { accessToken } = await vendor();
    tick(1000);
    const created = nowIso();
    const reply = await create(accessToken, { name: 'Stars' });
    expect(reply.status).toBe(201);
    expectCurrencyShape(reply.body);
    expect(reply.body).toMatchObject({ name: 'Stars', code: null, status: 'ACTIVE', date_created: created, date_updated: created });
    expect(reply.body.id).toHaveLength('curr_'.length + 20);

    const fetched = await get(accessToken, reply.body.id);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(reply.body);
  });

  it('gives every currency its own id', async () => {
    const { accessToken } = await vendor();
    const a = await createOk(accessToken, { name: 'One' });
    const b = await createOk(accessToken, { name: 'Two' });
    expect(a.id).not.toBe(b.id);
    expect(a.id).toMatch(CURRENCY_ID);
    expect(b.id).toMatch(CURRENCY_ID);
  });

  it('stores an ISO 4217 code given in any letter case in upper case', async () => {
    const { accessToken } = await vendor();
    const eur = await createOk(accessToken, { name: 'Euro wallet', code: 'eur' });
    expect(eur.code).toBe('EUR');
    const gbp = await createOk(accessToken, { name: 'Pound wallet', code: 'gBp' });
    expect(gbp.code).toBe('GBP');
    expect((await get(accessToken, eur.id)).body.code).toBe('EUR');
  });

  it('treats an explicit null code as a loyalty currency', async () => {
    const { accessToken } = await vendor();
    const c = await createOk(accessToken, { name: 'Nulled', code: null });
    expect(c.code).toBeNull();
  });

  it.each([
    ['ABC', 'not an ISO code'],
    ['US', 'too short'],
    ['XXXX', 'too long'],
    ['12$', 'not letters'],
  ])('refuses the code %s (%s) with 400 and creates nothing', async (code) => {
    const { accessToken } = await vendor();
    const before = await listAll(accessToken);
    const reply = await create(accessToken, { name: `Bad ${code}`, code });
    expectError(reply, 400, ['invalid_currency_code', 'validation_failed'], 'code');
    const after = await listAll(accessToken);
    expect(after).toEqual(before);
    expect(after.some((c) => c.name === `Bad ${code}`)).toBe(false);
  });

  it('requires a name', async () => {
    const { accessToken } = await vendor();
    expectError(await create(accessToken, { code: 'EUR' }), 400, 'validation_failed', 'name');
    expectError(await create(accessToken, { name: '' }), 400, 'validation_failed', 'name');
    expectError(await create(accessToken, { name: '   ' }), 400, 'validation_failed', 'name');
    expect(await listAll(accessToken)).toHaveLength(2);
  });

  it('refuses a name longer than 100 characters', async () => {
    const { accessToken } = await vendor();
    expectError(await create(accessToken, { name: 'x'.repeat(101) }), 400, 'validation_failed', 'name');
    const ok = await createOk(accessToken, { name: 'y'.repeat(100) });
    expect(ok.name).toBe('y'.repeat(100));
  });

  it('trims the surrounding spaces of a name', async () => {
    const { accessToken } = await vendor();
    const c = await createOk(accessToken, { name: '  Padded  ' });
    expect(c.name).toBe('Padded');
  });

  it('refuses a name taken by the vendor ignoring case and surrounding spaces (409 currency_name_taken)', async () => {
    const { accessToken } = await vendor();
    const before = await listAll(accessToken);
    // "Points" exists from vendor set-up.
    expectError(await create(accessToken, { name: ' points ' }), 409, 'currency_name_taken', 'name');
    expectError(await create(accessToken, { name: 'POINTS' }), 409, 'currency_name_taken', 'name');
    expectError(await create(accessToken, { name: 'quick pay usd', code: 'USD' }), 409, 'currency_name_taken', 'name');
    await createOk(accessToken, { name: 'Gold' });
    expectError(await create(accessToken, { name: 'gold ', code: 'EUR' }), 409, 'currency_name_taken', 'name');
    const after = await listAll(accessToken);
    expect(after).toHaveLength(before.length + 1);
  });

  it('gives exactly one winner when the same name is created concurrently', async () => {
    const { accessToken } = await vendor();
    const replies = await Promise.all(Array.from({ length: 6 }, (_, i) => create(accessToken, { name: i % 2 ? 'Race' : ' race ' })));
    expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of replies.filter((x) => x.status !== 201)) expectError(r, 409, 'currency_name_taken', 'name');
    expect(await listAll(accessToken)).toHaveLength(3);
  });

  it('lets another vendor use the same name', async () => {
    const a = await vendor();
    const b = await vendor();
    const ca = await createOk(a.accessToken, { name: 'Shared Name' });
    const cb = await createOk(b.accessToken, { name: 'shared name' });
    expect(ca.id).not.toBe(cb.id);
    expect(cb.name).toBe('shared name');
  });

  it('lets a deleted currency name be used again', async () => {
    const { accessToken } = await vendor();
    const first = await createOk(accessToken, { name: 'Reusable' });
    expect((await del(accessToken, first.id)).status).toBe(200);
    const second = await createOk(accessToken, { name: 'reusable' });
    expect(second.id).not.toBe(first.id);
    expect((await get(accessToken, second.id)).body.name).toBe('reusable');
    expectError(await get(accessToken, first.id), 404, 'currency_not_found');
  });

  describe('body encodings', () => {
    it('accepts form fields', async () => {
      const { accessToken } = await vendor();
      const reply = await create(accessToken, 'name=Form%20Stars&code=eur', FORM);
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      expect(reply.body).toMatchObject({ name: 'Form Stars', code: 'EUR', status: 'ACTIVE' });
    });

    it('accepts form fields without a code (loyalty currency)', async () => {
      const { accessToken } = await vendor();
      const reply = await create(accessToken, 'name=Stamps', FORM);
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      expect(reply.body).toMatchObject({ name: 'Stamps', code: null });
    });

    it('accepts JSON text sent with the form content type', async () => {
      const { accessToken } = await vendor();
      const reply = await create(accessToken, JSON.stringify({ name: 'Json In Form', code: 'jpy' }), FORM);
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      expect(reply.body).toMatchObject({ name: 'Json In Form', code: 'JPY' });
    });

    it('accepts JSON with a charset in the content type', async () => {
      const { accessToken } = await vendor();
      const reply = await create(accessToken, JSON.stringify({ name: 'Charset' }), { 'content-type': 'application/json; charset=utf-8' });
      expect(reply.status).toBe(201);
      expect(reply.body.name).toBe('Charset');
    });

    it('answers malformed JSON with a 400 error envelope and creates nothing', async () => {
      const { accessToken } = await vendor();
      const reply = await create(accessToken, '{"name": "Broken"', { 'content-type': 'application/json' });
      expectError(reply, 400, ['invalid_json', 'validation_failed', 'invalid_request']);
      expect(await listAll(accessToken)).toHaveLength(2);
    });

    it('validates form input like JSON input', async () => {
      const { accessToken } = await vendor();
      expectError(await create(accessToken, 'name=Bad&code=abc', FORM), 400, ['invalid_currency_code', 'validation_failed'], 'code');
      expectError(await create(accessToken, 'name=%20POINTS%20', FORM), 409, 'currency_name_taken', 'name');
      expect(await listAll(accessToken)).toHaveLength(2);
    });

    it('accepts PUT bodies as form fields and as JSON text with the form content type', async () => {
      const { accessToken } = await vendor();
      const c = await createOk(accessToken, { name: 'Editable' });
      const r1 = await put(accessToken, c.id, 'name=Edited&status=inactive', FORM);
      expect(r1.status, JSON.stringify(r1.body)).toBe(200);
      expect(r1.body).toMatchObject({ name: 'Edited', status: 'INACTIVE', code: null });
      const r2 = await put(accessToken, c.id, JSON.stringify({ code: 'chf', status: 'ACTIVE' }), FORM);
      expect(r2.status, JSON.stringify(r2.body)).toBe(200);
      expect(r2.body).toMatchObject({ name: 'Edited', status: 'ACTIVE', code: 'CHF' });
    });
  });
});

describe('GET /currencies/:id', () => {
  it('answers 200 with the currency, including the ones made at vendor set-up', async () => {
    const { accessToken } = await vendor();
    const points = await findByName(accessToken, 'Points');
    const quick = await findByName(accessToken, 'Quick Pay USD');
    expect(points.code).toBeNull();
    expect(quick.code).toBe('USD');
    for (const c of [points, quick]) {
      const reply = await get(accessToken, c.id);
      expect(reply.status).toBe(200);
      expectCurrencyShape(reply.body);
      expect(reply.body).toEqual(c);
      expect(reply.body.status).toBe('ACTIVE');
    }
  });

  it('answers 404 currency_not_found for an unknown id', async () => {
    const { accessToken } = await vendor();
    expectError(await get(accessToken, 'curr_00000000000000000000'), 404, 'currency_not_found');
    expectError(await get(accessToken, 'nonsense'), 404, 'currency_not_found');
  });

  it('does not find a card id among currencies', async () => {
    const { accessToken } = await vendor();
    const card = await http(url('/cards'), { method: 'POST', token: accessToken, body: { number: 'X1' } });
    expect(card.status).toBe(201);
    expectError(await get(accessToken, card.body.id), 404, 'currency_not_found');
  });
});

describe('PUT /currencies/:id', () => {
  it('changes the name; date_updated moves with the clock, date_created does not', async () => {
    const { accessToken } = await vendor();
    const c = await createOk(accessToken, { name: 'Before', code: 'EUR' });
    tick(5000);
    const reply = await put(accessToken, c.id, { name: 'After' });
    expect(reply.status).toBe(200);
    expectCurrencyShape(reply.body);
    expect(reply.body).toEqual({ ...c, name: 'After', date_updated: nowIso() });
    expect(reply.body.date_updated).not.toBe(c.date_created);
    expect(reply.body.date_created).toBe(c.date_created);
    expect((await get(accessToken, c.id)).body).toEqual(reply.body);
  });

  it('changes only the fields sent', async () => {
    const { accessToken } = await vendor();
    const c = await createOk(accessToken, { name: 'Partial', code: 'EUR' });
    tick();
    const s = await put(accessToken, c.id, { status: 'INACTIVE' });
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ name: 'Partial', code: 'EUR', status: 'INACTIVE' });
    tick();
    const n = await put(accessToken, c.id, { name: 'Partial 2' });
    expect(n.body).toMatchObject({ name: 'Partial 2', code: 'EUR', status: 'INACTIVE' });
    tick();
    const k = await put(accessToken, c.id, { code: 'gbp' });
    expect(k.body).toMatchObject({ name: 'Partial 2', code: 'GBP', status: 'INACTIVE' });
    expect((await get(accessToken, c.id)).body).toEqual(k.body);
  });

  it('turns a cash-like currency into a loyalty one and back while it has no accounts', async () => {
    const { accessToken } = await vendor();
    const c = await createOk(accessToken, { name: 'Flexible', code: 'EUR' });
    const loyalty = await put(accessToken, c.id, { code: null });
    expect(loyalty.status).toBe(200);
    expect(loyalty.body.code).toBeNull();
    const cash = await put(accessToken, c.id, { code: 'usd' });
    expect(cash.status).toBe(200);
    expect(cash.body.code).toBe('USD');
  });

  it('refuses an invalid code on PUT and changes nothing', async () => {
    const { accessToken } = await vendor();
    const c = await createOk(accessToken, { name: 'Keep code', code: 'EUR' });
    tick();
    expectError(await put(accessToken, c.id, { name: 'Renamed', code: 'ABC' }), 400, ['invalid_currency_code', 'validation_failed'], 'code');
    expectError(await put(accessToken, c.id, { code: 'XXXX' }), 400, ['invalid_currency_code', 'validation_failed'], 'code');
    expect((await get(accessToken, c.id)).body).toEqual(c);
  });

  it('refuses renaming into a name the vendor already uses (any case, spaces) with 409', async () => {
    const { accessToken } = await vendor();
    const c = await createOk(accessToken, { name: 'Silver' });
    tick();
    expectError(await put(accessToken, c.id, { name: ' points ' }), 409, 'currency_name_taken', 'name');
    expectError(await put(accessToken, c.id, { name: 'QUICK PAY USD', status: 'INACTIVE' }), 409, 'currency_name_taken', 'name');
    expect((await get(accessToken, c.id)).body).toEqual(c);
  });

  it('allows renaming a currency to its own name in another case', async () => {
    const { accessToken } = await vendor();
    const points = await findByName(accessToken, 'Points');
    const reply = await put(accessToken, points.id, { name: 'POINTS' });
    expect(reply.status).toBe(200);
    expect(reply.body.name).toBe('POINTS');
  });

  it('allows renaming into the name of a deleted currency, and into a name used by another vendor', async () => {
    const a = await vendor();
    const b = await vendor();
    const gone = await createOk(a.accessToken, { name: 'Gone' });
    expect((await del(a.accessToken, gone.id)).status).toBe(200);
    const c = await createOk(a.accessToken, { name: 'Renamer' });
    expect((await put(a.accessToken, c.id, { name: 'gone' })).body.name).toBe('gone');
    await createOk(b.accessToken, { name: 'Only B' });
    expect((await put(a.accessToken, c.id, { name: 'Only B' })).body.name).toBe('Only B');
  });

  it('answers 404 for an unknown id', async () => {
    const { accessToken } = await vendor();
    expectError(await put(accessToken, 'curr_00000000000000000000', { name: 'X' }), 404, 'currency_not_found');
  });

  describe('status', () => {
    it('accepts ACTIVE, INACTIVE and ARCHIVED in any letter case and stores upper case', async () => {
      const { accessToken } = await vendor();
      const c = await createOk(accessToken, { name: 'Lifecycle' });
      expect(c.status).toBe('ACTIVE');
      const steps: Array<[string, string]> = [
        ['inactive', 'INACTIVE'],
        ['Active', 'ACTIVE'],
        ['INACTIVE', 'INACTIVE'],
        ['archived', 'ARCHIVED'],
        ['active', 'ACTIVE'],
        ['ARCHIVED', 'ARCHIVED'],
        ['ACTIVE', 'ACTIVE'],
      ];
      for (const [sent, stored] of steps) {
        const reply = await put(accessToken, c.id, { status: sent });
        expect(reply.status, `${sent}: ${JSON.stringify(reply.body)}`).toBe(200);
        expect(reply.body.status).toBe(stored);
        expect((await get(accessToken, c.id)).body.status).toBe(stored);
      }
    });

    it('allows INACTIVE -> ARCHIVED', async () => {
      const { accessToken } = await vendor();
      const c = await createOk(accessToken, { name: 'Paused then retired' });
      expect((await put(accessToken, c.id, { status: 'INACTIVE' })).body.status).toBe('INACTIVE');
      expect((await put(accessToken, c.id, { status: 'ARCHIVED' })).body.status).toBe('ARCHIVED');
    });

    it('refuses ARCHIVED -> INACTIVE with 409 invalid_status_transition and changes nothing', async () => {
      const { accessToken } = await vendor();
      const c = await createOk(accessToken, { name: 'Retired' });
      const archived = await put(accessToken, c.id, { status: 'ARCHIVED' });
      expect(archived.body.status).toBe('ARCHIVED');
      tick();
      expectError(await put(accessToken, c.id, { status: 'INACTIVE' }), 409, 'invalid_status_transition');
      expectError(await put(accessToken, c.id, { status: 'inactive', name: 'Renamed meanwhile' }), 409, 'invalid_status_transition');
      expect((await get(accessToken, c.id)).body).toEqual(archived.body);
    });

    it('refuses an unknown status with 400 validation_failed naming the field status', async () => {
      const { accessToken } = await vendor();
      const c = await createOk(accessToken, { name: 'Odd status' });
      tick();
      expectError(await put(accessToken, c.id, { status: 'FOO' }), 400, 'validation_failed', 'status');
      expectError(await put(accessToken, c.id, { status: 'DELETED', name: 'Nope' }), 400, 'validation_failed', 'status');
      expectError(await put(accessToken, c.id, { status: '' }), 400, 'validation_failed', 'status');
      expect((await get(accessToken, c.id)).body).toEqual(c);
    });
  });

  describe('code of a currency that holds accounts', () => {
    it('refuses a code change with 409 currency_in_use once a ledger account exists; the same code is fine', async () => {
      const creds = await vendor();
      const { accessToken } = creds;
      const quick = await findByName(accessToken, 'Quick Pay USD');
      // Before any account the code may change.
      expect((await put(accessToken, quick.id, { code: 'EUR' })).body.code).toBe('EUR');
      expect((await put(accessToken, quick.id, { code: 'USD' })).body.code).toBe('USD');

      await openAccount(node.engine.db, node.engine, { vendorId: creds.vendorId, currencyId: creds.quickPayCurrencyId, holderType: 'user', holderId: 1 });
      const before = (await get(accessToken, quick.id)).body;
      tick();
      expectError(await put(accessToken, quick.id, { code: 'EUR' }), 409, 'currency_in_use', 'code');
      expectError(await put(accessToken, quick.id, { code: null }), 409, 'currency_in_use', 'code');
      expectError(await put(accessToken, quick.id, { code: 'gbp', name: 'Renamed wallet', status: 'INACTIVE' }), 409, 'currency_in_use', 'code');
      expect((await get(accessToken, quick.id)).body).toEqual(before);

      const same = await put(accessToken, quick.id, { code: 'usd', name: 'Wallet' });
      expect(same.status, JSON.stringify(same.body)).toBe(200);
      expect(same.body).toMatchObject({ code: 'USD', name: 'Wallet' });
    });

    it('refuses giving a loyalty currency with accounts a code', async () => {
      const creds = await vendor();
      const { accessToken } = creds;
      const points = await findByName(accessToken, 'Points');
      await openAccount(node.engine.db, node.engine, { vendorId: creds.vendorId, currencyId: creds.loyaltyCurrencyId, holderType: 'user', holderId: 1 });
      expectError(await put(accessToken, points.id, { code: 'EUR' }), 409, 'currency_in_use', 'code');
      expect((await get(accessToken, points.id)).body.code).toBeNull();
      const same = await put(accessToken, points.id, { code: null, status: 'INACTIVE' });
      expect(same.status).toBe(200);
      expect(same.body).toMatchObject({ code: null, status: 'INACTIVE' });
      // The other currency of the vendor has no account: its code can still change.
      const quick = await findByName(accessToken, 'Quick Pay USD');
      expect((await put(accessToken, quick.id, { code: 'CAD' })).body.code).toBe('CAD');
    });
  });

  describe('code of a currency the program counts in', () => {
    it('refuses a code for a loyalty currency that earning rules or rewards count in (409 currency_in_use), even before any account', async () => {
      const { accessToken } = await vendor();
      const gems = await createOk(accessToken, { name: 'Gems' });
      const rule = await http(`${node.url}/earning-rules`, { method: 'POST', token: accessToken, body: { name: 'Gems per dollar', currency: gems.id, points: 100, per_amount: 1 } });
      expect(rule.status, JSON.stringify(rule.body)).toBe(201);
      // Points earned by the rule would otherwise be paid out as euro cents.
      expectError(await put(accessToken, gems.id, { code: 'EUR' }), 409, 'currency_in_use', 'code');
      expect((await get(accessToken, gems.id)).body.code).toBeNull();

      const shells = await createOk(accessToken, { name: 'Shells' });
      const reward = await http(`${node.url}/rewards`, { method: 'POST', token: accessToken, body: { name: 'Free shell', currency: shells.id, cost: 5 } });
      expect(reward.status, JSON.stringify(reward.body)).toBe(201);
      expectError(await put(accessToken, shells.id, { code: 'EUR' }), 409, 'currency_in_use', 'code');
      // Once the reward is gone the currency may become cash-like (it holds no balance).
      expect((await http(`${node.url}/rewards/${reward.body.id}`, { method: 'DELETE', token: accessToken })).status).toBe(200);
      expect((await put(accessToken, shells.id, { code: 'EUR' })).body.code).toBe('EUR');
    });

    it("refuses taking the quick-pay currency's code away (409 currency_in_use): stored value is money, not points", async () => {
      const { accessToken } = await vendor();
      const quick = await findByName(accessToken, 'Quick Pay USD');
      expectError(await put(accessToken, quick.id, { code: null }), 409, 'currency_in_use', 'code');
      expectError(await put(accessToken, quick.id, { code: '' }), 409, 'currency_in_use', 'code');
      expect((await get(accessToken, quick.id)).body.code).toBe('USD');
    });
  });
});

describe('DELETE /currencies/:id', () => {
  it('answers 200 {} and the currency is gone for GET, PUT, DELETE and lists', async () => {
    const { accessToken } = await vendor();
    const c = await createOk(accessToken, { name: 'Doomed' });
    const reply = await del(accessToken, c.id);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({});
    expectError(await get(accessToken, c.id), 404, 'currency_not_found');
    expectError(await put(accessToken, c.id, { name: 'Zombie' }), 404, 'currency_not_found');
    expectError(await del(accessToken, c.id), 404, 'currency_not_found');
    const all = await listAll(accessToken);
    expect(all.map((x) => x.id)).not.toContain(c.id);
    expect(all).toHaveLength(2);
    expect((await list(accessToken, { query: 'n:Doomed' })).body.items).toEqual([]);
  });

  it('accepts a DELETE that carries a JSON body', async () => {
    const { accessToken } = await vendor();
    const c = await createOk(accessToken, { name: 'Body delete' });
    const reply = await http(url(`/currencies/${c.id}`), { method: 'DELETE', token: accessToken, body: {} });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({});
    expectError(await get(accessToken, c.id), 404, 'currency_not_found');
  });

  it("refuses deleting the program's quick-pay currency, or one a customer or card holds a balance in (409 currency_in_use): value is never hidden", async () => {
    const creds = await vendor();
    const { accessToken } = creds;
    const quick = await findByName(accessToken, 'Quick Pay USD');
    expectError(await del(accessToken, quick.id), 409, 'currency_in_use');
    expect((await get(accessToken, quick.id)).status).toBe(200);

    const stars = await createOk(accessToken, { name: 'Stars' });
    const starsId = (await node.engine.db.selectFrom('currencies').select('id').where('public_id', '=', stars.id).executeTakeFirstOrThrow()).id;
    const account = await openAccount(node.engine.db, node.engine, { vendorId: creds.vendorId, currencyId: starsId, holderType: 'card', holderId: 1 });
    await postEntry(node.engine.db, node.engine, account, { amount: 5, kind: 'adjustment' });
    const before = (await get(accessToken, stars.id)).body;
    const refused = await del(accessToken, stars.id);
    expectError(refused, 409, 'currency_in_use');
    expect(refused.body.message).toContain('hold balances');
    expect((await get(accessToken, stars.id)).body).toEqual(before);
    // Once nothing is held in it (an account at zero), it can go.
    await postEntry(node.engine.db, node.engine, account, { amount: -5, kind: 'adjustment' });
    expect((await del(accessToken, stars.id)).status).toBe(200);
    expectError(await get(accessToken, stars.id), 404, 'currency_not_found');
  });

  it('answers 404 for an unknown id', async () => {
    const { accessToken } = await vendor();
    expectError(await del(accessToken, 'curr_00000000000000000000'), 404, 'currency_not_found');
    expect(await listAll(accessToken)).toHaveLength(2);
  });
});

describe('GET /currencies (list)', () => {
  /** A vendor with its 2 set-up currencies plus `count` more, created 1 ms apart. Newest first. */
  async function vendorWithCurrencies(count: number, name = (i: number) => `Item ${String(i).padStart(2, '0')}`) {
    const creds = await vendor();
    const setUp = await listAll(creds.accessToken);
    tick();
    const made: any[] = [];
    for (let i = 1; i <= count; i++) {
      tick();
      made.push(await createOk(creds.accessToken, { name: name(i) }));
    }
    const newestFirst = [...made].reverse();
    return { creds, token: creds.accessToken, made, newestFirst, setUp };
  }

  it('answers the envelope {items, next, prev} of the vendor currencies', async () => {
    const { accessToken } = await vendor();
    const reply = await list(accessToken);
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body).sort()).toEqual(['items', 'next', 'prev']);
    expect(reply.body.next).toBeNull();
    expect(reply.body.prev).toBeNull();
    expect(reply.body.items.map((c: any) => c.name).sort()).toEqual(['Points', 'Quick Pay USD']);
    for (const c of reply.body.items) expectCurrencyShape(c);
  });

  it('gives 25 per page by default, newest first, with absolute next/prev links', async () => {
    const { token, newestFirst, setUp } = await vendorWithCurrencies(28);
    const origin = new URL(node.url).origin;

    const first = await list(token);
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(25);
    expect(first.body.items.map((c: any) => c.id)).toEqual(newestFirst.slice(0, 25).map((c) => c.id));
    expect(first.body.items[0]).toEqual(newestFirst[0]);
    expect(first.body.prev).toBeNull();
    expect(typeof first.body.next).toBe('string');
    expect(first.body.next.startsWith(origin + '/currencies')).toBe(true);
    const nextUrl = new URL(first.body.next);
    expect(nextUrl.origin).toBe(origin);
    expect(nextUrl.pathname).toBe('/currencies');
    expect(nextUrl.searchParams.get('page')).toBe('2');
    expect(nextUrl.searchParams.get('limit')).toBe('25');

    const second = await http(first.body.next, { token });
    expect(second.status).toBe(200);
    expect(second.body.items).toHaveLength(5);
    expect(second.body.items.slice(0, 3).map((c: any) => c.id)).toEqual(newestFirst.slice(25).map((c) => c.id));
    expect(new Set(second.body.items.slice(3).map((c: any) => c.id))).toEqual(new Set(setUp.map((c) => c.id)));
    expect(second.body.next).toBeNull();
    expect(typeof second.body.prev).toBe('string');
    expect(second.body.prev.startsWith(origin)).toBe(true);
    const prevUrl = new URL(second.body.prev);
    expect(prevUrl.pathname).toBe('/currencies');
    expect(prevUrl.searchParams.get('page')).toBe('1');
    expect(prevUrl.searchParams.get('limit')).toBe('25');

    const back = await http(second.body.prev, { token });
    expect(back.body).toEqual(first.body);
  });

  it('orders by date_created descending (timestamps strictly decreasing)', async () => {
    const { token } = await vendorWithCurrencies(6);
    const items = (await list(token)).body.items;
    for (let i = 1; i < items.length; i++) expect(items[i - 1].date_created >= items[i].date_created).toBe(true);
    expect(items[0].date_created > items[items.length - 1].date_created).toBe(true);
  });

  it('visits every currency exactly once when following next', async () => {
    const { token, made, setUp } = await vendorWithCurrencies(21);
    const seen: string[] = [];
    let next: string | null = url('/currencies?limit=4');
    let pages = 0;
    while (next) {
      const reply: HttpReply = await http(next, { token });
      expect(reply.status).toBe(200);
      pages++;
      expect(reply.body.items.length).toBeLessThanOrEqual(4);
      if (pages === 1) expect(reply.body.prev).toBeNull();
      else {
        const prev = new URL(reply.body.prev);
        expect(prev.searchParams.get('page')).toBe(String(pages - 1));
        expect(prev.searchParams.get('limit')).toBe('4');
      }
      if (reply.body.next !== null) expect(new URL(reply.body.next).searchParams.get('page')).toBe(String(pages + 1));
      seen.push(...reply.body.items.map((c: any) => c.id));
      next = reply.body.next;
      expect(pages).toBeLessThan(20);
    }
    expect(pages).toBe(6); // 23 currencies, 4 per page
    expect(seen).toHaveLength(23);
    expect(new Set(seen)).toEqual(new Set([...made, ...setUp].map((c) => c.id)));
  });

  it('has next null on a page that ends exactly at the last currency', async () => {
    const { token } = await vendorWithCurrencies(8); // 10 in all
    const page2 = await list(token, { limit: 5, page: 2 });
    expect(page2.body.items).toHaveLength(5);
    expect(page2.body.next).toBeNull();
    expect(page2.body.prev).not.toBeNull();
    const page1 = await list(token, { limit: 10 });
    expect(page1.body.items).toHaveLength(10);
    expect(page1.body.next).toBeNull();
  });

  it('answers an empty page past the end', async () => {
    const { token } = await vendorWithCurrencies(1);
    const reply = await list(token, { page: 5 });
    expect(reply.status).toBe(200);
    expect(reply.body.items).toEqual([]);
    expect(reply.body.next).toBeNull();
  });

  it('accepts limit 1 and limit 100', async () => {
    const { token, newestFirst } = await vendorWithCurrencies(3);
    const one = await list(token, { limit: 1 });
    expect(one.status).toBe(200);
    expect(one.body.items.map((c: any) => c.id)).toEqual([newestFirst[0].id]);
    expect(new URL(one.body.next).searchParams.get('limit')).toBe('1');
    const hundred = await list(token, { limit: 100 });
    expect(hundred.status).toBe(200);
    expect(hundred.body.items).toHaveLength(5);
    expect(hundred.body.next).toBeNull();
  });

  it.each([['0'], ['101'], ['abc'], ['-1']])('refuses limit=%s with 400 validation_failed on field limit', async (limit) => {
    const { accessToken } = await vendor();
    expectError(await list(accessToken, { limit }), 400, 'validation_failed', 'limit');
  });

  it.each([['0'], ['-2'], ['x']])('refuses page=%s with 400 validation_failed on field page', async (page) => {
    const { accessToken } = await vendor();
    expectError(await list(accessToken, { page }), 400, 'validation_failed', 'page');
  });

  it('keeps the other query parameters in next and prev', async () => {
    const { token } = await vendorWithCurrencies(7);
    const first = await list(token, { query: 'n:item', limit: 2, sort: 'name', order: 'ASC' });
    expect(first.status).toBe(200);
    expect(first.body.items.map((c: any) => c.name)).toEqual(['Item 01', 'Item 02']);
    const next = new URL(first.body.next);
    expect(next.searchParams.get('query')).toBe('n:item');
    expect(next.searchParams.get('sort')).toBe('name');
    expect(next.searchParams.get('order')).toBe('ASC');
    expect(next.searchParams.get('page')).toBe('2');
    expect(next.searchParams.get('limit')).toBe('2');
    const second = await http(first.body.next, { token });
    expect(second.body.items.map((c: any) => c.name)).toEqual(['Item 03', 'Item 04']);
    const prev = new URL(second.body.prev);
    expect(prev.searchParams.get('query')).toBe('n:item');
    expect(prev.searchParams.get('page')).toBe('1');
    const last = await list(token, { query: 'n:item', limit: 2, sort: 'name', order: 'ASC', page: 4 });
    expect(last.body.items.map((c: any) => c.name)).toEqual(['Item 07']);
    expect(last.body.next).toBeNull();
  });

  describe('query filter', () => {
    async function fixtures() {
      const creds = await vendor();
      const t = creds.accessToken;
      const gold = await createOk(t, { name: 'Gold Stars' });
      tick();
      const goldish = await createOk(t, { name: 'goldfish coins', code: 'EUR' });
      tick();
      const silver = await createOk(t, { name: 'Silver Gold' });
      tick();
      expect((await put(t, goldish.id, { status: 'ARCHIVED' })).status).toBe(200);
      return { t, gold, goldish, silver };
    }

    it('n: keeps names that start with the value, ignoring case', async () => {
      const { t, gold, goldish } = await fixtures();
      for (const value of ['gold', 'GOLD', 'Gold']) {
        const reply = await list(t, { query: `n:${value}` });
        expect(reply.status).toBe(200);
        expect(new Set(reply.body.items.map((c: any) => c.id))).toEqual(new Set([gold.id, goldish.id]));
      }
      expect((await list(t, { query: 'n:old' })).body.items).toEqual([]);
    });

    it('n: with a quoted value matches names with spaces', async () => {
      const { t, gold } = await fixtures();
      const reply = await list(t, { query: 'n:"gold st"' });
      expect(reply.status).toBe(200);
      expect(reply.body.items.map((c: any) => c.id)).toEqual([gold.id]);
      const quick = await list(t, { query: 'n:"quick pay"' });
      expect(quick.status).toBe(200);
      expect(quick.body.items.map((c: any) => c.name)).toEqual(['Quick Pay USD']);
    });

    it('s: keeps one status, in any letter case', async () => {
      const { t, goldish } = await fixtures();
      const archived = await list(t, { query: 's:ARCHIVED' });
      expect(archived.body.items.map((c: any) => c.id)).toEqual([goldish.id]);
      const active = await list(t, { query: 's:active' });
      expect(active.status).toBe(200);
      expect(active.body.items).toHaveLength(4);
      expect(active.body.items.every((c: any) => c.status === 'ACTIVE')).toBe(true);
      expect((await list(t, { query: 's:INACTIVE' })).body.items).toEqual([]);
    });

    it('combines pairs with AND', async () => {
      const { t, gold, goldish } = await fixtures();
      expect((await list(t, { query: 'n:gold s:ACTIVE' })).body.items.map((c: any) => c.id)).toEqual([gold.id]);
      expect((await list(t, { query: 's:ARCHIVED n:gold' })).body.items.map((c: any) => c.id)).toEqual([goldish.id]);
      expect((await list(t, { query: 'n:silver s:ARCHIVED' })).body.items).toEqual([]);
    });

    it.each([
      ['e:x', 'unknown key'],
      ['foo', 'not a key:value token'],
      ['n:gold foo', 'a stray token after a pair'],
      ['n:', 'an empty value'],
      ['n:"gold', 'an unbalanced quote'],
    ])('refuses query=%s (%s) with 400 invalid_query', async (query) => {
      const { accessToken } = await vendor();
      expectError(await list(accessToken, { query }), 400, 'invalid_query');
    });

    it('refuses an invalid status value in s: with 400', async () => {
      const { accessToken } = await vendor();
      expectError(await list(accessToken, { query: 's:FOO' }), 400, ['validation_failed', 'invalid_query']);
    });
  });

  describe('sort and order', () => {
    it('sort=name orders by name ignoring case, ASC and DESC', async () => {
      const creds = await vendor();
      const t = creds.accessToken;
      for (const name of ['banana', 'Apple', 'cherry']) {
        tick();
        await createOk(t, { name });
      }
      const asc = await list(t, { sort: 'name', order: 'ASC' });
      expect(asc.status).toBe(200);
      expect(asc.body.items.map((c: any) => c.name)).toEqual(['Apple', 'banana', 'cherry', 'Points', 'Quick Pay USD']);
      const desc = await list(t, { sort: 'name', order: 'DESC' });
      expect(desc.body.items.map((c: any) => c.name)).toEqual(['Quick Pay USD', 'Points', 'cherry', 'banana', 'Apple']);
    });

    it('sort=date_created order=ASC gives oldest first', async () => {
      const creds = await vendor();
      const t = creds.accessToken;
      const made: any[] = [];
      for (const name of ['First', 'Second', 'Third']) {
        tick();
        made.push(await createOk(t, { name }));
      }
      const asc = await list(t, { sort: 'date_created', order: 'ASC' });
      expect(asc.body.items.slice(2).map((c: any) => c.id)).toEqual(made.map((c) => c.id));
      const desc = await list(t, { sort: 'date_created', order: 'DESC' });
      expect(desc.body.items.slice(0, 3).map((c: any) => c.id)).toEqual([...made].reverse().map((c) => c.id));
    });

    it('sort=date_updated puts the most recently changed first', async () => {
      const creds = await vendor();
      const t = creds.accessToken;
      tick();
      const a = await createOk(t, { name: 'A' });
      tick();
      const b = await createOk(t, { name: 'B' });
      tick();
      await put(t, a.id, { status: 'INACTIVE' });
      const reply = await list(t, { sort: 'date_updated' });
      expect(reply.status).toBe(200);
      expect(reply.body.items.slice(0, 2).map((c: any) => c.id)).toEqual([a.id, b.id]);
      const asc = await list(t, { sort: 'date_updated', order: 'ASC' });
      expect(asc.body.items.slice(-2).map((c: any) => c.id)).toEqual([b.id, a.id]);
    });

    it('refuses an unknown sort field with 400 invalid_sort', async () => {
      const { accessToken } = await vendor();
      expectError(await list(accessToken, { sort: 'code' }), 400, 'invalid_sort');
      expectError(await list(accessToken, { sort: 'number' }), 400, 'invalid_sort');
    });

    it('refuses an unknown order with 400', async () => {
      const { accessToken } = await vendor();
      expectError(await list(accessToken, { order: 'SIDEWAYS' }), 400, ['invalid_sort', 'validation_failed']);
    });
  });
});

describe('authentication and vendor isolation', () => {
  it('answers 401 missing_credentials without an Authorization header, on every endpoint', async () => {
    const { accessToken } = await vendor();
    const c = await createOk(accessToken, { name: 'Protected' });
    expectError(await http(url('/currencies')), 401, 'missing_credentials');
    expectError(await http(url('/currencies'), { method: 'POST', body: { name: 'Anon' } }), 401, 'missing_credentials');
    expectError(await http(url(`/currencies/${c.id}`)), 401, 'missing_credentials');
    expectError(await http(url(`/currencies/${c.id}`), { method: 'PUT', body: { name: 'Anon' } }), 401, 'missing_credentials');
    expectError(await http(url(`/currencies/${c.id}`), { method: 'DELETE' }), 401, 'missing_credentials');
    expect((await get(accessToken, c.id)).body).toEqual(c);
    expect((await listAll(accessToken)).some((x) => x.name === 'Anon')).toBe(false);
  });

  it('answers 401 invalid_token for an unknown token or a malformed header', async () => {
    const { accessToken } = await vendor();
    const c = await createOk(accessToken, { name: 'Guarded' });
    expectError(await list('not-a-real-token'), 401, 'invalid_token');
    expectError(await create('not-a-real-token', { name: 'Intruder' }), 401, 'invalid_token');
    expectError(await put('not-a-real-token', c.id, { name: 'Intruder' }), 401, 'invalid_token');
    expectError(await del('not-a-real-token', c.id), 401, 'invalid_token');
    expectError(await http(url('/currencies'), { headers: { authorization: `Basic ${accessToken}` } }), 401, 'invalid_token');
    expect((await get(accessToken, c.id)).body).toEqual(c);
  });

  it('accepts the Bearer scheme in any letter case', async () => {
    const { accessToken } = await vendor();
    const reply = await http(url('/currencies'), { headers: { authorization: `bearer ${accessToken}` } });
    expect(reply.status).toBe(200);
    expect(reply.body.items).toHaveLength(2);
  });

  it("does not let vendor A read, change or delete vendor B's currency", async () => {
    const a = await vendor();
    const b = await vendor();
    const theirs = await createOk(b.accessToken, { name: 'B only', code: 'EUR' });
    tick();
    expectError(await get(a.accessToken, theirs.id), 404, 'currency_not_found');
    expectError(await put(a.accessToken, theirs.id, { name: 'Hijacked', status: 'ARCHIVED' }), 404, 'currency_not_found');
    expectError(await del(a.accessToken, theirs.id), 404, 'currency_not_found');
    expect((await get(b.accessToken, theirs.id)).body).toEqual(theirs);
  });

  it('lists only the currencies of the calling vendor', async () => {
    const a = await vendor();
    const b = await vendor();
    const mine = await createOk(a.accessToken, { name: 'Mine' });
    const theirs = await createOk(b.accessToken, { name: 'Theirs' });
    const listA = await listAll(a.accessToken);
    const listB = await listAll(b.accessToken);
    expect(listA.map((c) => c.id)).toContain(mine.id);
    expect(listA.map((c) => c.id)).not.toContain(theirs.id);
    expect(listB.map((c) => c.id)).toContain(theirs.id);
    expect(listB.map((c) => c.id)).not.toContain(mine.id);
    expect(listA).toHaveLength(3);
    expect(listB).toHaveLength(3);
    expect((await list(a.accessToken, { query: 'n:theirs' })).body.items).toEqual([]);
  });
});
