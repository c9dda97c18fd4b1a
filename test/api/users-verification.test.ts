import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { customerApi, type Customer, expectLegacyError, freshEmail, PASSWORD, ROOMY_RATE_LIMITS } from '../support/customers';
import { extractCode, type Mailbox, type ParsedMail, startMailbox } from '../support/mailbox';
import { http, type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// Verification over real HTTP: GET /user/isValidated, the email loop through a real SMTP server,
// the SMS loop through the node's SMS files, and the vendor's choice of methods.

const NOT_VERIFIED = { 'No Verification': false, Email: false, Sms: false };

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

const { vendor, vendorName, freshPhone, post, signUp, lookup: get, profileOk, putProfile, newMail, smsFiles } = customerApi(() => node, {
  vendorName: 'Librería',
  phoneSeries: '3',
  mailbox: () => mailbox,
});

async function vendorWithMethods(methods: string[], name = vendorName()) {
  const v = await vendor(name);
  await node.engine.db.updateTable('vendors').set({ verification_methods: JSON.stringify(methods) }).where('id', '=', v.vendorId).execute();
  return v;
}

function isValidated(key: string): Promise<HttpReply> {
  return get('/user/isValidated', { session_key: key });
}

async function statusOk(key: string): Promise<any> {
  const reply = await isValidated(key);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body;
}

function activate(key: string, token: string): Promise<HttpReply> {
  return get('/user/activate', { session_key: key, token });
}

async function activateOk(key: string, token: string): Promise<void> {
  const reply = await activate(key, token);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  expect(reply.body).toStrictEqual({});
}

async function emailCode(c: Customer, param: 'session_identifier' | 'session_key' = 'session_identifier'): Promise<{ code: string; mail: ParsedMail }> {
  const mail = await newMail(c.email, () => get('/user/activate/email', { [param]: c.key }));
  const code = extractCode(mail.text);
  expect(code).toMatch(/^\d{6}$/);
  return { code: code!, mail };
}

/** Runs `action`, delivers the outbox, and returns the one new SMS (to `to`) and its 6-digit code. */
async function newSms(to: string, action: () => Promise<HttpReply>): Promise<{ code: string; text: string }> {
  const seen = new Set(smsFiles().map((s) => s.file));
  const reply = await action();
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  expect(reply.body).toStrictEqual({});
  await node.messaging.drain();
  const fresh = smsFiles().filter((s) => !seen.has(s.file));
  expect(fresh.map((s) => s.to)).toEqual([to]);
  const text = fresh[0]!.text;
  const code = /(\d{6})$/.exec(text)?.[1];
  expect(code).toBeDefined();
  return { code: code!, text };
}

function wrongCode(code: string): string {
  return String((Number(code) + 1) % 1_000_000).padStart(6, '0');
}

// ---------------------------------------------------------------------------------------------

describe('GET /user/isValidated', () => {
  it('answers the Verification status of a new account: nothing verified, both methods enabled', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    expect(await statusOk(c.key)).toStrictEqual({ isValidated: false, phone_number: null, methods: ['Email', 'Sms'], status: NOT_VERIFIED });
  });

  it('shows the phone number in E.164', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    const phone = freshPhone();
    expect((await putProfile(c.key, { phone_number: { number: phone.national, code: '593' } })).status).toBe(200);
    expect(await statusOk(c.key)).toStrictEqual({ isValidated: false, phone_number: phone.e164, methods: ['Email', 'Sms'], status: NOT_VERIFIED });
  });

  it('registration itself sends nothing', async () => {
    const v = await vendor();
    const before = mailbox.messages.length;
    const files = smsFiles().length;
    const c = await signUp(v.vendorId);
    await node.messaging.drain();
    expect(mailbox.messages.length).toBe(before);
    expect(smsFiles().length).toBe(files);
    expect(mailbox.messages.some((m) => m.to.includes(c.email))).toBe(false);
  });

  it('needs a session', async () => {
    expectLegacyError(await http(`${node.url}/user/isValidated`), 401, 'missing_credentials');
    expectLegacyError(await isValidated('pcsk_unknown-key-000000000000000000000000000000'), 401, 'invalid_session');
  });
});

