import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { demoteTiers } from '../../src/core/rules/tiers/demote-tiers';
import { deliverDueWebhooks } from '../../src/core/webhooks/deliver';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ROOMY_RATE_LIMITS } from '../support/customers';
import { expectBalancesAddUp, inStoreApi, receiptCounter } from '../support/in-store';
import { http, startTestNode, type TestNode } from '../support/test-node';
import { startWebhookReceiver } from '../support/webhook-receiver';

// Tier demotion (issue 17, item 1): the job moves members down once a full window has passed since
// they reached a tier and the points earned in its window fall short; the history says so and the
// cashier's panel shows the new tier.

const DAY = 24 * 3600_000;
let node: TestNode;
let v: VendorCredentials;
const api = inStoreApi(() => node);
const receipt = receiptCounter('T');
let emails = 0;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS, webhooksAllowPrivate: true });
  v = await node.addVendor('Tier Café');
  for (const tier of [
    { name: 'Silver', threshold: 20, window_days: 30 },
    { name: 'Gold', threshold: 50, window_days: 30 },
  ]) {
    const made = await http(`${node.url}/tiers`, { method: 'POST', token: v.accessToken, body: tier });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
  }
});
afterAll(() => node?.close());
afterEach(() => expectBalancesAddUp(node));

/** A new customer checked in by email: their user id and email. */
async function newCustomer(): Promise<{ userId: number; email: string }> {
  const email = `tier.${++emails}@example.com`;
  const reply = await http(`${node.url}/onscreen/register?api_key=${v.apiKey}`, { method: 'POST', body: { email, first_name: 'Tia' } });
  const panel = await api.retrieveOk(v.apiKey, reply.body.pos_session.hash);
  await api.closeOk(v.apiKey, reply.body.pos_session.hash);
  return { userId: Number(panel.user.id), email };
}
const buy = (email: string, subtotal: number) => api.orderOk(v.apiKey, { card_number: email, receipt_number: receipt(), subtotal });
async function tierOnPanel(email: string): Promise<string> {
  const session = await api.checkInSessionOk(v.apiKey, email);
  const panel = await api.retrieveOk(v.apiKey, session.hash);
  await api.closeOk(v.apiKey, session.hash);
  return panel.user.tier.name;
}
const history = async (userId: number) => (await http(`${node.url}/user/transaction/list?api_key=${v.apiKey}&user=${userId}`)).body.data as any[];

describe('tier demotion', () => {
  it('keeps a tier for a full window, then moves down to the tier still earned, with a history note', async () => {
    const { userId, email } = await newCustomer();
    await buy(email, 60);
    expect(await tierOnPanel(email)).toBe('Gold');
    node.clock.advance(25 * DAY);
    await buy(email, 25);
    expect(await demoteTiers(node.engine)).toEqual({ demoted: 0 });
    expect(await tierOnPanel(email)).toBe('Gold');

    node.clock.advance(6 * DAY);
    expect((await demoteTiers(node.engine)).demoted).toBeGreaterThanOrEqual(1);
    // 25 points in the last 30 days: not Gold (50) any more, still Silver (20).
    expect(await tierOnPanel(email)).toBe('Silver');
    const [note] = await history(userId);
    expect(note).toMatchObject({ object: 'tier_change', status: 'Complete', total: 0 });
    expect(note.rewards).toEqual([expect.objectContaining({ kind: 'tier', name: 'Gold → Silver', from: 'Gold', to: 'Silver' })]);

    // Running again changes nothing; a month later without visits they are back in the entry tier.
    expect(await demoteTiers(node.engine)).toEqual({ demoted: 0 });
    node.clock.advance(31 * DAY);
    await demoteTiers(node.engine);
    expect(await tierOnPanel(email)).toBe('Member');
    expect((await history(userId)).filter((r) => r.object === 'tier_change').map((r) => r.rewards[0].name)).toEqual(['Silver → Member', 'Gold → Silver', 'Member → Gold']);
  });

  it('never demotes a member who keeps earning, or where the program is owned elsewhere (replica)', async () => {
    const regular = await newCustomer();
    const lapsed = await newCustomer();
    await buy(regular.email, 60);
    await buy(lapsed.email, 60);
    for (let week = 0; week < 5; week += 1) {
      node.clock.advance(7 * DAY);
      await buy(regular.email, 15);
    }
    expect(await demoteTiers({ ...node.engine, programRole: 'replica' })).toEqual({ demoted: 0 });
    expect(await tierOnPanel(lapsed.email)).toBe('Gold');
    await demoteTiers(node.engine);
    expect(await tierOnPanel(regular.email)).toBe('Gold');
    expect(await tierOnPanel(lapsed.email)).toBe('Member');
  });

  it('tells integrations with tier.changed, as a promotion does', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const endpoint = await http(`${node.url}/webhooks`, { method: 'POST', token: v.accessToken, body: { url: receiver.url, events: ['tier.changed'] } });
      expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
      receiver.secrets = [endpoint.body.secret];
      const delivered = async () => {
        while ((await deliverDueWebhooks(node.engine, { allowPrivate: true })).succeeded > 0);
        return receiver.received.splice(0).filter((hit) => hit.body.data.user.user_id === userId);
      };
      const { userId, email } = await newCustomer();
      await buy(email, 60);
      const [promoted] = await delivered();
      expect(promoted?.body.data).toMatchObject({ from: { name: 'Member' }, to: { name: 'Gold' } });

      node.clock.advance(31 * DAY);
      await demoteTiers(node.engine);
      expect(await tierOnPanel(email)).toBe('Member');
      const hits = await delivered();
      expect(hits).toHaveLength(1);
      const [demoted] = hits;
      expect(demoted!.verified).toBe(true);
      // The promotion's shape: the member, the tier left and the tier reached, dated by the job's run.
      expect(demoted!.body).toMatchObject({ type: 'tier.changed', vendor: v.vendorId, created: Math.floor(node.clock.now() / 1000) });
      expect(Object.keys(demoted!.body.data).sort()).toEqual(Object.keys(promoted!.body.data).sort());
      expect(demoted!.body.data).toEqual({
        user: { ...promoted!.body.data.user },
        from: { tier_id: promoted!.body.data.to.tier_id, name: 'Gold', threshold: 50 },
        to: { tier_id: promoted!.body.data.from.tier_id, name: 'Member', threshold: expect.any(Number) },
      });
    } finally {
      await receiver.close();
    }
  });
});
