import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAccessToken } from '../../src/core/credentials/access-tokens';
import { addOwner } from '../../src/core/staff/add-owner';
import { createStaffSession } from '../../src/core/staff/staff-sessions';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import type { CatalogRoute, RouteCredential } from '../../src/server/auth/credential';
import { type Customer, loginOkAt, PASSWORD, ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Issue 10: every operation × every kind of caller that should not get in. The operations and the
// credential each takes come from the app's own route catalog (the checks each route runs), and
// the catalog must match the OpenAPI document, so a new route is in this matrix the day it exists.
//
// Callers: none; garbage; another vendor's bearer (on back-office routes, another vendor's staff
// session); a cashier key; a kiosk key; another customer's session; a revoked or ended credential
// of the route's own kind; an expired one (an access token, a customer session or a staff session
// past its lifetime; API keys have no lifetime, so a key route's expired caller carries an expired
// customer session). Expected: 401 for a missing, unknown, revoked, expired or wrong kind of
// credential; 403 for a key whose role may not make the call; otherwise the caller gets in and
// still sees nothing of vendor A or of customer `ana` (404 for vendor A's objects, no trace of
// Ana's email in any reply).

type Variant = 'none' | 'garbage' | 'otherVendorBearer' | 'cashierKey' | 'kioskKey' | 'otherCustomerSession' | 'revoked' | 'expired';
const VARIANTS: readonly Variant[] = ['none', 'garbage', 'otherVendorBearer', 'cashierKey', 'kioskKey', 'otherCustomerSession', 'revoked', 'expired'];
type Expected = 401 | 403 | 'in';

/** The expected outcome of one caller on one route, from the route's credential alone. */
function expected(credential: RouteCredential, variant: Variant): Expected {
  switch (credential.kind) {
    case 'public':
      return 'in';
    case 'staff':
      // Vendor B's owner is signed in to the back office: it gets in, and sees only vendor B.
      return variant === 'otherVendorBearer' ? 'in' : 401;
    case 'node':
      // No caller here holds a node credential.
      return 401;
    case 'bearer':
      return variant === 'otherVendorBearer' ? 'in' : 401;
    case 'session':
      return variant === 'otherCustomerSession' ? 'in' : 401;
    case 'api_key':
      if (variant === 'cashierKey') return credential.roles.includes('cashier') ? 'in' : 403;
      if (variant === 'kioskKey') return credential.roles.includes('kiosk') ? 'in' : 403;
      return 401;
    case 'session_or_api_key':
      if (variant === 'otherCustomerSession') return 'in';
      if (variant === 'cashierKey') return credential.roles.includes('cashier') ? 'in' : 403;
      if (variant === 'kioskKey') return credential.roles.includes('kiosk') ? 'in' : 403;
      return 401;
  }
}

/** Routes that are not operations of the interface (the docs pages, the referral web page, the CORS catch-all). */
const NOT_OPERATIONS = (route: CatalogRoute) => route.url.startsWith('/docs') || route.url === '*' || route.url === '/openapi.json' || route.url === '/join';

let node: TestNode;
let a: VendorCredentials;
let b: VendorCredentials;
let ana: Customer;
let bob: Customer;
let revoked: { bearer: string; apiKey: string; session: string; staff: string };
let expired: { bearer: string; session: string; staff: string };
/** Bob's session, renewed after any call that may have ended it. */
let bobSession = '';
/** Vendor B's owner's back-office session, renewed after a sign-out. */
let bStaffSession = '';
let bOwnerId = 0;
const ids: Record<string, string> = {};
/** Vendor A's objects by back-office route (numeric ids, so not searched for in replies). */
const staffIds: Record<string, string> = {};

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
  a = await node.addVendor('Vendor A');
  b = await node.addVendor('Vendor B');
  ana = await signUpAt(node, a.vendorId, { first_name: 'Ana' });
  bob = await signUpAt(node, a.vendorId, { first_name: 'Bob' });
  bobSession = bob.key;
  const token = (path: string, body: unknown) => http(`${node.url}${path}`, { method: 'POST', token: a.accessToken, body });
  const currencies = await http(`${node.url}/currencies`, { token: a.accessToken });
  const points = currencies.body.items.find((c: any) => c.code === null).id;
  ids['/currencies/:id'] = points;
  ids['/cards/:id'] = (await token('/cards', { number: 'MATRIX0001' })).body.id;
  ids['/earning-rules/:id'] = (await token('/earning-rules', { name: 'Per dollar', currency: points, points: 1, per_amount: 1 })).body.id;
  ids['/rewards/:id'] = (await token('/rewards', { name: 'Coffee', currency: points, cost: 10 })).body.id;
  ids['/tiers/:id'] = (await token('/tiers', { name: 'Gold', threshold: 500 })).body.id;
  for (const value of Object.values(ids)) expect(value).toMatch(/^[a-z]+_/);

  // Revoked and ended credentials of vendor A and a customer of A.
  const extra = await node.addVendor('Vendor A revoked');
  await node.engine.db.updateTable('access_tokens').set({ revoked_at: node.clock.now() }).where('vendor_id', '=', extra.vendorId).execute();
  await node.engine.db.updateTable('api_keys').set({ revoked_at: node.clock.now() }).where('vendor_id', '=', extra.vendorId).execute();
  const ended = await signUpAt(node, a.vendorId, { first_name: 'Eve' });
  expect((await http(`${node.url}/user/logout?session_key=${encodeURIComponent(ended.key)}`, { method: 'POST' })).status).toBe(200);

  // Staff sessions of vendor A's owner: one ended, one expired; vendor B's owner signed in.
  const aOwnerId = (await addOwner(node.engine, { vendorId: a.vendorId, email: 'owner@a.example', password: 'matrix owner password 1' })).staff.id;
  const aOwner = { id: aOwnerId, vendor_id: a.vendorId };
  const endedStaff = (await createStaffSession(node.engine.db, node.engine, aOwner)).token;
  await node.engine.db.updateTable('staff_sessions').set({ ended_at: node.clock.now() }).where('staff_id', '=', aOwner.id).execute();
  const expiredStaff = (await createStaffSession(node.engine.db, node.engine, aOwner)).token;
  await node.engine.db.updateTable('staff_sessions').set({ expires_at: node.clock.now() - 1 }).where('staff_id', '=', aOwner.id).where('ended_at', 'is', null).execute();
  bOwnerId = (await addOwner(node.engine, { vendorId: b.vendorId, email: 'owner@b.example', password: 'matrix owner password 1' })).staff.id;
  await renewStaffSession();

  // An access token and a customer session of vendor A past their lifetime.
  const expiredBearer = (await addAccessToken(node.engine.db, node.engine, { vendorId: a.vendorId, oauthClientId: null, label: 'matrix expired', ttlSeconds: 60 })).token;
  await node.engine.db.updateTable('access_tokens').set({ expires_at: node.clock.now() - 1 }).where('label', '=', 'matrix expired').execute();
  const lapsed = await signUpAt(node, a.vendorId, { first_name: 'Fay' });
  await node.engine.db.updateTable('user_sessions').set({ expires_at: node.clock.now() - 1 }).where('user_id', '=', lapsed.userId).execute();
  revoked = { bearer: extra.accessToken, apiKey: extra.apiKey, session: ended.key, staff: endedStaff };
  expired = { bearer: expiredBearer, session: lapsed.key, staff: expiredStaff };

  staffIds['/backoffice/program/currencies/:id'] = points;
  staffIds['/backoffice/program/earning-rules/:id'] = ids['/earning-rules/:id']!;
  staffIds['/backoffice/program/rewards/:id'] = ids['/rewards/:id']!;
  staffIds['/backoffice/program/tiers/:id'] = ids['/tiers/:id']!;
  for (const url of ['/backoffice/customers/:id', '/backoffice/customers/:id/adjustments', '/backoffice/customers/:id/block', '/backoffice/customers/:id/unblock', '/backoffice/customers/:id/email', '/backoffice/customers/:id/remove']) staffIds[url] = String(ana.userId);
  for (const url of ['/backoffice/stores/:id', '/backoffice/stores/:id/keys']) staffIds[url] = String(a.storeId);
  staffIds['/backoffice/staff/:id'] = String(aOwner.id);
  const aKey = await node.engine.db.selectFrom('api_keys').select('id').where('vendor_id', '=', a.vendorId).where('revoked_at', 'is', null).executeTakeFirstOrThrow();
  staffIds['/backoffice/keys/:id'] = String(aKey.id);
});