describe('email verification', () => {
  it('emails a 6-digit code in English; GET /user/activate with it answers {} and verifies Email', async () => {
    const v = await vendor('Librería Norte');
    const c = await signUp(v.vendorId, { first_name: 'Marta' });
    const { code, mail } = await emailCode(c);
    expect(mail.to).toEqual([c.email]);
    expect(mail.envelope.to).toEqual([c.email]);
    expect(mail.subject).toBe('Confirm your email address for Librería Norte');
    expect(mail.text).toContain('Hi Marta,');
    expect(mail.text).toContain('Thanks for joining Librería Norte!');
    expect(mail.text).toContain(`\nCode: ${code}\n`);
    expect(mail.html).toContain(code);
    // The code is stored as a digest only.
    const rows = await node.engine.db.selectFrom('one_time_codes').selectAll().where('user_id', '=', c.userId).execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows.map((r) => r.code_hash))).not.toContain(code);

    await activateOk(c.key, code);
    expect(await statusOk(c.key)).toStrictEqual({ isValidated: true, phone_number: null, methods: ['Email', 'Sms'], status: { 'No Verification': false, Email: true, Sms: false } });
    expect((await profileOk(c.key)).is_verified).toStrictEqual({ status: true, methods: { 'No Verification': false, Email: true, Sms: false } });
    // Used up.
    expectLegacyError(await activate(c.key, code), 400, 'invalid_code', 'token');
  });

  it('writes in Spanish to a customer who chose language 2', async () => {
    const v = await vendor('Librería Sur');
    const c = await signUp(v.vendorId, { first_name: 'Marta', language: 2 });
    const { code, mail } = await emailCode(c);
    expect(mail.subject).toBe('Confirme su correo electrónico en Librería Sur');
    expect(mail.text).toContain('¡Hola, Marta!');
    expect(mail.text).toContain('¡Gracias por unirse a Librería Sur!');
    expect(mail.text).toContain(`\nCódigo: ${code}\n`);
    expect(mail.text).not.toContain('Code:');
    expect(mail.html).toContain('lang="es"');
    await activateOk(c.key, code);
    expect((await statusOk(c.key)).status.Email).toBe(true);
  });

  it('writes in the vendor\'s language when the customer chose none, and in the customer\'s when they did', async () => {
    const es = await setUpVendor(node.engine, { name: 'Librería Quito', currency: 'USD', country: 'EC', language: 'es', store: { name: 'Centro', address1: 'Av. 10', city: 'Quito' } });
    const plain = await signUp(es.vendorId);
    expect((await emailCode(plain)).mail.subject).toBe('Confirme su correo electrónico en Librería Quito');
    const english = await signUp(es.vendorId, { language: 1 });
    expect((await emailCode(english)).mail.subject).toBe('Confirm your email address for Librería Quito');
  });

  it('accepts session_identifier (the documented name) and session_key on activate/email', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    const first = await emailCode(c, 'session_identifier');
    const second = await emailCode(c, 'session_key');
    expect(second.code).toMatch(/^\d{6}$/);
    // A new code replaces the previous one.
    if (first.code !== second.code) expectLegacyError(await activate(c.key, first.code), 400, 'invalid_code', 'token');
    await activateOk(c.key, second.code);
    expect((await statusOk(c.key)).isValidated).toBe(true);
    expectLegacyError(await get('/user/activate/email', {}), 401, 'missing_credentials');
    expectLegacyError(await get('/user/activate/email', { session_identifier: 'pcsk_nope-000000000000000000000000000000000000' }), 401, 'invalid_session');
  });

  it('refuses a wrong code with 400 invalid_code; the 5th wrong try kills the code', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    const { code } = await emailCode(c);
    for (let i = 0; i < 4; i++) expectLegacyError(await activate(c.key, wrongCode(code)), 400, 'invalid_code', 'token');
    // Four wrong tries: the right code still works...
    await activateOk(c.key, code);

    const other = await signUp(v.vendorId);
    const next = await emailCode(other);
    for (let i = 0; i < 5; i++) expectLegacyError(await activate(other.key, wrongCode(next.code)), 400, 'invalid_code', 'token');
    // ...five kill it.
    expectLegacyError(await activate(other.key, next.code), 400, 'invalid_code', 'token');
    expect((await statusOk(other.key)).isValidated).toBe(false);
    // A new code works again.
    const again = await emailCode(other);
    await activateOk(other.key, again.code);
    expect((await statusOk(other.key)).isValidated).toBe(true);
  });

  it('refuses a code of another account', async () => {
    const v = await vendor();
    const one = await signUp(v.vendorId);
    const two = await signUp(v.vendorId);
    const { code } = await emailCode(one);
    await emailCode(two);
    const reply = await activate(two.key, code);
    // (Only fails to be an error if both 6-digit codes happen to be equal.)
    const twoCode = extractCode(mailbox.messages.filter((m) => m.to.includes(two.email)).at(-1)!.text);
    if (twoCode !== code) expectLegacyError(reply, 400, 'invalid_code', 'token');
    await activateOk(one.key, code);
  });

  it('expires after 24 hours: 400 code_expired', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    const { code } = await emailCode(c);
    node.clock.advance(24 * 3600_000);
    expectLegacyError(await activate(c.key, code), 400, 'code_expired', 'token');
    expect((await statusOk(c.key)).isValidated).toBe(false);

    const other = await signUp(v.vendorId);
    const fresh = await emailCode(other);
    node.clock.advance(24 * 3600_000 - 1_000);
    await activateOk(other.key, fresh.code);
  });

  it('needs the token parameter', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    expectLegacyError(await get('/user/activate', { session_key: c.key }), 400, 'validation_failed', 'token');
  });

  it('a changed email must be verified again, and a code sent to the old one no longer verifies', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    await activateOk(c.key, (await emailCode(c)).code);
    expect((await statusOk(c.key)).status.Email).toBe(true);

    const pending = await emailCode(c);
    const next = freshEmail('moved');
    const change = await putProfile(c.key, { email_address: next, current_password: PASSWORD });
    expect(change.status, JSON.stringify(change.body)).toBe(200);
    expect(await statusOk(c.key)).toStrictEqual({ isValidated: false, phone_number: null, methods: ['Email', 'Sms'], status: NOT_VERIFIED });
    expect((await profileOk(c.key)).is_verified.status).toBe(false);
    expectLegacyError(await activate(c.key, pending.code), 400, 'invalid_code', 'token');
    expect((await statusOk(c.key)).status.Email).toBe(false);

    const fresh = await emailCode({ ...c, email: next });
    await activateOk(c.key, fresh.code);
    expect((await statusOk(c.key)).status.Email).toBe(true);
  });

  it('the verified email belongs to the account: it counts at every vendor', async () => {
    const a = await vendor();
    const b = await vendor();
    const c = await signUp(a.vendorId);
    await activateOk(c.key, (await emailCode(c)).code);
    const atB = await post('/user/authenticate', { email_address: c.email, password: PASSWORD, vendor: b.vendorId });
    expect((await statusOk(atB.body.session_identifier)).status.Email).toBe(true);
  });
});

