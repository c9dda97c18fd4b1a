import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Engine, startEngine } from '../../src/core/engine';
import { openSqlite } from '../../src/core/storage/database';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { buildApp } from '../../src/server/app';
import { ERROR_CODES } from '../../src/shared/errors';
import { signUpAt } from '../support/customers';
import { http, startTestNode, type TestNode } from '../support/test-node';

// /openapi.json for an app developer who generates a client (twelfth round, app-developer report):
// every operation says which credential it takes (`security`, [] when open to all) and documents
// its error replies by reference to the envelope of its style. Held to reality over real HTTP:
// every operation of a store node and of a central node is called without credentials, and its
// 401 (or its absence) and the reply's shape must match what the document declares.

type Operation = { method: string; path: string; op: any };
interface Served {
  url: string;
  doc: any;
}

let store: TestNode;
let vendor: VendorCredentials;
let central: { url: string; app: FastifyInstance; engine: Engine };

beforeAll(async () => {
  // Two logins a minute per client: the third is the 429 the document declares.
  store = await startTestNode({ rateLimits: { login: { perClient: 2, perAccount: 100, windowSeconds: 60 } } });
  vendor = await store.addVendor('Document Coffee');
  const engine = await startEngine({ database: openSqlite(':memory:'), nodeKey: randomBytes(32), role: 'central' });
  const app = await buildApp({ engine, role: 'central', version: 'test' });
  central = { url: await app.listen({ port: 0, host: '127.0.0.1' }), app, engine };
});

afterAll(async () => {
  await central?.app.close();
  await central?.engine.close();
  await store?.close();
});

async function served(url: string): Promise<Served> {
  const reply = await http(`${url}/openapi.json`);
  expect(reply.status).toBe(200);
  return { url, doc: reply.body };
}

function operationsOf(doc: any): Operation[] {
  return Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
}

function resolveRef(doc: any, ref: string): any {
  const match = /^#\/components\/(schemas|responses|securitySchemes)\/(.+)$/.exec(ref);
  return match ? doc.components?.[match[1]!]?.[match[2]!] : undefined;
}

/** Where `value` departs from `schema` (the subset of OpenAPI 3.0 schemas the error envelopes use). */
function departures(doc: any, schema: any, value: unknown, at = '$'): string[] {
  if (schema?.$ref) return departures(doc, resolveRef(doc, schema.$ref), value, at);
  if (!schema) return [`${at}: no schema`];
  if (value === null) return schema.nullable ? [] : [`${at}: null`];
  if (schema.enum && !schema.enum.includes(value)) return [`${at}: ${JSON.stringify(value)} not in enum`];
  switch (schema.type) {
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return [`${at}: not an object`];
      const record = value as Record<string, unknown>;
      const missing = (schema.required ?? []).filter((key: string) => !(key in record)).map((key: string) => `${at}.${key}: missing`);
      return [...missing, ...Object.entries(schema.properties ?? {}).flatMap(([key, sub]) => (key in record ? departures(doc, sub, record[key], `${at}.${key}`) : []))];
    }
    case 'array':
      return Array.isArray(value) ? value.flatMap((item, i) => departures(doc, schema.items, item, `${at}[${i}]`)) : [`${at}: not an array`];
    case 'integer':
      return Number.isInteger(value) ? [] : [`${at}: not an integer`];
    case 'string':
      return typeof value === 'string' ? [] : [`${at}: not a string`];
    default:
      return [];
  }
}

/** The schema an operation documents for an error status. */
function errorSchema(op: any, status: number): any {
  return op.responses?.[String(status)]?.content?.['application/json']?.schema;
}

/** The machine code of an error reply, in either envelope. */
function codeOf(body: any): string | undefined {
  return body?.code ?? body?.error?.errors?.[0]?.reason;
}

/** One call with no credential at all; streams are cut once their status is known. */
async function callBare(url: string, { method, path, op }: Operation): Promise<{ status: number; body: any }> {
  const target = `${url}${path.replace(/\{\w+\}/g, '1')}`;
  const body = op.requestBody ? JSON.stringify({}) : undefined;
  const response = await fetch(target, { method, headers: body ? { 'content-type': 'application/json' } : {}, body, signal: AbortSignal.timeout(10_000) });
  if (!(response.headers.get('content-type') ?? '').includes('json')) {
    await response.body?.cancel();
    return { status: response.status, body: undefined };
  }
  return { status: response.status, body: await response.json() };
}

const UNAUTHENTICATED = new Set(Object.entries(ERROR_CODES).filter(([, e]) => e.status === 401).map(([code]) => code));

