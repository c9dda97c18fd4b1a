import { addOwner } from '../../src/core/staff/add-owner';
import { createStaffSession } from '../../src/core/staff/staff-sessions';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import type { CatalogRoute } from '../../src/server/auth/credential';
import { type Customer, PASSWORD, ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Issue 10: schema-driven fuzzing of every operation of the OpenAPI document. Each operation gets
// requests built from its own parameter and body schemas, mixing plausible values with hostile
// ones (wrong types, out-of-range and non-finite numbers, loose numeric strings, huge and deeply
// nested values, bodies over the 1 MB limit, control characters and broken UTF-16, bad
// percent-encoding, bytes that are not UTF-8, bodies in another charset, form and raw bodies).
// The caller holds a valid credential of the operation's kind, so requests reach validation and
// the use cases. Every reply must be below 500; every refusal (4xx) must carry the JSON envelope
// of its style and leave the database exactly as it was.
//
// FUZZ_RUNS (default 3) is the number of requests per operation; FUZZ_SEED changes the seed.

const RUNS = Number(process.env.FUZZ_RUNS ?? 3);
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_125);

type Schema = { [key: string]: any };
interface Operation {
  method: string;
  path: string;
  route: CatalogRoute;
  query: Array<{ name: string; schema: Schema; required: boolean }>;
  params: Array<{ name: string; schema: Schema }>;
  body: Schema | null;
  /** The largest body it reads, as its 413 says (1 MiB but where a route reads more: a members file). */
  bodyLimitMiB: number;
}
interface FuzzRequest {
  path: Record<string, string>;
  query: Record<string, unknown>;
  body:
    | { kind: 'json'; value: unknown }
    | { kind: 'form'; value: unknown }
    | { kind: 'raw'; text: string }
    | { kind: 'bytes'; bytes: Uint8Array; type: string }
    | { kind: 'none' };
}

let node: TestNode;
let vendor: VendorCredentials;
let customer: Customer;
let session = '';
let staffToken = '';
let ownerId = 0;

/** A live back-office session of the vendor's owner (a sign-out call ends the previous one). */
async function renewStaffSession(): Promise<void> {
  staffToken = (await createStaffSession(node.engine.db, node.engine, { id: ownerId, vendor_id: vendor.vendorId })).token;
}
const operations: Operation[] = [];

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
  vendor = await node.addVendor('Fuzz Coffee');
  customer = await signUpAt(node, vendor.vendorId);
  session = customer.key;
  // The back office's owner: staff routes are fuzzed signed in, like every other credential.
  ownerId = (await addOwner(node.engine, { vendorId: vendor.vendorId, email: 'owner@fuzz.example', password: 'fuzz owner password 1' })).staff.id;
  await renewStaffSession();
  // The outbox worker updates rows on its own time; the database must change only by requests.
  await node.messaging.stop();
  const doc = (await http(`${node.url}/openapi.json`)).body;
  const resolve = (schema: Schema | undefined): Schema | undefined =>
    schema?.$ref ? resolve(doc.components.schemas[String(schema.$ref).split('/').pop()!]) : schema;
  const catalog = node.app.routeCatalog();
  for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const [method, op] of Object.entries(methods)) {
      const url = path.replace(/\{(\w+)\}/g, ':$1');
      const route = catalog.find((r) => r.url === url && r.method === method.toUpperCase());
      if (!route) throw new Error(`${method} ${path} is documented but not routed`);
      const parameters = (op.parameters ?? []) as Array<{ in: string; name: string; schema: Schema; required?: boolean }>;
      operations.push({
        method: method.toUpperCase(),
        path,
        route,
        query: parameters.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: resolve(p.schema) ?? {}, required: p.required === true })),
        params: parameters.filter((p) => p.in === 'path').map((p) => ({ name: p.name, schema: resolve(p.schema) ?? {} })),
        body: resolve(op.requestBody?.content?.['application/json']?.schema) ?? null,
        bodyLimitMiB: Number(/over (\d+) MiB/.exec(op.responses?.['413']?.description ?? '')?.[1] ?? 1),
      });
    }
  }
});

afterAll(async () => {
  await node?.close();
});

// ---------------------------------------------------------------------------------------------
// values

const deep = (depth: number): unknown => (depth === 0 ? 1 : { a: deep(depth - 1) });