async function renewStaffSession(): Promise<void> {
  bStaffSession = (await createStaffSession(node.engine.db, node.engine, { id: bOwnerId, vendor_id: b.vendorId })).token;
}

afterAll(async () => {
  await node?.close();
});

function pathOf(route: CatalogRoute): string {
  if (ids[route.url]) return route.url.replace(':id', ids[route.url]!);
  if (staffIds[route.url]) return route.url.replace(':id', staffIds[route.url]!);
  return route.url
    .replace(':vendor_id', String(a.vendorId))
    .replace(':user_id', String(ana.userId))
    .replace(':country_id', '218')
    .replace(':slug', 'terms')
    .replace(':file', 'EC.svg');
}

/** The request of one caller: which header or query credential it carries. */
async function credentialsOf(route: CatalogRoute, variant: Variant): Promise<{ query: Record<string, string>; headers: Record<string, string> }> {
  const kind = route.credential.kind;
  switch (variant) {
    case 'none':
      return { query: {}, headers: {} };
    case 'garbage':
      if (kind === 'bearer' || kind === 'public' || kind === 'staff' || kind === 'node') return { query: {}, headers: { authorization: 'Bearer pcat_garbage' } };
      if (kind === 'session') return { query: { session_key: 'garbage' }, headers: {} };
      return { query: { api_key: 'pcak_garbage' }, headers: {} };
    case 'otherVendorBearer':
      return { query: {}, headers: { authorization: `Bearer ${kind === 'staff' ? bStaffSession : b.accessToken}` } };
    case 'cashierKey':
      return { query: { api_key: a.apiKey }, headers: {} };
    case 'kioskKey':
      return { query: { api_key: a.kioskApiKey }, headers: {} };
    case 'otherCustomerSession':
      return { query: { session_key: bobSession, user: String(ana.userId) }, headers: {} };
    case 'revoked':
      if (kind === 'staff') return { query: {}, headers: { authorization: `Bearer ${revoked.staff}` } };
      if (kind === 'bearer' || kind === 'public' || kind === 'node') return { query: {}, headers: { authorization: `Bearer ${revoked.bearer}` } };
      if (kind === 'session') return { query: { session_key: revoked.session }, headers: {} };
      return { query: { api_key: revoked.apiKey }, headers: {} };
    case 'expired':
      if (kind === 'staff') return { query: {}, headers: { authorization: `Bearer ${expired.staff}` } };
      if (kind === 'bearer' || kind === 'public' || kind === 'node') return { query: {}, headers: { authorization: `Bearer ${expired.bearer}` } };
      return { query: { session_key: expired.session }, headers: {} };
  }
}

