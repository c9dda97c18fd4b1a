import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextObjectId } from '../../src/core/storage/ids';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { legacyErrorCheck } from '../support/customers';
import { http, type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// Over real HTTP: GET /vendor/store/list (distances by haversine) and the vendor content pages
// GET /vendor/content/{slug} and PUT /vendor/content/{slug} (admin token).

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode();
});

afterAll(async () => {
  await node?.close();
});

// ---------------------------------------------------------------------------------------------
// helpers

const expectLegacyError = legacyErrorCheck({ depth: 'basic' });

function expectResourceError(reply: HttpReply, status: number, code: string, field?: string): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  expect(reply.body.code).toBe(code);
  expect(reply.body.internal_code).toBeNull();
  expect(reply.body.message.length).toBeGreaterThan(0);
  for (const k of Object.keys(reply.body)) expect(['internal_code', 'message', 'code', 'field']).toContain(k);
  if (field !== undefined) expect(reply.body.field).toBe(field);
}

function get(path: string, params: Record<string, string | number>): Promise<HttpReply> {
  const search = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));
  return http(`${node.url}${path}?${search}`);
}

interface StoreInput {
  name: string;
  city: string;
  latitude?: number | null;
  longitude?: number | null;
  hours?: string | null;
  region?: string | null;
  phone?: string | null;
}

