import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectLegacyError, registerOkAt, ROOMY_RATE_LIMITS } from '../support/customers';
import { expectResourceError } from '../support/resource-api';
import { http, startTestNode, type TestNode } from '../support/test-node';

// A body nested deeper than 64 levels is 400 invalid_json before any route reads it: 6,000 levels in
// a card's data or an order's taxes overflowed the stack of JSON.stringify (a 500). 64 levels still
// go through, far deeper than any body of the interface.

let node: TestNode;
let token: string;
let apiKey: string;
let email: string;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
  const vendor = await node.addVendor('Deep Coffee');
  token = vendor.accessToken;
  apiKey = vendor.apiKey;
  // A customer the order finds, so it goes as far as storing its taxes.
  email = (await registerOkAt(node, vendor.vendorId)).email;
});

afterAll(async () => {
  await node?.close();
});

/** `levels` arrays, one inside the other. */
const arrays = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
/** `levels` objects, one inside the other, around a 1. */
const objects = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
const cardCount = async () => (await node.engine.db.selectFrom('cards').select('id').execute()).length;

describe('nesting depth of a body', () => {
  it('POST /cards with 6,000 levels in data: 400 invalid_json, nothing stored', async () => {
    const before = await cardCount();
    for (const data of [`{"x":${arrays(6000)}}`, objects(6000), `{"x":${arrays(200_000)}}`]) {
      const reply = await http(`${node.url}/cards`, { method: 'POST', token, body: `{"number":"DEEP1","data":${data}}`, headers: { 'content-type': 'application/json' } });
      expectResourceError(reply, 400, 'invalid_json');
    }
    expect(await cardCount()).toBe(before);
  });

  it('POST /order with 6,000 levels in taxes: 400 invalid_json (legacy envelope)', async () => {
    const body = `{"card_number":"${email}","receipt_number":"DX1","subtotal":5,"taxes":[${arrays(6000)}]}`;
    expectLegacyError(await http(`${node.url}/order?api_key=${apiKey}`, { method: 'POST', body, headers: { 'content-type': 'application/json' } }), 400, 'invalid_json');
  });

  it('64 levels (the body itself counted) still go through', async () => {
    // The body is level 1 and data level 2: 62 more objects inside data make 64.
    const reply = await http(`${node.url}/cards`, { method: 'POST', token, body: `{"number":"DEEP64","data":${objects(63)}}`, headers: { 'content-type': 'application/json' } });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    const tooDeep = await http(`${node.url}/cards`, { method: 'POST', token, body: `{"number":"DEEP65","data":${objects(64)}}`, headers: { 'content-type': 'application/json' } });
    expectResourceError(tooDeep, 400, 'invalid_json');
  });
});