describe('SMS verification', () => {
  it('texts a 6-digit code to the account\'s phone; activate verifies Sms', async () => {
    const v = await vendor('Librería Centro');
    const c = await signUp(v.vendorId);
    const phone = freshPhone();
    expect((await putProfile(c.key, { phone_number: { number: phone.national, code: '593' } })).status).toBe(200);
    const sms = await newSms(phone.e164, () => get('/user/activate/sms', { session_identifier: c.key }));
    expect(sms.text).toBe(`Librería Centro: your verification code is ${sms.code}`);
    await activateOk(c.key, sms.code);
    expect(await statusOk(c.key)).toStrictEqual({ isValidated: true, phone_number: phone.e164, methods: ['Email', 'Sms'], status: { 'No Verification': false, Email: false, Sms: true } });
    expect((await profileOk(c.key)).is_verified).toStrictEqual({ status: true, methods: { 'No Verification': false, Email: false, Sms: true } });
  });

  it('texts in Spanish to a customer who chose language 2, and accepts session_key', async () => {
    const v = await vendor('Librería Este');
    const c = await signUp(v.vendorId, { language: 2 });
    const phone = freshPhone();
    expect((await putProfile(c.key, { phone_number: { number: phone.national, code: '593' } })).status).toBe(200);
    const sms = await newSms(phone.e164, () => get('/user/activate/sms', { session_key: c.key }));
    expect(sms.text).toBe(`Librería Este: su código de verificación es ${sms.code}`);
  });

  it('with phone and country changes the number first (profile shows it), then verifies it', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    const phone = freshPhone();
    const sms = await newSms(phone.e164, () => get('/user/activate/sms', { session_identifier: c.key, phone: phone.national, country: 'ec' }));
    expect((await profileOk(c.key)).user.phone_number).toBe(phone.e164);
    expect((await statusOk(c.key)).status.Sms).toBe(false);
    await activateOk(c.key, sms.code);
    expect(await statusOk(c.key)).toStrictEqual({ isValidated: true, phone_number: phone.e164, methods: ['Email', 'Sms'], status: { 'No Verification': false, Email: false, Sms: true } });

    // A new number must be verified again.
    const next = freshPhone();
    await newSms(next.e164, () => get('/user/activate/sms', { session_identifier: c.key, phone: next.national, country: 'EC' }));
    expect(await statusOk(c.key)).toStrictEqual({ isValidated: false, phone_number: next.e164, methods: ['Email', 'Sms'], status: NOT_VERIFIED });
  });

  it('a phone changed through the profile must be verified again; the old code no longer verifies', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    const phone = freshPhone();
    await putProfile(c.key, { phone_number: { number: phone.national, code: '593' } });
    await activateOk(c.key, (await newSms(phone.e164, () => get('/user/activate/sms', { session_identifier: c.key }))).code);
    expect((await statusOk(c.key)).status.Sms).toBe(true);

    const pending = await newSms(phone.e164, () => get('/user/activate/sms', { session_identifier: c.key }));
    const next = freshPhone();
    expect((await putProfile(c.key, { phone_number: { number: next.national, code: '593' } })).status).toBe(200);
    expect((await statusOk(c.key)).status.Sms).toBe(false);
    expectLegacyError(await activate(c.key, pending.code), 400, 'invalid_code', 'token');
    expect((await statusOk(c.key)).status.Sms).toBe(false);
  });

  it('expires after 10 minutes', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    const phone = freshPhone();
    const sms = await newSms(phone.e164, () => get('/user/activate/sms', { session_identifier: c.key, phone: phone.e164, country: 'EC' }));
    node.clock.advance(10 * 60_000);
    expectLegacyError(await activate(c.key, sms.code), 400, 'code_expired', 'token');
    const again = await newSms(phone.e164, () => get('/user/activate/sms', { session_identifier: c.key }));
    node.clock.advance(10 * 60_000 - 1_000);
    await activateOk(c.key, again.code);
  });

  it('phone without country is 400; an invalid phone is 400 invalid_phone; a taken one 409', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    const phone = freshPhone();
    expectLegacyError(await get('/user/activate/sms', { session_identifier: c.key, phone: phone.national }), 400, 'validation_failed', 'country');
    expectLegacyError(await get('/user/activate/sms', { session_identifier: c.key, phone: phone.national, country: 'Ecuador' }), 400, 'validation_failed', 'country');
    expectLegacyError(await get('/user/activate/sms', { session_identifier: c.key, phone: '123', country: 'EC' }), 400, 'invalid_phone', 'phone');

    const holder = await signUp(v.vendorId);
    await putProfile(holder.key, { phone_number: { number: phone.national, code: '593' } });
    expectLegacyError(await get('/user/activate/sms', { session_identifier: c.key, phone: phone.national, country: 'EC' }), 409, 'phone_taken', 'phone');
    expect((await profileOk(c.key)).user.phone_number).toBe('');
  });

  it('without a phone number is 422 no_phone_number', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    const files = smsFiles().length;
    expectLegacyError(await get('/user/activate/sms', { session_identifier: c.key }), 422, 'no_phone_number');
    await node.messaging.drain();
    expect(smsFiles().length).toBe(files);
  });

  it('an SMS code and an email code can both be pending; either verifies its own method', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    const phone = freshPhone();
    const sms = await newSms(phone.e164, () => get('/user/activate/sms', { session_identifier: c.key, phone: phone.national, country: 'EC' }));
    const mail = await emailCode(c);
    await activateOk(c.key, sms.code);
    expect((await statusOk(c.key)).status).toStrictEqual({ 'No Verification': false, Email: false, Sms: true });
    await activateOk(c.key, mail.code);
    expect((await statusOk(c.key)).status).toStrictEqual({ 'No Verification': false, Email: true, Sms: true });
  });
});

