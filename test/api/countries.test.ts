import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flagSvg } from '../../src/core/geo';
import { openNodeEngine } from '../../src/server/node/store-node';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { run } from '../support/processes';
import { makeTempDir } from '../support/temp-dir';
import { http, type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// GET /countries, GET /countries/{country_id}/regions and the flags, over real HTTP.

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode();
});

afterAll(async () => {
  await node?.close();
});

const COUNTRY_KEYS = ['code', 'country_id', 'flag_url', 'name', 'phone_code', 'phone_validate', 'zip_validate'];
const EC_PROVINCES = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'L', 'M', 'N', 'O', 'P', 'R', 'S', 'SD', 'SE', 'T', 'U', 'W', 'X', 'Y', 'Z'];

function get(path: string): Promise<HttpReply> {
  return http(`${node.url}${path}`);
}

function flagUrl(code: string): string {
  return `${node.url}/flags/${code}.svg`;
}

/** The legacy envelope: {error: {code, reference_id, more_info, errors: [{reason, message, field?}]}, object: "error"}. */
function expectLegacyError(reply: HttpReply, status: number, reason: string, field?: string): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  expect(reply.headers.get('content-type') ?? '').toMatch(/application\/json/);
  expect(Object.keys(reply.body).sort()).toEqual(['error', 'object']);
  expect(reply.body.object).toBe('error');
  expect(reply.body.error.code).toBe(status);
  expect(typeof reply.body.error.reference_id).toBe('string');
  expect(reply.body.error.more_info).toBeNull();
  expect(reply.body.error.errors).toHaveLength(1);
  const [first] = reply.body.error.errors;
  expect(first.reason).toBe(reason);
  expect(typeof first.message).toBe('string');
  expect(first.message.length).toBeGreaterThan(0);
  if (field !== undefined) expect(first.field).toBe(field);
}

async function vendorWith(countries: string[] | undefined, language?: string): Promise<VendorCredentials> {
  return setUpVendor(node.engine, {
    name: `Geo ${countries?.join(' ') ?? 'all'} ${language ?? ''}`,
    currency: 'USD',
    country: 'EC',
    ...(countries ? { countries } : {}),
    ...(language ? { language } : {}),
    store: { name: 'Main', address1: 'Av. Amazonas', city: 'Quito' },
  });
}

function byCode(list: any[], code: string): any {
  const found = list.find((c) => c.code === code);
  expect(found, code).toBeDefined();
  return found;
}