async function addStore(vendorId: number, s: StoreInput): Promise<number> {
  const id = await nextObjectId(node.engine.db, node.engine.nodeId);
  const now = node.clock.now();
  await node.engine.db
    .insertInto('stores')
    .values({
      id,
      vendor_id: vendorId,
      name: s.name,
      address1: `${s.name} street 1`,
      address2: 'Local 2',
      city: s.city,
      region: s.region ?? null,
      country: 'EC',
      postal_code: '170150',
      phone: s.phone ?? null,
      latitude: s.latitude ?? null,
      longitude: s.longitude ?? null,
      hours: s.hours ?? null,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return id;
}

// ---------------------------------------------------------------------------------------------

describe('GET /vendor/store/list', () => {
  // Plaza Grande, Quito; reference distances computed separately (haversine, R = 6371.0088 km).
  const QUITO = { latitude: -0.2202, longitude: -78.5123 };
  const KM = { norte: 5.78, sur: 8.14, guayaquil: 267.54 };
  const MI = { norte: 3.59, sur: 5.06, guayaquil: 166.24 };
  const HOURS = { mon: '07:00-19:00', sun: 'closed' };

  let v: VendorCredentials;
  let ids: { main: number; norte: number; sur: number; guayaquil: number };

  beforeAll(async () => {
    v = await node.addVendor('Café Andino');
    const other = await node.addVendor('Other Coffee');
    ids = {
      main: v.storeId,
      norte: await addStore(v.vendorId, { name: 'Quito Norte', city: 'Quito', latitude: -0.1762, longitude: -78.4847, hours: JSON.stringify(HOURS), region: 'EC-P', phone: '+59322345678' }),
      sur: await addStore(v.vendorId, { name: 'Quito Sur', city: 'Quito', latitude: -0.283, longitude: -78.55, hours: 'not json' }),
      guayaquil: await addStore(v.vendorId, { name: 'Guayaquil Centro', city: 'Guayaquil', latitude: -2.17, longitude: -79.9224, hours: '["a list"]' }),
    };
    await addStore(other.vendorId, { name: 'Quito Rival', city: 'Quito', latitude: -0.2203, longitude: -78.5124 });
  });

  it('lists every store of the vendor by name, with all fields, without distances', async () => {
    const reply = await get('/vendor/store/list', { vendor: v.vendorId });
    expect(reply.status).toBe(200);
    expect(reply.body.object).toBe('collection');
    expect(reply.body.count).toBe(4);
    expect(reply.body.next_page_url).toBeNull();
    expect(reply.body.data.map((s: any) => s.name)).toEqual(['Guayaquil Centro', 'Main Store', 'Quito Norte', 'Quito Sur']);
    const [gye, main, norte, sur] = reply.body.data;
    expect(norte).toEqual({
      object: 'store',
      id: ids.norte,
      name: 'Quito Norte',
      address: 'Quito Norte street 1',
      address2: 'Local 2',
      city: 'Quito',
      region: 'EC-P',
      country: 'EC',
      postal_code: '170150',
      phone: '+59322345678',
      hours: HOURS,
      coordinates: { latitude: -0.1762, longitude: -78.4847 },
      distance: null,
      time_zone: 'UTC',
      // The test clock stands on a Saturday, a day these hours leave out: closed.
      open_now: false,
    });
    expect(main).toEqual({
      object: 'store',
      id: ids.main,
      name: 'Main Store',
      address: '1 Main Street',
      address2: null,
      city: 'Springfield',
      region: null,
      country: 'US',
      postal_code: null,
      phone: null,
      hours: null,
      coordinates: null,
      distance: null,
      time_zone: 'UTC',
      open_now: null,
    });
    // Hours that are not a JSON object read as none, and say nothing about being open.
    expect(sur.hours).toBeNull();
    expect(sur.open_now).toBeNull();
    expect(gye.hours).toBeNull();
    expect(gye.coordinates).toEqual({ latitude: -2.17, longitude: -79.9224 });
  });

  it('sorts by distance from a position (km), stores without coordinates last', async () => {
    const reply = await get('/vendor/store/list', { vendor: v.vendorId, ...QUITO });
    expect(reply.status).toBe(200);
    expect(reply.body.count).toBe(4);
    expect(reply.body.data.map((s: any) => [s.id, s.distance])).toEqual([
      [ids.norte, KM.norte],
      [ids.sur, KM.sur],
      [ids.guayaquil, KM.guayaquil],
      [ids.main, null],
    ]);
  });

  it('keeps only the stores within `distance`, in km by default or in miles', async () => {
    const km6 = await get('/vendor/store/list', { vendor: v.vendorId, ...QUITO, distance: 6 });
    expect(km6.body.data.map((s: any) => s.name)).toEqual(['Quito Norte']);
    expect(km6.body.count).toBe(1);
    const km50 = await get('/vendor/store/list', { vendor: v.vendorId, ...QUITO, distance: 50, unit: 'km' });
    expect(km50.body.data.map((s: any) => [s.name, s.distance])).toEqual([
      ['Quito Norte', KM.norte],
      ['Quito Sur', KM.sur],
    ]);
    // 200 km leaves Guayaquil (267.5 km) out; 200 miles (321.9 km) takes it in.
    expect((await get('/vendor/store/list', { vendor: v.vendorId, ...QUITO, distance: 200 })).body.count).toBe(2);
    const mi200 = await get('/vendor/store/list', { vendor: v.vendorId, ...QUITO, distance: 200, unit: 'mi' });
    expect(mi200.body.data.map((s: any) => [s.name, s.distance])).toEqual([
      ['Quito Norte', MI.norte],
      ['Quito Sur', MI.sur],
      ['Guayaquil Centro', MI.guayaquil],
    ]);
    const upper = await get('/vendor/store/list', { vendor: v.vendorId, ...QUITO, unit: 'MI' });
    expect(upper.body.data[0].distance).toBe(MI.norte);
  });

  it('measures from Guayaquil too (order follows the position)', async () => {
    const reply = await get('/vendor/store/list', { vendor: v.vendorId, latitude: -2.19, longitude: -79.89 });
    expect(reply.body.data.map((s: any) => [s.name, s.distance])).toEqual([
      ['Guayaquil Centro', 4.23],
      ['Quito Sur', 259.14],
      ['Quito Norte', 273.03],
      ['Main Store', null],
    ]);
  });

  it('answers 404 vendor_not_found for an unknown vendor', async () => {
    expectLegacyError(await get('/vendor/store/list', { vendor: 987654321 }), 404, 'vendor_not_found');
  });

  it.each([
    [{}, 'vendor'],
    [{ vendor: 'abc' }, 'vendor'],
    [{ latitude: -0.2 }, 'longitude'],
    [{ longitude: -78.5 }, 'latitude'],
    [{ distance: 10 }, 'distance'],
    [{ latitude: 91, longitude: 0 }, 'latitude'],
    [{ latitude: 0, longitude: -181 }, 'longitude'],
    [{ latitude: 'north', longitude: 0 }, 'latitude'],
    [{ latitude: 0, longitude: 0, distance: 0 }, 'distance'],
    [{ latitude: 0, longitude: 0, distance: -5 }, 'distance'],
    [{ latitude: 0, longitude: 0, unit: 'parsec' }, 'unit'],
  ])('answers 400 validation_failed for %j', async (params, field) => {
    const withVendor = 'vendor' in params || Object.keys(params).length === 0 ? params : { vendor: v.vendorId, ...params };
    expectLegacyError(await get('/vendor/store/list', withVendor as Record<string, string | number>), 400, 'validation_failed', field);
  });
});

describe('GET /vendor/content/{slug}', () => {
  it.each([
    ['terms-of-service', 'Terms of service'],
    ['privacy-policy', 'Privacy policy'],
    ['faq', 'Frequently asked questions'],
  ])('serves the built-in %s page naming the vendor (version 0)', async (slug, title) => {
    const v = await node.addVendor(`Tostadora ${slug}`);
    const reply = await get(`/vendor/content/${slug}`, { vendor: v.vendorId });
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body).sort()).toEqual(['content', 'language', 'object', 'slug', 'title', 'updated', 'version']);
    expect(reply.body).toMatchObject({ object: 'vendor_content', slug, language: 'en', title, version: 0, updated: null });
    expect(reply.body.content).toMatch(/^<h1>/);
    expect(reply.body.content).toContain(`Tostadora ${slug}`);
  });

  it('escapes the vendor name in the built-in page', async () => {
    const v = await node.addVendor('Café <b>Bar</b> & "Co"');
    const reply = await get('/vendor/content/faq', { vendor: v.vendorId });
    expect(reply.body.content).toContain('Café &lt;b&gt;Bar&lt;/b&gt; &amp; "Co"');
    expect(reply.body.content).not.toContain('<b>Bar</b>');
  });

  it("serves Spanish when asked (code or language number) or when it is the vendor's language; other languages fall back to English", async () => {
    const v = await node.addVendor('Panadería');
    const es = await get('/vendor/content/privacy-policy', { vendor: v.vendorId, language: 'es' });
    expect(es.body).toMatchObject({ language: 'es', title: 'Política de privacidad', version: 0 });
    expect(es.body.content).toContain('Panadería');
    expect((await get('/vendor/content/faq', { vendor: v.vendorId, language: 'ES' })).body.title).toBe('Preguntas frecuentes');
    expect((await get('/vendor/content/faq', { vendor: v.vendorId, language: 2 })).body.title).toBe('Preguntas frecuentes');
    expect((await get('/vendor/content/faq', { vendor: v.vendorId, language: 'fr' })).body).toMatchObject({ language: 'en', title: 'Frequently asked questions' });

    const spanish = await setUpVendor(node.engine, { name: 'Cafetería', currency: 'USD', country: 'EC', language: 'es', store: { name: 'Centro', address1: 'Av. 1', city: 'Quito' } });
    const own = await get('/vendor/content/terms-of-service', { vendor: spanish.vendorId });
    expect(own.body).toMatchObject({ language: 'es', title: 'Términos del servicio' });
    expect((await get('/vendor/content/terms-of-service', { vendor: spanish.vendorId, language: 'en' })).body.language).toBe('en');
  });

  it('answers 404 content_not_found for an unknown page and 404 vendor_not_found for an unknown vendor', async () => {
    const v = await node.addVendor();
    expectLegacyError(await get('/vendor/content/cookie-policy', { vendor: v.vendorId }), 404, 'content_not_found');
    expectLegacyError(await get('/vendor/content/faq', { vendor: 987654321 }), 404, 'vendor_not_found');
  });

  it('validates vendor and language', async () => {
    const v = await node.addVendor();
    expectLegacyError(await get('/vendor/content/faq', {}), 400, 'validation_failed', 'vendor');
    expectLegacyError(await get('/vendor/content/faq', { vendor: 'x' }), 400, 'validation_failed', 'vendor');
    expectLegacyError(await get('/vendor/content/faq', { vendor: v.vendorId, language: 'english' }), 400, 'validation_failed', 'language');
    expectLegacyError(await get('/vendor/content/faq', { vendor: v.vendorId, language: 9 }), 400, 'validation_failed', 'language');
  });

  it('accepts the .json suffix', async () => {
    const v = await node.addVendor();
    const reply = await http(`${node.url}/vendor/content/faq.json?vendor=${v.vendorId}`);
    expect(reply.status).toBe(200);
    expect(reply.body.slug).toBe('faq');
  });
});