describe('the vendor\'s verification methods', () => {
  it('a vendor with none: "No Verification" true, isValidated true, sending is 422 verification_method_disabled', async () => {
    const v = await vendorWithMethods([]);
    const c = await signUp(v.vendorId);
    expect(await statusOk(c.key)).toStrictEqual({ isValidated: true, phone_number: null, methods: [], status: { 'No Verification': true, Email: false, Sms: false } });
    expect((await profileOk(c.key)).is_verified).toStrictEqual({ status: true, methods: { 'No Verification': true, Email: false, Sms: false } });
    expectLegacyError(await get('/user/activate/email', { session_identifier: c.key }), 422, 'verification_method_disabled');
    const phone = freshPhone();
    expectLegacyError(await get('/user/activate/sms', { session_identifier: c.key, phone: phone.national, country: 'EC' }), 422, 'verification_method_disabled');
    await node.messaging.drain();
    expect(mailbox.messages.some((m) => m.to.includes(c.email))).toBe(false);
  });

  it('a vendor with Email only: SMS is refused, and only a verified email validates', async () => {
    const v = await vendorWithMethods(['Email']);
    const c = await signUp(v.vendorId);
    expect(await statusOk(c.key)).toStrictEqual({ isValidated: false, phone_number: null, methods: ['Email'], status: NOT_VERIFIED });
    const phone = freshPhone();
    expectLegacyError(await get('/user/activate/sms', { session_identifier: c.key, phone: phone.national, country: 'EC' }), 422, 'verification_method_disabled');
    await activateOk(c.key, (await emailCode(c)).code);
    expect((await statusOk(c.key)).isValidated).toBe(true);
  });

  it('a verified phone does not validate at a vendor that verifies by email only', async () => {
    const both = await vendor();
    const emailOnly = await vendorWithMethods(['Email']);
    const c = await signUp(both.vendorId);
    const phone = freshPhone();
    await activateOk(c.key, (await newSms(phone.e164, () => get('/user/activate/sms', { session_identifier: c.key, phone: phone.national, country: 'EC' }))).code);
    expect((await statusOk(c.key)).isValidated).toBe(true);
    const there = await post('/user/authenticate', { email_address: c.email, password: PASSWORD, vendor: emailOnly.vendorId });
    expect(await statusOk(there.body.session_identifier)).toStrictEqual({
      isValidated: false,
      phone_number: phone.e164,
      methods: ['Email'],
      status: { 'No Verification': false, Email: false, Sms: true },
    });
  });
});
