import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customerApi, type Customer, expectLegacyError, FORM, freshEmail, PASSWORD, ROOMY_RATE_LIMITS, withSessionKey } from '../support/customers';
import { extractCode, type Mailbox, type ParsedMail, startMailbox } from '../support/mailbox';
import { inStoreApi } from '../support/in-store';
import { http, type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// The two loops that run on a secret sent by email, over real HTTP and a real SMTP server:
// password reset (reset -> emailed token -> apply) and account deletion (submit -> emailed code ->
// confirm).

const NEW_PASSWORD = 'battery staple 2';
/** 16 Crockford base32 characters shown as XXXX-XXXX-XXXX-XXXX. */
const LONG_CODE = /^[0-9A-HJKMNP-TV-Z]{4}(?:-[0-9A-HJKMNP-TV-Z]{4}){3}$/;

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

const { orderOk, voidOk } = inStoreApi(() => node);
const { vendor, post, register, signUp, login, loginOk, getProfile, profileOk, newMail, requestReset, lookupOk } = customerApi(() => node, {
  vendorName: 'Heladería',
  mailbox: () => mailbox,
});

function codeOf(mail: ParsedMail): string {
  const code = extractCode(mail.text);
  expect(code).toMatch(LONG_CODE);
  return code!;
}

async function resetToken(email: string, vendorId: number): Promise<{ token: string; mail: ParsedMail }> {
  const mail = await newMail(email, () => requestReset(email, vendorId));
  return { token: codeOf(mail), mail };
}

function applyReset(token: string, password: string): Promise<HttpReply> {
  return post('/user/password-reset/apply', { token, password });
}

async function applyOk(token: string, password: string): Promise<void> {
  const reply = await applyReset(token, password);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  expect(reply.body).toStrictEqual({});
}

function submitDeletion(key: string, vendorId: number | string, userId: number | string): Promise<HttpReply> {
  return http(`${node.url}${withSessionKey(`/vendor/${vendorId}/customers/${userId}/submit`, key)}`, { method: 'DELETE' });
}

async function deletionCode(c: Customer): Promise<{ code: string; mail: ParsedMail }> {
  const mail = await newMail(c.email, () => submitDeletion(c.key, c.vendorId, c.userId));
  return { code: codeOf(mail), mail };
}

function confirmDeletion(vendorId: number, body: unknown, headers?: Record<string, string>): Promise<HttpReply> {
  return http(`${node.url}/vendor/${vendorId}/customers`, { method: 'DELETE', body, ...(headers ? { headers } : {}) });
}

async function confirmOk(vendorId: number, code: string): Promise<void> {
  const reply = await confirmDeletion(vendorId, { code });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  expect(reply.body).toStrictEqual({});
}

async function emailExists(email: string, vendorId: number): Promise<any> {
  return lookupOk('/user/email/exists', { email, vendor: vendorId });
}

async function outboxRowsTo(email: string) {
  return node.engine.db.selectFrom('messages_outbox').selectAll().where('recipient', '=', email).execute();
}

// ---------------------------------------------------------------------------------------------

describe('password reset', () => {
  it('reset answers {} and emails a token (English): XXXX-XXXX-XXXX-XXXX, valid 60 minutes', async () => {
    const v = await vendor('Heladería Polo');
    const c = await signUp(v.vendorId, { first_name: 'Inés' });
    const { token, mail } = await resetToken(c.email, v.vendorId);
    expect(mail.to).toEqual([c.email]);
    expect(mail.subject).toBe('Reset your Heladería Polo password');
    expect(mail.text).toContain('Hi Inés,');
    expect(mail.text).toContain(`\nCode: ${token}\n`);
    expect(mail.text).toContain('The code expires in 60 minutes.');
    // Kept as a digest only.
    const rows = await node.engine.db.selectFrom('one_time_codes').selectAll().where('user_id', '=', c.userId).execute();
    const text = JSON.stringify(rows);
    expect(text).not.toContain(token);
    expect(text).not.toContain(token.replace(/-/g, ''));
  });

  it('writes in Spanish to a customer who chose language 2', async () => {
    const v = await vendor('Heladería Sur');
    const c = await signUp(v.vendorId, { first_name: 'Inés', language: 2 });
    const { token, mail } = await resetToken(c.email, v.vendorId);
    expect(mail.subject).toBe('Restablezca su contraseña de Heladería Sur');
    expect(mail.text).toContain('¡Hola, Inés!');
    expect(mail.text).toContain(`\nCódigo: ${token}\n`);
    expect(mail.text).toContain('El código vence en 60 minutos.');
  });

  it('answers {} for an unknown email too, and sends nothing', async () => {
    const v = await vendor();
    const ghost = freshEmail('ghost');
    const before = mailbox.messages.length;
    const reply = await requestReset(ghost, v.vendorId);
    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual({});
    await node.messaging.drain();
    expect(await outboxRowsTo(ghost)).toHaveLength(0);
    expect(mailbox.messages.slice(before).some((m) => m.to.includes(ghost))).toBe(false);
    // The same call for an existing account does queue one.
    const c = await signUp(v.vendorId);
    await resetToken(c.email, v.vendorId);
    expect(await outboxRowsTo(c.email)).toHaveLength(1);
  });

  it('finds the account whatever the letter case, and accepts form fields', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    const form = new URLSearchParams({ email_address: c.email.toUpperCase(), vendor: String(v.vendorId) }).toString();
    const mail = await newMail(c.email, () => post('/user/password-reset/reset', form, FORM));
    const token = codeOf(mail);
    const apply = await post('/user/password-reset/apply', new URLSearchParams({ token, password: NEW_PASSWORD }).toString(), FORM);
    expect(apply.status, JSON.stringify(apply.body)).toBe(200);
    await loginOk(c.email, NEW_PASSWORD, v.vendorId);
  });

  it('refuses an unknown vendor (404) and missing fields (400)', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    expectLegacyError(await requestReset(c.email, 987_654_321), 404, 'vendor_not_found', 'vendor');
    expectLegacyError(await post('/user/password-reset/reset', { vendor: v.vendorId }), 400, 'validation_failed', 'email_address');
    expectLegacyError(await post('/user/password-reset/reset', { email_address: c.email }), 400, 'validation_failed', 'vendor');
    expectLegacyError(await post('/user/password-reset/apply', { password: NEW_PASSWORD }), 400, 'validation_failed', 'token');
    expectLegacyError(await post('/user/password-reset/apply', { token: 'ABCD-EFGH-JKMN-PQRS' }), 400, 'validation_failed', 'password');
  });

  it('apply sets the new password once: old fails, new works, the token a second time is 400 invalid_code', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    const { token } = await resetToken(c.email, v.vendorId);
    await applyOk(token, NEW_PASSWORD);
    expectLegacyError(await login(c.email, PASSWORD, v.vendorId), 401, 'invalid_credentials');
    await loginOk(c.email, NEW_PASSWORD, v.vendorId);
    expectLegacyError(await applyReset(token, 'a third password'), 400, 'invalid_code');
    await loginOk(c.email, NEW_PASSWORD, v.vendorId);
  });

  it('refuses a made-up token with 400 invalid_code', async () => {
    expectLegacyError(await applyReset('ABCD-EFGH-JKMN-PQRS', NEW_PASSWORD), 400, 'invalid_code');
  });

  it('names the input field at fault, `token`, when the token is wrong or expired', async () => {
    // The other tests check the reason; this one the field (the body field is `token`, not `code`).
    const v = await vendor();
    const c = await signUp(v.vendorId);
    expectLegacyError(await applyReset('ABCD-EFGH-JKMN-PQRS', NEW_PASSWORD), 400, 'invalid_code', 'token');
    const { token } = await resetToken(c.email, v.vendorId);
    node.clock.advance(60 * 60_000);
    expectLegacyError(await applyReset(token, NEW_PASSWORD), 400, 'code_expired', 'token');
  });

  it('checks the new password before using the token up', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    const { token } = await resetToken(c.email, v.vendorId);
    expectLegacyError(await applyReset(token, 'short'), 400, 'weak_password', 'password');
    await loginOk(c.email, PASSWORD, v.vendorId);
    await applyOk(token, NEW_PASSWORD);
    await loginOk(c.email, NEW_PASSWORD, v.vendorId);
  });

  it('forgives how the token is typed: lower case, no dashes, O for 0, I or L for 1', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    const { token } = await resetToken(c.email, v.vendorId);
    const typed = token.replace(/-/g, ' ').toLowerCase().replace(/0/g, 'o').replace(/1/g, 'l');
    await applyOk(` ${typed} `, NEW_PASSWORD);
    await loginOk(c.email, NEW_PASSWORD, v.vendorId);
  });

  it('expires after 60 minutes: 400 code_expired', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    const { token } = await resetToken(c.email, v.vendorId);
    node.clock.advance(60 * 60_000);
    expectLegacyError(await applyReset(token, NEW_PASSWORD), 400, 'code_expired');
    await loginOk(c.email, PASSWORD, v.vendorId);

    const fresh = await resetToken(c.email, v.vendorId);
    node.clock.advance(60 * 60_000 - 1_000);
    await applyOk(fresh.token, NEW_PASSWORD);
  });

  it('a new token replaces the previous one', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    const first = await resetToken(c.email, v.vendorId);
    const second = await resetToken(c.email, v.vendorId);
    expect(second.token).not.toBe(first.token);
    expectLegacyError(await applyReset(first.token, NEW_PASSWORD), 400, 'invalid_code');
    await applyOk(second.token, NEW_PASSWORD);
  });

  it('ends every session of the account, at every vendor', async () => {
    const a = await vendor();
    const b = await vendor();
    const c = await signUp(a.vendorId);
    const second = await loginOk(c.email, PASSWORD, a.vendorId);
    const atB = await loginOk(c.email, PASSWORD, b.vendorId);
    const { token } = await resetToken(c.email, a.vendorId);
    // Asking for a reset ends nothing.
    expect((await getProfile(c.key)).status).toBe(200);
    await applyOk(token, NEW_PASSWORD);
    for (const key of [c.key, second.session_identifier, atB.session_identifier]) expectLegacyError(await getProfile(key), 401, 'session_ended');
    // The app shows why, in words that fit a reset (not "You have logged out").
    expect((await getProfile(c.key)).body.error.errors[0].message).toBe('This session has ended: logged out, the password changed, or the account closed. Please log in again.');
  });

  it('a token emailed before the account changed its email no longer works (the old mailbox may not be theirs any more)', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    const { token } = await resetToken(c.email, v.vendorId);
    const newEmail = freshEmail('moved');
    const put = await http(`${node.url}${withSessionKey('/user/profile', c.key)}`, { method: 'PUT', body: { email_address: newEmail, current_password: PASSWORD } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expectLegacyError(await applyReset(token, NEW_PASSWORD), 400, 'invalid_code', 'token');
    await loginOk(newEmail, PASSWORD, v.vendorId);
    // A token asked for the new address works.
    const fresh = await resetToken(newEmail, v.vendorId);
    await applyOk(fresh.token, NEW_PASSWORD);
  });

  it('lifts a lockout', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    for (let i = 0; i < 5; i++) await login(c.email, 'wrong password', v.vendorId);
    expectLegacyError(await login(c.email, PASSWORD, v.vendorId), 429, 'account_locked');
    const { token } = await resetToken(c.email, v.vendorId);
    await applyOk(token, NEW_PASSWORD);
    await loginOk(c.email, NEW_PASSWORD, v.vendorId);
  });
});