/** Values no schema field should take quietly. */
const hostile: fc.Arbitrary<unknown> = fc.constantFrom<unknown>(
  'Infinity', '-Infinity', 'NaN', '0x10', ' 5 ', '5.', '1e3', '1e308', '-0', '+1', '١٢',
  1e308, -1e308, 2 ** 53 + 2, -(2 ** 53) - 2, 1e-9, -1, 0, 0.5, 1e18,
  '', ' ', '\u0000', '\ud800', '\udfff', 'a\u0000b', '%ff', '%', '../../etc/passwd', '<script>', "'; drop table users; --",
  'ü'.repeat(3000), 'x'.repeat(20_000),
  null, true, false, [], {}, [[[]]], [1, 2, 3], { $gt: '' }, deep(40), Array.from({ length: 200 }, (_, i) => i),
);

/** Bodies that are not UTF-8 text as declared: invalid, overlong and truncated sequences, UTF-16, another charset, another type. */
const BAD_BYTES: ReadonlyArray<{ bytes: Uint8Array; type: string }> = [
  { bytes: Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), type: 'application/json' },
  { bytes: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0xe2, 0x82]), type: 'application/json' },
  { bytes: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"name":"x","amount":1}', 'utf16le')]), type: 'application/json; charset=utf-16' },
  { bytes: Buffer.from('{"name":"caf\xe9"}', 'latin1'), type: 'application/json; charset=iso-8859-1' },
  { bytes: Buffer.from([0x61, 0x3d, 0xff, 0x26, 0x62, 0x3d, 0x25, 0xc0]), type: 'application/x-www-form-urlencoded' },
  { bytes: Buffer.from('<a><b>1</b></a>'), type: 'text/xml' },
  { bytes: Buffer.from([0x00, 0x01, 0x02, 0x1f, 0x8b, 0x08]), type: 'application/octet-stream' },
];

/** Over the 1 MB body limit. */
const HUGE_BODY = `{"name":"${'x'.repeat(1_100_000)}"}`;

function plausible(schema: Schema, depth: number): fc.Arbitrary<unknown> {
  if (depth > 4) return fc.constant(null);
  if (schema.anyOf || schema.oneOf) return fc.oneof(...(schema.anyOf ?? schema.oneOf).map((s: Schema) => plausible(s, depth + 1)));
  if (schema.enum) return fc.constantFrom(...(schema.enum as unknown[]));
  if ('const' in schema) return fc.constant(schema.const);
  switch (schema.type) {
    case 'string':
      return fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('ACTIVE', 'a@example.com', '2026-12-01T00:00:00Z', 'USD', 'EC', '0991234567', '4242424242424242', 'floor'));
    case 'integer':
      return fc.integer({ min: Math.max(schema.minimum ?? -5, -1_000_000), max: Math.min(schema.maximum ?? 1000, 1_000_000) });
    case 'number':
      return fc.oneof(fc.integer({ min: 0, max: 1000 }), fc.constantFrom(0.5, 12.25, 1.005));
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(valueOf(schema.items ?? {}, depth + 1), { maxLength: 3 });
    case 'object':
      return objectOf(schema, depth);
    default:
      return fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.constant(null));
  }
}

function valueOf(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 3, arbitrary: plausible(schema, depth) }, { weight: 1, arbitrary: hostile });
}

function objectOf(schema: Schema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = Object.entries((schema.properties ?? {}) as Record<string, Schema>);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of properties) model[name] = valueOf(property, depth + 1);
  return fc.record(model, { requiredKeys: [] }).map((value) => value as Record<string, unknown>);
}

