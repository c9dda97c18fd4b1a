import { request as httpRequest } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/core/engine';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { buildApp } from '../../src/server/app';
import { BACKENDS, openEngine, testVendor } from '../support/backends';
import { ManualClock } from '../support/clock';
import { expectLegacyError, FORM, registration, ROOMY_RATE_LIMITS } from '../support/customers';
import { expectResourceError } from '../support/resource-api';
import { http } from '../support/test-node';

// U+0000 in any string a client sends (body, query, path) is 400 validation_failed on both
// databases, and nothing is written: PostgreSQL cannot store NUL in text (SQLSTATE 22021), which
// was a 500, and SQLite kept it silently. A database refusal of a character is a 400 as well.

describe.each(BACKENDS)('NUL in input on $name', (backend) => {
  let engine: Engine;
  let app: FastifyInstance;
  let url: string;
  let vendor: VendorCredentials;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const opened = await openEngine(backend, new ManualClock());
    engine = opened.engine;
    app = await buildApp({ engine, role: 'store', version: 'test', rateLimits: ROOMY_RATE_LIMITS });
    // The backstop: a statement the database refuses for a character the checks above did not see.
    app.get('/test/database-refuses-nul', async () => {
      await sql`select cast(${'a' + String.fromCharCode(0) + 'b'} as text) as t`.execute(engine.db);
      return {};
    });
    app.get('/test/raise/:code', async (request) => {
      throw Object.assign(new Error('character not in repertoire'), { code: (request.params as { code: string }).code });
    });
    url = await app.listen({ port: 0, host: '127.0.0.1' });
    vendor = await setUpVendor(engine, testVendor('Nul Coffee'));
    close = async () => {
      await app.close();
      await opened.close();
    };
  });

  afterAll(async () => {
    await close?.();
  });

  const rows = async () => ({
    currencies: (await engine.db.selectFrom('currencies').select('id').execute()).length,
    cards: (await engine.db.selectFrom('cards').select('id').execute()).length,
    users: (await engine.db.selectFrom('users').select('id').execute()).length,
  });
  const bearer = () => vendor.accessToken;

  it('a JSON body string: POST /currencies, POST /cards (nested data, pin)', async () => {
    const before = await rows();
    expectResourceError(await http(`${url}/currencies`, { method: 'POST', token: bearer(), body: { name: 'a\u0000b' } }), 400, 'validation_failed', 'name');
    expectResourceError(await http(`${url}/cards`, { method: 'POST', token: bearer(), body: { number: 'N1', data: { a: ['x', 'y\u0000'] } } }), 400, 'validation_failed', 'data.a.1');
    expectResourceError(await http(`${url}/cards`, { method: 'POST', token: bearer(), body: { number: 'N2', pin: 'p\u0000' } }), 400, 'validation_failed', 'pin');
    // A key holds one too: named with the NUL written out, so the reply never carries one.
    expectResourceError(await http(`${url}/cards`, { method: 'POST', token: bearer(), body: { number: 'N3', data: { 'k\u0000': 1 } } }), 400, 'validation_failed', 'data.k\\u0000');
    expect(await rows()).toEqual(before);
  });

  it('a form body: name=a%00b', async () => {
    const before = await rows();
    expectResourceError(await http(`${url}/currencies`, { method: 'POST', token: bearer(), body: 'name=a%00b', headers: FORM }), 400, 'validation_failed', 'name');
    expect(await rows()).toEqual(before);
  });

  it('a query value, plain or bracketed: GET /cards?query=n:a%00, /currencies?query=…', async () => {
    expectResourceError(await http(`${url}/cards?query=n:a%00`, { token: bearer() }), 400, 'validation_failed', 'query');
    expectResourceError(await http(`${url}/currencies?query=${encodeURIComponent('n:a\u0000')}`, { token: bearer() }), 400, 'validation_failed', 'query');
    expectResourceError(await http(`${url}/cards?query[a]=x%00`, { token: bearer() }), 400, 'validation_failed', 'query.a');
    // Still read as before without one.
    expect((await http(`${url}/cards?query=n:a`, { token: bearer() })).status).toBe(200);
  });

  it('a path parameter: GET /cards/card_%00', async () => {
    expectResourceError(await http(`${url}/cards/card_%00`, { token: bearer() }), 400, 'validation_failed', 'id');
  });

  it('legacy calls: register, authenticate, email exists (legacy envelope)', async () => {
    const before = await rows();
    expectLegacyError(await http(`${url}/user/register`, { method: 'POST', body: registration(vendor.vendorId, { first_name: 'A\u0000' }) }), 400, 'validation_failed', 'first_name');
    expectLegacyError(
      await http(`${url}/user/authenticate`, { method: 'POST', body: { email_address: 'n\u0000@example.com', password: 'correct horse 1', vendor: vendor.vendorId } }),
      400,
      'validation_failed',
      'email_address',
    );
    expectLegacyError(await http(`${url}/user/email/exists?email=a%00@example.com&vendor=${vendor.vendorId}`), 400, 'validation_failed', 'email');
    expect(await rows()).toEqual(before);
  });

  it('the body of a GET (which fills in the query)', async () => {
    const reply = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const body = JSON.stringify({ email: 'a\u0000@example.com' });
      const req = httpRequest(`${url}/user/email/exists?vendor=${vendor.vendorId}`, { headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      });
      req.on('error', reject);
      req.end(body);
    });
    expect(reply.status).toBe(400);
    expect(reply.body.error.errors[0]).toMatchObject({ reason: 'validation_failed', field: 'email' });
  });

  it('a database that refuses a character answers 400, not 500 (SQLSTATE 22021, 22P05)', async () => {
    for (const code of ['22021', '22P05']) {
      const reply = await http(`${url}/test/raise/${code}`);
      expect(reply.status, JSON.stringify(reply.body)).toBe(400);
      expect(reply.body.error.errors[0].reason).toBe('validation_failed');
    }
    const real = await http(`${url}/test/database-refuses-nul`);
    // SQLite stores NUL; PostgreSQL refuses it, and that refusal is the client's 400.
    expect(real.status, JSON.stringify(real.body)).toBe(backend.name === 'sqlite' ? 200 : 400);
    expect((await http(`${url}/test/raise/XX000`)).status).toBe(500);
  });

  it('lone surrogates are left alone: no 5xx, read back as U+FFFD (three of them from SQLite, one from PostgreSQL)', async () => {
    const reply = await http(`${url}/currencies`, { method: 'POST', token: bearer(), body: { name: 'lone \ud800' } });
    expect(reply.status).toBe(201);
    const stored = (await http(`${url}/currencies/${reply.body.id}`, { token: bearer() })).body.name;
    expect(stored).toBe(backend.name === 'sqlite' ? 'lone \ufffd\ufffd\ufffd' : 'lone \ufffd');
  });
});

describe('a sync push may carry a NUL in its rows', () => {
  // Rows a store already holds (SQLite keeps a NUL) are judged event by event at central, so one
  // such row must not make the whole page a 400 that the store would resend forever.
  it('POST /sync/push is judged by its credential, not refused for a NUL in a row', async () => {
    const { engine, close } = await openEngine(BACKENDS[0]!, new ManualClock());
    const central = await buildApp({ engine, role: 'central', version: 'test', rateLimits: ROOMY_RATE_LIMITS });
    const url = await central.listen({ port: 0, host: '127.0.0.1' });
    try {
      const push = await http(`${url}/sync/push`, { method: 'POST', body: { events: [{ node_seq: 1, changes: [{ tbl: 'users', op: 'upsert', data: { first_name: 'A\u0000' } }] }] } });
      expect(push.status).toBe(401);
      const elsewhere = await http(`${url}/user/register`, { method: 'POST', body: { first_name: 'A\u0000' } });
      expectLegacyError(elsewhere, 400, 'validation_failed', 'first_name');
    } finally {
      await central.close();
      await close();
    }
  });
});
