import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { resourceApi } from '../support/resource-api';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Rewards the vendor manages over /rewards, as the customer's app (/user/reward/list) and the counter
// (rules.spending of GET /onscreen) see them: the same list, with what the customer can redeem now.
describe('offered rewards', () => {
  let node: TestNode;
  const enc = encodeURIComponent;
  const currencies = resourceApi(() => node, '/currencies');

  beforeAll(async () => {
    node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
  });
  afterAll(() => node?.close());

  async function vendorWithRewards() {
    const v = await node.addVendor();
    const points = (await currencies.listAll(v.accessToken)).find((c) => c.name === 'Points').id as string;
    const add = async (body: Record<string, unknown>) => {
      const reply = await http(`${node.url}/rewards`, { method: 'POST', token: v.accessToken, body: { currency: points, ...body } });
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      return reply.body.id as string;
    };
    const coffee = await add({ name: 'Free coffee', cost: 30 });
    const cake = await add({ name: 'Cake', cost: 100 });
    await add({ name: 'Hidden', cost: 5, status: 'INACTIVE' });
    await add({ name: 'Next year', cost: 5, starts_at: '2099-01-01T00:00:00Z' });
    return { v, coffee, cake, points };
  }

  it('lists active rewards with how many the customer can redeem, in the app and at the counter, and an order redeems one', async () => {
    const { v, coffee, cake, points } = await vendorWithRewards();
    const customer = await signUpAt(node, v.vendorId);
    // 65 points: two coffees, no cake yet.
    const checkIn = async () => (await http(`${node.url}/onscreen?api_key=${enc(v.apiKey)}`, { method: 'POST', body: { card_number: customer.email } })).body.pos_session.hash as string;
    const earned = await http(`${node.url}/order?api_key=${enc(v.apiKey)}`, { method: 'POST', body: { pos_session_hash: await checkIn(), receipt_number: 'R-1', subtotal: 65 } });
    expect(earned.status, JSON.stringify(earned.body)).toBe(200);

    const app = await http(`${node.url}/user/reward/list?session_key=${enc(customer.key)}`);
    expect(app.status).toBe(200);
    expect(app.body.data.map((r: any) => [r.name, r.available, r.progress])).toEqual([
      ['Free coffee', 2, 1],
      ['Cake', 0, 0.65],
    ]);

    const hash = await checkIn();
    const counter = await http(`${node.url}/onscreen?api_key=${enc(v.apiKey)}&pos_session_hash=${hash}`);
    expect(counter.body.rules.spending.data).toEqual([
      { object: 'reward', id: coffee, name: 'Free coffee', summary: '', cost: 30, currency: expect.objectContaining({ name: 'Points' }), available: 2, expires: null },
      { object: 'reward', id: cake, name: 'Cake', summary: '', cost: 100, currency: expect.objectContaining({ name: 'Points' }), available: 0, expires: null },
    ]);

    // The id the counter shows is what an order redeems.
    const redeemed = await http(`${node.url}/order?api_key=${enc(v.apiKey)}`, { method: 'POST', body: { pos_session_hash: hash, receipt_number: 'R-2', subtotal: 0, redemptions: [coffee] } });
    expect(redeemed.status, JSON.stringify(redeemed.body)).toBe(200);
    const after = await http(`${node.url}/user/reward/list?session_key=${enc(customer.key)}`);
    expect(after.body.data.map((r: any) => r.available)).toEqual([1, 0]);

    // Points paused: its rewards cannot be redeemed (currency_not_active), so neither list offers them
    // (the balances they are judged on list active currencies only).
    const paused = await http(`${node.url}/currencies/${points}`, { method: 'PUT', token: v.accessToken, body: { status: 'INACTIVE' } });
    expect(paused.status, JSON.stringify(paused.body)).toBe(200);
    expect((await http(`${node.url}/user/reward/list?session_key=${enc(customer.key)}`)).body.data).toEqual([]);
    const pausedHash = await checkIn();
    expect((await http(`${node.url}/onscreen?api_key=${enc(v.apiKey)}&pos_session_hash=${pausedHash}`)).body.rules.spending.data).toEqual([]);
    await http(`${node.url}/currencies/${points}`, { method: 'PUT', token: v.accessToken, body: { status: 'ACTIVE' } });
    expect((await http(`${node.url}/user/reward/list?session_key=${enc(customer.key)}`)).body.data.map((r: any) => r.name)).toEqual(['Free coffee', 'Cake']);
  });
});
