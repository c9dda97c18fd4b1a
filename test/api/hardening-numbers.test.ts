import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { expectLegacyError, registration, ROOMY_RATE_LIMITS } from '../support/customers';
import { inStoreApi } from '../support/in-store';
import { expectResourceError } from '../support/resource-api';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Issue 10, findings 1, 5 and 8: numbers arrive as JSON numbers or plain decimal strings, nothing
// else. "Infinity" never reaches a whole-number column, a page beyond 2^53 is a 400 (not a 500
// from the database), and "0x10", " 5 ", "5.", true, null, 1e-9 and a birthdate of 1e15 are refused.

let node: TestNode;
let vendor: VendorCredentials;
let loyaltyCurrency: string;
const api = inStoreApi(() => node);

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
  vendor = await node.addVendor('Numbers Coffee');
  const currencies = await http(`${node.url}/currencies`, { token: vendor.accessToken });
  loyaltyCurrency = currencies.body.items.find((c: any) => c.code === null).id;
});

afterAll(async () => {
  await node?.close();
});

const admin = (method: string, path: string, body?: unknown) => http(`${node.url}${path}`, { method, token: vendor.accessToken, body });
const rowCount = async (table: 'tiers' | 'earning_rules' | 'spending_rules') => (await node.engine.db.selectFrom(table).select('id').execute()).length;

describe('non-finite numbers in whole-number admin fields (finding 1)', () => {
  it.each([
    ['POST', '/tiers', 'threshold', () => ({ name: 'Gold', threshold: 'Infinity' })],
    ['POST', '/tiers', 'threshold', () => ({ name: 'Gold', threshold: '-Infinity' })],
    ['POST', '/earning-rules', 'points', () => ({ name: 'Inf', currency: loyaltyCurrency, points: 'Infinity', per_amount: 1 })],
    ['POST', '/rewards', 'cost', () => ({ name: 'Inf', currency: loyaltyCurrency, cost: 'Infinity' })],
  ] as const)('%s %s with %s "Infinity" is a 400 naming the field, and stores nothing', async (method, path, field, body) => {
    const table = path === '/tiers' ? 'tiers' : path === '/rewards' ? 'spending_rules' : 'earning_rules';
    const before = await rowCount(table);
    expectResourceError(await admin(method, path, body()), 400, 'validation_failed', field);
    expect(await rowCount(table)).toBe(before);
  });

  it('PUT of an earning rule or a reward with "Infinity" is a 400 and the vendor keeps working', async () => {
    const rule = await admin('POST', '/earning-rules', { name: 'Per dollar', currency: loyaltyCurrency, points: 1, per_amount: 1 });
    expect(rule.status).toBe(201);
    const reward = await admin('POST', '/rewards', { name: 'Coffee', currency: loyaltyCurrency, cost: 10 });
    expect(reward.status).toBe(201);
    expectResourceError(await admin('PUT', `/earning-rules/${rule.body.id}`, { points: 'Infinity' }), 400, 'validation_failed', 'points');
    expectResourceError(await admin('PUT', `/rewards/${reward.body.id}`, { cost: '-Infinity' }), 400, 'validation_failed', 'cost');
    for (const path of ['/tiers', '/earning-rules', '/rewards']) expect((await admin('GET', path)).status).toBe(200);
    const order = await api.postOrder(vendor.apiKey, { card_number: 'nobody@example.com', receipt_number: 'R-inf', subtotal: 5 });
    expect(order.status).toBeLessThan(500);
  });
});

describe('huge pages (finding 5)', () => {
  it.each(['1e18', '1000000000000000000', '9007199254740993', '1e308'])('GET /tiers?page=%s is a 400 on page', async (page) => {
    expectResourceError(await admin('GET', `/tiers?page=${page}`), 400, 'validation_failed', 'page');
  });

  it('a page of 1e308 in the body of a legacy list is a 400, not a 500', async () => {
    const huge = await http(`${node.url}/user/transaction/list?api_key=${vendor.apiKey}&user=1&page=1e308`);
    expectLegacyError(huge, 400, 'validation_failed', 'page');
    const json = await http(`${node.url}/user/transaction/list?api_key=${vendor.apiKey}&user=1&page=1000000000000000000`);
    expectLegacyError(json, 400, 'validation_failed', 'page');
  });
});

