import PostalMime from 'postal-mime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expirePoints } from '../../src/core/expiry/expire-points';
import { openParams } from '../../src/core/messaging/sealed-params';
import { drainAutoReloads } from '../../src/core/payments/auto-reload/auto-reloads';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { deliverDueWebhooks } from '../../src/core/webhooks/deliver';
import { WEBHOOK_KINDS } from '../../src/core/webhooks/kinds';
import { deleteAccountAt, type Customer, outboxFilesAt, signUpAt, withSessionKey } from '../support/customers';
import { extractCode } from '../support/mailbox';
import { inStoreApi, receiptCounter } from '../support/in-store';
import { CARDS, paymentsApi } from '../support/payments';
import { http, startTestNode, type TestNode } from '../support/test-node';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '../support/webhook-receiver';

// Every event kind fires from the real flow that causes it (over HTTP, or the job that runs it),
// reaches a real receiver signed, and carries its documented payload (docs/decisions.md).

let node: TestNode;
let receiver: WebhookReceiver;
let v: VendorCredentials;
let c: Customer;
const store = inStoreApi(() => node);
const pay = paymentsApi(() => node);
const receipt = receiptCounter('WH');

const USER = { user_id: expect.any(Number), first_name: expect.any(String), last_name: expect.any(String), email_address: expect.any(String), birthdate: expect.toBeOneOf([null, expect.any(Number)]), status: expect.any(String) };

beforeAll(async () => {
  node = await startTestNode({ webhooksAllowPrivate: true });
  receiver = await startWebhookReceiver();
  v = await node.addVendor('Café Luna');
  const reply = await http(`${node.url}/webhooks`, { method: 'POST', token: v.accessToken, body: { url: receiver.url, events: [...WEBHOOK_KINDS] } });
  expect(reply.status).toBe(201);
  receiver.secrets = [reply.body.secret];
  c = await signUpAt(node, v.vendorId, { first_name: 'Ana', last_name: 'López', birthdate: 631152000 });
});
afterAll(async () => {
  await receiver?.close();
  await node?.close();
});

/** Delivers everything due and returns what arrived of `type` since the last call. */
let seen = 0;
async function arrived(type?: string): Promise<ReceivedWebhook[]> {
  while ((await deliverDueWebhooks(node.engine, { allowPrivate: true })).succeeded > 0);
  const fresh = receiver.received.slice(seen);
  seen = receiver.received.length;
  for (const hit of fresh) {
    expect(hit.verified, hit.raw).toBe(true);
    expect(hit.body).toMatchObject({ id: expect.stringMatching(/^evt_/), type: expect.any(String), api_version: expect.any(String), created: expect.any(Number), vendor: v.vendorId });
  }
  return type ? fresh.filter((hit) => hit.body.type === type) : fresh;
}
const one = async (type: string, within: ReceivedWebhook[]) => {
  const hits = within.filter((hit) => hit.body.type === type);
  expect(hits, `${type} in ${within.map((h) => h.body.type).join(', ')}`).toHaveLength(1);
  return hits[0]!.body.data;
};

