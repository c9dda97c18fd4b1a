import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { deliverDueWebhooks } from '../../src/core/webhooks/deliver';
import { WEBHOOK_KINDS } from '../../src/core/webhooks/kinds';
import { ownerOf, staffCall } from '../support/backoffice';
import { type Customer, freshEmail, loginOkAt, newMailAt, PASSWORD, ROOMY_RATE_LIMITS, signUpAt, withSessionKey } from '../support/customers';
import { inStoreApi } from '../support/in-store';
import { extractCode, type Mailbox, startMailbox } from '../support/mailbox';
import { CARDS, paymentsApi } from '../support/payments';
import { http, startTestNode, type TestNode } from '../support/test-node';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

// Erasure and what other tables copied of the person (issue 10 review): stored webhook events,
// delivered or still pending, keep their ids and amounts but no longer name the person; a rating's
// comment goes; the audit log of staff actions on the customer never copied their email or phone.
// Over real HTTP, a real SMTP server for the deletion code and a real webhook receiver.

let node: TestNode;
let mailbox: Mailbox;
let receiver: WebhookReceiver;
let v: VendorCredentials;
/** A program the person never joined, where they bought an eGift as a guest. */
let elsewhere: VendorCredentials;
const store = inStoreApi(() => node);
const pay = paymentsApi(() => node);

beforeAll(async () => {
  mailbox = await startMailbox();
  receiver = await startWebhookReceiver();
  node = await startTestNode({ webhooksAllowPrivate: true, rateLimits: ROOMY_RATE_LIMITS, messaging: { smtpUrl: mailbox.url } });
  v = await node.addVendor('Erase Bakery');
  elsewhere = await node.addVendor('Another Café');
  for (const program of [v, elsewhere]) {
    const endpoint = await http(`${node.url}/webhooks`, { method: 'POST', token: program.accessToken, body: { url: receiver.url, events: [...WEBHOOK_KINDS] } });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    receiver.secrets.push(endpoint.body.secret);
  }
});

afterAll(async () => {
  await node?.close();
  await receiver?.close();
  await mailbox?.close();
});

const deliverAll = async () => {
  while ((await deliverDueWebhooks(node.engine, { allowPrivate: true })).succeeded > 0);
};
const storedEvents = () => node.engine.db.selectFrom('webhook_events').selectAll().execute();
const pendingDeliveries = () => node.engine.db.selectFrom('webhook_deliveries').select('id').where('status', '=', 'pending').execute();

/** The deletion code from the email the node sends (real SMTP), then the confirmation. */
async function deleteAccount(c: Customer): Promise<void> {
  const mail = await newMailAt(node, mailbox, c.email, () => http(`${node.url}${withSessionKey(`/vendor/${c.vendorId}/customers/${c.userId}/submit`, c.key)}`, { method: 'DELETE' }));
  const confirm = await http(`${node.url}/vendor/${c.vendorId}/customers`, { method: 'DELETE', body: { code: extractCode(mail.text) } });
  expect(confirm.status, JSON.stringify(confirm.body)).toBe(200);
}

