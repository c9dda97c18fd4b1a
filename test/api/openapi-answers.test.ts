import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTPUT, renderOperationErrors } from '../../scripts/generate-operation-errors';
import { type Engine, startEngine } from '../../src/core/engine';
import { openSqlite } from '../../src/core/storage/database';
import { issuePairingCode } from '../../src/core/sync/central/pairing';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { buildApp } from '../../src/server/app';
import { type RunningNode, startStoreNode } from '../../src/server/node/store-node';
import { pairStoreWithCentral } from '../../src/server/sync/pair-store';
import { ERROR_CODES, type ErrorCode } from '../../src/shared/errors';
import { CARDS, cardBody } from '../support/payments';
import { vendorWithCurrencies } from '../support/resource-api';
import { freshEmail, registration, ROOMY_RATE_LIMITS, signUpAt, withSessionKey } from '../support/customers';
import { eventually } from '../support/eventually';
import { inStoreApi } from '../support/in-store';
import { makeTempDir } from '../support/temp-dir';
import { http, startTestNode, type TestNode } from '../support/test-node';

// The statuses of /openapi.json a route's shape cannot tell (thirteenth and fourteenth rounds): 409,
// 422 and 503 with the codes the route's code answers (scripts/generate-operation-errors.ts), 413
// and 415 on every operation (one body parser for every route and method). Held to what the
// operations answer over real HTTP: a body no operation reads and one too large, sent to every
// operation of a store and of central; conflicts and refusals provoked on a store; a paired store
// whose central is down, every operation swept.

type Operation = { method: string; path: string; op: any };

let store: TestNode;
let vendor: VendorCredentials;
let central: { url: string; app: FastifyInstance; engine: Engine };

beforeAll(async () => {
  store = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
  vendor = await store.addVendor('Answers Coffee');
  const engine = await startEngine({ database: openSqlite(':memory:'), nodeKey: randomBytes(32), role: 'central' });
  const app = await buildApp({ engine, role: 'central', version: 'test' });
  central = { url: await app.listen({ port: 0, host: '127.0.0.1' }), app, engine };
});

afterAll(async () => {
  await central?.app.close();
  await central?.engine.close();
  await store?.close();
});