describe('PUT /vendor/content/{slug}', () => {
  const put = (token: string | undefined, slug: string, body: unknown) => http(`${node.url}/vendor/content/${slug}`, { method: 'PUT', token, body });

  it("writes the vendor's page (version 1, then 2), served as written, HTML untouched", async () => {
    const v = await node.addVendor('Merchant');
    const html = '<h1>Our terms</h1><script>track()</script><p>Be nice.</p>';
    const first = await put(v.accessToken, 'terms-of-service', { title: '  Our terms ', content: html });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const at = new Date(node.clock.now()).toISOString();
    expect(first.body).toEqual({ object: 'vendor_content', slug: 'terms-of-service', language: 'en', title: 'Our terms', content: html, version: 1, date_updated: at });

    const served = await get('/vendor/content/terms-of-service', { vendor: v.vendorId });
    expect(served.body).toEqual({
      object: 'vendor_content',
      slug: 'terms-of-service',
      language: 'en',
      title: 'Our terms',
      content: html,
      version: 1,
      updated: Math.floor(node.clock.now() / 1000),
    });

    node.clock.advance(5000);
    const second = await put(v.accessToken, 'terms-of-service', { title: 'Our terms v2', content: '<p>v2</p>' });
    expect(second.body).toMatchObject({ version: 2, title: 'Our terms v2', content: '<p>v2</p>', date_updated: new Date(node.clock.now()).toISOString() });
    expect((await get('/vendor/content/terms-of-service', { vendor: v.vendorId })).body).toMatchObject({ version: 2, content: '<p>v2</p>' });
    // Other pages keep their defaults.
    expect((await get('/vendor/content/faq', { vendor: v.vendorId })).body.version).toBe(0);
  });

  it('keeps one page per language, with its own versions, and picks the best language when serving', async () => {
    const v = await node.addVendor('Bilingual');
    expect((await put(v.accessToken, 'faq', { title: 'Preguntas', content: '<p>es</p>', language: 'es' })).body).toMatchObject({ language: 'es', version: 1 });
    // Only a Spanish page exists: an English reader gets it rather than the generic default.
    expect((await get('/vendor/content/faq', { vendor: v.vendorId })).body).toMatchObject({ language: 'es', title: 'Preguntas', version: 1 });
    expect((await put(v.accessToken, 'faq', { title: 'Questions', content: '<p>en</p>' })).body).toMatchObject({ language: 'en', version: 1 });
    expect((await put(v.accessToken, 'faq', { title: 'Preguntas 2', content: '<p>es2</p>', language: '2' })).body).toMatchObject({ language: 'es', version: 2 });
    expect((await get('/vendor/content/faq', { vendor: v.vendorId })).body).toMatchObject({ language: 'en', title: 'Questions' });
    expect((await get('/vendor/content/faq', { vendor: v.vendorId, language: 'es' })).body).toMatchObject({ language: 'es', title: 'Preguntas 2', version: 2 });
    expect((await get('/vendor/content/faq', { vendor: v.vendorId, language: 'de' })).body).toMatchObject({ language: 'en', title: 'Questions' });
  });

  it("changes only the token's vendor", async () => {
    const v = await node.addVendor();
    const w = await node.addVendor();
    expect((await put(v.accessToken, 'privacy-policy', { title: 'Mine', content: '<p>v</p>' })).status).toBe(200);
    expect((await get('/vendor/content/privacy-policy', { vendor: w.vendorId })).body.version).toBe(0);
    expect((await get('/vendor/content/privacy-policy', { vendor: v.vendorId })).body.title).toBe('Mine');
  });

  it('caps content at 64 KiB of UTF-8', async () => {
    const v = await node.addVendor();
    expect((await put(v.accessToken, 'faq', { title: 'Big', content: 'a'.repeat(64 * 1024) })).status).toBe(200);
    expectResourceError(await put(v.accessToken, 'faq', { title: 'Big', content: 'a'.repeat(64 * 1024 + 1) }), 400, 'validation_failed', 'content');
    // 32,769 characters, 65,538 bytes.
    expectResourceError(await put(v.accessToken, 'faq', { title: 'Big', content: 'é'.repeat(32 * 1024 + 1) }), 400, 'validation_failed', 'content');
    expect((await get('/vendor/content/faq', { vendor: v.vendorId })).body.version).toBe(1);
  });

  it('validates title, content, language and the page (resource-style errors)', async () => {
    const v = await node.addVendor();
    expectResourceError(await put(v.accessToken, 'faq', { content: '<p>x</p>' }), 400, 'validation_failed', 'title');
    expectResourceError(await put(v.accessToken, 'faq', { title: 'T' }), 400, 'validation_failed', 'content');
    expectResourceError(await put(v.accessToken, 'faq', { title: '   ', content: '<p>x</p>' }), 400, 'validation_failed', 'title');
    expectResourceError(await put(v.accessToken, 'faq', { title: 'T', content: '  ' }), 400, 'validation_failed', 'content');
    expectResourceError(await put(v.accessToken, 'faq', { title: 'T'.repeat(201), content: '<p>x</p>' }), 400, 'validation_failed', 'title');
    expectResourceError(await put(v.accessToken, 'faq', { title: 'T', content: '<p>x</p>', language: 'klingon' }), 400, 'validation_failed', 'language');
    expectResourceError(await put(v.accessToken, 'cookies', { title: 'T', content: '<p>x</p>' }), 404, 'content_not_found');
    expect((await get('/vendor/content/faq', { vendor: v.vendorId })).body.version).toBe(0);
  });

  it('needs a valid admin token', async () => {
    const v = await node.addVendor();
    expectResourceError(await put(undefined, 'faq', { title: 'T', content: '<p>x</p>' }), 401, 'missing_credentials');
    expectResourceError(await put('not-a-token', 'faq', { title: 'T', content: '<p>x</p>' }), 401, 'invalid_token');
    expectResourceError(await put(v.apiKey, 'faq', { title: 'T', content: '<p>x</p>' }), 401, 'invalid_token');
    expect((await get('/vendor/content/faq', { vendor: v.vendorId })).body.version).toBe(0);
  });
});
