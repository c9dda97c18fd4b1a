import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Engine, startEngine } from '../../src/core/engine';
import { openSqlite } from '../../src/core/storage/database';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { ServiceError } from '../../src/shared/errors';
import { buildApp } from '../../src/server/app';
import { createLogger, redactUrl } from '../../src/server/http/logger';
import { makeTempDir } from '../support/temp-dir';
import { http, startTestNode, type TestNode } from '../support/test-node';

// HTTP conventions of the interface, over real HTTP: body encodings on every method (GET included),
// the optional .json suffix, docs, the two error envelopes, /health and log redaction.

interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

/**
 * node:http instead of fetch: fetch refuses a GET with a body and always adds a content type to a
 * string body. Headers are sent exactly as given (no content type unless one is passed).
 */
function raw(url: string, options: { method?: string; headers?: Record<string, string>; body?: string | Buffer; chunked?: boolean } = {}): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.body !== undefined && !options.chunked) headers['content-length'] = String(Buffer.byteLength(options.body));
    const req = httpRequest(url, { method: options.method ?? 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: any;
        try {
          json = text === '' ? undefined : JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on('error', reject);
    });
    // The server may answer (413) and close before the whole body is written: the reply still counts.
    req.on('error', (error) => reject(error));
    if (options.body !== undefined) req.end(options.body);
    else req.end();
  });
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const JSON_TYPE = { 'content-type': 'application/json' };

