import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { type Customer, ROOMY_RATE_LIMITS, signUpAt, withSessionKey } from '../support/customers';
import { inStoreApi } from '../support/in-store';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Two decisions where the contract is silent (thirteenth round, docs/decisions.md): a page past the
// end links `prev` to the page before it — the contract's "URL of the previous page", the same in
// both list styles, with no count of rows to ask for — and not to the last page that has rows; a
// second tip on a purchase, even of the same amount (a double tap, a retry after a lost answer), is
// 409 already_tipped and leaves the first one as it was.

let node: TestNode;
let v: VendorCredentials;
let c: Customer;
const { orderOk } = inStoreApi(() => node);

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
  v = await node.addVendor('Edges Coffee');
  c = await signUpAt(node, v.vendorId);
});

afterAll(async () => {
  await node?.close();
});

const paramsOf = (url: string) => Object.fromEntries(new URL(url).searchParams);

describe('a page past the end', () => {
  it('of a resource list: no items, no next, and prev the page before it (not the last page with rows)', async () => {
    const reply = await http(`${node.url}/currencies?limit=1&page=50&query=s:ACTIVE`, { token: v.accessToken });
    expect(reply.status).toBe(200);
    expect(reply.body.items).toEqual([]);
    expect(reply.body.next).toBeNull();
    expect(paramsOf(reply.body.prev)).toEqual({ limit: '1', page: '49', query: 's:ACTIVE' });
  });

  it('of the history: no data, no next, and previous_page_url the page before it, beyond total_pages', async () => {
    await orderOk(v.apiKey, { card_number: c.email, receipt_number: 'EDGE-1', subtotal: 5, total: 5 });
    const reply = await http(`${node.url}${withSessionKey('/user/transaction/list', c.key)}&limit=1&page=7`);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ page: 7, total_pages: 1, data: [], next_page_url: null });
    expect(paramsOf(reply.body.previous_page_url)).toMatchObject({ page: '6', limit: '1' });
  });
});

describe('a second tip', () => {
  it('is 409 already_tipped, of the same amount or another, and the first tip stands', async () => {
    const order = await orderOk(v.apiKey, { card_number: c.email, receipt_number: 'EDGE-2', subtotal: 20, total: 20 });
    const tip = (amount: number) => http(`${node.url}${withSessionKey('/user/transaction/tip', c.key)}`, { method: 'POST', body: { transaction: order.transaction_id, amount } });
    expect((await tip(2)).status).toBe(200);
    for (const amount of [2, 3]) {
      const again = await tip(amount);
      expect(again.status).toBe(409);
      expect(again.body.error.errors[0].reason).toBe('already_tipped');
    }
    const history = await http(`${node.url}${withSessionKey('/user/transaction/list', c.key)}`);
    expect(history.body.data.find((r: { id: number }) => r.id === order.transaction_id).tip).toEqual({ amount: 2, window: 0 });
  });
});