describe('security of every operation', () => {
  it('declares the credential schemes, and each operation names only declared ones (or [] when open to all)', async () => {
    for (const { doc } of [await served(store.url), await served(central.url)]) {
      const schemes = doc.components.securitySchemes;
      expect(Object.keys(schemes).sort()).toEqual(['api_key', 'bearer', 'node', 'session_key', 'staff']);
      expect(schemes.api_key).toMatchObject({ type: 'apiKey', in: 'query', name: 'api_key' });
      expect(schemes.session_key).toMatchObject({ type: 'apiKey', in: 'query', name: 'session_key' });
      for (const { method, path, op } of operationsOf(doc)) {
        const key = `${method} ${path}`;
        expect(Array.isArray(op.security), key).toBe(true);
        for (const requirement of op.security) {
          for (const [name, scopes] of Object.entries(requirement)) {
            expect(schemes[name], `${key}: ${name}`).toBeDefined();
            expect(scopes, key).toEqual([]);
          }
        }
        // A credential in the query is the scheme's, not an operation parameter as well.
        const names = (op.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name);
        if (op.security.some((r: object) => 'api_key' in r)) expect(names, key).not.toContain('api_key');
        if (op.security.some((r: object) => 'session_key' in r)) expect(names, key).not.toContain('session_key');
      }
    }
  });

  it('matches reality: every operation called without credentials answers 401 exactly when it declares a scheme, in its documented envelope', async () => {
    for (const { url, doc } of [await served(store.url), await served(central.url)]) {
      const wrong: string[] = [];
      for (const operation of operationsOf(doc)) {
        const key = `${operation.method} ${operation.path}`;
        const reply = await callBare(url, operation);
        const declared = operation.op.security.length > 0;
        if (!declared) {
          if (reply.status === 401 || reply.status === 403) wrong.push(`${key}: declared open to all, answered ${reply.status} ${codeOf(reply.body)}`);
          continue;
        }
        if (reply.status !== 401 || !UNAUTHENTICATED.has(codeOf(reply.body) ?? '')) {
          wrong.push(`${key}: declares ${JSON.stringify(operation.op.security)}, answered ${reply.status} ${codeOf(reply.body)}`);
          continue;
        }
        const off = departures(doc, errorSchema(operation.op, 401), reply.body);
        if (off.length > 0) wrong.push(`${key}: 401 reply departs from its documented envelope: ${off.join('; ')}`);
      }
      expect(wrong, url).toEqual([]);
    }
  });

  it('names the API key roles an operation takes, and a kiosk key is refused 403 where kiosk is not among them', async () => {
    const { doc } = await served(store.url);
    const keyOnly = operationsOf(doc).filter(({ op }) => op.security.length === 1 && 'api_key' in op.security[0]);
    expect(keyOnly.length).toBeGreaterThan(5);
    const refused = keyOnly.filter(({ op }) => !op['x-api-key-roles'].includes('kiosk'));
    expect(refused.length).toBeGreaterThan(0);
    for (const { op } of keyOnly) expect(op['x-api-key-roles'].length).toBeGreaterThan(0);
    for (const operation of refused) {
      const path = `${operation.path.replace(/\{\w+\}/g, '1')}?api_key=${encodeURIComponent(vendor.kioskApiKey)}`;
      const reply = await http(`${store.url}${path}`, { method: operation.method, ...(operation.op.requestBody ? { body: {} } : {}) });
      expect(reply.status, `${operation.method} ${operation.path}`).toBe(403);
      expect(codeOf(reply.body)).toBe('forbidden');
      expect(departures(doc, errorSchema(operation.op, 403), reply.body)).toEqual([]);
    }
  });
});