const STACK_FRAME = /\bat\s+\S+\s+\(|\bat\s+\/|\bat\s+file:|\bat\s+async\b/;
const FILE_PATH = /\/work\/|node_modules|\.tsx?:\d+|\.js:\d+|src\/(core|server|shared)\//;

function expectNoLeak(text: string) {
  expect(text).not.toMatch(STACK_FRAME);
  expect(text).not.toMatch(FILE_PATH);
  expect(text).not.toMatch(/\n\s+at\s/);
}

let node: TestNode;
let token: string;
let auth: Record<string, string>;

beforeAll(async () => {
  node = await startTestNode();
  const vendor = await node.addVendor('Conventions Coffee');
  token = vendor.accessToken;
  auth = { authorization: `Bearer ${token}` };
});

afterAll(async () => {
  await node?.close();
});

async function currencyNames(): Promise<string[]> {
  const reply = await http(`${node.url}/currencies?limit=100`, { token });
  expect(reply.status).toBe(200);
  return reply.body.items.map((c: { name: string }) => c.name);
}

async function createCard(number: string, extra: Record<string, unknown> = {}): Promise<any> {
  const reply = await http(`${node.url}/cards`, { method: 'POST', token, body: { number, ...extra } });
  expect(reply.status).toBe(201);
  return reply.body;
}

describe('request bodies', () => {
  it('accepts a JSON body on POST', async () => {
    const reply = await raw(`${node.url}/currencies`, { method: 'POST', headers: { ...auth, ...JSON_TYPE }, body: JSON.stringify({ name: 'Json Stars', code: 'eur' }) });
    expect(reply.status).toBe(201);
    expect(reply.json).toMatchObject({ name: 'Json Stars', code: 'EUR', status: 'ACTIVE' });
    expect(reply.json.id).toMatch(/^curr_/);
  });

  it('accepts form fields on POST, with brackets for nesting', async () => {
    const body = 'number=FORM1&pin=1234&data[a]=1&data[b][c]=deep&data[list][]=x&data[list][]=y';
    const reply = await raw(`${node.url}/cards`, { method: 'POST', headers: { ...auth, ...FORM }, body });
    expect(reply.status).toBe(201);
    expect(reply.json).toMatchObject({ number: 'FORM1', pin: '1234', data: { a: '1', b: { c: 'deep' }, list: ['x', 'y'] } });
    const fetched = await http(`${node.url}/cards/${reply.json.id}`, { token });
    expect(fetched.body.data).toEqual({ a: '1', b: { c: 'deep' }, list: ['x', 'y'] });
  });

  it('reads a JSON text sent with a form content type as JSON', async () => {
    const reply = await raw(`${node.url}/cards`, {
      method: 'POST',
      headers: { ...auth, ...FORM },
      body: JSON.stringify({ number: 'JSONASFORM1', data: { tier: 'Gold', visits: 3 } }),
    });
    expect(reply.status).toBe(201);
    // Numbers stay numbers: the body really was read as JSON, not as a form field named '{"number"…'.
    expect(reply.json).toMatchObject({ number: 'JSONASFORM1', data: { tier: 'Gold', visits: 3 } });
  });

  it('accepts a body with no content type at all (JSON and form)', async () => {
    const jsonReply = await raw(`${node.url}/currencies`, { method: 'POST', headers: auth, body: '{"name":"Untyped Json"}' });
    expect(jsonReply.status).toBe(201);
    expect(jsonReply.json.name).toBe('Untyped Json');
    const formReply = await raw(`${node.url}/currencies`, { method: 'POST', headers: auth, body: 'name=Untyped%20Form&code=GBP' });
    expect(formReply.status).toBe(201);
    expect(formReply.json).toMatchObject({ name: 'Untyped Form', code: 'GBP' });
  });

  it('accepts a chunked body (no content-length)', async () => {
    const reply = await raw(`${node.url}/currencies`, { method: 'POST', headers: { ...auth, ...JSON_TYPE, 'transfer-encoding': 'chunked' }, body: '{"name":"Chunked"}', chunked: true });
    expect(reply.status).toBe(201);
    expect(reply.json.name).toBe('Chunked');
  });

  it('accepts form and JSON bodies on PUT', async () => {
    const card = await createCard('PUTFORM1');
    const form = await raw(`${node.url}/cards/${card.id}`, { method: 'PUT', headers: { ...auth, ...FORM }, body: 'status=INACTIVE&data[note]=paused' });
    expect(form.status).toBe(200);
    expect(form.json).toMatchObject({ status: 'INACTIVE', data: { note: 'paused' } });
    const json = await raw(`${node.url}/cards/${card.id}`, { method: 'PUT', headers: { ...auth, ...FORM }, body: '{"status":"ACTIVE","data":{"note":"back"}}' });
    expect(json.status).toBe(200);
    expect(json.json).toMatchObject({ status: 'ACTIVE', data: { note: 'back' } });
  });

  it('accepts DELETE with a JSON body, a form body, and an empty body typed application/json', async () => {
    const ids: string[] = [];
    for (const name of ['Del One', 'Del Two', 'Del Three', 'Del Four']) {
      const made = await http(`${node.url}/currencies`, { method: 'POST', token, body: { name } });
      expect(made.status).toBe(201);
      ids.push(made.body.id);
    }
    const withJson = await raw(`${node.url}/currencies/${ids[0]}`, { method: 'DELETE', headers: { ...auth, ...JSON_TYPE }, body: '{"reason":"test"}' });
    expect(withJson.status).toBe(200);
    expect(withJson.json).toEqual({});
    const withForm = await raw(`${node.url}/currencies/${ids[1]}`, { method: 'DELETE', headers: { ...auth, ...FORM }, body: 'reason=test' });
    expect(withForm.status).toBe(200);
    expect(withForm.json).toEqual({});
    // content-length: 0 with a JSON content type (Fastify's stock JSON parser would refuse this).
    const empty = await raw(`${node.url}/currencies/${ids[2]}`, { method: 'DELETE', headers: { ...auth, ...JSON_TYPE }, body: '' });
    expect(empty.status).toBe(200);
    expect(empty.json).toEqual({});
    // Whitespace only, chunked, JSON content type.
    const blank = await raw(`${node.url}/currencies/${ids[3]}`, { method: 'DELETE', headers: { ...auth, ...JSON_TYPE, 'transfer-encoding': 'chunked' }, body: '  ', chunked: true });
    expect(blank.status).toBe(200);
    expect(blank.json).toEqual({});
    const names = await currencyNames();
    for (const name of ['Del One', 'Del Two', 'Del Three', 'Del Four']) expect(names).not.toContain(name);
  });

  it('reads list parameters from a GET body, like the query string', async () => {
    await createCard('ABGET1');
    await createCard('ABGET2');
    await createCard('CDGET1');
    const jsonBody = await raw(`${node.url}/cards`, { headers: { ...auth, ...JSON_TYPE }, body: '{"query":"n:AB"}' });
    expect(jsonBody.status).toBe(200);
    expect(jsonBody.json.items.map((c: { number: string }) => c.number).sort()).toEqual(['ABGET1', 'ABGET2']);

    const formBody = await raw(`${node.url}/cards`, { headers: { ...auth, ...FORM }, body: 'query=n%3ACD' });
    expect(formBody.status).toBe(200);
    expect(formBody.json.items.map((c: { number: string }) => c.number)).toEqual(['CDGET1']);

    const untyped = await raw(`${node.url}/cards`, { headers: auth, body: '{"query":"n:CDGET"}' });
    expect(untyped.status).toBe(200);
    expect(untyped.json.items.map((c: { number: string }) => c.number)).toEqual(['CDGET1']);
  });

  it('lets query-string values win over GET body values', async () => {
    await createCard('QSWIN1');
    await createCard('QSWIN2');
    await createCard('BODYLOSE1');
    const reply = await raw(`${node.url}/cards?query=n:QSWIN`, { headers: { ...auth, ...JSON_TYPE }, body: '{"query":"n:BODYLOSE"}' });
    expect(reply.status).toBe(200);
    expect(reply.json.items.map((c: { number: string }) => c.number).sort()).toEqual(['QSWIN1', 'QSWIN2']);
    // limit came only from the body, so it applies next to the query-string filter.
    const limited = await raw(`${node.url}/cards?query=n:QSWIN`, { headers: { ...auth, ...JSON_TYPE }, body: '{"query":"n:BODYLOSE","limit":"1"}' });
    expect(limited.status).toBe(200);
    expect(limited.json.items.map((c: { number: string }) => c.number)).toEqual(['QSWIN2']);
    // Both places give limit: the query string's 2 wins over the body's 1.
    const both = await raw(`${node.url}/cards?query=n:QSWIN&limit=2`, { headers: { ...auth, ...JSON_TYPE }, body: '{"limit":"1"}' });
    expect(both.status).toBe(200);
    expect(both.json.items).toHaveLength(2);
  });

  it('accepts integers sent as strings, in the query string and in a GET body', async () => {
    expect((await currencyNames()).length).toBeGreaterThan(2);
    const fromQuery = await http(`${node.url}/currencies?limit=2`, { token });
    expect(fromQuery.status).toBe(200);
    expect(fromQuery.body.items).toHaveLength(2);
    expect(fromQuery.body.next).toEqual(expect.stringContaining('page=2'));

    const fromBody = await raw(`${node.url}/currencies`, { headers: { ...auth, ...JSON_TYPE }, body: '{"limit":"2"}' });
    expect(fromBody.status).toBe(200);
    expect(fromBody.json.items).toHaveLength(2);

    const numberBody = await raw(`${node.url}/currencies`, { headers: { ...auth, ...JSON_TYPE }, body: '{"limit":2,"page":"2"}' });
    expect(numberBody.status).toBe(200);
    expect(numberBody.json.items).toHaveLength(2);
    expect(numberBody.json.items[0].id).not.toBe(fromBody.json.items[0].id);
    expect(numberBody.json.prev).toEqual(expect.stringContaining('page=1'));
  });

  it('answers malformed JSON with 400 invalid_json and creates nothing', async () => {
    const before = await currencyNames();
    for (const headers of [JSON_TYPE, FORM, {}]) {
      const reply = await raw(`${node.url}/currencies`, { method: 'POST', headers: { ...auth, ...headers }, body: '{"name":' });
      expect(reply.status).toBe(400);
      expect(reply.json).toMatchObject({ internal_code: null, code: 'invalid_json' });
      expect(typeof reply.json.message).toBe('string');
      expectNoLeak(reply.text);
    }
    const onGet = await raw(`${node.url}/currencies`, { headers: { ...auth, ...JSON_TYPE }, body: '{"limit":' });
    expect(onGet.status).toBe(400);
    expect(onGet.json.code).toBe('invalid_json');
    expect(await currencyNames()).toEqual(before);
  });

  it('refuses a JSON body that is not an object, and bytes that are not UTF-8, changing nothing', async () => {
    const before = await currencyNames();
    for (const body of ['"Stars"', 'null', '12', 'true']) {
      const reply = await raw(`${node.url}/currencies`, { method: 'POST', headers: { ...auth, ...JSON_TYPE }, body });
      expect([reply.status, reply.json.code], body).toEqual([400, 'invalid_json']);
    }
    // "Caf\xe9" in Latin-1: it was stored as "Caf\ufffd".
    const latin1 = Buffer.concat([Buffer.from('{"name":"Caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    const notUtf8 = await raw(`${node.url}/currencies`, { method: 'POST', headers: { ...auth, ...JSON_TYPE }, body: latin1 });
    expect([notUtf8.status, notUtf8.json.code, notUtf8.json.message]).toEqual([400, 'invalid_request', 'The request body is not UTF-8 text.']);
    expect(await currencyNames()).toEqual(before);
    // UTF-8 itself, of course, is read.
    const utf8 = await raw(`${node.url}/currencies`, { method: 'POST', headers: { ...auth, ...JSON_TYPE }, body: Buffer.from('{"name":"Café ☕"}') });
    expect([utf8.status, utf8.json.name]).toEqual([201, 'Café ☕']);
  });

  it('refuses a body over 1 MiB with 413 body_too_large', async () => {
    const big = JSON.stringify({ number: 'BIG1', data: { blob: 'x'.repeat(1024 * 1024 + 10) } });
    const declared = await raw(`${node.url}/cards`, { method: 'POST', headers: { ...auth, ...JSON_TYPE }, body: big });
    expect(declared.status).toBe(413);
    expect(declared.json).toMatchObject({ internal_code: null, code: 'body_too_large' });

    const chunked = await raw(`${node.url}/cards`, { method: 'POST', headers: { ...auth, ...JSON_TYPE, 'transfer-encoding': 'chunked' }, body: big, chunked: true });
    expect(chunked.status).toBe(413);
    expect(chunked.json.code).toBe('body_too_large');

    const onGet = await raw(`${node.url}/cards`, { headers: { ...auth, ...JSON_TYPE }, body: big });
    expect(onGet.status).toBe(413);
    expect(onGet.json.code).toBe('body_too_large');

    const list = await http(`${node.url}/cards?query=n:BIG1`, { token });
    expect(list.body.items).toEqual([]);
  });

  it('accepts a body just under 1 MiB', async () => {
    const text = JSON.stringify({ name: 'Almost Big', padding: 'y'.repeat(1024 * 1024 - 100) });
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(1024 * 1024);
    const reply = await raw(`${node.url}/currencies`, { method: 'POST', headers: { ...auth, ...JSON_TYPE }, body: text });
    expect(reply.status).toBe(201);
    expect(reply.json.name).toBe('Almost Big');
  });
});

describe('.json suffix, OpenAPI and docs', () => {
  it('serves /currencies.json and /currencies/:id.json like the plain paths', async () => {
    const plain = await http(`${node.url}/currencies?limit=5`, { token });
    const suffixed = await http(`${node.url}/currencies.json?limit=5`, { token });
    expect(suffixed.status).toBe(200);
    expect(suffixed.body.items).toEqual(plain.body.items);

    const id = plain.body.items[0].id as string;
    const one = await http(`${node.url}/currencies/${id}.json`, { token });
    expect(one.status).toBe(200);
    expect(one.body).toEqual((await http(`${node.url}/currencies/${id}`, { token })).body);

    const card = await createCard('SUFFIX1');
    const put = await http(`${node.url}/cards/${card.id}.json`, { method: 'PUT', token, body: { data: { via: 'suffix' } } });
    expect(put.status).toBe(200);
    expect(put.body.data).toEqual({ via: 'suffix' });
  });

  it('serves the OpenAPI document at /openapi.json', async () => {
    const reply = await http(`${node.url}/openapi.json`);
    expect(reply.status).toBe(200);
    expect(reply.body.openapi).toBe('3.0.3');
    expect(reply.body.paths).toHaveProperty('/currencies');
    expect(reply.body.paths).toHaveProperty('/cards');
    expect(reply.body.paths['/currencies']).toHaveProperty('get');
    expect(reply.body.paths['/currencies']).toHaveProperty('post');
  });

  it('serves Swagger UI at /docs with its assets from local files', async () => {
    const page = await fetch(`${node.url}/docs/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const html = await page.text();
    expect(html).toMatch(/swagger/i);

    const bare = await fetch(`${node.url}/docs`);
    expect(bare.status).toBe(200);
    expect(await bare.text()).toMatch(/swagger/i);

    const scripts = [...html.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    // No asset comes from the internet.
    for (const src of scripts) expect(src).not.toMatch(/^(https?:)?\/\//);
    const bundle = scripts.find((s) => s.includes('swagger-ui-bundle')) ?? scripts[0]!;
    const asset = await fetch(new URL(bundle, `${node.url}/docs/`));
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect((await asset.text()).length).toBeGreaterThan(10_000);

    // Swagger UI is loaded at the first visit and each request handed to it as it came: a HEAD
    // gets the headers alone, an unknown asset a 404.
    const head = await fetch(new URL(bundle, `${node.url}/docs/`), { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/javascript/);
    expect(await head.text()).toBe('');
    expect((await fetch(`${node.url}/docs/static/no-such-file.js`)).status).toBe(404);
  });
});

describe('error envelopes', () => {
  it('answers resource-style paths with {internal_code, message, code}', async () => {
    const noToken = await http(`${node.url}/currencies`);
    expect(noToken.status).toBe(401);
    expect(noToken.body).toEqual({ internal_code: null, message: expect.any(String), code: 'missing_credentials' });

    const badToken = await http(`${node.url}/cards`, { token: 'pcat_nope' });
    expect(badToken.status).toBe(401);
    expect(badToken.body).toEqual({ internal_code: null, message: expect.any(String), code: 'invalid_token' });

    const missing = await http(`${node.url}/currencies/curr_doesnotexist`, { token });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ internal_code: null, message: expect.any(String), code: 'currency_not_found' });

    const oauth = await http(`${node.url}/oauth/access_token`, { method: 'POST', body: 'grant_type=password' });
    expect(oauth.status).toBe(400);
    expect(oauth.body).toMatchObject({ internal_code: null, code: 'unsupported_grant_type' });
  });

  it('answers an unknown resource-style path with a 404 resource envelope', async () => {
    for (const path of ['/currencies/x/y', '/cards/a/b/c', '/oauth/nope']) {
      const reply = await http(`${node.url}${path}`, { token });
      expect(reply.status, path).toBe(404);
      expect(reply.body, path).toEqual({ internal_code: null, message: expect.any(String), code: 'route_not_found' });
    }
  });

  it('answers legacy-style paths with the legacy envelope', async () => {
    // Paths no route will ever serve, under each legacy prefix.
    for (const path of ['/user/no-such-thing', '/user/no-such-thing.json', '/onscreen/no-such-thing', '/onscreen/no-such-thing?api_key=abc', '/vendor/no-such-thing?vendor=1']) {
      const reply = await http(`${node.url}${path}`);
      expect(reply.status, path).toBe(404);
      expect(reply.body, path).toEqual({
        error: {
          code: 404,
          reference_id: expect.any(String),
          more_info: null,
          errors: [{ reason: 'route_not_found', message: expect.any(String) }],
        },
        object: 'error',
      });
    }
    const post = await http(`${node.url}/onscreen/no-such-thing`, { method: 'POST', body: { card_number: '123' } });
    expect(post.status).toBe(404);
    expect(post.body.object).toBe('error');
    expect(post.body.error.errors[0].reason).toBe('route_not_found');
  });

  it('names the field of a validation failure', async () => {
    const noName = await http(`${node.url}/currencies`, { method: 'POST', token, body: {} });
    expect(noName.status).toBe(400);
    expect(noName.body).toEqual({ internal_code: null, message: expect.any(String), code: 'validation_failed', field: 'name' });

    const noNumber = await http(`${node.url}/cards`, { method: 'POST', token, body: 'pin=1', headers: FORM });
    expect(noNumber.status).toBe(400);
    expect(noNumber.body).toMatchObject({ code: 'validation_failed', field: 'number' });

    const longCode = await http(`${node.url}/currencies`, { method: 'POST', token, body: { name: 'Long Code', code: 'ABCD' } });
    expect(longCode.status).toBe(400);
    expect(longCode.body).toMatchObject({ code: 'validation_failed', field: 'code' });

    const badLimit = await http(`${node.url}/currencies?limit=abc`, { token });
    expect(badLimit.status).toBe(400);
    expect(badLimit.body).toMatchObject({ code: 'validation_failed', field: 'limit' });

    const bigLimit = await http(`${node.url}/currencies?limit=1000`, { token });
    expect(bigLimit.status).toBe(400);
    expect(bigLimit.body).toMatchObject({ code: 'validation_failed', field: 'limit' });
  });

  it('never shows a stack trace or a file path, and never a 500 for bad input', async () => {
    const card = await createCard('LEAK1');
    const probes: Array<[string, Parameters<typeof raw>[1]]> = [
      ['/currencies', { method: 'POST', headers: { ...auth, ...JSON_TYPE }, body: '{"name":' }],
      ['/currencies', { method: 'POST', headers: { ...auth, ...JSON_TYPE }, body: '[1,2,3]' }],
      ['/currencies', { method: 'POST', headers: { ...auth, ...JSON_TYPE }, body: '"just a string"' }],
      ['/currencies', { method: 'POST', headers: { ...auth, ...JSON_TYPE }, body: '{"name":{"nested":true}}' }],
      ['/currencies', { method: 'POST', headers: { ...auth, ...JSON_TYPE }, body: '{"name":"X","code":"QQQ"}' }],
      ['/cards', { method: 'POST', headers: { ...auth, ...JSON_TYPE }, body: '{"number":"has spaces!"}' }],
      ['/cards', { method: 'POST', headers: { ...auth, ...JSON_TYPE }, body: '{"number":"DATA1","data":"not an object"}' }],
      ['/cards', { method: 'POST', headers: { ...auth, ...FORM }, body: 'number[]=a&number[]=b' }],
      ['/cards?query=zz:1', { headers: auth }],
      ['/cards?query=n:', { headers: auth }],
      ['/cards?sort=bogus', { headers: auth }],
      ['/cards?order=sideways', { headers: auth }],
      ['/cards?page=0', { headers: auth }],
      ['/cards?limit=-5', { headers: auth }],
      [`/cards/${card.id}`, { method: 'PUT', headers: { ...auth, ...JSON_TYPE }, body: '{"number":"OTHER"}' }],
      [`/cards/${card.id}`, { method: 'PUT', headers: { ...auth, ...JSON_TYPE }, body: '{"status":"EXPLODED"}' }],
      ['/cards', { headers: { authorization: 'Basic Zm9vOmJhcg==' } }],
      ['/currencies', { headers: { authorization: 'Bearer' } }],
      ['/oauth/access_token', { method: 'POST', headers: FORM, body: 'grant_type=client_credentials&client_id=x&client_secret=y' }],
      ['/oauth/access_token', { method: 'POST', headers: JSON_TYPE, body: '{"grant_type":' }],
      ['/user/profile', { method: 'PUT', headers: JSON_TYPE, body: '{"x":' }],
      ['/onscreen.json', { method: 'DELETE', headers: FORM, body: 'pos_session_hash=abc' }],
    ];
    for (const [path, options] of probes) {
      const reply = await raw(`${node.url}${path}`, options);
      const label = `${options?.method ?? 'GET'} ${path.slice(0, 60)} -> ${reply.status} ${reply.text.slice(0, 200)}`;
      expect(reply.status, label).toBeGreaterThanOrEqual(400);
      expect(reply.status, label).toBeLessThan(500);
      expect(reply.json, label).toBeTypeOf('object');
      expectNoLeak(reply.text);
      expect(reply.text, label).not.toMatch(/Error:|TypeError|SyntaxError|FST_/);
    }
  });

  it('answers URLs the router refuses (bad percent-encoding, over-long ids) in the envelope of the path', async () => {
    // Fastify answers these before routing; without a frameworkErrors handler its default body
    // ({error, code: 'FST_ERR_…', statusCode}) goes out instead of the project's envelopes.
    for (const path of ['/cards/%zz', '/currencies/%E0%A4%A', `/cards/${'x'.repeat(200)}`]) {
      const reply = await raw(`${node.url}${path}`, { headers: auth });
      const label = `GET ${path.slice(0, 40)} -> ${reply.status} ${reply.text.slice(0, 160)}`;
      expect(reply.status, label).toBeGreaterThanOrEqual(400);
      expect(reply.status, label).toBeLessThan(500);
      expect(reply.json, label).toEqual({ internal_code: null, message: expect.any(String), code: expect.any(String) });
      expect(reply.text, label).not.toContain('FST_');
    }
    const legacy = await raw(`${node.url}/user/%zz`);
    expect(legacy.status).toBeGreaterThanOrEqual(400);
    expect(legacy.status).toBeLessThan(500);
    expect(legacy.json).toMatchObject({ object: 'error', error: { code: legacy.status, more_info: null } });
    expect(legacy.text).not.toContain('FST_');
  });
});

describe('GET /health', () => {
  it('answers without credentials', async () => {
    const reply = await http(`${node.url}/health`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      status: 'ok',
      node_id: node.engine.nodeId,
      role: 'store',
      database: 'sqlite',
      version: 'test',
      uptime_seconds: expect.any(Number),
      time: new Date(node.clock.now()).toISOString(),
      checks: expect.any(Object), // test/api/health-checks.test.ts
    });
    expect(Number.isInteger(reply.body.node_id)).toBe(true);
    expect(Number.isInteger(reply.body.uptime_seconds)).toBe(true);
    expect(reply.body.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('counts uptime on the node clock', async () => {
    const before = (await http(`${node.url}/health`)).body.uptime_seconds as number;
    node.clock.advance(90_000);
    const after = (await http(`${node.url}/health`)).body.uptime_seconds as number;
    expect(after - before).toBe(90);
  });
});

describe('logging never leaks secrets', () => {
  it('redactUrl replaces credential values and keeps other parameters', () => {
    const out = redactUrl('/onscreen?api_key=pcak_SECRETKEY&page=2&limit=10');
    expect(out).not.toContain('pcak_SECRETKEY');
    expect(out).toMatch(/^\/onscreen\?/);
    expect(out).toContain('api_key=');
    expect(out).toContain('page=2');
    expect(out).toContain('limit=10');

    const session = redactUrl('/user/profile?session_key=SESSION123&vendor=7');
    expect(session).not.toContain('SESSION123');
    expect(session).toContain('vendor=7');

    const tokenUrl = redactUrl('/egift/redeem?token=TOKEN456&amount=5');
    expect(tokenUrl).not.toContain('TOKEN456');
    expect(tokenUrl).toContain('amount=5');

    const person = redactUrl('/user/activate/sms?phone=%2B14155550199&email=zoe%40example.com&card_number=C001&cedula=1710034065&passport_number=AB12345&phone_number=4155550199&email_address=z%40e.com&vendor=3');
    for (const trace of ['4155550199', 'zoe', 'C001', '1710034065', 'AB12345', 'z%40e']) expect(person, trace).not.toContain(trace);
    expect(person).toContain('vendor=3');

    // Searches, a phone lookup, and credentials under another case or with brackets (the parser reads them alike).
    const searches = redactUrl('/cards?query=n:C0099887766&limit=5&x=1');
    expect(searches).not.toContain('C0099887766');
    expect(redactUrl('/backoffice/customers?q=zoe%40example.com')).not.toContain('zoe');
    expect(redactUrl('/user/mobile/exists?mobile=0991234567&vendor=3')).not.toContain('0991234567');
    for (const url of ['/onscreen?api_key[]=pcak_BRACKET', '/onscreen?API_KEY=pcak_UPPER', '/x?refresh_token=RT1', '/x?phone_number[number]=0991112223']) {
      expect(redactUrl(url), url).not.toMatch(/pcak_|RT1|0991112223/);
    }

    const many = redactUrl('/x?session_identifier=SI1&client_secret=CS1&password=PW1&pin=4321&keep=yes');
    for (const secret of ['SI1', 'CS1', 'PW1', '4321']) expect(many).not.toContain(secret);
    expect(many).toContain('keep=yes');

    // Names as the parser decodes them; a malformed escape does not hide one either.
    for (const url of ['/x?api%5Fkey=SECRET1', '/x?p%69n=SECRET2', '/x?session+key=SECRET3', '/x?api_key%=SECRET4&ok=1']) expect(redactUrl(url), url).not.toMatch(/SECRET/);
    expect(redactUrl('/x?api_key=SECRET5&note=a%20b+c')).toBe('/x?api_key=[redacted]&note=a%20b+c');

    expect(redactUrl('/currencies')).toBe('/currencies');
    expect(redactUrl('/currencies?page=2')).toContain('page=2');
  });

  it('logs a deliberate 503 (central unreachable) as a warning without a stack, and an unexpected failure as an error with one', async () => {
    const text = await logOfNode(async (app) => {
      app.get('/test/away', () => {
        throw new ServiceError('central_unreachable');
      });
      app.get('/test/broken', () => {
        throw new Error('a bug');
      });
      const url = await app.listen({ port: 0, host: '127.0.0.1' });
      expect((await http(`${url}/test/away`)).status).toBe(503);
      expect((await http(`${url}/test/broken`)).status).toBe(500);
    });
    const lines = text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, any>);
    const away = lines.find((l) => l.code === 'central_unreachable');
    expect(away).toMatchObject({ level: 40, msg: new ServiceError('central_unreachable').message });
    expect(JSON.stringify(away)).not.toContain('stack');
    const broken = lines.find((l) => l.msg === 'request failed');
    expect(broken?.level).toBe(50);
    expect(broken?.err?.stack).toContain('a bug');
  });

  it('a node logging to a file writes no query secrets and no Authorization header', async () => {
    let vendor: Awaited<ReturnType<typeof setUpVendor>> | undefined;
    const text = await logOfNode(async (app, engine) => {
      const url = await app.listen({ port: 0, host: '127.0.0.1' });
      vendor = await setUpVendor(engine, { name: 'Logged', currency: 'USD', country: 'US', store: { name: 'S', address1: 'A', city: 'C' } });
      await http(`${url}/currencies?page=1`, { token: vendor.accessToken });
      await http(`${url}/onscreen?api_key=${vendor.apiKey}&page=3`);
      await http(`${url}/user/profile?session_key=SESSIONSECRET999`);
      await http(`${url}/oauth/access_token?client_secret=${vendor.clientSecret}`, { method: 'POST', body: 'grant_type=client_credentials', headers: FORM });
    });
    expect(text).toContain('/onscreen?');
    expect(text).toContain('page=3');
    for (const secret of [vendor!.accessToken, vendor!.apiKey, 'SESSIONSECRET999', vendor!.clientSecret]) expect(text).not.toContain(secret);
  });

  it('an error’s reference_id names its log line, and no other process’s', async () => {
    const references: string[] = [];
    const text = await logOfNode(async (app) => {
      const url = await app.listen({ port: 0, host: '127.0.0.1' });
      references.push((await http(`${url}/user/profile`)).body.error.reference_id);
    });
    references.push((await http(`${node.url}/user/profile`)).body.error.reference_id);
    expect(references[0]).toMatch(/^req-[0-9a-f]{8}-[0-9a-z]+$/);
    expect(references[0]).not.toBe(references[1]);
    expect(text).toContain(`"reqId":"${references[0]}"`);
  });

  it('writes one line per request, when its reply has gone, with method, redacted URL, status and time', async () => {
    const text = await logOfNode(async (app) => {
      const url = await app.listen({ port: 0, host: '127.0.0.1' });
      await http(`${url}/health`);
      await http(`${url}/user/profile?session_key=SESSIONSECRET999`);
    });
    const lines = text.trim().split('\n').map((line) => JSON.parse(line) as Record<string, any>);
    const ofRequests = lines.filter((line) => line.reqId !== undefined);
    const health = ofRequests.filter((line) => line.req?.url === '/health');
    expect(health).toHaveLength(1);
    expect(health[0]).toMatchObject({ msg: 'request completed', level: 30, req: { method: 'GET', remoteAddress: '127.0.0.1' }, res: { statusCode: 200 } });
    expect(typeof health[0]!.responseTime).toBe('number');
    const profile = ofRequests.filter((line) => line.req?.url?.startsWith('/user/profile'));
    expect(profile.map((line) => line.msg)).toEqual(['request completed']);
    expect(profile[0]).toMatchObject({ req: { url: '/user/profile?session_key=[redacted]' }, res: { statusCode: 401 } });
    expect(text).not.toContain('incoming request');
  });
});

/** A store node logging to a file: `work` runs against its app, then the app closes and the log's text is returned. */
async function logOfNode(work: (app: Awaited<ReturnType<typeof buildApp>>, engine: Engine) => Promise<void>): Promise<string> {
  const dir = makeTempDir();
  const logFile = `${dir.path}/logs/node.log`;
  const engine = await startEngine({ database: openSqlite(`${dir.path}/punchcard.db`), nodeKey: randomBytes(32), role: 'store' });
  const logger = createLogger({ file: logFile, level: 'info' });
  const app = await buildApp({ engine, role: 'store', version: 'test', logger });
  try {
    await work(app, engine);
    await app.close();
    logger.flush();
    await new Promise((resolve) => setTimeout(resolve, 200));
    return readFileSync(logFile, 'utf8');
  } finally {
    await app.close();
    await engine.close();
    dir.remove();
  }
}