/** A guest's eGift (no account needed) bought in the name of `email`. */
async function giftBoughtBy(email: string, program: VendorCredentials, message = 'Enjoy'): Promise<void> {
  const reply = await http(`${node.url}/vendor/${program.vendorId}/egift`, {
    method: 'POST',
    body: {
      amount: 10,
      buyer: { name: 'Zacarías Quintanilla', email },
      recipient: { name: 'Rita Recipient', email: 'rita.recipient@example.com' },
      message,
      image_url: null,
      billing: { name: 'Zacarías Quintanilla', number: CARDS.visa, expiry: { month: '12', year: '2030' }, cvv: '123', zip_code: '10001' },
    },
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
}

describe('erasing an account', () => {
  it('blanks the person in stored webhook events, delivered and pending, keeping ids and amounts; drops rating comments; the audit log holds no email or phone', async () => {
    const c = await signUpAt(node, v.vendorId, { first_name: 'Zacarías', last_name: 'Quintanilla', email_address: freshEmail('Erase.Me') });
    const phone = '+14155550177';
    expect((await http(`${node.url}${withSessionKey('/user/profile', c.key)}`, { method: 'PUT', body: { phone_number: phone } })).status).toBe(200);
    const other = await signUpAt(node, v.vendorId, { first_name: 'Rosalind', last_name: 'Keeps' });
    const order = await store.orderOk(v.apiKey, { card_number: c.email, receipt_number: 'ERASE-1', subtotal: 12, total: 12 });
    await store.orderOk(v.apiKey, { card_number: other.email, receipt_number: 'ERASE-2', subtotal: 8, total: 8 });
    const rated = await http(`${node.url}${withSessionKey('/user/transaction/rate', c.key)}`, { method: 'POST', body: { transaction: order.transaction_id, rating: 5, comment: `Zacarías here, call me on ${phone}` } });
    expect(rated.status, JSON.stringify(rated.body)).toBe(200);
    await giftBoughtBy(c.email.toUpperCase(), v);
    await giftBoughtBy(` ${c.email} `, elsewhere);
    // Staff act on the customer: audited.
    const owner = await ownerOf(node, v.vendorId);
    const points = await node.engine.db.selectFrom('currencies').select('public_id').where('id', '=', v.loyaltyCurrencyId).executeTakeFirstOrThrow();
    const adjusted = await staffCall(node, owner.token, 'POST', `/backoffice/customers/${c.userId}/adjustments`, { currency: points.public_id, amount: 5, reason: 'Goodwill' });
    expect(adjusted.status, JSON.stringify(adjusted.body)).toBe(201);
    await deliverAll();
    const delivered = receiver.received.length;
    expect(JSON.stringify(receiver.received.map((r) => r.body))).toContain('Quintanilla');

    // Not delivered yet: a visit, closed by the deletion itself.
    await store.checkInOk(v.apiKey, c.email);
    await deleteAccount(c);
    expect((await pendingDeliveries()).length).toBeGreaterThan(0);

    const events = await storedEvents();
    const text = JSON.stringify(events.map((e) => e.data)).toLowerCase();
    for (const trace of ['zacar', 'quintanilla', c.email.toLowerCase(), phone]) expect(text, trace).not.toContain(trace.toLowerCase());
    // Another customer's events are untouched; ids and amounts stay.
    expect(text).toContain('rosalind');
    const placed = events.map((e) => ({ type: e.type, data: JSON.parse(e.data) })).find((e) => e.type === 'order.placed' && e.data.user.user_id === c.userId);
    expect(placed?.data).toMatchObject({ total: 12, user: { user_id: c.userId, first_name: '', last_name: '', email_address: null, birthdate: null } });
    const gifts = events.filter((e) => e.type === 'egift.sent').map((e) => ({ vendor: Number(e.vendor_id), data: JSON.parse(e.data) }));
    expect(gifts.map((g) => g.vendor).sort()).toEqual([v.vendorId, elsewhere.vendorId].sort());
    for (const gift of gifts) expect(gift.data).toMatchObject({ amount: 10, buyer_email: '', recipient_email: 'rita.recipient@example.com' });

    // What goes out now goes without them.
    await deliverAll();
    const fresh = receiver.received.slice(delivered);
    expect(fresh.map((r) => r.body.type)).toEqual(expect.arrayContaining(['check_in.closed', 'customer.deleted']));
    expect(fresh.find((r) => r.body.type === 'check_in.closed')!.body.data.user).toMatchObject({ user_id: c.userId, first_name: '', email_address: null });
    expect(JSON.stringify(fresh.map((r) => r.body)).toLowerCase()).not.toContain('quintanilla');

    const rating = await node.engine.db.selectFrom('transactions').select(['rating_value', 'rating_comment']).where('id', '=', order.transaction_id).executeTakeFirstOrThrow();
    expect(rating).toEqual({ rating_value: 5, rating_comment: null });
    const audit = JSON.stringify(await node.engine.db.selectFrom('audit_log').selectAll().where('vendor_id', '=', v.vendorId).execute()).toLowerCase();
    expect(audit).toContain('goodwill');
    expect(audit).not.toContain(c.email.toLowerCase());
    expect(audit).not.toContain(phone);
  });

  it('also forgets the email and phone the person had before changing them: messages sent to them, eGift events in their name', async () => {
    const first = freshEmail('Before.Change');
    const c = await signUpAt(node, v.vendorId, { first_name: 'Zoe', last_name: 'Formerly', email_address: first });
    const profile = (body: Record<string, unknown>) => http(`${node.url}${withSessionKey('/user/profile', c.key)}`, { method: 'PUT', body });
    const oldPhone = '+14155550199';
    expect((await profile({ phone_number: oldPhone })).status).toBe(200);
    // Messages to the first email and phone (verification codes), and a gift bought in that name.
    expect((await http(`${node.url}${withSessionKey('/user/activate/email', c.key)}`)).status).toBe(200);
    expect((await http(`${node.url}${withSessionKey('/user/activate/sms', c.key)}`)).status).toBe(200);
    await giftBoughtBy(first, elsewhere);
    const outbox = () => node.engine.db.selectFrom('messages_outbox').select('recipient').execute();
    expect((await outbox()).map((m) => m.recipient)).toEqual(expect.arrayContaining([first, oldPhone]));
    // Then new ones, and the account goes.
    const second = freshEmail('After.Change');
    expect((await profile({ email_address: second, current_password: PASSWORD, phone_number: '+14155550198' })).status).toBe(200);
    await deleteAccount({ ...c, email: second });

    const recipients = JSON.stringify((await outbox()).map((m) => m.recipient)).toLowerCase();
    for (const trace of [first.toLowerCase(), second.toLowerCase(), oldPhone, '+14155550198']) expect(recipients, trace).not.toContain(trace);
    const events = JSON.stringify((await storedEvents()).map((e) => e.data)).toLowerCase();
    for (const trace of [first.toLowerCase(), second.toLowerCase(), oldPhone]) expect(events, trace).not.toContain(trace);
  });
});

describe('leaving one program, staying in another', () => {
  it("the program left keeps its records without the person: its webhook events, ratings' comments, saved cards, eGift messages; the other program keeps its own", async () => {
    const c = await signUpAt(node, v.vendorId, { first_name: 'Leandra', last_name: 'Partway', email_address: freshEmail('Leaving.One') });
    const atElsewhere = await loginOkAt(node, c.email, PASSWORD, elsewhere.vendorId);
    const keyElsewhere = atElsewhere.session_identifier as string;
    const here = await store.orderOk(v.apiKey, { card_number: c.email, receipt_number: 'LEAVE-1', subtotal: 12, total: 12 });
    const there = await store.orderOk(elsewhere.apiKey, { card_number: c.email, receipt_number: 'LEAVE-2', subtotal: 9, total: 9 });
    for (const [key, order] of [[c.key, here], [keyElsewhere, there]] as const) {
      const rated = await http(`${node.url}${withSessionKey('/user/transaction/rate', key)}`, { method: 'POST', body: { transaction: order.transaction_id, rating: 4, comment: 'Leandra was here' } });
      expect(rated.status, JSON.stringify(rated.body)).toBe(200);
    }
    const savedHere = await pay.addProfileOk(c.key, CARDS.visa, { name: 'Leandra Partway' });
    const savedThere = await pay.addProfileOk(keyElsewhere, CARDS.visa, { name: 'Leandra Partway' });
    await giftBoughtBy(c.email, v, 'From Leandra, call 415-555-0142');
    await deliverAll();

    await deleteAccount(c);
    await deliverAll();

    const eventsOf = async (vendorId: number) => JSON.stringify((await storedEvents()).filter((e) => Number(e.vendor_id) === vendorId).map((e) => e.data)).toLowerCase();
    expect(await eventsOf(v.vendorId)).not.toContain('partway');
    expect(await eventsOf(v.vendorId)).not.toContain(c.email.toLowerCase());
    expect(await eventsOf(elsewhere.vendorId)).toContain('partway');
    const comment = async (id: number) => (await node.engine.db.selectFrom('transactions').select('rating_comment').where('id', '=', id).executeTakeFirstOrThrow()).rating_comment;
    expect([await comment(here.transaction_id), await comment(there.transaction_id)]).toEqual([null, 'Leandra was here']);
    const card = async (id: number) => node.engine.db.selectFrom('billing_profiles').select(['name', 'token']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(await card(savedHere.id)).toEqual({ name: '', token: '' });
    expect(await card(savedThere.id)).toMatchObject({ name: 'Leandra Partway', token: expect.stringMatching(/.+/) });
    const messages = await node.engine.db.selectFrom('egifts').select('message').where('vendor_id', '=', v.vendorId).where('buyer_email', '=', '').execute();
    expect(messages.map((m) => m.message)).not.toContain('From Leandra, call 415-555-0142');
    // Still a member of the other program, signed in there.
    expect((await http(`${node.url}${withSessionKey('/user/profile', keyElsewhere)}`)).body.user.last_name).toBe('Partway');
  });
});