describe('customer events', () => {
  it('customer.registered carries the documented user', async () => {
    const data = await one('customer.registered', await arrived());
    expect(data).toEqual({ user: { user_id: c.userId, first_name: 'Ana', last_name: 'López', email_address: c.email, birthdate: 631152000, status: 'active' }, via: 'app' });
  });

  it('customer.registered at a counter, and customer.updated when that guest claims the account for the app (a password reset to its email)', async () => {
    const email = 'guest@example.com';
    const reply = await http(`${node.url}/onscreen/register?api_key=${encodeURIComponent(v.apiKey)}`, { method: 'POST', body: { email, first_name: 'Gus' } });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    const atCounter = await arrived();
    expect(await one('customer.registered', atCounter)).toEqual({ user: { ...USER, email_address: email, first_name: 'Gus' }, via: 'counter' });
    // Signing up with the guest's email is refused and tells the program nothing.
    const signUp = await http(`${node.url}/user/register`, { method: 'POST', body: { vendor: v.vendorId, email_address: email, password: 'correct horse 1', first_name: 'Gustavo', last_name: 'Paz', terms: true } });
    expect(signUp.status, JSON.stringify(signUp.body)).toBe(409);
    expect((await arrived()).map((h) => h.body.type).filter((t) => t.startsWith('customer.'))).toEqual([]);
    // The reset token goes to the guest's email; using it claims the account.
    /** Asks for a reset and uses the token the email carries. */
    const resetWithMailedToken = async (password: string) => {
      const before = new Set(outboxFilesAt(node, '.eml').map((f) => f.file));
      expect((await http(`${node.url}/user/password-reset/reset`, { method: 'POST', body: { email_address: email, vendor: v.vendorId } })).status).toBe(200);
      await node.messaging.drain();
      const mails = outboxFilesAt(node, '.eml').filter((f) => !before.has(f.file));
      expect(mails).toHaveLength(1);
      const token = extractCode((await PostalMime.parse(mails[0]!.text)).text ?? '');
      const applied = await http(`${node.url}/user/password-reset/apply`, { method: 'POST', body: { token, password } });
      expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    };
    await resetWithMailedToken('correct horse 1');
    const inApp = await arrived();
    expect(inApp.map((h) => h.body.type).filter((t) => t.startsWith('customer.'))).toEqual(['customer.updated']);
    expect((await one('customer.updated', inApp)).user).toMatchObject({ email_address: email, first_name: 'Gus' });
    // A reset of an account that has a password is no claim: nothing is sent.
    await resetWithMailedToken('correct horse 2');
    expect((await arrived()).map((h) => h.body.type).filter((t) => t.startsWith('customer.'))).toEqual([]);
    // The guest's visit ends, so the counter tests below start from an empty queue.
    const [hash] = await store.queueHashes(v.apiKey);
    await store.closeOk(v.apiKey, hash!);
    await arrived();
  });

  it('customer.updated when the counter adds an email to a guest it registered by phone', async () => {
    const register = (body: unknown) => http(`${node.url}/onscreen/register?api_key=${encodeURIComponent(v.apiKey)}`, { method: 'POST', body });
    const first = await register({ phone_number: { number: '+12025550171' } });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect((await arrived()).map((h) => h.body.type).filter((t) => t.startsWith('customer.'))).toEqual(['customer.registered']);
    const again = await register({ phone_number: { number: '+12025550171' }, email: 'pia@example.com' });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    const added = await arrived();
    expect(added.map((h) => h.body.type).filter((t) => t.startsWith('customer.'))).toEqual(['customer.updated']);
    expect((await one('customer.updated', added)).user).toMatchObject({ email_address: 'pia@example.com', first_name: 'Guest' });
    // The same contacts again change nothing and send nothing.
    expect((await register({ phone_number: { number: '+12025550171' }, email: 'pia@example.com' })).status).toBe(201);
    expect((await arrived()).map((h) => h.body.type).filter((t) => t.startsWith('customer.'))).toEqual([]);
    await store.closeOk(v.apiKey, again.body.pos_session.hash);
    await arrived();
  });

  it('customer.updated follows a profile change', async () => {
    const reply = await http(`${node.url}${withSessionKey('/user/profile', c.key)}`, { method: 'PUT', body: { first_name: 'Anita' } });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const data = await one('customer.updated', await arrived());
    expect(data.user).toMatchObject({ user_id: c.userId, first_name: 'Anita' });
  });

  it('user_card.created carries user_card_id, user, card, dates and status (never the pin)', async () => {
    const card = await http(`${node.url}/cards`, { method: 'POST', token: v.accessToken, body: { number: 'WH0001', pin: '4321' } });
    expect(card.status, JSON.stringify(card.body)).toBe(201);
    const link = await http(`${node.url}${withSessionKey('/user/card/add', c.key)}`, { method: 'POST', body: { number: 'WH0001', pin: '4321' } });
    expect(link.status, JSON.stringify(link.body)).toBe(200);
    const hits = await arrived();
    const data = await one('user_card.created', hits);
    expect(data).toEqual({
      user_card_id: expect.any(Number),
      user: { ...USER, user_id: c.userId },
      card: { card_id: expect.any(Number), cardType: 'loyalty', number: 'WH0001', pin: null },
      date_created: Math.floor(node.clock.now() / 1000),
      date_updated: Math.floor(node.clock.now() / 1000),
      status: 'ACTIVE',
    });
    expect(hits.map((h) => h.raw).join('')).not.toContain('4321');
  });
});

