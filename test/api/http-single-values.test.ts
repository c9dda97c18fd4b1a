import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORM, legacyErrorCheck, ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { inStoreApi } from '../support/in-store';
import { http, startTestNode, type TestNode } from '../support/test-node';

// A field that takes one value refuses a list, whatever its length and wherever it arrives (a JSON
// body, form brackets, a repeated or bracketed query parameter): 400 validation_failed naming the
// field, and nothing happens. Validation used to unwrap a one-item list, so `{"card_number":
// ["a"]}` looked up "a" (a 404, or a check-in of that customer). Lists where lists are expected
// are unchanged.

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});

afterAll(async () => {
  await node?.close();
});

const expectLegacyError = legacyErrorCheck({ noStackTrace: true });
const inStore = inStoreApi(() => node);
const enc = encodeURIComponent;
let vendorCount = 0;

async function customerAtStore() {
  const v = await node.addVendor(`Single values ${++vendorCount}`);
  const c = await signUpAt(node, v.vendorId);
  return { v, c };
}

const openSessions = async (userId: number) => (await node.engine.db.selectFrom('pos_sessions').select('id').where('user_id', '=', userId).where('status', '=', 'active').execute()).length;
const ordersOf = async (userId: number) => (await node.engine.db.selectFrom('transactions').select('id').where('user_id', '=', userId).execute()).length;

describe('a list where one value is expected is 400 validation_failed naming the field', () => {
  it('POST /onscreen: card_number as a JSON list (one item or two) or form brackets checks no one in', async () => {
    const { v, c } = await customerAtStore();
    const checkIn = (body: unknown, headers?: Record<string, string>) => http(`${node.url}/onscreen?api_key=${enc(v.apiKey)}`, { method: 'POST', body, ...(headers ? { headers } : {}) });
    for (const reply of [await checkIn({ card_number: [c.email] }), await checkIn(`card_number[]=${enc(c.email)}`, FORM)]) {
      expectLegacyError(reply, 400, 'validation_failed', 'card_number');
      expect(reply.body.error.errors[0].message).toBe('card_number must be a single value, not a list.');
    }
    // Two or more values were refused already (validation unwraps one item only).
    expectLegacyError(await checkIn({ card_number: [c.email, c.email] }), 400, 'validation_failed', 'card_number');
    expectLegacyError(await checkIn(`card_number=${enc(c.email)}&card_number=${enc(c.email)}`, FORM), 400, 'validation_failed', 'card_number');
    expect(await openSessions(c.userId)).toBe(0);
    // The plain value checks in.
    expect((await checkIn({ card_number: c.email })).status).toBe(201);
  });

  it('GET /onscreen: pos_session_hash bracketed or repeated in the query', async () => {
    const { v, c } = await customerAtStore();
    const { pos_session: session } = await inStore.checkInOk(v.apiKey, c.email);
    const base = `${node.url}/onscreen?api_key=${enc(v.apiKey)}`;
    expectLegacyError(await http(`${base}&pos_session_hash[]=${session.hash}`), 400, 'validation_failed', 'pos_session_hash');
    expectLegacyError(await http(`${base}&pos_session_hash=${session.hash}&pos_session_hash=${session.hash}`), 400, 'validation_failed', 'pos_session_hash');
    expect((await inStore.retrieve(v.apiKey, session.hash)).status).toBe(200);
  });

  it('POST /order: card_number or receipt_number as a list records no order; redemptions and taxes stay lists', async () => {
    const { v, c } = await customerAtStore();
    expectLegacyError(await inStore.postOrder(v.apiKey, { card_number: [c.email], receipt_number: 'SV-1', subtotal: 10 }), 400, 'validation_failed', 'card_number');
    expectLegacyError(await inStore.postOrder(v.apiKey, { card_number: c.email, receipt_number: ['SV-1'], subtotal: 10 }), 400, 'validation_failed', 'receipt_number');
    expectLegacyError(await inStore.postOrder(v.apiKey, { card_number: c.email, receipt_number: 'SV-1', subtotal: [10] }), 400, 'validation_failed', 'subtotal');
    expect(await ordersOf(c.userId)).toBe(0);
    const placed = await inStore.orderOk(v.apiKey, { card_number: c.email, receipt_number: 'SV-1', subtotal: 10, redemptions: [], taxes: [{ name: 'VAT', amount: 1 }] });
    expect(placed.receipt_number).toBe('SV-1');
  });

  it('a credential is checked first: no api_key is 401, not the list', async () => {
    const reply = await http(`${node.url}/onscreen`, { method: 'POST', body: { card_number: ['someone'] } });
    expectLegacyError(reply, 401, 'missing_credentials');
  });
});
