import { existsSync, readFileSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { http, type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// POST /oauth/access_token (client_credentials), token lifetimes, and how credentials rest on disk.

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const HOUR_MS = 3600 * 1000;

let node: TestNode;
let vendor: VendorCredentials;

beforeAll(async () => {
  node = await startTestNode();
  vendor = await node.addVendor('OAuth Bakery');
});

afterAll(async () => {
  await node?.close();
});

function tokenUrl() {
  return `${node.url}/oauth/access_token`;
}

function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${id}:${secret}`, 'utf8').toString('base64')}`;
}

async function expectTokenReply(reply: HttpReply): Promise<string> {
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  expect(Object.keys(reply.body).sort()).toEqual(['access_token', 'expires_in', 'token_type']);
  expect(reply.body.token_type).toBe('bearer');
  expect(reply.body.expires_in).toBe(3600);
  expect(typeof reply.body.access_token).toBe('string');
  expect(reply.body.access_token.length).toBeGreaterThanOrEqual(32);
  expect(reply.headers.get('cache-control')).toMatch(/no-store/);
  return reply.body.access_token as string;
}

async function vendorCurrencyNames(token: string): Promise<string[]> {
  const reply = await http(`${node.url}/currencies`, { token });
  expect(reply.status).toBe(200);
  return reply.body.items.map((c: { name: string }) => c.name).sort();
}

describe('client_credentials grant', () => {
  it('issues a token for form fields, and the token lists the vendor currencies', async () => {
    const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: vendor.clientId, client_secret: vendor.clientSecret }).toString();
    const token = await expectTokenReply(await http(tokenUrl(), { method: 'POST', body, headers: FORM }));
    expect(token).not.toBe(vendor.accessToken);
    expect(await vendorCurrencyNames(token)).toEqual(['Points', 'Quick Pay USD']);
    expect(await vendorCurrencyNames(token)).toEqual(await vendorCurrencyNames(vendor.accessToken));
  });

  it('issues a token for a JSON body', async () => {
    const token = await expectTokenReply(
      await http(tokenUrl(), { method: 'POST', body: { grant_type: 'client_credentials', client_id: vendor.clientId, client_secret: vendor.clientSecret } }),
    );
    expect(await vendorCurrencyNames(token)).toEqual(['Points', 'Quick Pay USD']);
  });

  it('issues a token for HTTP Basic client authentication', async () => {
    const token = await expectTokenReply(
      await http(tokenUrl(), { method: 'POST', body: 'grant_type=client_credentials', headers: { ...FORM, authorization: basic(vendor.clientId, vendor.clientSecret) } }),
    );
    expect(await vendorCurrencyNames(token)).toEqual(['Points', 'Quick Pay USD']);
  });

  it('answers HTTP Basic credentials with a malformed escape as 401 invalid_client, not a 500', async () => {
    const reply = await http(tokenUrl(), { method: 'POST', body: 'grant_type=client_credentials', headers: { ...FORM, authorization: basic('%zz', 'secret') } });
    expect(reply.status).toBe(401);
    expect(reply.body).toMatchObject({ code: 'invalid_client' });
  });

  it('issues a different token at every exchange, each working', async () => {
    const body = { grant_type: 'client_credentials', client_id: vendor.clientId, client_secret: vendor.clientSecret };
    const a = await expectTokenReply(await http(tokenUrl(), { method: 'POST', body }));
    const b = await expectTokenReply(await http(tokenUrl(), { method: 'POST', body }));
    expect(a).not.toBe(b);
    expect((await http(`${node.url}/cards`, { token: a })).status).toBe(200);
    expect((await http(`${node.url}/cards`, { token: b })).status).toBe(200);
  });

  it('answers a wrong secret or an unknown client with 401 invalid_client', async () => {
    const cases = [
      { method: 'POST', body: { grant_type: 'client_credentials', client_id: vendor.clientId, client_secret: `${vendor.clientSecret}x` } },
      { method: 'POST', body: { grant_type: 'client_credentials', client_id: 'pcci_unknown', client_secret: vendor.clientSecret } },
      { method: 'POST', body: `grant_type=client_credentials&client_id=${encodeURIComponent(vendor.clientId)}&client_secret=wrong`, headers: FORM },
      { method: 'POST', body: 'grant_type=client_credentials', headers: { ...FORM, authorization: basic(vendor.clientId, 'wrong') } },
      { method: 'POST', body: 'grant_type=client_credentials', headers: { ...FORM, authorization: basic('pcci_nobody', vendor.clientSecret) } },
      // No client credentials at all.
      { method: 'POST', body: 'grant_type=client_credentials', headers: FORM },
    ];
    for (const options of cases) {
      const reply = await http(tokenUrl(), options);
      expect(reply.status, JSON.stringify(options.body)).toBe(401);
      expect(reply.body).toMatchObject({ internal_code: null, code: 'invalid_client', message: expect.any(String) });
      expect(reply.body).not.toHaveProperty('access_token');
    }
  });

  it('answers a missing grant_type with 400 validation_failed naming it', async () => {
    const reply = await http(tokenUrl(), { method: 'POST', body: { client_id: vendor.clientId, client_secret: vendor.clientSecret } });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ internal_code: null, code: 'validation_failed', field: 'grant_type' });
    const formOnly = await http(tokenUrl(), { method: 'POST', body: 'scope=admin', headers: { ...FORM, authorization: basic(vendor.clientId, vendor.clientSecret) } });
    expect(formOnly.status).toBe(400);
    expect(formOnly.body).toMatchObject({ code: 'validation_failed', field: 'grant_type' });
  });

  it('answers a request with no body at all with validation_failed naming grant_type', async () => {
    // curl -X POST -u id:secret …/oauth/access_token: no body, so no grant_type. The reply should name
    // the missing input (grant_type), not an internal "body".
    const empty = await http(tokenUrl(), { method: 'POST', headers: { authorization: basic(vendor.clientId, vendor.clientSecret) } });
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({ internal_code: null, code: 'validation_failed', field: 'grant_type' });
  });

  it('answers grant_type=password with 400 unsupported_grant_type', async () => {
    const reply = await http(tokenUrl(), {
      method: 'POST',
      body: `grant_type=password&username=a&password=b&client_id=${encodeURIComponent(vendor.clientId)}&client_secret=${encodeURIComponent(vendor.clientSecret)}`,
      headers: FORM,
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ internal_code: null, code: 'unsupported_grant_type' });
    expect(reply.body).not.toHaveProperty('access_token');
  });
});

