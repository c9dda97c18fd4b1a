import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detachQueuedCards } from '../../src/core/payments/billing-profiles/detach-cards';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { deleteAccountAt, ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { CARDS, paymentsApi } from '../support/payments';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Erasure completes (issue 17, item 7): deleting an account for good detaches its saved cards at the
// payment gateway (the port's detach, here the built-in test gateway) and blanks the buyer's name
// and email on their eGifts.

let node: TestNode;
let v: VendorCredentials;
const pay = paymentsApi(() => node);

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
  v = await node.addVendor('Erase Café');
});
afterAll(() => node?.close());

const detachments = (profileId: number) => node.engine.db.selectFrom('gateway_detachments').selectAll().where('billing_profile_id', '=', profileId).execute();
const gatewayCard = (token: string) => node.engine.db.selectFrom('test_gateway_cards').select('token').where('token', '=', token).executeTakeFirst();

async function waitForDetachment(profileId: number, status: string): Promise<void> {
  await expect.poll(async () => (await detachments(profileId))[0]?.status, { timeout: 10_000, interval: 20 }).toBe(status);
}

async function guestGift(buyerEmail: string): Promise<number> {
  const reply = await http(`${node.url}/vendor/${v.vendorId}/egift`, {
    method: 'POST',
    body: {
      amount: 10,
      buyer: { name: 'Erin Erased', email: buyerEmail.toUpperCase() },
      recipient: { name: 'Rita Recipient', email: 'rita@example.com' },
      message: 'Enjoy',
      image_url: null,
      billing: { name: 'Erin Erased', number: CARDS.visa, expiry: { month: '12', year: '2030' }, cvv: '123', zip_code: '10001' },
    },
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  const row = await node.engine.db.selectFrom('egifts').select('id').orderBy('id', 'desc').executeTakeFirstOrThrow();
  return row.id;
}

describe('erasure and payments', () => {
  it('detaches every saved card at the gateway and blanks eGift buyer names and emails', async () => {
    const c = await signUpAt(node, v.vendorId, { first_name: 'Erin' });
    const first = await pay.addProfileOk(c.key, CARDS.visa);
    const second = await pay.addProfileOk(c.key, CARDS.mastercard);
    const tokens = await Promise.all([pay.tokenOf(first.id), pay.tokenOf(second.id)]);
    expect(await gatewayCard(tokens[0])).toBeDefined();
    const gift = await guestGift(c.email);
    const stranger = await guestGift('someone.else@example.com');

    await deleteAccountAt(node, c, { expectDeleted: true });
    await waitForDetachment(first.id, 'done');
    await waitForDetachment(second.id, 'done');
    for (const token of tokens) expect(await gatewayCard(token)).toBeUndefined();
    // The gateway refuses the token now: nothing can charge that card again.
    await expect(node.engine.payments.charge({ token: tokens[0], amountMinor: 100, currency: 'USD', idempotencyKey: 'after-erasure' })).rejects.toThrow(/no such token/);
    // The outbox kept the token only until the gateway confirmed.
    expect((await detachments(first.id))[0]!.token).toBe('');

    const gifts = await node.engine.db.selectFrom('egifts').select(['id', 'buyer_name', 'buyer_email', 'amount']).where('id', 'in', [gift, stranger]).execute();
    expect(gifts.find((g) => g.id === gift)).toMatchObject({ buyer_name: '', buyer_email: '', amount: 1000 });
    expect(gifts.find((g) => g.id === stranger)).toMatchObject({ buyer_name: 'Erin Erased', buyer_email: 'SOMEONE.ELSE@EXAMPLE.COM' });
    // The guest purchase's charge kept the buyer's contact for staff (migration 0041): it goes too.
    const charges = await node.engine.db
      .selectFrom('egifts as g')
      .innerJoin('payment_charges as c', 'c.id', 'g.charge_id')
      .select(['g.id', 'c.buyer_name', 'c.buyer_email'])
      .where('g.id', 'in', [gift, stranger])
      .execute();
    expect(charges.find((c) => c.id === gift)).toMatchObject({ buyer_name: null, buyer_email: null });
    expect(charges.find((c) => c.id === stranger)).toMatchObject({ buyer_name: 'Erin Erased', buyer_email: 'SOMEONE.ELSE@EXAMPLE.COM' });
  });

  it('retries a detachment the gateway could not take, later', async () => {
    const c = await signUpAt(node, v.vendorId);
    const profile = await pay.addProfileOk(c.key, CARDS.visa);
    const token = await pay.tokenOf(profile.id);
    pay.gateway().refuseNextRequests(1);
    await deleteAccountAt(node, c, { expectDeleted: true });
    await expect.poll(async () => (await detachments(profile.id))[0]?.attempts, { timeout: 10_000, interval: 20 }).toBe(1);
    const [queued] = await detachments(profile.id);
    expect(queued).toMatchObject({ status: 'queued', last_error: expect.stringContaining('connection refused') });
    expect(await gatewayCard(token)).toBeDefined();
    // Not before its delay; then it goes through.
    expect(await detachQueuedCards(node.engine)).toEqual({ detached: 0, failed: 0 });
    node.clock.advance(61_000);
    expect(await detachQueuedCards({ ...node.engine, programRole: 'replica' })).toEqual({ detached: 0, failed: 0 });
    expect(await detachQueuedCards(node.engine)).toEqual({ detached: 1, failed: 0 });
    expect(await gatewayCard(token)).toBeUndefined();
  });
});