describe('strict numbers (finding 8)', () => {
  it.each([['0x10'], [' 5 '], ['5.'], ['1e3'], ['+5'], [''], [true], [null], [['0x10']], ['12abc']])('threshold %j is a 400 and stores nothing', async (threshold) => {
    const before = await rowCount('tiers');
    expectResourceError(await admin('POST', '/tiers', { name: 'Odd', threshold }), 400, 'validation_failed', 'threshold');
    expect(await rowCount('tiers')).toBe(before);
  });

  it('a caller without credentials hears 401 first, not what is wrong with its numbers', async () => {
    expectResourceError(await http(`${node.url}/tiers`, { method: 'POST', body: { name: 'Odd', threshold: '0x10' } }), 401, 'missing_credentials');
    expectLegacyError(await http(`${node.url}/order?api_key=pcak_nope`, { method: 'POST', body: { receipt_number: 'R', subtotal: 'Infinity' } }), 401, 'invalid_api_key');
  });

  it('a number, or a numeric string in plain decimal, is accepted', async () => {
    expect((await admin('POST', '/tiers', { name: 'Twenty', threshold: 20 })).body.threshold).toBe(20);
    expect((await admin('POST', '/tiers', { name: 'Thirty', threshold: '30' })).body.threshold).toBe(30);
    const form = await http(`${node.url}/tiers`, { method: 'POST', token: vendor.accessToken, body: 'name=Forty&threshold=40', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.status, JSON.stringify(form.body)).toBe(201);
    expect(form.body.threshold).toBe(40);
  });

  it('an amount finer than a cent is refused however it is written (0.001 and 1e-9 alike); 12.50 as text is fine', async () => {
    for (const subtotal of [0.001, 1e-9, '0.001']) {
      expectLegacyError(await api.postOrder(vendor.apiKey, { card_number: 'x@example.com', receipt_number: `R-${String(subtotal)}`, subtotal }), 400, 'validation_failed', 'subtotal');
    }
    const reply = await api.postOrder(vendor.apiKey, { card_number: 'nobody-here@example.com', receipt_number: 'R-ok', subtotal: '12.50' });
    expect(reply.status).toBe(404);
    // Float noise of a client's own sums is not a refusal.
    expect(reply.body.error.errors[0].reason).toBe('customer_not_found');
    const noisy = await api.postOrder(vendor.apiKey, { card_number: 'nobody-here@example.com', receipt_number: 'R-noise', subtotal: 0.1 + 0.2 });
    expect(noisy.body.error.errors[0].reason).toBe('customer_not_found');
  });

  it('a birthdate of 1e15 (or "0x10") is refused at sign-up; a real one is saved', async () => {
    for (const birthdate of [1e15, '0x10', -1e15]) {
      expectLegacyError(await http(`${node.url}/user/register`, { method: 'POST', body: registration(vendor.vendorId, { birthdate }) }), 400, 'validation_failed', 'birthdate');
    }
    const ok = await http(`${node.url}/user/register`, { method: 'POST', body: registration(vendor.vendorId, { birthdate: '631152000' }) });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.birthdate).toBe(631152000);
  });

  it('the order date and till take numbers only', async () => {
    expectLegacyError(await api.postOrder(vendor.apiKey, { card_number: 'x@example.com', receipt_number: 'R-d', subtotal: 1, date: 1e15 }), 400, 'validation_failed', 'date');
    expectLegacyError(await api.postOrder(vendor.apiKey, { card_number: 'x@example.com', receipt_number: 'R-t', subtotal: 1, till: '0x1' }), 400, 'validation_failed', 'till');
  });
});
