import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { resourceApi } from '../support/resource-api';
import { http, type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// Cards over real HTTP: a real node on a temp SQLite file, fetch from the test process.

const ISO_MS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const CARD_ID = /^card_[0-9a-z]{20}$/i;
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const MAX_DATA_BYTES = 16 * 1024;

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

const { url, create, createOk, get, put, del, list, listAll } = resourceApi(() => node, '/cards');

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

function expectCardShape(card: any): void {
  expect(Object.keys(card).sort()).toEqual(['data', 'date_created', 'date_updated', 'id', 'number', 'pin', 'status']);
  expect(card.id).toMatch(CARD_ID);
  expect(card.number).toMatch(/^[A-Za-z0-9]{1,64}$/);
  expect(card.pin === null || typeof card.pin === 'string').toBe(true);
  expect(card.data).toBeTypeOf('object');
  expect(Array.isArray(card.data)).toBe(false);
  expect(card.data).not.toBeNull();
  expect(card.date_created).toMatch(ISO_MS_UTC);
  expect(card.date_updated).toMatch(ISO_MS_UTC);
  expect(['ACTIVE', 'INACTIVE', 'ARCHIVED']).toContain(card.status);
}

/** A data object whose JSON text is exactly `bytes` bytes long. */
function dataOfSize(bytes: number): Record<string, string> {
  const overhead = JSON.stringify({ blob: '' }).length;
  const data = { blob: 'x'.repeat(bytes - overhead) };
  expect(Buffer.byteLength(JSON.stringify(data))).toBe(bytes);
  return data;
}

// ---------------------------------------------------------------------------------------------

describe('POST /cards', () => {
  it('creates a card: 201, prefixed id, pin null, data {}, ACTIVE, timestamps from the clock', async () => {
    const { accessToken } = await vendor();
    tick(1000);
    const created = nowIso();
    const reply = await create(accessToken, { number: '6001234567890' });
    expect(reply.status).toBe(201);
    expectCardShape(reply.body);
    expect(reply.body).toMatchObject({ number: '6001234567890', pin: null, data: {}, status: 'ACTIVE', date_created: created, date_updated: created });
    expect(reply.body.id).toHaveLength('card_'.length + 20);
    const fetched = await get(accessToken, reply.body.id);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(reply.body);
  });

  it('returns the pin as given and keeps data', async () => {
    const { accessToken } = await vendor();
    const data = { color: 'red', tier: { level: 2, perks: ['coffee', 'cake'] }, active: true, note: null };
    const card = await createOk(accessToken, { number: 'GIFT0001', pin: '0042', data });
    expect(card.pin).toBe('0042');
    expect(card.data).toEqual(data);
    const fetched = (await get(accessToken, card.id)).body;
    expect(fetched.pin).toBe('0042');
    expect(fetched.data).toEqual(data);
  });

  it('keeps the letter case of the number as given', async () => {
    const { accessToken } = await vendor();
    const card = await createOk(accessToken, { number: 'AbC123xYz' });
    expect(card.number).toBe('AbC123xYz');
  });

  it('treats explicit null pin and data as none', async () => {
    const { accessToken } = await vendor();
    const card = await createOk(accessToken, { number: 'NULLS1', pin: null, data: null });
    expect(card.pin).toBeNull();
    expect(card.data).toEqual({});
  });

  it('gives every card its own id', async () => {
    const { accessToken } = await vendor();
    const a = await createOk(accessToken, { number: 'ID1' });
    const b = await createOk(accessToken, { number: 'ID2' });
    expect(a.id).not.toBe(b.id);
  });

  it('requires a number', async () => {
    const { accessToken } = await vendor();
    expectError(await create(accessToken, { pin: '1234' }), 400, 'validation_failed', 'number');
    expectError(await create(accessToken, {}), 400, 'validation_failed', 'number');
    expectError(await create(accessToken, { number: '' }), 400, ['validation_failed', 'invalid_card_number'], 'number');
    expect(await listAll(accessToken)).toEqual([]);
  });

  it.each([
    ['1234 5678', 'a space'],
    ['1234-5678', 'a dash'],
    ['ABC_123', 'an underscore'],
    ['12.34', 'a dot'],
    ['card#1', 'a hash'],
  ])('refuses the number %s (%s) with 400 invalid_card_number and creates nothing', async (number) => {
    const { accessToken } = await vendor();
    expectError(await create(accessToken, { number }), 400, 'invalid_card_number', 'number');
    expect(await listAll(accessToken)).toEqual([]);
  });

  it('accepts numbers of 1 and 64 characters, refuses 65', async () => {
    const { accessToken } = await vendor();
    expect((await createOk(accessToken, { number: '7' })).number).toBe('7');
    const long = 'A1'.repeat(32);
    expect((await createOk(accessToken, { number: long })).number).toBe(long);
    expectError(await create(accessToken, { number: `${long}Z` }), 400, ['invalid_card_number', 'validation_failed'], 'number');
    expect(await listAll(accessToken)).toHaveLength(2);
  });

  it('refuses a number the vendor already uses, ignoring letter case (409 card_number_taken)', async () => {
    const { accessToken } = await vendor();
    const first = await createOk(accessToken, { number: 'abc123', data: { v: 1 } });
    expectError(await create(accessToken, { number: 'abc123' }), 409, 'card_number_taken', 'number');
    expectError(await create(accessToken, { number: 'ABC123', pin: '9', data: { v: 2 } }), 409, 'card_number_taken', 'number');
    const all = await listAll(accessToken);
    expect(all).toEqual([first]);
  });

  it('gives exactly one winner when the same number is created concurrently', async () => {
    const { accessToken } = await vendor();
    const replies = await Promise.all(Array.from({ length: 6 }, (_, i) => create(accessToken, { number: i % 2 ? 'RACE1' : 'race1' })));
    expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of replies.filter((x) => x.status !== 201)) expectError(r, 409, 'card_number_taken');
    expect(await listAll(accessToken)).toHaveLength(1);
  });

  it('lets another vendor use the same number', async () => {
    const a = await vendor();
    const b = await vendor();
    const ca = await createOk(a.accessToken, { number: 'SHARED42' });
    const cb = await createOk(b.accessToken, { number: 'shared42' });
    expect(ca.id).not.toBe(cb.id);
  });

  it('lets the number of a deleted card be used again', async () => {
    const { accessToken } = await vendor();
    const first = await createOk(accessToken, { number: 'REUSE1', pin: '1111' });
    expect((await del(accessToken, first.id)).status).toBe(200);
    const second = await createOk(accessToken, { number: 'reuse1' });
    expect(second.id).not.toBe(first.id);
    expect(second.pin).toBeNull();
    expect((await listAll(accessToken)).map((c) => c.id)).toEqual([second.id]);
  });

  it('refuses data that is not an object', async () => {
    const { accessToken } = await vendor();
    expectError(await create(accessToken, { number: 'D1', data: [1, 2] }), 400, 'validation_failed', 'data');
    expectError(await create(accessToken, { number: 'D2', data: 'text' }), 400, 'validation_failed', 'data');
    expectError(await create(accessToken, { number: 'D3', data: 5 }), 400, 'validation_failed', 'data');
    expect(await listAll(accessToken)).toEqual([]);
  });

  it('accepts data of exactly 16 KiB of JSON and refuses one byte more (400 validation_failed)', async () => {
    const { accessToken } = await vendor();
    const ok = await createOk(accessToken, { number: 'BIG1', data: dataOfSize(MAX_DATA_BYTES) });
    expect(Buffer.byteLength(JSON.stringify(ok.data))).toBe(MAX_DATA_BYTES);
    expectError(await create(accessToken, { number: 'BIG2', data: dataOfSize(MAX_DATA_BYTES + 1) }), 400, 'validation_failed', 'data');
    expectError(await create(accessToken, { number: 'BIG3', data: { blob: 'y'.repeat(40_000) } }), 400, 'validation_failed', 'data');
    expect((await listAll(accessToken)).map((c) => c.number)).toEqual(['BIG1']);
  });

  describe('body encodings', () => {
    it('accepts form fields with data nested by brackets', async () => {
      const { accessToken } = await vendor();
      const reply = await create(accessToken, 'number=FORM1&pin=0042&data[color]=red&data[size]=L&data[tier][name]=gold', FORM);
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      expectCardShape(reply.body);
      expect(reply.body).toMatchObject({ number: 'FORM1', pin: '0042', data: { color: 'red', size: 'L', tier: { name: 'gold' } }, status: 'ACTIVE' });
      expect((await get(accessToken, reply.body.id)).body).toEqual(reply.body);
    });

    it('accepts form fields with only a number', async () => {
      const { accessToken } = await vendor();
      const reply = await create(accessToken, 'number=FORM2', FORM);
      expect(reply.status).toBe(201);
      expect(reply.body).toMatchObject({ number: 'FORM2', pin: null, data: {} });
    });

    it('accepts JSON text sent with the form content type', async () => {
      const { accessToken } = await vendor();
      const body = JSON.stringify({ number: 'JSONFORM1', pin: '77', data: { color: 'red', nested: { a: [1, 2] } } });
      const reply = await create(accessToken, body, FORM);
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      expect(reply.body).toMatchObject({ number: 'JSONFORM1', pin: '77', data: { color: 'red', nested: { a: [1, 2] } } });
    });

    it('validates form input like JSON input', async () => {
      const { accessToken } = await vendor();
      expectError(await create(accessToken, 'number=12-34', FORM), 400, 'invalid_card_number', 'number');
      expectError(await create(accessToken, 'pin=12', FORM), 400, 'validation_failed', 'number');
      await createOk(accessToken, { number: 'TAKEN' });
      expectError(await create(accessToken, 'number=taken&data[x]=1', FORM), 409, 'card_number_taken', 'number');
      expect(await listAll(accessToken)).toHaveLength(1);
    });

    it('answers malformed JSON with a 400 error envelope and creates nothing', async () => {
      const { accessToken } = await vendor();
      expectError(await create(accessToken, '{"number": "BROKEN"', { 'content-type': 'application/json' }), 400, ['invalid_json', 'validation_failed', 'invalid_request']);
      expect(await listAll(accessToken)).toEqual([]);
    });

    it('accepts PUT bodies as form fields (data by brackets) and as JSON text with the form content type', async () => {
      const { accessToken } = await vendor();
      const card = await createOk(accessToken, { number: 'PUTFORM', pin: '5', data: { color: 'red' } });
      tick();
      const r1 = await put(accessToken, card.id, 'data[color]=blue&data[shape]=round&status=inactive', FORM);
      expect(r1.status, JSON.stringify(r1.body)).toBe(200);
      expect(r1.body).toMatchObject({ number: 'PUTFORM', pin: '5', data: { color: 'blue', shape: 'round' }, status: 'INACTIVE' });
      tick();
      const r2 = await put(accessToken, card.id, JSON.stringify({ data: { color: 'green' }, status: 'ACTIVE' }), FORM);
      expect(r2.status, JSON.stringify(r2.body)).toBe(200);
      expect(r2.body).toMatchObject({ data: { color: 'green' }, status: 'ACTIVE' });
      expect((await get(accessToken, card.id)).body).toEqual(r2.body);
    });
  });
});