describe('error replies of every operation', () => {
  it('documents 400 for input, 401 and 403 for a credential, 404 for an id, each by reference to one envelope of its style', async () => {
    for (const { doc } of [await served(store.url), await served(central.url)]) {
      expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['ResourceError', 'LegacyError']));
      for (const { method, path, op } of operationsOf(doc)) {
        const key = `${method} ${path}`;
        const expected = [
          ...((op.parameters?.length ?? 0) > 0 || op.requestBody ? ['400'] : []),
          ...(op.security.length > 0 ? ['401', '403'] : []),
          ...((op.parameters ?? []).some((p: any) => p.in === 'path') ? ['404'] : []),
        ];
        for (const status of expected) {
          expect(errorSchema(op, Number(status))?.$ref, `${key} ${status}`).toMatch(/^#\/components\/schemas\/(ResourceError|LegacyError)$/);
          expect(op.responses[status].description, `${key} ${status}`).toBeTruthy();
        }
        // One style per operation (GET /health's 503 is its own health report, not an error envelope).
        const refs = new Set(Object.keys(op.responses).filter((s) => Number(s) >= 400).map((s) => errorSchema(op, Number(s))?.$ref).filter((ref) => /(ResourceError|LegacyError)$/.test(ref ?? '')));
        expect(refs.size, key).toBeLessThanOrEqual(1);
      }
    }
  });

  it('answers 400 and 404 in the envelope documented for them (resource and legacy style)', async () => {
    const { doc } = await served(store.url);
    const cases = [
      { method: 'POST', path: '/currencies', call: () => http(`${store.url}/currencies`, { method: 'POST', token: vendor.accessToken, body: {} }), status: 400 },
      { method: 'GET', path: '/currencies/{id}', call: () => http(`${store.url}/currencies/curr_nothing`, { token: vendor.accessToken }), status: 404 },
      { method: 'POST', path: '/user/register', call: () => http(`${store.url}/user/register`, { method: 'POST', body: { vendor: vendor.vendorId } }), status: 400 },
      { method: 'GET', path: '/countries/{country_id}/regions', call: () => http(`${store.url}/countries/999999/regions`), status: 404 },
    ];
    for (const { method, path, call, status } of cases) {
      const op = doc.paths[path][method.toLowerCase()];
      const reply = await call();
      expect(reply.status, `${method} ${path}`).toBe(status);
      expect(departures(doc, errorSchema(op, status), reply.body), `${method} ${path}`).toEqual([]);
    }
    // The two envelopes differ: a reply in the wrong one departs from the other's schema.
    expect(departures(doc, { $ref: '#/components/schemas/LegacyError' }, { internal_code: null, message: 'x', code: 'x' })).not.toEqual([]);
  });

  it('documents 429 with Retry-After on the rate-limited operations (and not on others), and a login over its limit answers it', async () => {
    const storeOps = operationsOf((await served(store.url)).doc);
    const limited = (ops: Operation[]) => ops.filter(({ op }) => op.responses['429']).map(({ method, path }) => `${method} ${path}`);
    expect(limited(storeOps)).toEqual(expect.arrayContaining(['POST /user/authenticate', 'POST /user/register', 'GET /user/transaction/list', 'POST /backoffice/sign-in']));
    expect(limited(storeOps)).not.toContain('GET /currencies');
    expect(limited(storeOps)).not.toContain('GET /health');
    expect(limited(operationsOf((await served(central.url)).doc))).toContain('POST /sync/pair');

    const customer = await signUpAt(store, vendor.vendorId);
    const login = () => http(`${store.url}/user/authenticate`, { method: 'POST', body: { email_address: customer.email, password: 'not the password 1', vendor: vendor.vendorId } });
    let reply = await login();
    for (let tries = 0; tries < 3 && reply.status !== 429; tries += 1) reply = await login();
    expect(reply.status).toBe(429);
    expect(Number(reply.headers.get('retry-after'))).toBeGreaterThan(0);
    const op = storeOps.find(({ method, path }) => method === 'POST' && path === '/user/authenticate')!.op;
    expect(op.responses['429'].headers['Retry-After']).toBeDefined();
    expect(departures((await served(store.url)).doc, errorSchema(op, 429), reply.body)).toEqual([]);
  });
});

describe('the whole document', () => {
  it('holds together: every reference resolves, every path parameter is declared, every operation answers some success', async () => {
    for (const { doc } of [await served(store.url), await served(central.url)]) {
      const refs: string[] = [];
      JSON.stringify(doc, (key, value) => {
        if (key === '$ref') refs.push(value);
        return value;
      });
      expect(refs.length).toBeGreaterThan(100);
      expect(refs.filter((ref) => resolveRef(doc, ref) === undefined)).toEqual([]);
      expect(JSON.stringify(doc)).not.toContain('x-error-facts');
      for (const { method, path, op } of operationsOf(doc)) {
        const key = `${method} ${path}`;
        const inPath = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
        const declared = (op.parameters ?? []).filter((p: any) => p.in === 'path').map((p: any) => p.name).sort();
        expect(declared, key).toEqual(inPath);
        expect(Object.keys(op.responses).some((s) => /^2\d\d$/.test(s)), key).toBe(true);
        for (const status of Object.keys(op.responses)) expect(status, key).toMatch(/^[1-5]\d\d$/);
      }
    }
  });
});