describe('counter events', () => {
  it('check_in.opened and check_in.closed (closed at the counter)', async () => {
    const session = await store.checkInSessionOk(v.apiKey, c.email);
    const opened = await one('check_in.opened', await arrived());
    expect(opened).toEqual({ check_in_id: expect.any(Number), store_id: v.storeId, pos_id: v.posId, user: { ...USER, user_id: c.userId }, identified_by: expect.any(String), opened_by: 'cashier', date_created: expect.any(Number) });
    await store.closeOk(v.apiKey, session.hash);
    const closed = await one('check_in.closed', await arrived());
    expect(closed).toMatchObject({ check_in_id: opened.check_in_id, closed_reason: 'closed', date_closed: Math.floor(node.clock.now() / 1000) });
  });

  it('order.placed, balance.updated for the points earned, tier.changed, and the visit closed by the order', async () => {
    await store.addTier(v, { name: 'Gold', threshold: 10 });
    await store.checkInSessionOk(v.apiKey, c.email);
    await arrived();
    const number = receipt();
    await store.orderOk(v.apiKey, { card_number: c.email, receipt_number: number, subtotal: 12.5, total: 12.5 });
    const hits = await arrived();
    expect(await one('order.placed', hits)).toEqual({
      order_id: expect.any(Number),
      receipt_number: number,
      store_id: v.storeId,
      pos_id: v.posId,
      user: { ...USER, user_id: c.userId },
      status: expect.any(String),
      subtotal: 12.5,
      total: 12.5,
      quick_pay_used: 0,
      points_earned: 12,
      points_spent: 0,
      loyalty: [{ currency: { currency_id: v.loyaltyCurrencyId, name: 'Points', code: null }, earned: 12, spent: 0 }],
      date_ordered: expect.any(Number),
      date_voided: null,
    });
    expect(await one('balance.updated', hits)).toEqual({
      user: { ...USER, user_id: c.userId },
      card: null,
      balance: { amount: 12, total: 12, currency: { currency_id: v.loyaltyCurrencyId, name: 'Points', code: null }, expiring: [] },
      transaction_detail: { entry_id: expect.any(Number), kind: 'earn', reference_type: 'order', reference_id: expect.any(String), date_created: expect.any(Number) },
    });
    expect(await one('tier.changed', hits)).toMatchObject({ user: { user_id: c.userId }, to: { name: 'Gold', threshold: 10 } });
    expect(await one('check_in.closed', hits)).toMatchObject({ closed_reason: 'order' });
    // In the order the order wrote them: the points, the tier, the end of the visit, the order.
    expect(hits.map((h) => h.body.type)).toEqual(['balance.updated', 'tier.changed', 'check_in.closed', 'order.placed']);

    await store.voidOk(v.apiKey, number);
    const voided = await arrived();
    expect(await one('order.voided', voided)).toMatchObject({ receipt_number: number, status: 'voided', date_voided: expect.any(Number) });
    expect((await one('balance.updated', voided)).balance).toMatchObject({ amount: -12, total: 0 });
  });

  it('points.expired (and the balance change) when the expiry job removes points', async () => {
    await node.engine.db.updateTable('vendors').set({ points_expiry_days: 1 }).where('id', '=', v.vendorId).execute();
    await store.orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt(), subtotal: 5, total: 5 });
    const earned = await arrived('balance.updated');
    expect(earned[0]!.body.data.balance.expiring).toEqual([{ amount: 5, date: Math.floor((node.clock.now() + 24 * 3600_000) / 1000) }]);
    node.clock.advance(2 * 24 * 3600_000);
    await expirePoints(node.engine);
    const hits = await arrived();
    expect(await one('points.expired', hits)).toEqual({ user: { ...USER, user_id: c.userId }, currency: { currency_id: v.loyaltyCurrencyId, name: 'Points', code: null }, points: 5, balance: 0 });
    expect((await one('balance.updated', hits)).transaction_detail.kind).toBe('expiry');
  });
});

