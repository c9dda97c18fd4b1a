import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { settlePendingEgifts } from '../../src/core/payments/egifts/settle-pending-egifts';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { type Customer, expectLegacyError, freshEmail, loginOkAt, PASSWORD, ROOMY_RATE_LIMITS, signUpAt, withSessionKey } from '../support/customers';
import { expectBalancesAddUp } from '../support/in-store';
import { extractCode, type Mailbox, type ParsedMail, startMailbox } from '../support/mailbox';
import { http, type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// eGifts over real HTTP and a real SMTP server: a guest buys one with card details (or a customer
// with a billing profile), the recipient gets an email with a claim code, and claims it into their
// quick-pay balance with the vendor. Declines, late results, retries and cross-vendor attempts.

let node: TestNode;
let mailbox: Mailbox;

beforeAll(async () => {
  mailbox = await startMailbox();
  node = await startTestNode({ messaging: { smtpUrl: mailbox.url }, rateLimits: ROOMY_RATE_LIMITS });
});

afterEach(async () => {
  await expectBalancesAddUp(node);
});

afterAll(async () => {
  await node?.close();
  await mailbox?.close();
});

// ---------------------------------------------------------------------------------------------
// helpers

/** 16 Crockford base32 characters shown as XXXX-XXXX-XXXX-XXXX. */
const CLAIM_CODE = /^[0-9A-HJKMNP-TV-Z]{4}(?:-[0-9A-HJKMNP-TV-Z]{4}){3}$/;

function card(number: string, overrides: Record<string, unknown> = {}) {
  const cvv = number.replace(/\s/g, '').length === 15 ? '1234' : '123';
  return { name: 'Mateo Ruiz', number, expiry: { month: '12', year: '2030' }, cvv, zip_code: '10001', ...overrides };
}

function giftBody(overrides: Record<string, unknown> = {}) {
  return {
    amount: 25,
    buyer: { name: 'Mateo Ruiz', email: freshEmail('buyer') },
    recipient: { name: 'Ana López', email: freshEmail('ana') },
    message: 'Happy birthday!',
    image_url: null,
    billing: card('4242 4242 4242 4242'),
    ...overrides,
  };
}

function buy(vendorId: number | string, body: unknown, options: { key?: string; session?: string } = {}): Promise<HttpReply> {
  const path = `/vendor/${vendorId}/egift`;
  return http(`${node.url}${options.session ? withSessionKey(path, options.session) : path}`, {
    method: 'POST',
    body,
    ...(options.key ? { headers: { 'idempotency-key': options.key } } : {}),
  });
}

async function buyOk(vendorId: number, body: unknown, options: { key?: string; session?: string } = {}): Promise<any> {
  const reply = await buy(vendorId, body, options);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body;
}

function claim(c: Customer, code: unknown): Promise<HttpReply> {
  return http(`${node.url}${withSessionKey('/user/egift/claim', c.key)}`, { method: 'POST', body: { code } });
}

/** Delivers the outbox and returns the mails that reached `to` since `seen`. */
async function mailsTo(to: string): Promise<ParsedMail[]> {
  await node.messaging.drain();
  return mailbox.messages.filter((m) => m.to.includes(to));
}

async function giftMail(to: string): Promise<{ mail: ParsedMail; code: string }> {
  await node.messaging.drain();
  const mail = await mailbox.waitFor((m) => m.to.includes(to));
  const code = extractCode(mail.text);
  expect(code).toMatch(CLAIM_CODE);
  return { mail, code: code! };
}

async function quickPayOf(c: Customer): Promise<number> {
  const reply = await http(`${node.url}${withSessionKey('/user/quick-pay/balance', c.key)}`);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.amount;
}

/** Row counts of everything a purchase or claim can touch. */
async function footprint() {
  const count = async (table: 'egifts' | 'messages_outbox' | 'ledger_entries' | 'transactions') =>
    Number((await node.engine.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  const succeeded = await node.engine.db
    .selectFrom('payment_charges')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'succeeded')
    .executeTakeFirstOrThrow();
  return { egifts: await count('egifts'), outbox: await count('messages_outbox'), ledger: await count('ledger_entries'), history: await count('transactions'), paid: Number(succeeded.n) };
}

async function signUp(vendorId: number, overrides: Record<string, unknown> = {}): Promise<Customer> {
  return signUpAt(node, vendorId, overrides);
}

// ---------------------------------------------------------------------------------------------

describe('POST /vendor/{vendor_id}/egift (guest card)', () => {
  let v: VendorCredentials;
  beforeAll(async () => {
    v = await node.addVendor('Gift Café');
  });

  it('charges the card, records the gift and answers it without the card number or the code', async () => {
    const body = giftBody();
    const gift = await buyOk(v.vendorId, body, { key: 'gift-1' });
    expect(gift).toStrictEqual({
      object: 'egift',
      id: expect.any(Number),
      vendor: { id: v.vendorId, name: 'Gift Café', object: 'vendor' },
      amount: 25,
      currency: { id: v.quickPayCurrencyId, name: 'Quick Pay USD', code: 'USD', object: 'currency' },
      buyer: body.buyer,
      recipient: body.recipient,
      message: 'Happy birthday!',
      image_url: null,
      billing: { card: 'xxxx xxxx xxxx 4242', type: 'Visa', user_billingprofile: null },
      status: 'Sent',
      transaction: expect.any(Number),
      transaction_status: { id: 1, name: 'Complete' },
      created: Math.floor(node.clock.now() / 1000),
      sent: Math.floor(node.clock.now() / 1000),
      claimed: null,
      send_date: null,
    });
    const charge = await node.engine.db.selectFrom('payment_charges').selectAll().where('id', '=', Number(gift.transaction)).executeTakeFirstOrThrow();
    expect(charge).toMatchObject({ purpose: 'egift', status: 'succeeded', amount: 2500, currency: 'USD', user_id: null, billing_profile_id: null });
    const row = await node.engine.db.selectFrom('egifts').selectAll().where('id', '=', gift.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'sent', amount: 2500, card_brand: 'Visa', card_last4: '4242' });
    expect(row.claim_code_hash).toMatch(/^[0-9a-f]{64}$/);

    // The recipient's email: who sent what, and the code (kept only as a digest).
    const { mail, code } = await giftMail(body.recipient.email);
    expect(mail.subject).toBe('Mateo Ruiz sent you a $25.00 eGift for Gift Café');
    expect(mail.text).toMatch(/^Hi Ana López,$/m);
    expect(mail.text).toContain('Their message: “Happy birthday!”');
    expect(mail.text).toContain('log in to the Gift Café app');
    expect(JSON.stringify(gift)).not.toContain(code);
    expect(row.claim_code_hash).not.toContain(code.replace(/-/g, ''));
  });

  it('never charges twice for a retry with the same Idempotency-Key, and refuses the key for another gift', async () => {
    const body = giftBody({ amount: 10 });
    const first = await buyOk(v.vendorId, body, { key: 'retry-me' });
    const before = await footprint();
    const again = await buyOk(v.vendorId, body, { key: 'retry-me' });
    expect(again).toStrictEqual(first);
    expect(await footprint()).toEqual(before);
    expect(await mailsTo(body.recipient.email)).toHaveLength(1);

    expectLegacyError(await buy(v.vendorId, { ...body, amount: 11 }, { key: 'retry-me' }), 409, 'idempotency_key_reused');
    expect(await footprint()).toEqual(before);

    // Without a key, each request is a new gift.
    const other = await buyOk(v.vendorId, body);
    expect(other.id).not.toBe(first.id);
  });

  it('answers each decline with its reason and changes nothing', async () => {
    const declines: Array<[string, string]> = [
      ['4000 0000 0000 0002', 'card_declined'],
      ['4000 0000 0000 9995', 'insufficient_funds'],
      ['4000 0000 0000 9987', 'card_lost'],
      ['4000 0000 0000 9979', 'card_stolen'],
      ['4000 0000 0000 0069', 'card_expired'],
      ['4000 0000 0000 0127', 'incorrect_cvc'],
      ['4000 0000 0000 0119', 'card_processing_error'],
      // Tokenizes fine, then the charge itself is declined.
      ['4000 0000 0000 0341', 'card_declined'],
    ];
    for (const [number, reason] of declines) {
      const body = giftBody({ billing: card(number) });
      const before = await footprint();
      const reply = await buy(v.vendorId, body, { key: `decline-${reason}-${number.slice(-4)}` });
      expectLegacyError(reply, 422, reason, 'billing');
      expect(reply.body.error.errors[0].message, reason).toMatch(/card|CVV/i);
      expect(await footprint(), number).toEqual(before);
      expect(await mailsTo(body.recipient.email)).toEqual([]);
      // A retry of a declined request answers the same decline.
      expectLegacyError(await buy(v.vendorId, body, { key: `decline-${reason}-${number.slice(-4)}` }), 422, reason, 'billing');
    }
  });

  it('refuses card input that cannot be a card (400, naming the field), changing nothing', async () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [card('4242 4242 4242 4241'), 'invalid_payment_card', 'billing.number'],
      [card('4242'), 'invalid_payment_card', 'billing.number'],
      [card('4242 4242 4242 4242', { expiry: { month: '13', year: '2030' } }), 'invalid_card_expiry', 'billing.expiry.month'],
      [card('4242 4242 4242 4242', { expiry: { month: '01', year: '2020' } }), 'invalid_card_expiry', 'billing.expiry.year'],
      [card('4242 4242 4242 4242', { cvv: '12' }), 'invalid_card_cvv', 'billing.cvv'],
      [card('4242 4242 4242 4242', { zip_code: '<script>' }), 'invalid_postal_code', 'billing.zip_code'],
    ];
    const before = await footprint();
    for (const [billing, reason, field] of cases) {
      const reply = await buy(v.vendorId, giftBody({ billing }));
      expectLegacyError(reply, 400, reason, field);
      expect(JSON.stringify(reply.body)).not.toMatch(/4242 ?4242/);
    }
    expect(await footprint()).toEqual(before);
  });

  it('refuses bad gift fields with a clear error and changes nothing', async () => {
    const before = await footprint();
    const cases: Array<[Record<string, unknown>, number, string, string]> = [
      [{ amount: 0 }, 400, 'validation_failed', 'amount'],
      [{ amount: 1000.01 }, 400, 'validation_failed', 'amount'],
      [{ amount: 12.345 }, 400, 'validation_failed', 'amount'],
      [{ amount: 'lots' }, 400, 'validation_failed', 'amount'],
      [{ recipient: { name: 'Ana', email: 'not-an-email' } }, 400, 'invalid_email', 'recipient.email'],
      [{ recipient: { email: freshEmail() } }, 400, 'validation_failed', 'recipient.name'],
      [{ buyer: { name: 'Mateo' } }, 400, 'invalid_email', 'buyer.email'],
      [{ billing: undefined }, 400, 'validation_failed', 'billing'],
      [{ message: 'x'.repeat(501) }, 400, 'validation_failed', 'message'],
      [{ image_url: 'javascript:alert(1)' }, 400, 'validation_failed', 'image_url'],
      [{ user_billingprofile: 1 }, 400, 'validation_failed', 'billing'],
    ];
    for (const [overrides, status, reason, field] of cases) {
      expectLegacyError(await buy(v.vendorId, giftBody(overrides)), status, reason, field);
    }
    expectLegacyError(await buy(v.vendorId, giftBody(), { key: 'x'.repeat(201) }), 400, 'validation_failed', 'Idempotency-Key');
    expectLegacyError(await buy(999_999, giftBody()), 404, 'vendor_not_found');
    expectLegacyError(await buy(v.vendorId, giftBody(), { session: 'pcsk_not-a-session' }), 401, 'invalid_session');
    expect(await footprint()).toEqual(before);
  });

  it('accepts the body as form fields too (amount as a string)', async () => {
    const recipient = freshEmail('form');
    const form = new URLSearchParams({
      amount: '7.5',
      'buyer[name]': 'Mateo',
      'buyer[email]': freshEmail('buyer'),
      'recipient[name]': 'Ana',
      'recipient[email]': recipient,
      'billing[name]': 'Mateo',
      'billing[number]': '5555555555554444',
      'billing[expiry][month]': '04',
      'billing[expiry][year]': '2031',
      'billing[cvv]': '321',
    }).toString();
    const reply = await http(`${node.url}/vendor/${v.vendorId}/egift.json`, { method: 'POST', body: form, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ amount: 7.5, message: null, billing: { card: 'xxxx xxxx xxxx 4444', type: 'Mastercard' }, status: 'Sent' });
    const { mail } = await giftMail(recipient);
    expect(mail.text).not.toContain('Their message');
  });
});