describe('GET /countries', () => {
  it('lists every ISO 3166-1 country and Kosovo (250) without credentials, each with exactly the seven fields', async () => {
    const reply = await get('/countries');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/application\/json/);
    expect(Array.isArray(reply.body)).toBe(true);
    expect(reply.body).toHaveLength(250);
    expect(new Set(reply.body.map((c: any) => c.code)).size).toBe(250);
    expect(new Set(reply.body.map((c: any) => c.country_id)).size).toBe(250);
    for (const c of reply.body) {
      expect(Object.keys(c).sort()).toEqual(COUNTRY_KEYS);
      expect(Number.isInteger(c.country_id)).toBe(true);
      expect(c.code).toMatch(/^[A-Z]{2}$/);
      expect(typeof c.name).toBe('string');
      expect(c.phone_code).toMatch(/^(|[1-9]\d{0,2})$/);
      expect(c.zip_validate === null || typeof c.zip_validate === 'string').toBe(true);
      expect(c.phone_validate === null || typeof c.phone_validate === 'string').toBe(true);
      expect(c.flag_url).toBe(flagUrl(c.code));
    }
  });

  it('gives Ecuador, the USA, the Dominican Republic, the UK and Japan with every field', async () => {
    const { body } = await get('/countries');
    expect(byCode(body, 'EC')).toEqual({
      country_id: 218,
      code: 'EC',
      name: 'Ecuador',
      phone_code: '593',
      zip_validate: '^[0-9]{6}$',
      phone_validate: '^(?:1\\d{9,10}|(?:[2-7]|9\\d)\\d{7})$',
      flag_url: flagUrl('EC'),
    });
    expect(byCode(body, 'US')).toEqual({
      country_id: 840,
      code: 'US',
      name: 'United States of America',
      phone_code: '1',
      zip_validate: '^[0-9]{5}([0-9]{4})?$',
      phone_validate: '^(?:[2-9]\\d{9}|3\\d{6})$',
      flag_url: flagUrl('US'),
    });
    expect(byCode(body, 'DO')).toEqual({
      country_id: 214,
      code: 'DO',
      name: 'Dominican Republic',
      phone_code: '1',
      zip_validate: '^[0-9]{5}$',
      phone_validate: '^(?:[58]\\d\\d|900)\\d{7}$',
      flag_url: flagUrl('DO'),
    });
    expect(byCode(body, 'GB')).toEqual({
      country_id: 826,
      code: 'GB',
      name: 'United Kingdom',
      phone_code: '44',
      zip_validate: '^(?:((([A-Z][0-9]{1,2})|(([A-Z][A-HJ-Y][0-9]{1,2})|(([AZA-Z][0-9][A-Z])|([A-Z][A-HJ-Y][0-9]?[A-Z]))))[0-9][A-Z]{2})|GIR0AA)$',
      phone_validate: '^(?:[1-357-9]\\d{9}|[18]\\d{8}|8\\d{6})$',
      flag_url: flagUrl('GB'),
    });
    expect(byCode(body, 'JP')).toEqual({
      country_id: 392,
      code: 'JP',
      name: 'Japan',
      phone_code: '81',
      zip_validate: '^[0-9]{7}$',
      phone_validate: '^(?:00[1-9]\\d{6,14}|[25-9]\\d{9}|(?:00|[1-9]\\d\\d)\\d{6})$',
      flag_url: flagUrl('JP'),
    });
  });

  it('handles the edge cases: Kosovo is 983, Antarctica has no calling code, the UAE no postal codes', async () => {
    const { body } = await get('/countries');
    expect(byCode(body, 'XK')).toMatchObject({ country_id: 983, name: 'Kosovo', phone_code: '383', zip_validate: '^\\d{5}$' });
    expect(byCode(body, 'AQ')).toMatchObject({ country_id: 10, name: 'Antarctica', phone_code: '', phone_validate: null });
    expect(byCode(body, 'AE')).toMatchObject({ country_id: 784, phone_code: '971', zip_validate: null });
  });

  it('publishes patterns a client can run: postal code normalised (no spaces or hyphens, upper case), national number', async () => {
    const { body } = await get('/countries');
    const zip = (code: string) => new RegExp(byCode(body, code).zip_validate);
    const phone = (code: string) => new RegExp(byCode(body, code).phone_validate);
    expect(zip('EC').test('170150')).toBe(true);
    expect(zip('EC').test('12345')).toBe(false);
    expect(zip('US').test('123456789')).toBe(true);
    expect(zip('GB').test('SW1A1AA')).toBe(true);
    expect(phone('EC').test('991234567')).toBe(true);
    expect(phone('EC').test('+593991234567')).toBe(false);
  });

  it('orders by name', async () => {
    const { body } = await get('/countries');
    const names = body.map((c: any) => c.name);
    const collator = new Intl.Collator('en', { sensitivity: 'base' });
    expect(names).toEqual([...names].sort(collator.compare));
    expect(names[0]).toBe('Afghanistan');
    expect(names.indexOf('Åland Islands')).toBeLessThan(names.indexOf('Albania'));
  });

  it('gives Spanish names and Spanish order with language=es', async () => {
    const { status, body } = await get('/countries?language=es');
    expect(status).toBe(200);
    expect(body).toHaveLength(250);
    expect(byCode(body, 'US').name).toBe('Estados Unidos');
    expect(byCode(body, 'DO').name).toBe('República Dominicana');
    expect(byCode(body, 'EC')).toEqual({ ...byCode((await get('/countries')).body, 'EC') });
    const names = body.map((c: any) => c.name);
    expect(names).toEqual([...names].sort(new Intl.Collator('es', { sensitivity: 'base' }).compare));
    expect(names[0]).toBe('Afganistán');
  });

  it('refuses a language it has no names for', async () => {
    expectLegacyError(await get('/countries?language=fr'), 400, 'validation_failed', 'language');
  });

  it('accepts the .json suffix', async () => {
    const reply = await get('/countries.json');
    expect(reply.status).toBe(200);
    expect(reply.body).toHaveLength(250);
  });

  it('is not resource style: an unknown path under it answers with the legacy envelope', async () => {
    expectLegacyError(await get('/countries/218/cities'), 404, 'route_not_found');
  });
});