/** Status and text of one call; an event stream that lets the caller in is cut after its headers. */
async function call(route: CatalogRoute, variant: Variant): Promise<{ status: number; text: string; url: string }> {
  const { query, headers } = await credentialsOf(route, variant);
  const params = new URLSearchParams({ ...query, ...(route.credential.kind === 'session_or_api_key' && !query.user ? { user: String(ana.userId) } : {}) });
  const url = `${node.url}${pathOf(route)}${params.size ? `?${params}` : ''}`;
  const hasBody = route.method !== 'GET';
  const response = await fetch(url, { method: route.method, headers: { ...headers, ...(hasBody ? { 'content-type': 'application/json' } : {}) }, body: hasBody ? '{}' : undefined });
  if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    await response.body?.cancel();
    return { status: response.status, text: '', url };
  }
  return { status: response.status, text: await response.text(), url };
}

describe('the route catalog', () => {
  it('lists every operation of the OpenAPI document, and nothing the document leaves out', async () => {
    const doc = (await http(`${node.url}/openapi.json`)).body;
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`))
      .sort();
    const catalogued = node.app
      .routeCatalog()
      .filter((route) => !NOT_OPERATIONS(route))
      .map((route) => `${route.method} ${route.url}`)
      .sort();
    expect(catalogued).toEqual(documented);
    expect(catalogued.length).toBeGreaterThan(80);
  });

  it('only the calls meant for anyone are public', () => {
    const publicRoutes = node.app
      .routeCatalog()
      .filter((route) => !NOT_OPERATIONS(route) && route.credential.kind === 'public')
      .map((route) => `${route.method} ${route.url}`)
      .sort();
    expect(publicRoutes).toEqual(
      [
        'DELETE /vendor/:vendor_id/customers',
        'GET /card/balance',
        'GET /countries',
        'GET /countries/:country_id/regions',
        'GET /flags/:file',
        'GET /health',
        'GET /sync/status',
        'GET /user/cedula/exists',
        'GET /user/email/exists',
        'GET /user/mobile/exists',
        'GET /vendor/content/:slug',
        'GET /vendor/store/list',
        'POST /backoffice/invitations/accept',
        'POST /backoffice/password-reset',
        'POST /backoffice/password-reset/confirm',
        'POST /backoffice/sign-in',
        'POST /backoffice/sign-in/link',
        'POST /oauth/access_token',
        'POST /user/authenticate',
        'POST /user/password-reset/apply',
        'POST /user/password-reset/reset',
        'POST /user/register',
        'POST /vendor/:vendor_id/egift',
      ].sort(),
    );
  });
});

describe('every operation × every caller', () => {
  it('answers as the route’s credential says, never 5xx, never a trace of vendor A’s objects or of Ana', async () => {
    const failures: string[] = [];
    let checked = 0;
    for (const route of node.app.routeCatalog().filter((r) => !NOT_OPERATIONS(r))) {
      for (const variant of VARIANTS) {
        const want = expected(route.credential, variant);
        const reply = await call(route, variant);
        checked += 1;
        // A call such as logout or deactivate may end Bob's session: the next one gets a new one.
        if (variant === 'otherCustomerSession' && (route.method !== 'GET' || route.url.includes('logout')) && reply.status < 300) bobSession = (await loginOkAt(node, bob.email, PASSWORD, a.vendorId)).session_identifier;
        if (variant === 'otherVendorBearer' && route.credential.kind === 'staff' && route.url.includes('sign-out') && reply.status < 300) await renewStaffSession();
        const where = `${route.method} ${route.url} as ${variant}: ${reply.status} ${reply.text.slice(0, 160)}`;
        if (reply.status >= 500) failures.push(`5xx — ${where}`);
        else if (want !== 'in' && reply.status !== want) failures.push(`expected ${want} — ${where}`);
        else if (want === 'in' && (reply.status === 401 || reply.status === 403) && route.credential.kind !== 'public') failures.push(`expected to get in — ${where}`);
        if (reply.text.includes(ana.email)) failures.push(`Ana's email leaked — ${where}`);
        if (variant === 'otherVendorBearer' && (route.credential.kind === 'bearer' || route.credential.kind === 'staff')) {
          for (const id of Object.values(ids)) if (reply.text.includes(id)) failures.push(`vendor A's ${id} leaked — ${where}`);
          const aObject = route.credential.kind === 'bearer' ? route.url.endsWith('/:id') : Boolean(staffIds[route.url]);
          if (aObject && reply.status !== 404 && reply.status !== 400) failures.push(`expected 404 for vendor A's object — ${where}`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(checked).toBeGreaterThan(80 * VARIANTS.length);
  });

  it("vendor A's objects are all still there: no caller of the matrix changed them", async () => {
    for (const [path, id] of Object.entries(ids)) {
      const reply = await http(`${node.url}${path.replace(':id', id)}`, { token: a.accessToken });
      expect(reply.status, path).toBe(200);
    }
  });
});