async function operationsAt(url: string): Promise<Operation[]> {
  const reply = await http(`${url}/openapi.json`);
  expect(reply.status).toBe(200);
  return Object.entries(reply.body.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
}

/** One request over node:http (fetch sends no body with GET); the reply as soon as it comes, even if the body was cut short. */
function send(url: string, method: string, headers: Record<string, string>, body: Buffer): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    // A connection of its own: one a reply left mid-body is not used again.
    const req = httpRequest(url, { method, agent: false, headers: { ...headers, 'content-length': String(body.length) } }, (res) => {
      if (!(res.headers['content-type'] ?? '').includes('json')) {
        // A stream (the store's events) does not end: its status is the answer.
        req.destroy();
        resolve({ status: res.statusCode ?? 0, body: undefined });
        return;
      }
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text.startsWith('{') ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const codeOf = (body: any): string | undefined => body?.code ?? body?.error?.errors?.[0]?.reason;
const targetOf = (url: string, path: string, query = '') => `${url}${path.replace(/\{\w+\}/g, '1')}${query}`;

/** Each status and code an operation answered that it does not declare (a code must be named in its status's description). */
function undeclared(operation: Operation, status: number, body: any): string[] {
  const declared = operation.op.responses?.[String(status)];
  const key = `${operation.method} ${operation.path}`;
  if (!declared) return [`${key}: answered ${status} ${codeOf(body)}, not declared`];
  const code = codeOf(body);
  if ([409, 422, 503].includes(status) && code && !String(declared.description).includes(`\`${code}\``)) return [`${key}: answered ${status} ${code}, not named`];
  return [];
}

describe('the table of 409, 422 and 503 codes', () => {
  it('is the one the routes’ code gives today (npx tsx scripts/generate-operation-errors.ts)', () => {
    expect(readFileSync(OUTPUT, 'utf8')).toBe(renderOperationErrors());
  }, 180_000);

  it('lists only codes of those statuses, and routes that exist', () => {
    const table = JSON.parse(readFileSync(OUTPUT, 'utf8')) as Record<string, string[]>;
    const routes = [...store.app.routeCatalog(), ...central.app.routeCatalog()];
    const keys = new Set(routes.map(({ method, url }) => `${method} ${url.replace(/:(\w+)/g, '{$1}')}`));
    for (const [key, codes] of Object.entries(table)) {
      expect(keys.has(key), key).toBe(true);
      for (const code of codes) expect([409, 422, 503], `${key} ${code}`).toContain(ERROR_CODES[code as ErrorCode].status);
    }
  });
});

describe('413 and 415 on every operation', () => {
  it('every operation of a store and of central declares both, and answers them: multipart is 415, a body over its limit is 413', async () => {
    const multipart = Buffer.from('--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n');
    const over = (mib: number) => Buffer.from(JSON.stringify({ a: 'x'.repeat(mib * 1024 * 1024) }));
    const large = over(1);
    let larger = 0;
    for (const url of [store.url, central.url]) {
      const wrong: string[] = [];
      for (const operation of await operationsAt(url)) {
        const key = `${operation.method} ${operation.path}`;
        for (const status of ['413', '415']) if (!operation.op.responses[status]?.content?.['application/json']) wrong.push(`${key}: no ${status}`);
        const media = await send(targetOf(url, operation.path), operation.method, { 'content-type': 'multipart/form-data; boundary=x' }, multipart);
        if (media.status !== 415 || codeOf(media.body) !== 'unsupported_media_type') wrong.push(`${key}: multipart answered ${media.status} ${codeOf(media.body)}`);
        // The limit the document states: 1 MiB, and more where a route reads more (a sync push).
        const limit = Number(/over (\d+) MiB/.exec(operation.op.responses['413']?.description ?? '')?.[1]);
        if (limit !== 1) larger += 1;
        const size = await send(targetOf(url, operation.path), operation.method, { 'content-type': 'application/json' }, limit === 1 ? large : over(limit));
        if (size.status !== 413 || codeOf(size.body) !== 'body_too_large') wrong.push(`${key}: 1 MiB answered ${size.status} ${codeOf(size.body)}`);
      }
      expect(wrong, url).toEqual([]);
    }
    // A sync push (central's) and a members file uploaded to the back office (both nodes').
    expect(larger).toBe(3);
  }, 120_000);
});

describe('409 where an operation can conflict', () => {
  it('declares 409 with the code on the operations that answered one, and not on reads that cannot', async () => {
    const operations = await operationsAt(store.url);
    const find = (method: string, path: string) => operations.find((o) => o.method === method && o.path === path)!;
    const { orderOk } = inStoreApi(() => store);
    const answered: Array<{ operation: Operation; status: number; body: any }> = [];
    const twice = async (method: string, path: string, call: () => Promise<{ status: number; body: any }>) => {
      await call();
      const reply = await call();
      expect(reply.status, `${method} ${path}: ${JSON.stringify(reply.body)}`).toBe(409);
      answered.push({ operation: find(method, path), ...reply });
    };
    const name = `Stars ${randomBytes(3).toString('hex')}`;
    await twice('POST', '/currencies', () => http(`${store.url}/currencies`, { method: 'POST', token: vendor.accessToken, body: { name } }));
    const number = `N${randomBytes(4).toString('hex')}`;
    await twice('POST', '/cards', () => http(`${store.url}/cards`, { method: 'POST', token: vendor.accessToken, body: { number } }));
    const email = freshEmail('answers');
    await twice('POST', '/user/register', () => http(`${store.url}/user/register`, { method: 'POST', body: registration(vendor.vendorId, { email_address: email }) }));
    const customer = await signUpAt(store, vendor.vendorId);
    const order = await orderOk(vendor.apiKey, { card_number: customer.email, receipt_number: 'ANS-1', subtotal: 10, total: 10 });
    await twice('POST', '/user/transaction/tip', () => http(`${store.url}${withSessionKey('/user/transaction/tip', customer.key)}`, { method: 'POST', body: { transaction: order.transaction_id, amount: 1 } }));
    const wrong = answered.flatMap(({ operation, status, body }) => undeclared(operation, status, body));
    expect(wrong).toEqual([]);
    for (const [method, path] of [['GET', '/currencies'], ['GET', '/user/profile'], ['GET', '/countries']] as const) expect(find(method, path).op.responses['409'], `${method} ${path}`).toBeUndefined();
  });
});

describe('422 and 409 where an operation refuses (fourteenth round)', () => {
  const dirs = [makeTempDir('punchcard-answers-unpaired-')];
  let unpaired: RunningNode | null = null;

  afterAll(async () => {
    await unpaired?.close();
    for (const dir of dirs) dir.remove();
  });

  /** What an operation answered, checked against the document of the node that answered it. */
  async function expectDeclared(url: string, method: string, path: string, reply: { status: number; body: any }, status: number, code: string): Promise<void> {
    expect(`${reply.status} ${codeOf(reply.body)}`, `${method} ${path}: ${JSON.stringify(reply.body)}`).toBe(`${status} ${code}`);
    const operation = (await operationsAt(url)).find((o) => o.method === method && o.path === path)!;
    expect(undeclared(operation, reply.status, reply.body)).toEqual([]);
  }

  it('names each 422 a rule, a declined card or a missing phone answers', async () => {
    const v = await vendorWithCurrencies(store);
    const cashRule = await http(`${store.url}/earning-rules`, { method: 'POST', token: v.token, body: { name: 'Cash rule', currency: v.cash, points: 1, per_amount: 1 } });
    await expectDeclared(store.url, 'POST', '/earning-rules', cashRule, 422, 'currency_not_loyalty');
    const customer = await signUpAt(store, vendor.vendorId);
    // Through engine.payments.tokenize: the test gateway refuses the card.
    const declined = await http(`${store.url}${withSessionKey('/user/billing-profile/add', customer.key)}`, { method: 'POST', body: cardBody(store, CARDS.genericDecline) });
    await expectDeclared(store.url, 'POST', '/user/billing-profile/add', declined, 422, 'card_declined');
    const noPhone = await http(`${store.url}/user/activate/sms?session_identifier=${encodeURIComponent(customer.key)}`);
    await expectDeclared(store.url, 'GET', '/user/activate/sms', noPhone, 422, 'no_phone_number');
  });

  it('names the 409 a tier’s taken name answers, and not the other tables’ name codes', async () => {
    const name = `Gold ${randomBytes(3).toString('hex')}`;
    const create = (threshold: number) => http(`${store.url}/tiers`, { method: 'POST', token: vendor.accessToken, body: { name, threshold } });
    expect((await create(100_000)).status).toBe(201);
    await expectDeclared(store.url, 'POST', '/tiers', await create(200_000), 409, 'tier_name_taken');
    const conflicts = String((await operationsAt(store.url)).find((o) => o.method === 'POST' && o.path === '/tiers')!.op.responses['409'].description);
    for (const other of ['earning_rule_name_taken', 'reward_name_taken']) expect(conflicts).not.toContain(`\`${other}\``);
  });

  it('names the 409 of unpairing a store that is not paired (a call through the node’s pairing control)', async () => {
    unpaired = await startStoreNode({ dataDir: dirs[0]!.path, port: 0 });
    const own = await setUpVendor(unpaired.engine, { name: 'Answers Unpaired', currency: 'USD', country: 'US', store: { name: 'Dock', address1: '1 Dock', city: 'Springfield' } });
    const reply = await http(`${unpaired.url}/sync/pairing?api_key=${encodeURIComponent(own.apiKey)}`, { method: 'DELETE' });
    await expectDeclared(unpaired.url, 'DELETE', '/sync/pairing', reply, 409, 'store_not_paired');
  });
});

describe('a paired store whose central is down', () => {
  const dirs = [makeTempDir('punchcard-answers-central-'), makeTempDir('punchcard-answers-store-')];
  let chainCentral: RunningNode | null = null;
  let paired: RunningNode | null = null;

  afterAll(async () => {
    await paired?.close();
    await chainCentral?.close();
    for (const dir of dirs) dir.remove();
  });

  it('declares 503 central_unreachable on the calls it forwards and first_sync_in_progress where a check-in can be refused, and every 409, 422 and 503 it answers is declared', async () => {
    chainCentral = await startStoreNode({ dataDir: dirs[0]!.path, role: 'central', port: 0 });
    const chain = await setUpVendor(chainCentral.engine, { name: 'Answers Chain', currency: 'USD', country: 'US', store: { name: 'Quay', address1: '1 Quay', city: 'Springfield' } });
    const { code } = await issuePairingCode(chainCentral.engine, chain.vendorId, chain.storeId);
    await pairStoreWithCentral({ dataDir: dirs[1]!.path, central: chainCentral.url, code });
    paired = await startStoreNode({ dataDir: dirs[1]!.path, port: 0 });
    const storeUrl = paired.url;
    await eventually('the first sync', async () => ((await http(`${storeUrl}/sync/status`)).body.first_sync.done ? true : undefined));
    await chainCentral.close();
    chainCentral = null;

    const operations = await operationsAt(paired.url);
    const declares = (method: string, path: string, status: number, code: string) =>
      String(operations.find((o) => o.method === method && o.path === path)?.op.responses[String(status)]?.description).includes(`\`${code}\``);
    expect(declares('POST', '/user/register', 503, 'central_unreachable')).toBe(true);
    expect(declares('POST', '/onscreen', 503, 'first_sync_in_progress')).toBe(true);
    expect(declares('GET', '/user/transaction/list', 503, 'central_unreachable')).toBe(false);

    // Every operation, with the store's cashier key and a body a check-in, a registration and an order read.
    const wrong: string[] = [];
    const seen = new Set<string>();
    // Unpairing (DELETE /sync/pairing, the screens' Settings) would restart the node mid-sweep.
    for (const operation of operations.filter(({ method, path }) => !(method === 'DELETE' && path === '/sync/pairing'))) {
      const body = Buffer.from(JSON.stringify({ card_number: 'not-here-yet@chain.test', email: 'not-here-yet@chain.test', receipt_number: 'R-1', subtotal: 1, total: 1 }));
      const reply = await send(targetOf(paired.url, operation.path, `?api_key=${encodeURIComponent(chain.apiKey)}`), operation.method, { 'content-type': 'application/json' }, body);
      if ([409, 422, 503].includes(reply.status)) {
        seen.add(`${reply.status} ${codeOf(reply.body)}`);
        wrong.push(...undeclared(operation, reply.status, reply.body));
      }
    }
    expect(wrong).toEqual([]);
    expect([...seen]).toContain('503 central_unreachable');
  }, 60_000);
});
