import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { customerApi, expectLegacyError, FORM, freshEmail, PASSWORD, phoneOnlyGuestAt, ROOMY_RATE_LIMITS, withSessionKey } from '../support/customers';
import { ownerOf, staffCall } from '../support/backoffice';
import { inStoreApi } from '../support/in-store';
import { extractCode, type Mailbox, startMailbox } from '../support/mailbox';
import { http, startTestNode, type TestNode } from '../support/test-node';

// A guest opened at a counter (an email or a phone, no password) holds points and quick pay. Knowing
// its email or phone is not owning it: whoever wants it in the app proves the mailbox with a
// password reset (the token goes to the guest's email). Registering with the guest's email, phone
// or by the referral page is refused and changes nothing; over real HTTP and a real SMTP server.

const THIEF_PASSWORD = 'not my account 1';
const OWNER_PASSWORD = 'my own account 2';

let node: TestNode;
let mailbox: Mailbox;

beforeAll(async () => {
  mailbox = await startMailbox();
  node = await startTestNode({ messaging: { smtpUrl: mailbox.url }, rateLimits: ROOMY_RATE_LIMITS });
});

afterAll(async () => {
  await node?.close();
  await mailbox?.close();
});

// ---------------------------------------------------------------------------------------------
// helpers

const { vendorName, post, register, login, loginOk, lookupOk, signUp, putProfile, requestReset, newMail, freshPhone } = customerApi(() => node, {
  vendorName: 'Tienda',
  phoneSeries: '6',
  mailbox: () => mailbox,
});
const { credit, balanceOf, checkIn } = inStoreApi(() => node);

const ecVendor = () => setUpVendor(node.engine, { name: vendorName('Tienda EC'), currency: 'USD', country: 'EC', store: { name: 'Centro', address1: 'Av. 10', city: 'Quito' } });
const userRow = (id: number) => node.engine.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

/** A guest the counter opens with this email (and phone), holding 120 points and $25.00 of quick pay. */
async function guestWithValue(v: VendorCredentials, contact: { email: string; phone?: { national: string } }): Promise<number> {
  const body = { email: contact.email, ...(contact.phone ? { phone_number: { number: contact.phone.national, code: '593' } } : {}) };
  const opened = await http(`${node.url}/onscreen/register?api_key=${encodeURIComponent(v.apiKey)}`, { method: 'POST', body });
  expect(opened.status, JSON.stringify(opened.body)).toBe(201);
  const guest = await node.engine.db.selectFrom('users').select(['id', 'password_hash']).where('email_key', '=', contact.email.toLowerCase()).executeTakeFirstOrThrow();
  expect(guest.password_hash).toBeNull();
  await credit(v, v.loyaltyCurrencyId, guest.id, 120);
  await credit(v, v.quickPayCurrencyId, guest.id, 2500);
  return guest.id;
}

async function expectUntouched(v: VendorCredentials, guestId: number, before: Awaited<ReturnType<typeof userRow>>): Promise<void> {
  expect(await userRow(guestId)).toStrictEqual(before);
  expect(await balanceOf(v.loyaltyCurrencyId, guestId)).toBe(120);
  expect(await balanceOf(v.quickPayCurrencyId, guestId)).toBe(2500);
  const sessions = await node.engine.db.selectFrom('user_sessions').select('id').where('user_id', '=', guestId).execute();
  expect(sessions).toEqual([]);
}

// ---------------------------------------------------------------------------------------------