describe('a card that reports its result late', () => {
  let v: VendorCredentials;
  beforeAll(async () => {
    v = await node.addVendor('Late Café');
  });

  it('answers Pending without an email, and sends the gift once a retry finds the charge succeeded', async () => {
    const body = giftBody({ billing: card('4000 0027 6000 3184') });
    const pending = await buyOk(v.vendorId, body, { key: 'late-1' });
    expect(pending).toMatchObject({ status: 'Pending', transaction_status: { id: 2, name: 'Pending' }, sent: null });
    expect(await mailsTo(body.recipient.email)).toEqual([]);

    // The test gateway completes a late charge at its second status poll: each retry polls once.
    const stillPending = await buyOk(v.vendorId, body, { key: 'late-1' });
    expect(stillPending).toStrictEqual(pending);
    expect(await mailsTo(body.recipient.email)).toEqual([]);

    const sent = await buyOk(v.vendorId, body, { key: 'late-1' });
    expect(sent).toMatchObject({ id: pending.id, transaction: pending.transaction, status: 'Sent', transaction_status: { id: 1, name: 'Complete' } });
    const { code } = await giftMail(body.recipient.email);

    expect(await buyOk(v.vendorId, body, { key: 'late-1' })).toStrictEqual(sent);
    expect(await mailsTo(body.recipient.email)).toHaveLength(1);

    const ana = await signUp(v.vendorId, { email_address: body.recipient.email });
    expect((await claim(ana, code)).status).toBe(200);
    expect(await quickPayOf(ana)).toBe(25);
  });

  it('is settled by the node job too, once, and a late decline sends nothing', async () => {
    const paid = giftBody({ billing: card('4000 0027 6000 3184'), amount: 5 });
    const declined = giftBody({ billing: card('4000 0084 0000 1629'), amount: 6 });
    const first = await buyOk(v.vendorId, paid);
    const second = await buyOk(v.vendorId, declined, { key: 'late-decline' });
    expect([first.status, second.status]).toEqual(['Pending', 'Pending']);

    expect(await settlePendingEgifts(node.engine)).toEqual({ settled: 0, failed: 0 });
    expect(await settlePendingEgifts(node.engine)).toEqual({ settled: 2, failed: 0 });
    expect(await settlePendingEgifts(node.engine)).toEqual({ settled: 0, failed: 0 });

    expect(await mailsTo(paid.recipient.email)).toHaveLength(1);
    expect(await mailsTo(declined.recipient.email)).toEqual([]);
    const rows = await node.engine.db.selectFrom('egifts').select(['id', 'status', 'decline_reason', 'claim_code_hash']).where('id', 'in', [first.id, second.id]).orderBy('id').execute();
    expect(rows).toEqual([
      { id: first.id, status: 'sent', decline_reason: null, claim_code_hash: expect.stringMatching(/^[0-9a-f]{64}$/) },
      { id: second.id, status: 'declined', decline_reason: 'generic_decline', claim_code_hash: null },
    ]);
    // The buyer's retry now hears the decline.
    expectLegacyError(await buy(v.vendorId, declined, { key: 'late-decline' }), 422, 'card_declined', 'billing');
  });
});