function requestOf(op: Operation): fc.Arbitrary<FuzzRequest> {
  const path: Record<string, fc.Arbitrary<string>> = {};
  for (const param of op.params) path[param.name] = fc.oneof(fc.string({ maxLength: 10 }).map(encodeURIComponent), fc.constantFrom('1', '0', '-1', '1e308', 'Infinity', '%ff', '%00', 'x'.repeat(200), String(vendor.vendorId), String(customer.userId)));
  const query: Record<string, fc.Arbitrary<unknown>> = {};
  for (const param of op.query) if (!['api_key', 'session_key', 'session_identifier'].includes(param.name)) query[param.name] = valueOf(param.schema);
  const body = op.body
    ? fc.oneof(
        { weight: 4, arbitrary: objectOf(op.body, 0).map((value) => ({ kind: 'json' as const, value })) },
        { weight: 1, arbitrary: objectOf(op.body, 0).map((value) => ({ kind: 'form' as const, value })) },
        { weight: 1, arbitrary: hostile.map((value) => ({ kind: 'json' as const, value })) },
        {
          weight: 1,
          arbitrary: fc.constantFrom('{"a":', '[[[[[[[[[[', '['.repeat(100_000), HUGE_BODY, '{"name":"\\ud800"}', 'a=1&a[b]=2&a[b][c][d][e][f][g]=3', '\u00ff\u00fe', 'null', '"text"', '{"__proto__":{"admin":true}}').map((text) => ({ kind: 'raw' as const, text })),
        },
        { weight: 1, arbitrary: fc.constantFrom(...BAD_BYTES).map((b) => ({ kind: 'bytes' as const, ...b })) },
        { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
      )
    : fc.constant({ kind: 'none' as const });
  return fc.record({ path: fc.record(path), query: fc.record(query, { requiredKeys: [] }), body }) as fc.Arbitrary<FuzzRequest>;
}

// ---------------------------------------------------------------------------------------------
// sending, checking

function credentialQuery(route: CatalogRoute): Record<string, string> {
  switch (route.credential.kind) {
    case 'api_key':
      return { api_key: route.credential.roles.includes('cashier') ? vendor.apiKey : vendor.kioskApiKey };
    case 'session':
      return { session_key: session };
    case 'session_or_api_key':
      return { api_key: vendor.apiKey };
    default:
      return {};
  }
}

function queryString(values: Record<string, unknown>): string {
  const parts: string[] = [];
  const add = (key: string, value: unknown) => {
    if (value === undefined) return;
    if (Array.isArray(value)) value.slice(0, 20).forEach((item) => add(key, item));
    else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) add(`${key}[${k}]`, v);
    else parts.push(`${encodeURIComponent(key)}=${safeEncode(String(value))}`);
  };
  for (const [key, value] of Object.entries(values)) add(key, value);
  return parts.join('&');
}

/** encodeURIComponent refuses lone surrogates: send their bytes as broken percent-encoding instead. */
function safeEncode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return '%ED%A0%80';
  }
}

function formOf(value: unknown): string {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? queryString(value as Record<string, unknown>) : safeEncode(String(value));
}

async function send(op: Operation, request: FuzzRequest): Promise<{ status: number; type: string; text: string }> {
  let path = op.path;
  for (const [name, value] of Object.entries(request.path)) path = path.replace(`{${name}}`, value);
  const query = queryString({ ...request.query, ...credentialQuery(op.route) });
  const headers: Record<string, string> = {};
  if (op.route.credential.kind === 'bearer') headers.authorization = `Bearer ${vendor.accessToken}`;
  if (op.route.credential.kind === 'staff') headers.authorization = `Bearer ${staffToken}`;
  let body: string | Uint8Array<ArrayBuffer> | undefined;
  const b = request.body;
  if (b.kind === 'json') {
    body = JSON.stringify(b.value) ?? 'null';
    headers['content-type'] = 'application/json';
  } else if (b.kind === 'form') {
    body = formOf(b.value);
    headers['content-type'] = 'application/x-www-form-urlencoded';
  } else if (b.kind === 'raw') {
    body = b.text;
    headers['content-type'] = 'application/json';
  } else if (b.kind === 'bytes') {
    body = new Uint8Array(b.bytes);
    headers['content-type'] = b.type;
  }
  // fetch sends no body with GET: GET bodies are covered by test/api/http-conventions.
  if (op.method === 'GET') body = undefined;
  const response = await fetch(`${node.url}${path}${query ? `?${query}` : ''}`, { method: op.method, headers, body, signal: AbortSignal.timeout(20_000) });
  const type = response.headers.get('content-type') ?? '';
  if (type.startsWith('text/event-stream')) {
    await response.body?.cancel();
    return { status: response.status, type, text: '' };
  }
  return { status: response.status, type, text: await response.text() };
}

/** Rate-limit windows and failed-login counters change on refusals by design. */
// A key's last use and a staff session's last activity are recorded when they authenticate, whatever the call then answers.
const CHANGES_ON_REFUSAL: Record<string, string[] | 'all'> = { rate_limit_windows: 'all', users: ['failed_logins', 'locked_until'], api_keys: ['last_used_at'], staff_sessions: 'all' };