describe('account deletion', () => {
  it('submit answers {} and emails a code (valid 30 minutes); confirm answers {} and deletes the account', async () => {
    const v = await vendor('Heladería Luna');
    const c = await signUp(v.vendorId, { first_name: 'Inés' });
    const other = await loginOk(c.email, PASSWORD, v.vendorId);
    const { code, mail } = await deletionCode(c);
    expect(mail.to).toEqual([c.email]);
    expect(mail.subject).toBe('Confirm deleting your Heladería Luna account');
    expect(mail.text).toContain('Hi Inés,');
    expect(mail.text).toContain(`\nCode: ${code}\n`);
    expect(mail.text).toContain('The code expires in 30 minutes.');
    // Submitting alone deletes nothing.
    expect((await getProfile(c.key)).status).toBe(200);

    await confirmOk(v.vendorId, code);
    for (const key of [c.key, other.session_identifier]) expectLegacyError(await getProfile(key), 401, 'invalid_session');
    expectLegacyError(await login(c.email, PASSWORD, v.vendorId), 401, 'invalid_credentials');
    expect(await emailExists(c.email, v.vendorId)).toStrictEqual({ exists: false, vendor: { id: v.vendorId, name: 'Heladería Luna' } });

    // The person is erased; the email can register again, as a new account.
    const row = await node.engine.db.selectFrom('users').selectAll().where('id', '=', c.userId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ email: null, password_hash: null, first_name: '', last_name: '', phone: null, status: 'deleted' });
    const again = await register(v.vendorId, { email_address: c.email });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.id).not.toBe(String(c.userId));
    const fresh = await loginOk(c.email, PASSWORD, v.vendorId);
    expect(fresh.first_login).toBe(true);
  });

  it('writes the deletion email in Spanish to a customer who chose language 2', async () => {
    const v = await vendor('Heladería Mar');
    const c = await signUp(v.vendorId, { first_name: 'Inés', language: 2 });
    const { code, mail } = await deletionCode(c);
    expect(mail.subject).toBe('Confirme la eliminación de su cuenta de Heladería Mar');
    expect(mail.text).toContain(`\nCódigo: ${code}\n`);
    expect(mail.text).toContain('El código vence en 30 minutos.');
  });

  it('erases the profile data: phone, address and metadata', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId, { birthdate: 631_152_000 });
    const put = await http(`${node.url}/user/profile?session_key=${c.key}`, {
      method: 'PUT',
      body: { phone_number: { number: '0991555001', code: '593' }, country: 218, region: 218_350_000, city: 'Quito', address1: 'Av. 10', postal_code: '170150', metadata: { favourite: 'mango' } },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const link = await node.engine.db.selectFrom('user_vendors').select('id').where('user_id', '=', c.userId).executeTakeFirstOrThrow();
    const { code } = await deletionCode(c);
    await confirmOk(v.vendorId, code);
    const row = await node.engine.db.selectFrom('users').selectAll().where('id', '=', c.userId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ email: null, email_key: null, phone: null, birthdate: null, address1: null, city: null, region_id: null, country_id: null, postal_code: null, cedula: null });
    expect(await node.engine.db.selectFrom('user_metadata').selectAll().where('user_vendor_id', '=', link.id).execute()).toHaveLength(0);
    // The phone is free again.
    const mobile = await http(`${node.url}/user/mobile/exists?mobile=%2B593991555001&vendor=${v.vendorId}`);
    expect(mobile.body).toStrictEqual({ available: true });
  });

  it('a deletion code emailed before the account changed its email no longer deletes', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    const { code } = await deletionCode(c);
    const put = await http(`${node.url}${withSessionKey('/user/profile', c.key)}`, { method: 'PUT', body: { email_address: freshEmail('moved'), current_password: PASSWORD } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expectLegacyError(await confirmDeletion(v.vendorId, { code }), 400, 'invalid_code', 'code');
    expect((await getProfile(c.key)).status).toBe(200);
  });

  it('erasure leaves neither the email nor the phone in the message outbox, and cancels what was not sent yet', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId, { email_address: freshEmail('Outbox.Person') });
    const phone = '+593991555003';
    expect((await http(`${node.url}${withSessionKey('/user/profile', c.key)}`, { method: 'PUT', body: { phone_number: phone } })).status).toBe(200);
    expect((await http(`${node.url}${withSessionKey('/user/activate/sms', c.key)}`)).status).toBe(200);
    expect((await http(`${node.url}${withSessionKey('/user/activate/email', c.key)}`)).status).toBe(200);
    await node.messaging.drain();
    // One not sent yet: a gift's email to the same address, typed in another letter case.
    await node.engine.db
      .insertInto('messages_outbox')
      .values({ id: 1_000_001, vendor_id: v.vendorId, channel: 'email', recipient: c.email.toUpperCase(), template: 'egift_received', locale: 'en', params: '{"buyer_name":"Ana"}', status: 'pending', attempts: 0, next_attempt_at: node.clock.now() + 3_600_000, last_error: null, created_at: node.clock.now(), sent_at: null })
      .execute();
    const { code } = await deletionCode(c);
    await confirmOk(v.vendorId, code);

    const rows = await node.engine.db.selectFrom('messages_outbox').selectAll().execute();
    const text = JSON.stringify(rows).toLowerCase();
    expect(text).not.toContain(c.email.toLowerCase());
    expect(text).not.toContain(phone);
    expect(rows.find((row) => row.id === 1_000_001)).toMatchObject({ status: 'failed', params: null });
  });

  it('erasure leaves no name in the stored replies of the customer\'s orders (kept to answer a resent order)', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId, { first_name: 'Zacarías', last_name: 'Quintanilla' });
    const first = await orderOk(v.apiKey, { card_number: c.email, receipt_number: 'erase-1', subtotal: 5 });
    expect(first.user).toMatchObject({ first_name: 'Zacarías' });
    await orderOk(v.apiKey, { card_number: c.email, receipt_number: 'erase-2', subtotal: 7 });
    await voidOk(v.apiKey, 'erase-2');
    const { code } = await deletionCode(c);
    await confirmOk(v.vendorId, code);
    const orders = await node.engine.db.selectFrom('orders').select(['reply', 'void_reply', 'subtotal']).where('user_id', '=', c.userId).execute();
    expect(orders).toHaveLength(2);
    const text = JSON.stringify(orders);
    expect(text).not.toContain('Zacar');
    expect(text).not.toContain('Quintanilla');
    // The books stay: amounts and the reply's shape.
    expect(orders.map((o) => Number(o.subtotal)).sort()).toEqual([500, 700]);
    expect(JSON.parse(orders[0]!.reply).user.id).toBe(c.userId);
  });

  it('a customer the program blocked is still blocked after deleting the membership and logging in again', async () => {
    const a = await vendor();
    const b = await vendor();
    const c = await signUp(a.vendorId);
    await loginOk(c.email, PASSWORD, b.vendorId);
    await node.engine.db.updateTable('user_vendors').set({ blocked_at: node.clock.now(), blocked_reason: 'chargebacks' }).where('user_id', '=', c.userId).where('vendor_id', '=', a.vendorId).execute();
    const { code } = await deletionCode(c);
    await confirmOk(a.vendorId, code);
    await loginOk(c.email, PASSWORD, a.vendorId);
    const link = await node.engine.db
      .selectFrom('user_vendors')
      .select(['blocked_at', 'blocked_reason'])
      .where('user_id', '=', c.userId)
      .where('vendor_id', '=', a.vendorId)
      .where('removed_at', 'is', null)
      .executeTakeFirstOrThrow();
    expect(link.blocked_reason).toBe('chargebacks');
    expect(link.blocked_at).not.toBeNull();
  });

  it('nor does checking in at the counter after deleting the membership lift the block: 403 customer_blocked, no session', async () => {
    const a = await vendor();
    const b = await vendor();
    const c = await signUp(a.vendorId);
    await loginOk(c.email, PASSWORD, b.vendorId);
    await node.engine.db.updateTable('user_vendors').set({ blocked_at: node.clock.now(), blocked_reason: 'chargebacks' }).where('user_id', '=', c.userId).where('vendor_id', '=', a.vendorId).execute();
    const { code } = await deletionCode(c);
    await confirmOk(a.vendorId, code);
    const checkIn = await http(`${node.url}/onscreen?api_key=${encodeURIComponent(a.apiKey)}`, { method: 'POST', body: { card_number: c.email } });
    expect([checkIn.status, checkIn.body.error?.errors[0].reason]).toEqual([403, 'customer_blocked']);
    const sessions = await node.engine.db.selectFrom('pos_sessions').select('id').where('user_id', '=', c.userId).where('vendor_id', '=', a.vendorId).execute();
    expect(sessions).toHaveLength(0);
  });

  it('submit with another user id or another vendor id in the path is 404 user_not_found, and sends nothing', async () => {
    const a = await vendor();
    const b = await vendor();
    const c = await signUp(a.vendorId);
    const someoneElse = await signUp(a.vendorId);
    await loginOk(c.email, PASSWORD, b.vendorId);
    const before = mailbox.messages.length;
    expectLegacyError(await submitDeletion(c.key, a.vendorId, someoneElse.userId), 404, 'user_not_found');
    expectLegacyError(await submitDeletion(c.key, b.vendorId, c.userId), 404, 'user_not_found');
    expectLegacyError(await submitDeletion(c.key, 987_654_321, c.userId), 404, 'user_not_found');
    await node.messaging.drain();
    expect(mailbox.messages.slice(before).filter((m) => m.to.includes(c.email) || m.to.includes(someoneElse.email))).toHaveLength(0);
    expect((await getProfile(someoneElse.key)).status).toBe(200);
  });

  it('submit needs a session and integer path ids', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    expectLegacyError(await http(`${node.url}/vendor/${v.vendorId}/customers/${c.userId}/submit`, { method: 'DELETE' }), 401, 'missing_credentials');
    expectLegacyError(await submitDeletion(c.key, 'abc', c.userId), 400, 'validation_failed', 'vendor_id');
  });

  it('a code works once: the same code twice is 400 invalid_code', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    const { code } = await deletionCode(c);
    await confirmOk(v.vendorId, code);
    expectLegacyError(await confirmDeletion(v.vendorId, { code }), 400, 'invalid_code', 'code');
  });

  it('refuses a made-up code, a missing code, and an expired one (30 minutes)', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    expectLegacyError(await confirmDeletion(v.vendorId, { code: 'ABCD-EFGH-JKMN-PQRS' }), 400, 'invalid_code', 'code');
    expectLegacyError(await confirmDeletion(v.vendorId, {}), 400, 'validation_failed', 'code');
    const { code } = await deletionCode(c);
    node.clock.advance(30 * 60_000);
    expectLegacyError(await confirmDeletion(v.vendorId, { code }), 400, 'code_expired', 'code');
    expect((await getProfile(c.key)).status).toBe(200);

    const fresh = await deletionCode(c);
    node.clock.advance(30 * 60_000 - 1_000);
    await confirmOk(v.vendorId, fresh.code);
  });

  it('a new code replaces the previous one', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    const first = await deletionCode(c);
    const second = await deletionCode(c);
    expectLegacyError(await confirmDeletion(v.vendorId, { code: first.code }), 400, 'invalid_code', 'code');
    await confirmOk(v.vendorId, second.code);
  });

  it('accepts the code as form fields and as JSON text, typed loosely', async () => {
    const v = await vendor();
    const one = await signUp(v.vendorId);
    const { code } = await deletionCode(one);
    const form = await confirmDeletion(v.vendorId, `code=${code.toLowerCase()}`, FORM);
    expect(form.status, JSON.stringify(form.body)).toBe(200);
    expect(form.body).toStrictEqual({});
    const two = await signUp(v.vendorId);
    const next = await deletionCode(two);
    const json = await confirmDeletion(v.vendorId, JSON.stringify({ code: next.code.replace(/-/g, '') }), FORM);
    expect(json.status, JSON.stringify(json.body)).toBe(200);
    expectLegacyError(await login(two.email, PASSWORD, v.vendorId), 401, 'invalid_credentials');
  });

  it('a code for vendor A used on vendor B\'s path is 400 invalid_code and deletes nothing', async () => {
    const a = await vendor();
    const b = await vendor();
    const c = await signUp(a.vendorId);
    const atB = await loginOk(c.email, PASSWORD, b.vendorId);
    const { code } = await deletionCode(c);
    expectLegacyError(await confirmDeletion(b.vendorId, { code }), 400, 'invalid_code', 'code');
    expect((await getProfile(c.key)).status).toBe(200);
    expect((await getProfile(atB.session_identifier)).status).toBe(200);
    // The code was not used up by the wrong path: it still deletes at A.
    await confirmOk(a.vendorId, code);
    expectLegacyError(await getProfile(c.key), 401, 'session_ended');
  });

  it('an account linked to two vendors, deleted at one, keeps working at the other', async () => {
    const a = await vendor('Heladería A');
    const b = await vendor('Heladería B');
    const c = await signUp(a.vendorId, { first_name: 'Inés', last_name: 'Paz', birthdate: 631_152_000, contact_consent: 3 });
    const atB = await loginOk(c.email, PASSWORD, b.vendorId);
    expect(atB.first_login).toBe(true);
    const keyB = atB.session_identifier;
    const put = await http(`${node.url}/user/profile?session_key=${keyB}`, {
      method: 'PUT',
      body: { phone_number: { number: '0991555002', code: '593' }, country: 218, region: 218_350_000, city: 'Quito', contact_consent: 2, language: 2, metadata: { flavour: 'mora' } },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect((await http(`${node.url}/user/profile?session_key=${c.key}`, { method: 'PUT', body: { metadata: { topping: 'nuts' } } })).status).toBe(200);
    const profileB = await profileOk(keyB);
    for (const key of [c.key, keyB]) expect((await post(`/user/token/request?session_key=${key}`, { token_type: 2 })).status).toBe(200);

    const { code } = await deletionCode(c);
    await confirmOk(a.vendorId, code);

    // Gone at A: its sessions end, its barcodes there go.
    expectLegacyError(await getProfile(c.key), 401, 'session_ended');
    const barcodes = await node.engine.db.selectFrom('barcode_tokens').select('vendor_id').where('user_id', '=', c.userId).execute();
    expect(barcodes.map((t) => t.vendor_id)).toEqual([b.vendorId]);
    // Intact at B: the live session, a new login, the whole profile.
    expect(await profileOk(keyB)).toStrictEqual(profileB);
    const again = await loginOk(c.email, PASSWORD, b.vendorId);
    expect(again.first_login).toBe(false);
    expect(again.user_vendor.user).toStrictEqual({ object: 'user', id: String(c.userId), first_name: 'Inés', last_name: 'Paz' });
    const later = await profileOk(again.session_identifier);
    expect(later).toStrictEqual(profileB);
    expect(later.user.email_address).toBe(c.email);
    expect(later.user.phone_number).toBe('+593991555002');
    expect(later.metadata.map((m: any) => [m.field, m.value])).toEqual([['flavour', 'mora']]);
    // The email still has its account.
    expect(await emailExists(c.email, b.vendorId)).toStrictEqual({ exists: true, vendor: { id: a.vendorId, name: 'Heladería A' } });
    // Logging in at A again is a fresh start there: a new link without A's old data.
    const back = await loginOk(c.email, PASSWORD, a.vendorId);
    expect(back.first_login).toBe(true);
    expect(back.user_vendor.contact_consent).toBe(0);
    expect((await profileOk(back.session_identifier)).metadata).toStrictEqual([]);
  });
});