describe('a counter guest cannot be taken by whoever knows its email or phone', () => {
  it('POST /user/register with the guest\'s email answers 409 email_taken (any case, any vendor), sets no password, and the password it sent logs nobody in', async () => {
    const v = await ecVendor();
    const other = await ecVendor();
    const email = freshEmail('guest');
    const guestId = await guestWithValue(v, { email, phone: freshPhone() });
    const before = await userRow(guestId);

    for (const [vendorId, address] of [[v.vendorId, email], [v.vendorId, ` ${email.toUpperCase()} `], [other.vendorId, email]] as const) {
      const reply = await register(vendorId, { email_address: address, first_name: 'Mallory', last_name: 'Thief', password: THIEF_PASSWORD });
      expectLegacyError(reply, 409, 'email_taken', 'email_address');
      // What the app shows: the way in for someone who never chose a password.
      expect(reply.body.error.errors[0].message).toMatch(/reset your password/i);
    }
    await expectUntouched(v, guestId, before);
    // (A wrong login counts towards the guest's lockout, as for any account: checked last.)
    expectLegacyError(await login(email, THIEF_PASSWORD, v.vendorId), 401, 'invalid_credentials');
  });

  it("no other way in: a sign-up with the guest's phone, a profile change or an SMS verification to its email or phone are 409s", async () => {
    const v = await ecVendor();
    const email = freshEmail('guest');
    const phone = freshPhone();
    const guestId = await guestWithValue(v, { email, phone });
    const before = await userRow(guestId);

    // Registering over the guest is the way the hole was open; it stays shut.
    expectLegacyError(await register(v.vendorId, { email_address: email, password: THIEF_PASSWORD }), 409, 'email_taken', 'email_address');
    // The thief's own email with the guest's phone.
    expectLegacyError(await register(v.vendorId, { phone_number: { number: phone.national, code: '593' } }), 409, 'phone_taken', 'phone_number');
    // A thief with an account of their own moves onto the guest's email or phone.
    const thief = await signUp(v.vendorId);
    expectLegacyError(await putProfile(thief.key, { email_address: email.toUpperCase(), current_password: PASSWORD }), 409, 'email_taken', 'email_address');
    expectLegacyError(await putProfile(thief.key, { phone_number: { number: phone.national, code: '593' } }), 409, 'phone_taken', 'phone_number');
    const sms = await http(`${node.url}/user/activate/sms?session_identifier=${encodeURIComponent(thief.key)}&phone=${phone.national}&country=EC`);
    expectLegacyError(sms, 409, 'phone_taken', 'phone');
    await expectUntouched(v, guestId, before);
  });

  it('POST /join (the referral page) with the guest\'s email: 409 in the form, the referrer is not credited, the guest keeps no password', async () => {
    const v = await ecVendor();
    const settings = await http(`${node.url}/program/settings`, { method: 'PUT', token: v.accessToken, body: { referral_points: 25 } });
    expect(settings.status, JSON.stringify(settings.body)).toBe(200);
    const referrer = await signUp(v.vendorId);
    const { referral_code: code } = await node.engine.db
      .selectFrom('user_vendors')
      .select('referral_code')
      .where('user_id', '=', referrer.userId)
      .where('vendor_id', '=', v.vendorId)
      .executeTakeFirstOrThrow();
    const email = freshEmail('guest');
    const guestId = await guestWithValue(v, { email });
    const before = await userRow(guestId);

    const form = new URLSearchParams({ code: code!, first_name: 'Mallory', last_name: 'Thief', email_address: email, password: THIEF_PASSWORD, terms: 'true' }).toString();
    const joined = await fetch(`${node.url}/join?lang=en`, { method: 'POST', headers: FORM, body: form });
    expect(joined.status).toBe(409);
    expect(await joined.text()).toMatch(/already exists/);
    expect(await balanceOf(v.loyaltyCurrencyId, referrer.userId)).toBe(0);
    await expectUntouched(v, guestId, before);
    // (A wrong login counts towards the guest's lockout, as for any account: checked last.)
    expectLegacyError(await login(email, THIEF_PASSWORD, v.vendorId), 401, 'invalid_credentials');
  });
});