describe('GET /cards/:id', () => {
  it('answers 404 card_not_found for an unknown id', async () => {
    const { accessToken } = await vendor();
    expectError(await get(accessToken, 'card_00000000000000000000'), 404, 'card_not_found');
    expectError(await get(accessToken, 'nonsense'), 404, 'card_not_found');
  });

  it('does not find a currency id among cards', async () => {
    const { accessToken } = await vendor();
    const currencies = await http(url('/currencies'), { token: accessToken });
    const currencyId = currencies.body.items[0].id;
    expect(currencyId).toMatch(/^curr_/);
    expectError(await get(accessToken, currencyId), 404, 'card_not_found');
  });
});

describe('PUT /cards/:id', () => {
  it('changes data; date_updated moves with the clock, date_created does not', async () => {
    const { accessToken } = await vendor();
    const card = await createOk(accessToken, { number: 'UPD1', pin: '1234', data: { color: 'red' } });
    tick(7000);
    const reply = await put(accessToken, card.id, { data: { color: 'blue', size: 'XL' } });
    expect(reply.status).toBe(200);
    expectCardShape(reply.body);
    expect(reply.body).toEqual({ ...card, data: { color: 'blue', size: 'XL' }, date_updated: nowIso() });
    expect(reply.body.date_updated).not.toBe(card.date_updated);
    expect(reply.body.date_created).toBe(card.date_created);
    expect((await get(accessToken, card.id)).body).toEqual(reply.body);
  });

  it('replaces data as a whole', async () => {
    const { accessToken } = await vendor();
    const card = await createOk(accessToken, { number: 'UPD2', data: { a: 1, b: 2 } });
    const reply = await put(accessToken, card.id, { data: { c: 3 } });
    expect(reply.body.data).toEqual({ c: 3 });
    const cleared = await put(accessToken, card.id, { data: {} });
    expect(cleared.body.data).toEqual({});
  });

  it('changes only the fields sent', async () => {
    const { accessToken } = await vendor();
    const card = await createOk(accessToken, { number: 'UPD3', pin: '99', data: { keep: true } });
    tick();
    const s = await put(accessToken, card.id, { status: 'INACTIVE' });
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ number: 'UPD3', pin: '99', data: { keep: true }, status: 'INACTIVE' });
    tick();
    const d = await put(accessToken, card.id, { data: { keep: false } });
    expect(d.body).toMatchObject({ number: 'UPD3', pin: '99', data: { keep: false }, status: 'INACTIVE' });
    expect((await get(accessToken, card.id)).body).toEqual(d.body);
  });

  it('refuses a different number with 400 card_field_not_updatable and changes nothing', async () => {
    const { accessToken } = await vendor();
    const card = await createOk(accessToken, { number: 'FIXED1', pin: '1234', data: { v: 1 } });
    tick();
    expectError(await put(accessToken, card.id, { number: 'OTHER1' }), 400, 'card_field_not_updatable', 'number');
    expectError(await put(accessToken, card.id, { number: 'OTHER1', data: { v: 2 }, status: 'ARCHIVED' }), 400, 'card_field_not_updatable', 'number');
    expect((await get(accessToken, card.id)).body).toEqual(card);
    // The number is not taken by the refused change either.
    expect((await createOk(accessToken, { number: 'OTHER1' })).number).toBe('OTHER1');
  });

  it('refuses a different pin with 400 card_field_not_updatable and changes nothing', async () => {
    const { accessToken } = await vendor();
    const withPin = await createOk(accessToken, { number: 'PIN1', pin: '1234', data: { v: 1 } });
    const noPin = await createOk(accessToken, { number: 'PIN2' });
    tick();
    expectError(await put(accessToken, withPin.id, { pin: '9999' }), 400, 'card_field_not_updatable', 'pin');
    expectError(await put(accessToken, withPin.id, { pin: null, data: { v: 2 } }), 400, 'card_field_not_updatable', 'pin');
    expectError(await put(accessToken, noPin.id, { pin: '0000', status: 'INACTIVE' }), 400, 'card_field_not_updatable', 'pin');
    expect((await get(accessToken, withPin.id)).body).toEqual(withPin);
    expect((await get(accessToken, noPin.id)).body).toEqual(noPin);
  });

  it('accepts the same number and pin sent back (the whole object echoed) and applies data and status', async () => {
    const { accessToken } = await vendor();
    const card = await createOk(accessToken, { number: 'ECHO1', pin: '0042', data: { color: 'red' } });
    tick();
    const reply = await put(accessToken, card.id, { ...card, data: { color: 'blue' }, status: 'INACTIVE' });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toEqual({ ...card, data: { color: 'blue' }, status: 'INACTIVE', date_updated: nowIso() });

    const noPin = await createOk(accessToken, { number: 'ECHO2' });
    const echoed = await put(accessToken, noPin.id, { ...noPin });
    expect(echoed.status, JSON.stringify(echoed.body)).toBe(200);
    expect(echoed.body).toMatchObject({ number: 'ECHO2', pin: null, data: {}, status: 'ACTIVE' });
  });

  it('accepts the object echoed back as form fields', async () => {
    const { accessToken } = await vendor();
    const card = await createOk(accessToken, { number: 'ECHOFORM1', pin: '0042' });
    const reply = await put(accessToken, card.id, 'number=ECHOFORM1&pin=0042&status=ACTIVE&data[a]=1', FORM);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ number: 'ECHOFORM1', pin: '0042', data: { a: '1' } });
  });

  it('accepts a card without pin echoed back as form fields (an empty pin field stands for null)', async () => {
    // Form fields cannot carry null: a client echoing {pin: null} as a form sends `pin=`.
    // POST already reads an empty pin as none (pin null), so PUT should read it the same way.
    const { accessToken } = await vendor();
    const card = await createOk(accessToken, { number: 'ECHOFORM2' });
    const created = await create(accessToken, 'number=ECHOFORM3&pin=', FORM);
    expect(created.status).toBe(201);
    expect(created.body.pin).toBeNull();
    const reply = await put(accessToken, card.id, 'number=ECHOFORM2&pin=&status=INACTIVE', FORM);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ number: 'ECHOFORM2', pin: null, status: 'INACTIVE' });
  });

  it('refuses data larger than 16 KiB on PUT and keeps the old data', async () => {
    const { accessToken } = await vendor();
    const card = await createOk(accessToken, { number: 'BIGPUT', data: { small: true } });
    tick();
    expectError(await put(accessToken, card.id, { data: dataOfSize(MAX_DATA_BYTES + 1), status: 'INACTIVE' }), 400, 'validation_failed', 'data');
    expect((await get(accessToken, card.id)).body).toEqual(card);
    const ok = await put(accessToken, card.id, { data: dataOfSize(MAX_DATA_BYTES) });
    expect(ok.status).toBe(200);
  });

  it('refuses data that is not an object on PUT', async () => {
    const { accessToken } = await vendor();
    const card = await createOk(accessToken, { number: 'ARRPUT', data: { k: 1 } });
    expectError(await put(accessToken, card.id, { data: ['a'] }), 400, 'validation_failed', 'data');
    expect((await get(accessToken, card.id)).body).toEqual(card);
  });

  it('answers 404 for an unknown id', async () => {
    const { accessToken } = await vendor();
    expectError(await put(accessToken, 'card_00000000000000000000', { data: {} }), 404, 'card_not_found');
  });

  describe('status', () => {
    it('accepts ACTIVE, INACTIVE and ARCHIVED in any letter case and stores upper case', async () => {
      const { accessToken } = await vendor();
      const card = await createOk(accessToken, { number: 'LIFE1' });
      expect(card.status).toBe('ACTIVE');
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
        const reply = await put(accessToken, card.id, { status: sent });
        expect(reply.status, `${sent}: ${JSON.stringify(reply.body)}`).toBe(200);
        expect(reply.body.status).toBe(stored);
        expect((await get(accessToken, card.id)).body.status).toBe(stored);
      }
    });

    it('allows INACTIVE -> ARCHIVED', async () => {
      const { accessToken } = await vendor();
      const card = await createOk(accessToken, { number: 'LIFE2' });
      expect((await put(accessToken, card.id, { status: 'INACTIVE' })).body.status).toBe('INACTIVE');
      expect((await put(accessToken, card.id, { status: 'ARCHIVED' })).body.status).toBe('ARCHIVED');
    });

    it('refuses ARCHIVED -> INACTIVE with 409 invalid_status_transition and changes nothing', async () => {
      const { accessToken } = await vendor();
      const card = await createOk(accessToken, { number: 'LIFE3', data: { v: 1 } });
      const archived = await put(accessToken, card.id, { status: 'ARCHIVED' });
      expect(archived.body.status).toBe('ARCHIVED');
      tick();
      expectError(await put(accessToken, card.id, { status: 'INACTIVE' }), 409, 'invalid_status_transition');
      expectError(await put(accessToken, card.id, { status: 'inactive', data: { v: 2 } }), 409, 'invalid_status_transition');
      expect((await get(accessToken, card.id)).body).toEqual(archived.body);
    });

    it('refuses an unknown status with 400 validation_failed naming the field status', async () => {
      const { accessToken } = await vendor();
      const card = await createOk(accessToken, { number: 'LIFE4', data: { v: 1 } });
      tick();
      expectError(await put(accessToken, card.id, { status: 'FOO' }), 400, 'validation_failed', 'status');
      expectError(await put(accessToken, card.id, { status: 'LOST', data: { v: 2 } }), 400, 'validation_failed', 'status');
      expect((await get(accessToken, card.id)).body).toEqual(card);
    });
  });
});