describe('POST /user/egift/claim', () => {
  let v: VendorCredentials;
  let other: VendorCredentials;
  beforeAll(async () => {
    v = await node.addVendor('Claim Café');
    other = await node.addVendor('Other Café');
  });

  it('credits the gift to the quick-pay balance once, with an egift history record', async () => {
    const body = giftBody({ amount: 20 });
    await buyOk(v.vendorId, body);
    const { code } = await giftMail(body.recipient.email);
    const ana = await signUp(v.vendorId, { email_address: body.recipient.email });
    expect(await quickPayOf(ana)).toBe(0);

    const first = await claim(ana, code);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toStrictEqual({
      object: 'egift_claim',
      egift: {
        id: expect.any(Number),
        vendor: { id: v.vendorId, name: 'Claim Café', object: 'vendor' },
        amount: 20,
        currency: { id: v.quickPayCurrencyId, name: 'Quick Pay USD', code: 'USD', object: 'currency' },
        from: { name: 'Mateo Ruiz' },
        message: 'Happy birthday!',
        image_url: null,
        status: 'Claimed',
        claimed: Math.floor(node.clock.now() / 1000),
      },
      transaction_id: expect.any(Number),
      quick_pay: { amount: 20, currency: { id: v.quickPayCurrencyId, name: 'Quick Pay USD', code: 'USD', object: 'currency' } },
    });
    expect(await quickPayOf(ana)).toBe(20);

    // Claiming twice (a double tap, a retry) answers the first claim and credits nothing more; the
    // code may be typed in lower case with spaces.
    node.clock.advance(60_000);
    const again = await claim(ana, ` ${code.toLowerCase().replace(/-/g, ' ')} `);
    expect(again.status).toBe(200);
    expect(again.body).toStrictEqual(first.body);
    expect(await quickPayOf(ana)).toBe(20);

    const history = await http(`${node.url}${withSessionKey('/user/transaction/list', ana.key)}`);
    expect(history.status).toBe(200);
    expect(history.body.data).toHaveLength(1);
    expect(history.body.data[0]).toMatchObject({
      object: 'egift',
      id: first.body.transaction_id,
      total: 20,
      quickpay: { object: 'quickpay', used: 0, loaded: 20, balance: 20 },
      status: 'Complete',
    });
    const gift = await node.engine.db.selectFrom('egifts').selectAll().where('id', '=', first.body.egift.id).executeTakeFirstOrThrow();
    expect(gift).toMatchObject({ status: 'claimed', claimed_by_user_id: ana.userId, claim_transaction_id: first.body.transaction_id });

    // Someone else with the code later: already claimed.
    const eve = await signUp(v.vendorId);
    const before = await footprint();
    expectLegacyError(await claim(eve, code), 409, 'egift_already_claimed', 'code');
    expect(await quickPayOf(eve)).toBe(0);
    expect(await footprint()).toEqual(before);
  });

  it('refuses a wrong code clearly and changes nothing', async () => {
    const ana = await signUp(v.vendorId);
    const before = await footprint();
    for (const code of ['ABCD-EFGH-JKMN-PQRS', 'not a code', '1234']) {
      const reply = await claim(ana, code);
      expectLegacyError(reply, 400, 'invalid_egift_code', 'code');
      expect(reply.body.error.errors[0].message).toMatch(/eGift code is not valid/);
    }
    expectLegacyError(await claim(ana, ''), 400, 'validation_failed', 'code');
    expectLegacyError(await http(`${node.url}/user/egift/claim`, { method: 'POST', body: { code: 'ABCD-EFGH-JKMN-PQRS' } }), 401, 'missing_credentials');
    expect(await footprint()).toEqual(before);
    expect(await quickPayOf(ana)).toBe(0);
  });

  it("cannot claim another vendor's gift at this vendor; the same person claims it at the gift's vendor", async () => {
    const body = giftBody({ amount: 15 });
    await buyOk(v.vendorId, body);
    const { code } = await giftMail(body.recipient.email);

    // The recipient has an account with the other vendor only.
    const atOther = await signUp(other.vendorId, { email_address: body.recipient.email });
    const before = await footprint();
    const reply = await claim(atOther, code);
    expectLegacyError(reply, 422, 'egift_other_vendor', 'code');
    expect(reply.body.error.errors[0].message).toContain('Claim Café');
    expect(await quickPayOf(atOther)).toBe(0);
    expect(await footprint()).toEqual(before);

    // Logging in to the gift's vendor joins that program; the claim lands there.
    const session = await loginOkAt(node, body.recipient.email, PASSWORD, v.vendorId);
    const atGiftVendor: Customer = { ...atOther, vendorId: v.vendorId, key: session.session_identifier };
    const claimed = await claim(atGiftVendor, code);
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
    expect(await quickPayOf(atGiftVendor)).toBe(15);
    expect(await quickPayOf(atOther)).toBe(0);
  });
});

