import { request as rawRequest } from 'node:http';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { customerApi, expectLegacyError, FORM, freshEmail, PASSWORD, ROOMY_RATE_LIMITS, withSessionKey } from '../support/customers';
import { http, type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// The look-ups before sign-up (email, mobile and cedula exists) and the customer's barcode token,
// over real HTTP. The barcode PNG is decoded here, pixel by pixel, back to the token.

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});

afterAll(async () => {
  await node?.close();
});

// ---------------------------------------------------------------------------------------------
// helpers

const { vendor, vendorName, nowSec, post, signUp, lookup, lookupOk } = customerApi(() => node, { vendorName: 'Farmacia' });

async function ecVendor(name = vendorName('Farmacia EC')) {
  const v = await setUpVendor(node.engine, { name, currency: 'USD', country: 'EC', store: { name: 'Centro', address1: 'Av. 10', city: 'Quito' } });
  return { ...v, name };
}

/** A GET with a JSON body (fetch refuses to send one; legacy clients do). */
function getWithBody(path: string, body: unknown): Promise<{ status: number; body: any }> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = rawRequest(`${node.url}${path}`, { method: 'GET', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(text);
  });
}

function requestToken(key: string, body: unknown, headers?: Record<string, string>): Promise<HttpReply> {
  return post(withSessionKey('/user/token/request', key), body, headers);
}

// ---- a small Code 128 reader (enough to read back what the service draws)

/** Bar/space widths of the Code 128 symbols 0-105, then the stop pattern. */
const CODE128 = [
  '212222', '222122', '222221', '121223', '121322', '131222', '122213', '122312', '132212', '221213', '221312', '231212', '112232', '122132', '122231', '113222',
  '123122', '123221', '223211', '221132', '221231', '213212', '223112', '312131', '311222', '321122', '321221', '312212', '322112', '322211', '212123', '212321',
  '232121', '111323', '131123', '131321', '112313', '132113', '132311', '211313', '231113', '231311', '112133', '112331', '132131', '113123', '113321', '133121',
  '313121', '211331', '231131', '213113', '213311', '213131', '311123', '311321', '331121', '312113', '312311', '332111', '314111', '221411', '431111', '111224',
  '111422', '121124', '121421', '141122', '141221', '112214', '112412', '122114', '122411', '142112', '142211', '241211', '221114', '413111', '241112', '134111',
  '111242', '121142', '121241', '114212', '124112', '124211', '411212', '421112', '421211', '212141', '214121', '412121', '111143', '111341', '131141', '114113',
  '114311', '411113', '411311', '113141', '114131', '311141', '411131', '211412', '211214', '211232',
];
const STOP = '2331112';

function pixel(png: PNG, x: number, y: number): [number, number, number, number] {
  const i = (y * png.width + x) * 4;
  return [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!, png.data[i + 3]!];
}

function isWhite(png: PNG, x: number, y: number): boolean {
  const [r, g, b, a] = pixel(png, x, y);
  return r === 255 && g === 255 && b === 255 && a === 255;
}

function isBlack(png: PNG, x: number, y: number): boolean {
  const [r, g, b, a] = pixel(png, x, y);
  return r < 64 && g < 64 && b < 64 && a === 255;
}

interface Scan {
  /** Pixels per module. */
  module: number;
  /** First and last black pixel of the row. */
  first: number;
  last: number;
  text: string;
}