describe('token lifetime', () => {
  it('a client_credentials token lapses after 3600 s; the CLI-style admin token does not', async () => {
    const own = await node.addVendor('Expiry Test');
    const token = await expectTokenReply(
      await http(tokenUrl(), { method: 'POST', body: { grant_type: 'client_credentials', client_id: own.clientId, client_secret: own.clientSecret } }),
    );
    expect((await http(`${node.url}/currencies`, { token })).status).toBe(200);

    node.clock.advance(HOUR_MS - 1);
    expect((await http(`${node.url}/currencies`, { token })).status).toBe(200);

    node.clock.advance(2); // 3600 s + 1 ms after issue
    const expired = await http(`${node.url}/currencies`, { token });
    expect(expired.status).toBe(401);
    expect(expired.body).toMatchObject({ internal_code: null, code: 'token_expired' });

    node.clock.advance(365 * 24 * HOUR_MS);
    const longLived = await http(`${node.url}/currencies`, { token: own.accessToken });
    expect(longLived.status).toBe(200);
    expect(longLived.body.items.map((c: { name: string }) => c.name).sort()).toEqual(['Points', 'Quick Pay USD']);
    expect((await http(`${node.url}/currencies`, { token })).body.code).toBe('token_expired');

    // A fresh exchange still works after the year.
    const fresh = await expectTokenReply(
      await http(tokenUrl(), { method: 'POST', body: { grant_type: 'client_credentials', client_id: own.clientId, client_secret: own.clientSecret } }),
    );
    expect((await http(`${node.url}/cards`, { token: fresh })).status).toBe(200);
  });
});