async function fingerprint(): Promise<Record<string, string>> {
  const tables = await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`.execute(node.engine.db);
  const prints: Record<string, string> = {};
  for (const { name } of tables.rows) {
    if (CHANGES_ON_REFUSAL[name] === 'all') continue;
    const rows = await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(node.engine.db);
    const ignored = (CHANGES_ON_REFUSAL[name] as string[] | undefined) ?? [];
    const kept = rows.rows.map((row) => Object.fromEntries(Object.entries(row).filter(([column]) => !ignored.includes(column))));
    prints[name] = createHash('sha1').update(JSON.stringify(kept)).digest('hex');
  }
  return prints;
}

function envelopeProblem(reply: { status: number; type: string; text: string }): string | null {
  if (!reply.type.startsWith('application/json')) return `content type ${reply.type}`;
  let body: any;
  try {
    body = JSON.parse(reply.text);
  } catch {
    return 'not JSON';
  }
  const legacy = body?.object === 'error' && body.error?.code === reply.status && typeof body.error.errors?.[0]?.reason === 'string' && typeof body.error.errors[0].message === 'string';
  const resource = typeof body?.code === 'string' && typeof body.message === 'string' && 'internal_code' in body;
  return legacy || resource ? null : `not an error envelope: ${reply.text.slice(0, 200)}`;
}

describe('schema-driven fuzzing of every operation', () => {
  it(`${RUNS} hostile requests per operation: no 5xx, a JSON envelope on every refusal, the database unchanged by it`, { timeout: 60_000 + RUNS * 30_000 }, async () => {
    expect(operations.length).toBeGreaterThan(80);
    const failures: string[] = [];
    let before = await fingerprint();
    for (const [index, op] of operations.entries()) {
      const result = await fc.check(
        fc.asyncProperty(requestOf(op), async (request) => {
          const reply = await send(op, request);
          const after = await fingerprint();
          const changed = Object.keys(after).filter((table) => after[table] !== before[table]);
          const refusal = reply.status >= 400;
          before = after;
          if (reply.status >= 500) throw new Error(`${reply.status}: ${reply.text.slice(0, 300)}`);
          if (refusal) {
            const problem = envelopeProblem(reply);
            if (problem) throw new Error(`${reply.status} ${problem}`);
            if (changed.length > 0) throw new Error(`${reply.status} refusal changed ${changed.join(', ')}: ${reply.text.slice(0, 200)}`);
          }
          // A call such as logout, deactivate or a new password may end the session: renew it.
          if (!refusal && op.route.credential.kind === 'session' && (op.method !== 'GET' || op.path.includes('logout'))) {
            await renewSession();
            before = await fingerprint();
          }
          if (!refusal && op.route.credential.kind === 'staff' && op.path.includes('sign-out')) {
            await renewStaffSession();
            before = await fingerprint();
          }
        }),
        { seed: SEED + index, numRuns: RUNS, endOnFailure: true },
      );
      if (result.failed) failures.push(`${op.method} ${op.path}: ${String(result.errorInstance)}\n  input: ${fc.stringify(result.counterexample).slice(0, 400)}`);
    }
    expect(failures).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// the number sweep: every number field of every operation, given each loose number in turn

const LOOSE_NUMBERS: readonly unknown[] = ['Infinity', '0x10', '9007199254740993'];

/** A value each schema takes (the first branch, the smallest number): the rest of a sweep's request. */
function minimal(schema: Schema): unknown {
  if (schema.anyOf || schema.oneOf) return minimal((schema.anyOf ?? schema.oneOf)[0]);
  if (schema.enum) return schema.enum[0];
  if ('const' in schema) return schema.const;
  switch (schema.type) {
    case 'string':
      return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
    case 'integer':
    case 'number':
      return Math.max(schema.minimum ?? 1, 1);
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return Object.fromEntries(((schema.required ?? []) as string[]).map((name) => [name, minimal(schema.properties?.[name] ?? {})]));
    default:
      return 'x';
  }
}

const isNumberField = (schema: Schema): boolean => {
  const types = (schema.anyOf ?? schema.oneOf ?? [schema]).map((s: Schema) => s.type);
  return (types.includes('integer') || types.includes('number')) && !types.includes('string');
};

/** Sweep requests: each number field of the body and the query, in turn, holding each loose number. */
function sweepOf(op: Operation): Array<{ field: string; request: FuzzRequest }> {
  const sweeps: Array<{ field: string; request: FuzzRequest }> = [];
  const path = Object.fromEntries(op.params.map((p) => [p.name, isNumberField(p.schema) ? '1' : 'x']));
  const query = Object.fromEntries(op.query.filter((q) => q.required).map((q) => [q.name, minimal(q.schema)]));
  const body = op.body ? (minimal(op.body) as Record<string, unknown>) : null;
  for (const value of LOOSE_NUMBERS) {
    for (const q of op.query) if (isNumberField(q.schema)) sweeps.push({ field: q.name, request: { path, query: { ...query, [q.name]: value }, body: body ? { kind: 'json', value: body } : { kind: 'none' } } });
    if (op.body && op.method !== 'GET') {
      for (const [name, property] of Object.entries((op.body.properties ?? {}) as Record<string, Schema>)) {
        if (isNumberField(property)) sweeps.push({ field: name, request: { path, query, body: { kind: 'json', value: { ...body, [name]: value } } } });
      }
    }
  }
  return sweeps;
}

describe('the number sweep', () => {
  it(`every number field of every operation refuses ${LOOSE_NUMBERS.join(', ')} with 400 naming it, and changes nothing`, { timeout: 120_000 }, async () => {
    const failures: string[] = [];
    let swept = 0;
    // The fuzz before may have ended the customer's session by a call of another credential (a
    // seed's back-office call deactivating them): a 401 would hide whether a field is refused.
    await renewSession();
    await renewStaffSession();
    for (const op of operations) {
      for (const { field, request } of sweepOf(op)) {
        const before = await fingerprint();
        const reply = await send(op, request);
        swept += 1;
        const where = `${op.method} ${op.path} ${field}=${JSON.stringify(field in request.query ? request.query[field] : (request.body as { value: Record<string, unknown> }).value[field])}`;
        const body = reply.text ? JSON.parse(reply.text) : null;
        const named = body?.field ?? body?.error?.errors?.[0]?.field;
        if (reply.status !== 400 || named !== field) failures.push(`${where}: ${reply.status} ${reply.text.slice(0, 200)}`);
        const after = await fingerprint();
        const changed = Object.keys(after).filter((table) => after[table] !== before[table]);
        if (changed.length > 0) failures.push(`${where} changed ${changed.join(', ')}`);
      }
    }
    expect(failures).toEqual([]);
    expect(swept).toBeGreaterThan(50);
  });
});

// ---------------------------------------------------------------------------------------------
// the body sweep: every operation that takes a body, given each body that is not UTF-8 JSON and one over the limit

describe('the body sweep', () => {
  it('every operation with a body answers bytes that are not UTF-8 (or not JSON) without a 5xx, and a body over 1 MB with 413, in its envelope', { timeout: 120_000 }, async () => {
    const failures: string[] = [];
    let swept = 0;
    await renewSession();
    await renewStaffSession();
    const none = { path: {}, query: {} };
    let before = await fingerprint();
    for (const op of operations.filter((o) => o.method !== 'GET')) {
      const path = Object.fromEntries(op.params.map((p) => [p.name, '1']));
      const bodies: Array<{ label: string; body: FuzzRequest['body'] }> = [
        ...BAD_BYTES.map((b) => ({ label: `${b.type} ${Buffer.from(b.bytes).toString('hex').slice(0, 24)}`, body: { kind: 'bytes' as const, ...b } })),
        { label: 'over 1 MB', body: { kind: 'raw' as const, text: HUGE_BODY } },
      ];
      for (const { label, body } of bodies) {
        const reply = await send(op, { ...none, path, body });
        swept += 1;
        const where = `${op.method} ${op.path} with ${label}: ${reply.status} ${reply.text.slice(0, 160)}`;
        if (reply.status >= 500) failures.push(`5xx — ${where}`);
        if (label === 'over 1 MB' && op.bodyLimitMiB === 1 && reply.status !== 413 && reply.status !== 401 && reply.status !== 403) failures.push(`expected 413 — ${where}`);
        if (reply.status >= 400) {
          const problem = envelopeProblem(reply);
          if (problem) failures.push(`${problem} — ${where}`);
          const after = await fingerprint();
          const changed = Object.keys(after).filter((table) => after[table] !== before[table]);
          if (changed.length > 0) failures.push(`changed ${changed.join(', ')} — ${where}`);
          before = after;
        } else {
          // A call that needs no body (logout, sign-out) may have ended a session.
          if (op.route.credential.kind === 'session') await renewSession();
          if (op.route.credential.kind === 'staff') await renewStaffSession();
          before = await fingerprint();
        }
      }
    }
    expect(failures).toEqual([]);
    expect(swept).toBeGreaterThan(300);
  });
});

/** A live session: a new login, or a new customer when the last one can no longer log in (deactivated, new password). */
async function renewSession(): Promise<void> {
  const login = await http(`${node.url}/user/authenticate`, { method: 'POST', body: { email_address: customer.email, password: PASSWORD, vendor: vendor.vendorId } });
  if (login.status === 200) {
    session = login.body.session_identifier;
    return;
  }
  customer = await signUpAt(node, vendor.vendorId);
  session = customer.key;
}