describe('DELETE /cards/:id', () => {
  it('answers 200 {} and the card is gone for GET, PUT, DELETE and lists', async () => {
    const { accessToken } = await vendor();
    const keep = await createOk(accessToken, { number: 'KEEP1' });
    const card = await createOk(accessToken, { number: 'DOOMED1', pin: '1' });
    const reply = await del(accessToken, card.id);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({});
    expectError(await get(accessToken, card.id), 404, 'card_not_found');
    expectError(await put(accessToken, card.id, { data: { back: true } }), 404, 'card_not_found');
    expectError(await del(accessToken, card.id), 404, 'card_not_found');
    expect((await listAll(accessToken)).map((c) => c.id)).toEqual([keep.id]);
    expect((await list(accessToken, { query: 'n:doomed' })).body.items).toEqual([]);
  });

  it('answers 404 for an unknown id', async () => {
    const { accessToken } = await vendor();
    expectError(await del(accessToken, 'card_00000000000000000000'), 404, 'card_not_found');
  });
});

describe('GET /cards (list)', () => {
  /** A vendor with `count` cards created 1 ms apart. */
  async function vendorWithCards(count: number, number = (i: number) => `C${String(i).padStart(3, '0')}`) {
    const creds = await vendor();
    const made: any[] = [];
    for (let i = 1; i <= count; i++) {
      tick();
      made.push(await createOk(creds.accessToken, { number: number(i) }));
    }
    return { creds, token: creds.accessToken, made, newestFirst: [...made].reverse() };
  }

  it('answers an empty envelope {items: [], next: null, prev: null} for a vendor without cards', async () => {
    const { accessToken } = await vendor();
    const reply = await list(accessToken);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ items: [], next: null, prev: null });
  });

  it('gives 25 per page by default, newest first, with absolute next/prev links', async () => {
    const { token, newestFirst } = await vendorWithCards(30);
    const origin = new URL(node.url).origin;

    const first = await list(token);
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(['items', 'next', 'prev']);
    expect(first.body.items).toHaveLength(25);
    expect(first.body.items).toEqual(newestFirst.slice(0, 25));
    for (const c of first.body.items) expectCardShape(c);
    expect(first.body.prev).toBeNull();
    expect(first.body.next.startsWith(`${origin}/cards`)).toBe(true);
    const next = new URL(first.body.next);
    expect(next.pathname).toBe('/cards');
    expect(next.searchParams.get('page')).toBe('2');
    expect(next.searchParams.get('limit')).toBe('25');

    const second = await http(first.body.next, { token });
    expect(second.status).toBe(200);
    expect(second.body.items).toEqual(newestFirst.slice(25));
    expect(second.body.next).toBeNull();
    expect(second.body.prev.startsWith(origin)).toBe(true);
    const prev = new URL(second.body.prev);
    expect(prev.searchParams.get('page')).toBe('1');
    expect(prev.searchParams.get('limit')).toBe('25');
    expect((await http(second.body.prev, { token })).body).toEqual(first.body);
  });

  it('visits every card exactly once when following next', async () => {
    const { token, made } = await vendorWithCards(26);
    const seen: string[] = [];
    let next: string | null = url('/cards?limit=3');
    let pages = 0;
    while (next) {
      const reply: HttpReply = await http(next, { token });
      expect(reply.status).toBe(200);
      pages++;
      expect(reply.body.items.length).toBeLessThanOrEqual(3);
      if (pages === 1) expect(reply.body.prev).toBeNull();
      else expect(new URL(reply.body.prev).searchParams.get('page')).toBe(String(pages - 1));
      seen.push(...reply.body.items.map((c: any) => c.id));
      next = reply.body.next;
      expect(pages).toBeLessThan(20);
    }
    expect(pages).toBe(9);
    expect(seen).toEqual([...made].reverse().map((c) => c.id));
  });

  it('has next null when the last page is exactly full', async () => {
    const { token } = await vendorWithCards(6);
    const p2 = await list(token, { limit: 3, page: 2 });
    expect(p2.body.items).toHaveLength(3);
    expect(p2.body.next).toBeNull();
    expect(p2.body.prev).not.toBeNull();
  });

  it.each([['0'], ['101'], ['abc']])('refuses limit=%s with 400 validation_failed on field limit', async (limit) => {
    const { accessToken } = await vendor();
    expectError(await list(accessToken, { limit }), 400, 'validation_failed', 'limit');
  });

  it('refuses page=0 with 400 validation_failed on field page', async () => {
    const { accessToken } = await vendor();
    expectError(await list(accessToken, { page: 0 }), 400, 'validation_failed', 'page');
  });

  it('accepts limit=100', async () => {
    const { token } = await vendorWithCards(3);
    const reply = await list(token, { limit: 100 });
    expect(reply.status).toBe(200);
    expect(reply.body.items).toHaveLength(3);
  });

  it('keeps query, sort and order in next and prev', async () => {
    const { token } = await vendorWithCards(5, (i) => `Gold${i}`);
    await createOk(token, { number: 'SILVER1' });
    const first = await list(token, { query: 'n:gold', sort: 'number', order: 'ASC', limit: 2 });
    expect(first.status).toBe(200);
    expect(first.body.items.map((c: any) => c.number)).toEqual(['Gold1', 'Gold2']);
    const next = new URL(first.body.next);
    expect(next.searchParams.get('query')).toBe('n:gold');
    expect(next.searchParams.get('sort')).toBe('number');
    expect(next.searchParams.get('order')).toBe('ASC');
    const second = await http(first.body.next, { token });
    expect(second.body.items.map((c: any) => c.number)).toEqual(['Gold3', 'Gold4']);
    expect(new URL(second.body.prev).searchParams.get('query')).toBe('n:gold');
    const third = await http(second.body.next, { token });
    expect(third.body.items.map((c: any) => c.number)).toEqual(['Gold5']);
    expect(third.body.next).toBeNull();
  });

  describe('query filter', () => {
    async function fixtures() {
      const creds = await vendor();
      const t = creds.accessToken;
      tick();
      const a = await createOk(t, { number: 'ABC100' });
      tick();
      const b = await createOk(t, { number: 'abd200' });
      tick();
      const c = await createOk(t, { number: 'XABC300' });
      tick();
      expect((await put(t, b.id, { status: 'ARCHIVED' })).status).toBe(200);
      return { t, a, b, c };
    }

    it('n: keeps numbers that start with the value, ignoring case', async () => {
      const { t, a, b } = await fixtures();
      for (const value of ['ab', 'AB', 'aB']) {
        const reply = await list(t, { query: `n:${value}` });
        expect(reply.status).toBe(200);
        expect(reply.body.items.map((x: any) => x.id)).toEqual([b.id, a.id]);
      }
      expect((await list(t, { query: 'n:abc' })).body.items.map((x: any) => x.id)).toEqual([a.id]);
      expect((await list(t, { query: 'n:bc' })).body.items).toEqual([]);
      expect((await list(t, { query: 'n:"abc1"' })).body.items.map((x: any) => x.id)).toEqual([a.id]);
    });

    it('s: keeps one status and combines with n: using AND', async () => {
      const { t, a, b, c } = await fixtures();
      expect((await list(t, { query: 's:archived' })).body.items.map((x: any) => x.id)).toEqual([b.id]);
      expect((await list(t, { query: 's:ACTIVE' })).body.items.map((x: any) => x.id)).toEqual([c.id, a.id]);
      expect((await list(t, { query: 'n:ab s:ACTIVE' })).body.items.map((x: any) => x.id)).toEqual([a.id]);
      expect((await list(t, { query: 's:ARCHIVED n:x' })).body.items).toEqual([]);
    });

    it.each([['e:x'], ['foo'], ['n:ab bar'], ['n:'], ['n:"ab']])('refuses query=%s with 400 invalid_query', async (query) => {
      const { accessToken } = await vendor();
      expectError(await list(accessToken, { query }), 400, 'invalid_query');
    });

    it('refuses an invalid status value in s: with 400', async () => {
      const { accessToken } = await vendor();
      expectError(await list(accessToken, { query: 's:FOO' }), 400, ['validation_failed', 'invalid_query']);
    });
  });

  describe('sort and order', () => {
    it('sort=number orders by number ignoring case, ASC and DESC', async () => {
      const { accessToken: t } = await vendor();
      for (const number of ['b20', 'A10', 'c30', 'B15']) {
        tick();
        await createOk(t, { number });
      }
      const asc = await list(t, { sort: 'number', order: 'ASC' });
      expect(asc.status).toBe(200);
      expect(asc.body.items.map((c: any) => c.number)).toEqual(['A10', 'B15', 'b20', 'c30']);
      const desc = await list(t, { sort: 'number', order: 'DESC' });
      expect(desc.body.items.map((c: any) => c.number)).toEqual(['c30', 'b20', 'B15', 'A10']);
    });

    it('sort=date_created order=ASC gives oldest first', async () => {
      const { token, made } = await vendorWithCards(4);
      const asc = await list(token, { sort: 'date_created', order: 'ASC' });
      expect(asc.body.items.map((c: any) => c.id)).toEqual(made.map((c) => c.id));
    });

    it('sort=date_updated puts the most recently changed first', async () => {
      const { token, made } = await vendorWithCards(3);
      tick();
      await put(token, made[0].id, { data: { touched: true } });
      const reply = await list(token, { sort: 'date_updated' });
      expect(reply.body.items.map((c: any) => c.id)).toEqual([made[0].id, made[2].id, made[1].id]);
      const asc = await list(token, { sort: 'date_updated', order: 'ASC' });
      expect(asc.body.items.map((c: any) => c.id)).toEqual([made[1].id, made[2].id, made[0].id]);
    });

    it('refuses an unknown sort field with 400 invalid_sort', async () => {
      const { accessToken } = await vendor();
      expectError(await list(accessToken, { sort: 'name' }), 400, 'invalid_sort');
      expectError(await list(accessToken, { sort: 'pin' }), 400, 'invalid_sort');
    });

    it('refuses an unknown order with 400', async () => {
      const { accessToken } = await vendor();
      expectError(await list(accessToken, { order: 'UP' }), 400, ['invalid_sort', 'validation_failed']);
    });
  });
});