describe('GET /countries for a vendor', () => {
  it('lists only the countries the vendor serves, by vendor number or by api_key', async () => {
    const vendor = await vendorWith(['ec', 'CO']);
    const byId = await get(`/countries?vendor=${vendor.vendorId}`);
    expect(byId.status).toBe(200);
    expect(byId.body.map((c: any) => c.code)).toEqual(['CO', 'EC']);
    expect(byCode(byId.body, 'EC')).toEqual(byCode((await get('/countries')).body, 'EC'));

    const byKey = await get(`/countries?api_key=${encodeURIComponent(vendor.apiKey)}`);
    expect(byKey.status).toBe(200);
    expect(byKey.body).toEqual(byId.body);
    const both = await get(`/countries?vendor=${vendor.vendorId}&api_key=${encodeURIComponent(vendor.kioskApiKey)}`);
    expect(both.body).toEqual(byId.body);
  });

  it('lists every country for a vendor without a list', async () => {
    const vendor = await node.addVendor();
    const reply = await get(`/countries?vendor=${vendor.vendorId}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toHaveLength(250);
  });

  it("uses the vendor's language unless language is given", async () => {
    const vendor = await vendorWith(['US', 'DO'], 'es');
    const spanish = await get(`/countries?vendor=${vendor.vendorId}`);
    expect(spanish.body.map((c: any) => c.name)).toEqual(['Estados Unidos', 'República Dominicana']);
    const english = await get(`/countries?vendor=${vendor.vendorId}&language=en`);
    expect(english.body.map((c: any) => c.name)).toEqual(['Dominican Republic', 'United States of America']);
  });

  it('answers 404 for an unknown vendor, 400 for a vendor that is not a number', async () => {
    expectLegacyError(await get('/countries?vendor=987654321'), 404, 'vendor_not_found', 'vendor');
    expectLegacyError(await get('/countries?vendor=abc'), 400, 'validation_failed', 'vendor');
    expectLegacyError(await get('/countries?vendor=0'), 400, 'validation_failed', 'vendor');
  });

  it('answers 401 for an unknown api_key and 403 when the key belongs to another vendor', async () => {
    const a = await vendorWith(['EC']);
    const b = await vendorWith(['CO']);
    expectLegacyError(await get('/countries?api_key=pcak_nope'), 401, 'invalid_api_key');
    expectLegacyError(await get(`/countries?vendor=${a.vendorId}&api_key=${encodeURIComponent(b.apiKey)}`), 403, 'forbidden');
  });
});

describe('GET /countries/{country_id}/regions', () => {
  it("lists Ecuador's 24 provinces by name, each with region_id, code and name", async () => {
    const reply = await get('/countries/218/regions');
    expect(reply.status).toBe(200);
    expect(reply.body).toHaveLength(24);
    for (const region of reply.body) {
      expect(Object.keys(region).sort()).toEqual(['code', 'name', 'region_id']);
      expect(Number.isInteger(region.region_id)).toBe(true);
      expect(region.code).toMatch(/^EC-[A-Z]{1,2}$/);
    }
    expect(reply.body.map((r: any) => r.code).sort()).toEqual(EC_PROVINCES.map((s) => `EC-${s}`));
    const names = reply.body.map((r: any) => r.name);
    expect(names).toEqual([...names].sort(new Intl.Collator('en', { sensitivity: 'base' }).compare));
    expect(reply.body[0]).toEqual({ region_id: 218200000, code: 'EC-A', name: 'Azuay' });
    expect(reply.body).toContainEqual({ region_id: 218350000, code: 'EC-P', name: 'Pichincha' });
    expect(reply.body).toContainEqual({ region_id: 218382300, code: 'EC-SD', name: 'Santo Domingo de los Tsáchilas' });
    expect(reply.body).toContainEqual({ region_id: 218420000, code: 'EC-W', name: 'Galápagos' });
  });

  it('lists the provinces of the Dominican Republic and the states of the USA', async () => {
    const dominican = await get('/countries/214/regions');
    expect(dominican.body).toHaveLength(32);
    expect(dominican.body).toContainEqual({ region_id: 214101100, code: 'DO-01', name: 'Distrito Nacional (Santo Domingo)' });
    expect(dominican.body.some((r: any) => r.code === 'DO-40')).toBe(false);
    const us = await get('/countries/840/regions');
    expect(us.body).toContainEqual({ region_id: 840222000, code: 'US-CA', name: 'California' });
    expect(us.body).toContainEqual({ region_id: 840232200, code: 'US-DC', name: 'District of Columbia' });
  });

  it('answers [] for a country without subdivisions', async () => {
    const reply = await get('/countries/983/regions');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual([]);
  });

  it('answers 404 for an unknown country and 400 for an id that is not a number', async () => {
    expectLegacyError(await get('/countries/999/regions'), 404, 'country_not_found', 'country_id');
    expectLegacyError(await get('/countries/abc/regions'), 400, 'validation_failed', 'country_id');
  });

  it("answers 404 for a country the vendor does not serve, and the regions for one it does", async () => {
    const vendor = await vendorWith(['EC']);
    expectLegacyError(await get(`/countries/840/regions?vendor=${vendor.vendorId}`), 404, 'country_not_found', 'country_id');
    const served = await get(`/countries/218/regions?api_key=${encodeURIComponent(vendor.apiKey)}`);
    expect(served.status).toBe(200);
    expect(served.body).toHaveLength(24);
    expectLegacyError(await get('/countries/218/regions?vendor=987654321'), 404, 'vendor_not_found', 'vendor');
  });
});

describe('flags', () => {
  it('serves the SVG of a flag_url with a long cache lifetime', async () => {
    const { body } = await get('/countries');
    const response = await fetch(byCode(body, 'EC').flag_url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(response.headers.get('cache-control')).toBe('public, max-age=2592000');
    const svg = await response.text();
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toBe(flagSvg('EC'));
    expect(svg).not.toBe(flagSvg('CO'));
  });

  it('serves a flag for every listed country, the code in any case', async () => {
    const { body } = await get('/countries');
    const replies = await Promise.all(body.map((c: any) => fetch(c.flag_url).then(async (r) => ({ code: c.code, status: r.status, text: await r.text() }))));
    for (const reply of replies) {
      expect(reply.status, reply.code).toBe(200);
      expect(reply.text.startsWith('<svg'), reply.code).toBe(true);
    }
    const lower = await fetch(`${node.url}/flags/ec.svg`);
    expect(lower.status).toBe(200);
    expect(await lower.text()).toBe(flagSvg('EC'));
  });

  it('answers 404 (legacy envelope) for an unknown flag', async () => {
    for (const path of ['/flags/ZZ.svg', '/flags/EU.svg', '/flags/EC.png', '/flags/EC', '/flags/GB-ENG.svg']) {
      expectLegacyError(await get(path), 404, 'route_not_found');
    }
  });
});

describe('punchcard init --countries', () => {
  it('stores the list, and refuses an unknown code', async () => {
    const dir = makeTempDir('punchcard-geo-');
    try {
      const ok = await run(['init', '--data', dir.path, '--vendor', 'Andes', '--countries', 'ec, CO', '--json']);
      expect(ok.code, ok.stderr).toBe(0);
      const vendorId = JSON.parse(ok.stdout).vendor_id as number;
      const bad = await run(['init', '--data', dir.path, '--vendor', 'Nowhere', '--countries', 'EC,ZZ', '--json']);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/Unknown ISO 3166-1 country code: ZZ/);

      const engine = await openNodeEngine({ dataDir: dir.path });
      try {
        const rows = await engine.db.selectFrom('vendors').select(['id', 'name', 'countries']).execute();
        expect(rows).toEqual([{ id: vendorId, name: 'Andes', countries: '["CO","EC"]' }]);
      } finally {
        await engine.close();
      }
    } finally {
      dir.remove();
    }
  }, 60_000);
});