describe('payment events', () => {
  it('reload.succeeded and reload.failed', async () => {
    const profile = await pay.addProfileOk(c.key, CARDS.visa);
    await pay.reloadOk(c.key, { user_billingprofile: profile.id, amount: 20 });
    const hits = await arrived();
    expect(await one('reload.succeeded', hits)).toEqual({
      reload_id: expect.any(Number),
      user: { ...USER, user_id: c.userId },
      automatic: false,
      amount: 20,
      currency: { currency_id: v.quickPayCurrencyId, name: 'Quick Pay USD', code: 'USD' },
      status: 'succeeded',
      decline_reason: null,
      decline_code: null,
      transaction_id: expect.any(Number),
      date_created: expect.any(Number),
    });
    expect((await one('balance.updated', hits)).balance).toMatchObject({ amount: 20, total: 20, currency: { currency_id: v.quickPayCurrencyId, code: 'USD' } });

    const declining = await pay.addProfileOk(c.key, CARDS.chargeDeclined);
    expect((await pay.reload(c.key, { user_billingprofile: declining.id, amount: 5 })).status).toBe(422);
    expect(await one('reload.failed', await arrived())).toMatchObject({ automatic: false, amount: 5, status: 'declined', decline_reason: 'generic_decline', decline_code: 'card_declined' });
  });

  it('auto_reload.ran after a spend crosses the threshold', async () => {
    const profile = await pay.addProfileOk(c.key, CARDS.mastercard);
    await pay.putSettingsOk(c.key, { amount: 25, threshold: 10, user_billingprofile: profile.id });
    await store.orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt(), subtotal: 15, total: 15, quick_pay: 15 });
    await drainAutoReloads(node.engine);
    const hits = await arrived();
    expect(await one('auto_reload.ran', hits)).toEqual({
      auto_reload_id: expect.any(Number),
      user: { ...USER, user_id: c.userId },
      amount: 25,
      threshold: 10,
      order_id: expect.any(Number),
      reload_id: expect.any(Number),
      status: 'completed',
      date_created: expect.any(Number),
    });
    expect(await one('reload.succeeded', hits)).toMatchObject({ automatic: true, amount: 25 });
    // Quick pay spent, points earned on the order, then the reload.
    const moves = hits.filter((h) => h.body.type === 'balance.updated').map((h) => [h.body.data.balance.currency.name, h.body.data.balance.amount]);
    expect(moves).toEqual([
      ['Quick Pay USD', -15],
      ['Points', 15],
      ['Quick Pay USD', 25],
    ]);
  });

  it('egift.sent and egift.claimed (never the claim code)', async () => {
    const recipient = await signUpAt(node, v.vendorId);
    const gift = await http(`${node.url}/vendor/${v.vendorId}/egift`, {
      method: 'POST',
      body: {
        amount: 10,
        buyer: { name: 'Mateo Ruiz', email: 'mateo@example.com' },
        recipient: { name: 'Bea', email: recipient.email },
        billing: { name: 'Mateo Ruiz', number: CARDS.visa, expiry: { month: '12', year: '2030' }, cvv: '123', zip_code: '10001' },
      },
    });
    expect(gift.status, JSON.stringify(gift.body)).toBe(200);
    const sent = await one('egift.sent', await arrived());
    expect(sent).toEqual({
      egift_id: expect.any(Number),
      amount: 10,
      currency: { currency_id: v.quickPayCurrencyId, name: 'Quick Pay USD', code: 'USD' },
      buyer_email: 'mateo@example.com',
      recipient_email: recipient.email,
      claimed_by: null,
      status: 'sent',
      date_created: expect.any(Number),
    });
    // The claim code, from the queued email (its parameters are kept, sealed, until it is sent).
    const row = await node.engine.db.selectFrom('messages_outbox').select('params').where('template', '=', 'egift_received').executeTakeFirstOrThrow();
    const code = (openParams(node.engine, row.params) as { code?: string }).code!;
    expect(code).toBeDefined();
    const claimed = await http(`${node.url}${withSessionKey('/user/egift/claim', recipient.key)}`, { method: 'POST', body: { code } });
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
    const hits = await arrived();
    expect(await one('egift.claimed', hits)).toMatchObject({ egift_id: sent.egift_id, status: 'claimed', claimed_by: { user_id: recipient.userId } });
    expect(hits.map((h) => h.raw).join('')).not.toContain(code);
  });
});

describe('customer.deleted', () => {
  it('sends ids only', async () => {
    const leaving = await signUpAt(node, v.vendorId, { first_name: 'Leo' });
    await arrived();
    await deleteAccountAt(node, leaving);
    const hits = await arrived();
    expect(await one('customer.deleted', hits)).toEqual({ user_id: leaving.userId });
    expect(hits.find((h) => h.body.type === 'customer.deleted')!.raw).not.toContain('Leo');
  });

  it('every kind has fired', () => {
    const fired = new Set(receiver.received.map((r) => r.body.type));
    expect(WEBHOOK_KINDS.filter((kind) => !fired.has(kind))).toEqual([]);
  });
});