describe('an authenticated eGift (session_key and a billing profile)', () => {
  let v: VendorCredentials;
  let other: VendorCredentials;
  beforeAll(async () => {
    v = await node.addVendor('Member Café');
    other = await node.addVendor('Elsewhere Café');
  });

  async function addProfile(c: Customer, number = '4242424242424242'): Promise<number> {
    const reply = await http(`${node.url}${withSessionKey('/user/billing-profile/add', c.key)}`, {
      method: 'POST',
      body: { name: 'Mateo Ruiz', number, expiry_month: '12', expiry_year: '2030', cvv: '123', description: 'my card', zip_code: '10001' },
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return Number(reply.body.id);
  }

  it("charges the buyer's profile; the buyer defaults to the account's name and email", async () => {
    const mateo = await signUp(v.vendorId, { first_name: 'Mateo', last_name: 'Ruiz' });
    const profileId = await addProfile(mateo);
    const recipient = { name: 'Ana', email: freshEmail('ana') };
    const gift = await buyOk(v.vendorId, { amount: 30, recipient, user_billingprofile: String(profileId) }, { session: mateo.key, key: 'member-1' });
    expect(gift).toMatchObject({
      buyer: { name: 'Mateo Ruiz', email: mateo.email },
      recipient,
      amount: 30,
      billing: { card: 'xxxx xxxx xxxx 4242', type: 'Visa', user_billingprofile: profileId },
      status: 'Sent',
    });
    const charge = await node.engine.db.selectFrom('payment_charges').selectAll().where('id', '=', Number(gift.transaction)).executeTakeFirstOrThrow();
    expect(charge).toMatchObject({ user_id: mateo.userId, billing_profile_id: profileId, purpose: 'egift', status: 'succeeded' });
    const { mail, code } = await giftMail(recipient.email);
    expect(mail.subject).toBe('Mateo Ruiz sent you a $30.00 eGift for Member Café');
    // The buyer's own balance does not move: the gift is the recipient's.
    expect(await quickPayOf(mateo)).toBe(0);
    const ana = await signUp(v.vendorId, { email_address: recipient.email });
    expect((await claim(ana, code)).status).toBe(200);
    expect(await quickPayOf(ana)).toBe(30);
    // `user_billingProfile_id`, as the interface's text names it, works too.
    expect((await buyOk(v.vendorId, { amount: 1, recipient, user_billingProfile_id: profileId }, { session: mateo.key })).status).toBe('Sent');
  });

  it("refuses another customer's profile (404), a missing session (401) and another program's session (403), changing nothing", async () => {
    const mateo = await signUp(v.vendorId);
    const eve = await signUp(v.vendorId);
    const mateoProfile = await addProfile(mateo);
    const elsewhere = await signUp(other.vendorId);
    const elsewhereProfile = await addProfile(elsewhere);
    const body = (id: number) => ({ amount: 10, recipient: { name: 'Ana', email: freshEmail('ana') }, user_billingprofile: id });
    const before = await footprint();

    expectLegacyError(await buy(v.vendorId, body(mateoProfile), { session: eve.key }), 404, 'billing_profile_not_found');
    expectLegacyError(await buy(v.vendorId, body(elsewhereProfile), { session: mateo.key }), 404, 'billing_profile_not_found');
    expectLegacyError(await buy(v.vendorId, body(987_654_321), { session: mateo.key }), 404, 'billing_profile_not_found');
    expectLegacyError(await buy(v.vendorId, body(mateoProfile)), 401, 'missing_credentials');
    expectLegacyError(await buy(v.vendorId, body(elsewhereProfile), { session: elsewhere.key }), 403, 'forbidden');
    expectLegacyError(await buy(v.vendorId, { ...body(mateoProfile), billing: card('4242 4242 4242 4242') }, { session: mateo.key }), 400, 'validation_failed', 'billing');
    expect(await footprint()).toEqual(before);
  });

  it('answers a decline of the saved card with its reason, changing nothing', async () => {
    const mateo = await signUp(v.vendorId);
    const profileId = await addProfile(mateo, '4000000000000341');
    const recipient = { name: 'Ana', email: freshEmail('ana') };
    const before = await footprint();
    expectLegacyError(await buy(v.vendorId, { amount: 10, recipient, user_billingprofile: profileId }, { session: mateo.key }), 422, 'card_declined', 'user_billingprofile');
    expect(await footprint()).toEqual(before);
    expect(await mailsTo(recipient.email)).toEqual([]);
  });
});

describe('the recipient email in both languages', () => {
  it("is written in the vendor's language, or the recipient's own with the vendor", async () => {
    const v = await node.addVendor('Café Luna');
    await node.engine.db.updateTable('vendors').set({ language: 'es' }).where('id', '=', v.vendorId).execute();

    const stranger = giftBody({ amount: 12.5, recipient: { name: 'Lucía', email: freshEmail('lucia') } });
    await buyOk(v.vendorId, stranger);
    const { mail: es } = await giftMail(stranger.recipient.email);
    expect(es.subject).toBe('Mateo Ruiz le envió un eGift de 12,50 US$ para Café Luna');
    expect(es.text).toMatch(/^¡Hola, Lucía!$/m);
    expect(es.text).toContain('Su mensaje: «Happy birthday!»');
    expect(es.text).toMatch(/^Código: [0-9A-Z-]{19}$/m);
    expect(es.html).toContain('<html lang="es">');

    // A member who chose English (language 1) reads it in English.
    const member = await signUp(v.vendorId, { language: 1 });
    const toMember = giftBody({ recipient: { name: 'Ana', email: member.email } });
    await buyOk(v.vendorId, toMember);
    const { mail: en } = await giftMail(member.email);
    expect(en.subject).toBe('Mateo Ruiz sent you a $25.00 eGift for Café Luna');
    expect(en.html).toContain('<html lang="en">');
  });
});