/** Reads one pixel row through the bars as Code 128: start code, data, checksum, stop. */
function readCode128(png: PNG, y: number): Scan {
  let first = -1;
  let last = -1;
  for (let x = 0; x < png.width; x++) {
    if (isBlack(png, x, y)) {
      if (first < 0) first = x;
      last = x;
    }
  }
  if (first < 0) throw new Error(`no bars on row ${y}`);
  const runs: number[] = [];
  let current = true;
  let length = 0;
  for (let x = first; x <= last; x++) {
    const black = isBlack(png, x, y);
    if (black === current) length++;
    else {
      runs.push(length);
      current = black;
      length = 1;
    }
  }
  runs.push(length);
  // The start symbol is 11 modules wide.
  const module = runs.slice(0, 6).reduce((a, b) => a + b, 0) / 11;
  const widths = runs.map((run) => Math.round(run / module));
  expect(runs.every((run, i) => Math.abs(run - widths[i]! * module) < module / 3), 'bars are whole modules').toBe(true);
  const symbols: number[] = [];
  let i = 0;
  for (; i + 7 <= widths.length && widths.slice(i, i + 7).join('') !== STOP; i += 6) {
    const value = CODE128.indexOf(widths.slice(i, i + 6).join(''));
    if (value < 0) throw new Error(`unknown Code 128 pattern ${widths.slice(i, i + 6).join('')}`);
    symbols.push(value);
  }
  expect(widths.slice(i).join(''), 'stop pattern ends the row').toBe(STOP);
  const [start, ...rest] = symbols;
  const checksum = rest.pop()!;
  expect([103, 104, 105]).toContain(start);
  const sum = rest.reduce((acc, value, index) => acc + value * (index + 1), start!);
  expect(sum % 103, 'checksum').toBe(checksum);

  let set: 'A' | 'B' | 'C' = start === 103 ? 'A' : start === 104 ? 'B' : 'C';
  let shift = false;
  let text = '';
  for (const value of rest) {
    const active = shift ? (set === 'A' ? 'B' : 'A') : set;
    shift = false;
    if (active === 'C') {
      if (value < 100) text += String(value).padStart(2, '0');
      else if (value === 100) set = 'B';
      else if (value === 101) set = 'A';
      else throw new Error(`unexpected code C value ${value}`);
      continue;
    }
    if (value < 64) text += String.fromCharCode(value + 32);
    else if (value < 96) text += String.fromCharCode(active === 'B' ? value + 32 : value - 64);
    else if (value === 98) shift = true;
    else if (value === 99) set = 'C';
    else if (value === 100 && active === 'A') set = 'B';
    else if (value === 101 && active === 'B') set = 'A';
    else throw new Error(`unexpected value ${value} in code ${active}`);
  }
  return { module, first, last, text };
}

// ---------------------------------------------------------------------------------------------

describe('GET /user/email/exists', () => {
  it('answers {exists, vendor} with the vendor where the email was first registered, whoever asks', async () => {
    const a = await vendor('Farmacia Uno');
    const b = await vendor('Farmacia Dos');
    const c = await signUp(a.vendorId);
    // Linking at B later does not change where it was first registered.
    expect((await post('/user/authenticate', { email_address: c.email, password: PASSWORD, vendor: b.vendorId })).status).toBe(200);
    const expected = { exists: true, vendor: { id: a.vendorId, name: 'Farmacia Uno' } };
    expect(await lookupOk('/user/email/exists', { email: c.email, vendor: a.vendorId })).toStrictEqual(expected);
    expect(await lookupOk('/user/email/exists', { email: c.email, vendor: b.vendorId })).toStrictEqual(expected);
    expect(await lookupOk('/user/email/exists', { email: ` ${c.email.toUpperCase()} `, vendor: b.vendorId })).toStrictEqual(expected);
  });

  it('answers exists false with the vendor asked about when nobody has the email', async () => {
    const b = await vendor('Farmacia Tres');
    expect(await lookupOk('/user/email/exists', { email: freshEmail('nobody'), vendor: b.vendorId })).toStrictEqual({ exists: false, vendor: { id: b.vendorId, name: 'Farmacia Tres' } });
  });

  it('reads the parameters from a JSON body of the GET too (query string wins)', async () => {
    const a = await vendor('Farmacia Cuatro');
    const c = await signUp(a.vendorId);
    const reply = await getWithBody('/user/email/exists', { email: c.email, vendor: a.vendorId });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toStrictEqual({ exists: true, vendor: { id: a.vendorId, name: 'Farmacia Cuatro' } });
    const mixed = await getWithBody(`/user/email/exists?email=${encodeURIComponent(freshEmail('other'))}`, { email: c.email, vendor: a.vendorId });
    expect(mixed.status, JSON.stringify(mixed.body)).toBe(200);
    expect(mixed.body).toStrictEqual({ exists: false, vendor: { id: a.vendorId, name: 'Farmacia Cuatro' } });
  });

  it('refuses missing parameters (400), a bad email (400 invalid_email) and an unknown vendor (404)', async () => {
    const a = await vendor();
    expectLegacyError(await lookup('/user/email/exists', { vendor: a.vendorId }), 400, 'validation_failed', 'email');
    expectLegacyError(await lookup('/user/email/exists', { email: freshEmail() }), 400, 'validation_failed', 'vendor');
    expectLegacyError(await lookup('/user/email/exists', { email: 'not-an-email', vendor: a.vendorId }), 400, 'invalid_email', 'email');
    expectLegacyError(await lookup('/user/email/exists', { email: freshEmail(), vendor: 987_654_321 }), 404, 'vendor_not_found', 'vendor');
  });
});