describe('authentication and vendor isolation', () => {
  it('answers 401 missing_credentials without an Authorization header, on every endpoint', async () => {
    const { accessToken } = await vendor();
    const card = await createOk(accessToken, { number: 'PROT1', data: { v: 1 } });
    expectError(await http(url('/cards')), 401, 'missing_credentials');
    expectError(await http(url('/cards'), { method: 'POST', body: { number: 'ANON1' } }), 401, 'missing_credentials');
    expectError(await http(url(`/cards/${card.id}`)), 401, 'missing_credentials');
    expectError(await http(url(`/cards/${card.id}`), { method: 'PUT', body: { data: { v: 2 } } }), 401, 'missing_credentials');
    expectError(await http(url(`/cards/${card.id}`), { method: 'DELETE' }), 401, 'missing_credentials');
    expect(await listAll(accessToken)).toEqual([card]);
  });

  it('answers 401 invalid_token for an unknown token', async () => {
    const { accessToken } = await vendor();
    const card = await createOk(accessToken, { number: 'PROT2', data: { v: 1 } });
    expectError(await list('bogus-token'), 401, 'invalid_token');
    expectError(await create('bogus-token', { number: 'INTRUDER' }), 401, 'invalid_token');
    expectError(await get('bogus-token', card.id), 401, 'invalid_token');
    expectError(await put('bogus-token', card.id, { data: { v: 2 } }), 401, 'invalid_token');
    expectError(await del('bogus-token', card.id), 401, 'invalid_token');
    expect(await listAll(accessToken)).toEqual([card]);
  });

  it("does not let vendor A read, change or delete vendor B's card", async () => {
    const a = await vendor();
    const b = await vendor();
    const theirs = await createOk(b.accessToken, { number: 'BONLY1', pin: '4321', data: { owner: 'b' } });
    tick();
    expectError(await get(a.accessToken, theirs.id), 404, 'card_not_found');
    expectError(await put(a.accessToken, theirs.id, { data: { owner: 'a' }, status: 'ARCHIVED' }), 404, 'card_not_found');
    expectError(await del(a.accessToken, theirs.id), 404, 'card_not_found');
    expect((await get(b.accessToken, theirs.id)).body).toEqual(theirs);
  });

  it('lists only the cards of the calling vendor', async () => {
    const a = await vendor();
    const b = await vendor();
    const mine = await createOk(a.accessToken, { number: 'MINE1' });
    const theirs = await createOk(b.accessToken, { number: 'THEIRS1' });
    expect(await listAll(a.accessToken)).toEqual([mine]);
    expect(await listAll(b.accessToken)).toEqual([theirs]);
    expect((await list(a.accessToken, { query: 'n:theirs' })).body.items).toEqual([]);
  });
});