describe('the guest claims the account by proving the email', () => {
  it('email/exists says the email has an account; a password reset emailed to the guest sets the password; the login is the same account with its balances', async () => {
    const v = await ecVendor();
    const email = freshEmail('guest');
    const guestId = await guestWithValue(v, { email });

    // The app asks first, and sends the customer to log in (or reset the password), not to sign up.
    expect(await lookupOk('/user/email/exists', { email, vendor: v.vendorId })).toStrictEqual({ exists: true, vendor: { id: v.vendorId, name: expect.any(String) } });
    expectLegacyError(await register(v.vendorId, { email_address: email, password: OWNER_PASSWORD }), 409, 'email_taken', 'email_address');

    const mail = await newMail(email, () => requestReset(email, v.vendorId));
    expect(mail.to).toEqual([email]);
    const token = extractCode(mail.text);
    expect(token).toBeDefined();
    const applied = await post('/user/password-reset/apply', { token, password: OWNER_PASSWORD });
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);

    const session = await loginOk(email, OWNER_PASSWORD, v.vendorId);
    expect(session.first_login).toBe(true);
    expect(session.user_vendor.user.id).toBe(String(guestId));
    const quickPay = await http(`${node.url}${withSessionKey('/user/quick-pay/balance', session.session_identifier)}`);
    expect(quickPay.status, JSON.stringify(quickPay.body)).toBe(200);
    expect(quickPay.body.amount).toBe(25);
    expect(await balanceOf(v.loyaltyCurrencyId, guestId)).toBe(120);
    // The reset proved the mailbox: the email counts as verified.
    expect((await isValidated(session.session_identifier)).status.Email).toBe(true);
  });

  it('an account someone else opened with the email is taken back by its owner: the reset sets their password, ends the other sessions and their barcodes, and verifies the email', async () => {
    const v = await ecVendor();
    const email = freshEmail('preregistered');
    // Someone who knows the address signs up with it (nothing checks the mailbox at sign-up).
    const squatter = await signUp(v.vendorId, { email_address: email, first_name: 'Mallory' });
    expect((await isValidated(squatter.key)).status.Email).toBe(false);
    // Their app shows a barcode (it checks in as the account for 15 minutes).
    const drawn = await http(`${node.url}${withSessionKey('/user/token/request', squatter.key)}`, { method: 'POST', body: { token_type: 2 } });
    expect(drawn.status, JSON.stringify(drawn.body)).toBe(200);
    // The counter then credits the account the email names (the real owner buys, gives the email).
    await credit(v, v.loyaltyCurrencyId, squatter.userId, 120);

    const mail = await newMail(email, () => requestReset(email, v.vendorId));
    const applied = await post('/user/password-reset/apply', { token: extractCode(mail.text), password: OWNER_PASSWORD });
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);

    // The squatter's session and password are gone; the owner holds the account and its points.
    expect((await http(`${node.url}${withSessionKey('/user/profile', squatter.key)}`)).status).toBe(401);
    expectLegacyError(await login(email, PASSWORD, v.vendorId), 401, 'invalid_credentials');
    // So are the barcodes drawn before the reset (found in review: one still checked in as the account).
    const counter = await checkIn(v.apiKey, drawn.body.token);
    expect(counter.status, JSON.stringify(counter.body)).toBe(404);
    const owner = await loginOk(email, OWNER_PASSWORD, v.vendorId);
    expect(owner.user_vendor.user.id).toBe(String(squatter.userId));
    expect((await isValidated(owner.session_identifier)).status).toStrictEqual({ 'No Verification': false, Email: true, Sms: false });
    expect(await balanceOf(v.loyaltyCurrencyId, squatter.userId)).toBe(120);
  });

  it('a guest the counter opened by phone alone: the back office adds an email, and the reset to it claims the account', async () => {
    const v = await ecVendor();
    const phone = freshPhone();
    const guestId = await phoneOnlyGuestAt(node, v.apiKey, { number: phone.national, code: '593', e164: phone.e164 });
    await credit(v, v.loyaltyCurrencyId, guestId, 120);

    const email = freshEmail('phone-guest');
    const staff = await ownerOf(node, v.vendorId);
    const added = await staffCall(node, staff.token, 'PUT', `/backoffice/customers/${guestId}/email`, { email });
    expect(added.status, JSON.stringify(added.body)).toBe(200);

    const mail = await newMail(email, () => requestReset(email, v.vendorId));
    const applied = await post('/user/password-reset/apply', { token: extractCode(mail.text), password: OWNER_PASSWORD });
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    const session = await loginOk(email, OWNER_PASSWORD, v.vendorId);
    expect(session.first_login).toBe(true);
    expect(session.user_vendor.user.id).toBe(String(guestId));
    expect(await balanceOf(v.loyaltyCurrencyId, guestId)).toBe(120);
  });
});

async function isValidated(key: string): Promise<{ isValidated: boolean; status: Record<string, boolean> }> {
  const reply = await http(`${node.url}${withSessionKey('/user/isValidated', key)}`);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body;
}