describe('secrets at rest', () => {
  function dbFiles(): Buffer[] {
    const base = `${node.dataDir}/punchcard.db`;
    return [base, `${base}-wal`].filter((file) => existsSync(file)).map((file) => readFileSync(file));
  }

  function readTable(table: string): Array<Record<string, unknown>> {
    const db = new BetterSqlite3(`${node.dataDir}/punchcard.db`, { readonly: true, fileMustExist: true });
    try {
      return db.prepare(`select * from ${table}`).all() as Array<Record<string, unknown>>;
    } finally {
      db.close();
    }
  }

  it('stores API keys, client secrets and access tokens only as hashes', async () => {
    const creds = await node.addVendor('Hash Check');
    const issued = await expectTokenReply(
      await http(tokenUrl(), { method: 'POST', body: { grant_type: 'client_credentials', client_id: creds.clientId, client_secret: creds.clientSecret } }),
    );
    const secrets = [creds.apiKey, creds.kioskApiKey, creds.clientSecret, creds.accessToken, issued];
    for (const secret of secrets) expect(secret.length).toBeGreaterThanOrEqual(32);

    const apiKeys = readTable('api_keys');
    const clients = readTable('oauth_clients');
    const tokens = readTable('access_tokens');
    expect(apiKeys.filter((r) => r.vendor_id === creds.vendorId)).toHaveLength(2);
    expect(clients.filter((r) => r.vendor_id === creds.vendorId)).toHaveLength(1);
    expect(tokens.filter((r) => r.vendor_id === creds.vendorId)).toHaveLength(2);
    // Through the node's own connection too (sees the same rows).
    expect(await node.engine.db.selectFrom('access_tokens').select('id').where('vendor_id', '=', creds.vendorId).execute()).toHaveLength(2);

    for (const [table, rows] of [['api_keys', apiKeys], ['oauth_clients', clients], ['access_tokens', tokens]] as const) {
      for (const row of rows) {
        for (const [column, value] of Object.entries(row)) {
          if (typeof value !== 'string') continue;
          for (const secret of secrets) {
            expect(value, `${table}.${column}`).not.toContain(secret);
            // Not even the random part without its prefix.
            expect(value, `${table}.${column}`).not.toContain(secret.slice(5));
          }
        }
      }
    }
    for (const row of [...apiKeys.map((r) => r.key_hash), ...clients.map((r) => r.secret_hash), ...tokens.map((r) => r.token_hash)]) {
      expect(row).toMatch(/^[0-9a-f]{64}$/);
    }

    const files = dbFiles();
    expect(files.length).toBeGreaterThan(0);
    for (const bytes of files) {
      for (const secret of secrets) {
        expect(bytes.includes(Buffer.from(secret, 'utf8'))).toBe(false);
        expect(bytes.includes(Buffer.from(secret.slice(5), 'utf8'))).toBe(false);
      }
    }
    // The client id is not a secret: it is stored as is (proves the scan reads the right files).
    expect(files.some((bytes) => bytes.includes(Buffer.from(creds.clientId, 'utf8')))).toBe(true);
  });

  it('seals card pins: the column holds no plaintext pin, the API returns it', async () => {
    const made = await http(`${node.url}/cards`, { method: 'POST', token: vendor.accessToken, body: { number: 'PINCARD1', pin: '9876' } });
    expect(made.status).toBe(201);
    expect(made.body.pin).toBe('9876');
    const distinctive = 'zQ7pinSecret42';
    const other = await http(`${node.url}/cards`, { method: 'POST', token: vendor.accessToken, body: { number: 'PINCARD2', pin: distinctive } });
    expect(other.status).toBe(201);

    const fetched = await http(`${node.url}/cards/${made.body.id}`, { token: vendor.accessToken });
    expect(fetched.status).toBe(200);
    expect(fetched.body.pin).toBe('9876');
    const listed = await http(`${node.url}/cards?query=n:PINCARD2`, { token: vendor.accessToken });
    expect(listed.body.items[0].pin).toBe(distinctive);

    const rows = readTable('cards');
    const row = rows.find((r) => r.public_id === made.body.id);
    expect(row).toBeDefined();
    expect(typeof row!.pin_sealed).toBe('string');
    expect(row!.pin_sealed).not.toBe('9876');
    expect(row!.pin_sealed as string).not.toContain('9876');
    expect(row!.pin_sealed as string).not.toContain(Buffer.from('9876').toString('base64'));
    // Sealing is randomised: the same pin twice gives two different sealed values.
    const again = await http(`${node.url}/cards`, { method: 'POST', token: vendor.accessToken, body: { number: 'PINCARD3', pin: '9876' } });
    expect(again.status).toBe(201);
    const row3 = readTable('cards').find((r) => r.public_id === again.body.id);
    expect(row3!.pin_sealed).not.toBe(row!.pin_sealed);

    const row2 = rows.find((r) => r.public_id === other.body.id);
    expect(row2!.pin_sealed as string).not.toContain(distinctive);
    for (const bytes of dbFiles()) expect(bytes.includes(Buffer.from(distinctive, 'utf8'))).toBe(false);
    // No other column of the card row holds the pin either.
    for (const [column, value] of Object.entries(row2!)) {
      if (typeof value === 'string') expect(value, `cards.${column}`).not.toContain(distinctive);
    }
  });
});