describe('GET /user/mobile/exists', () => {
  it('answers {available}: true for a valid free number, false once an account uses it, false for an invalid one', async () => {
    const ec = await ecVendor();
    expect(await lookupOk('/user/mobile/exists', { mobile: '0991777001', vendor: ec.vendorId })).toStrictEqual({ available: true });
    expect(await lookupOk('/user/mobile/exists', { mobile: '+593991777001', vendor: ec.vendorId })).toStrictEqual({ available: true });

    const c = await signUp(ec.vendorId);
    const put = await http(`${node.url}/user/profile?session_key=${c.key}`, { method: 'PUT', body: { phone_number: { number: '0991777001', code: '593' } } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(await lookupOk('/user/mobile/exists', { mobile: '0991777001', vendor: ec.vendorId })).toStrictEqual({ available: false });
    expect(await lookupOk('/user/mobile/exists', { mobile: '+593 99 177 7001', vendor: ec.vendorId })).toStrictEqual({ available: false });

    expect(await lookupOk('/user/mobile/exists', { mobile: '123', vendor: ec.vendorId })).toStrictEqual({ available: false });
    expect(await lookupOk('/user/mobile/exists', { mobile: 'call me', vendor: ec.vendorId })).toStrictEqual({ available: false });
  });

  it('reads a national number in the vendor\'s country', async () => {
    const us = await vendor();
    const ec = await ecVendor();
    expect(await lookupOk('/user/mobile/exists', { mobile: '0991777002', vendor: ec.vendorId })).toStrictEqual({ available: true });
    expect(await lookupOk('/user/mobile/exists', { mobile: '0991777002', vendor: us.vendorId })).toStrictEqual({ available: false });
    expect(await lookupOk('/user/mobile/exists', { mobile: '2015550123', vendor: us.vendorId })).toStrictEqual({ available: true });
    expect(await lookupOk('/user/mobile/exists', { mobile: '+593991777002', vendor: us.vendorId })).toStrictEqual({ available: true });
  });

  it('refuses missing parameters (400) and an unknown vendor (404)', async () => {
    const ec = await ecVendor();
    expectLegacyError(await lookup('/user/mobile/exists', { vendor: ec.vendorId }), 400, 'validation_failed', 'mobile');
    expectLegacyError(await lookup('/user/mobile/exists', { mobile: '0991777003' }), 400, 'validation_failed', 'vendor');
    expectLegacyError(await lookup('/user/mobile/exists', { mobile: '0991777003', vendor: 987_654_321 }), 404, 'vendor_not_found', 'vendor');
  });
});

describe('GET /user/cedula/exists', () => {
  it('answers {exists, valid, vendor}: valid in the vendor\'s country, vendor where it was first registered', async () => {
    const ec = await ecVendor('Farmacia Quito');
    const other = await ecVendor('Farmacia Cuenca');
    expect(await lookupOk('/user/cedula/exists', { cedula: '1710034065', vendor: ec.vendorId })).toStrictEqual({ exists: false, valid: true, vendor: { id: ec.vendorId, name: 'Farmacia Quito' } });
    expect(await lookupOk('/user/cedula/exists', { cedula: '1710034066', vendor: ec.vendorId })).toStrictEqual({ exists: false, valid: false, vendor: { id: ec.vendorId, name: 'Farmacia Quito' } });

    await signUp(ec.vendorId, { cedula: '1710034065' });
    const expected = { exists: true, valid: true, vendor: { id: ec.vendorId, name: 'Farmacia Quito' } };
    expect(await lookupOk('/user/cedula/exists', { cedula: '1710034065', vendor: ec.vendorId })).toStrictEqual(expected);
    expect(await lookupOk('/user/cedula/exists', { cedula: '171003406-5', vendor: other.vendorId })).toStrictEqual(expected);
    expect(await lookupOk('/user/cedula/exists', { cedula: '1710034066', vendor: other.vendorId })).toStrictEqual({ exists: false, valid: false, vendor: { id: other.vendorId, name: 'Farmacia Cuenca' } });
  });

  it('refuses missing parameters (400) and an unknown vendor (404)', async () => {
    const ec = await ecVendor();
    expectLegacyError(await lookup('/user/cedula/exists', { vendor: ec.vendorId }), 400, 'validation_failed', 'cedula');
    expectLegacyError(await lookup('/user/cedula/exists', { cedula: '', vendor: ec.vendorId }), 400, 'validation_failed', 'cedula');
    expectLegacyError(await lookup('/user/cedula/exists', { cedula: '1700000001' }), 400, 'validation_failed', 'vendor');
    expectLegacyError(await lookup('/user/cedula/exists', { cedula: '1700000001', vendor: 987_654_321 }), 404, 'vendor_not_found', 'vendor');
  });
});

describe('POST /user/token/request', () => {
  it('answers the Barcode token: id, PC token, PNG barcode, created = updated, expiry 15 minutes later, empty objects', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    node.clock.advance(777);
    const at = nowSec();
    const reply = await requestToken(c.key, { token_type: 2 });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toStrictEqual({
      id: expect.stringMatching(/^\d+$/),
      token: expect.stringMatching(/^PC[0-9A-HJKMNP-TV-Z]{16}$/),
      barcode: expect.stringMatching(/^data:image\/png;base64,[A-Za-z0-9+/]+=*$/),
      created: at,
      updated: at,
      expiry: at + 900,
      status: {},
      type: {},
      user: {},
      vendor: {},
    });
    expect(reply.body.expiry - reply.body.created).toBe(900);
  });

  it('draws a Code 128 PNG that reads back as the token, on white with a quiet zone', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    const { body } = await requestToken(c.key, { token_type: 2 });
    const png = PNG.sync.read(Buffer.from(body.barcode.slice('data:image/png;base64,'.length), 'base64'));

    expect(png.width).toBeGreaterThanOrEqual(200);
    expect(png.width).toBeLessThanOrEqual(2000);
    expect(png.height).toBeGreaterThanOrEqual(30);
    expect(png.height).toBeLessThanOrEqual(400);
    expect(isWhite(png, 0, 0)).toBe(true);
    // White background, no transparency, and a white border all round.
    for (let x = 0; x < png.width; x++) expect(isWhite(png, x, 0) && isWhite(png, x, png.height - 1), `border at x=${x}`).toBe(true);
    for (let y = 0; y < png.height; y++) expect(isWhite(png, 0, y) && isWhite(png, png.width - 1, y), `border at y=${y}`).toBe(true);
    for (let i = 3; i < png.data.length; i += 4) if (png.data[i] !== 255) throw new Error('the barcode has transparent pixels');

    // Black bars inside: find the first row that has any, and read a row a little below it.
    let top = -1;
    for (let y = 0; y < png.height && top < 0; y++) for (let x = 0; x < png.width; x++) if (isBlack(png, x, y)) { top = y; break; }
    expect(top).toBeGreaterThan(0);
    const scan = readCode128(png, top + 3);
    expect(scan.text).toBe(body.token);
    // Quiet zone: at least 10 modules of white on each side of the bars.
    expect(scan.module).toBeGreaterThanOrEqual(1);
    expect(scan.first).toBeGreaterThanOrEqual(10 * scan.module);
    expect(png.width - 1 - scan.last).toBeGreaterThanOrEqual(10 * scan.module);
  });

  it('gives a new token each time, stored only as a digest', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    const one = (await requestToken(c.key, { token_type: 2 })).body;
    const two = (await requestToken(c.key, { token_type: '2' }, undefined)).body;
    expect(two.id).not.toBe(one.id);
    expect(two.token).not.toBe(one.token);
    const rows = await node.engine.db.selectFrom('barcode_tokens').selectAll().where('user_id', '=', c.userId).execute();
    expect(rows.map((r) => String(r.id)).sort()).toEqual([one.id, two.id].sort());
    const text = JSON.stringify(rows);
    expect(text).not.toContain(one.token);
    expect(text).not.toContain(two.token);
  });

  it('accepts token_type as a form field', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    const reply = await requestToken(c.key, 'token_type=2', FORM);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.token).toMatch(/^PC[0-9A-HJKMNP-TV-Z]{16}$/);
  });

  it('refuses token_type 1, a missing token_type (400) and a missing session (401)', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    expectLegacyError(await requestToken(c.key, { token_type: 1 }), 400, 'validation_failed', 'token_type');
    expectLegacyError(await requestToken(c.key, {}), 400, 'validation_failed', 'token_type');
    expectLegacyError(await requestToken(c.key, { token_type: 'barcode' }), 400, 'validation_failed', 'token_type');
    expectLegacyError(await post('/user/token/request', { token_type: 2 }), 401, 'missing_credentials');
    expect(await node.engine.db.selectFrom('barcode_tokens').selectAll().where('user_id', '=', c.userId).execute()).toHaveLength(0);
  });
});
