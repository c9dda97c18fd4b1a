import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { customerApi, FORM, freshEmail, legacyErrorCheck, PASSWORD, registration, ROOMY_RATE_LIMITS } from '../support/customers';
import { http, startTestNode, type TestNode } from '../support/test-node';

// The "Users (legacy style)" section over real HTTP: registration, login (and its lockout) and
// the login session itself (session_key, logout, 30-day lifetime, .json suffix).

const SECRET = /^[\w-]{40,}$/;
const TIER_TEXT = { name: 'Member', summary: 'Welcome to the program.', description: 'Every member earns points on every visit.' };

let node: TestNode;

beforeAll(async () => {
  // Rate limits far above anything this file does: the limits have their own file.
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});

afterAll(async () => {
  await node?.close();
});

// ---------------------------------------------------------------------------------------------
// helpers

const { vendor, nowSec, post, registerOk, login, loginOk, getProfile: profile } = customerApi(() => node, { vendorName: 'Café' });

/** The legacy error envelope, every field checked, and no stack trace in the message. */
const expectLegacyError = legacyErrorCheck({ noStackTrace: true });

async function counts() {
  const users = await node.engine.db.selectFrom('users').select('id').execute();
  const links = await node.engine.db.selectFrom('user_vendors').select('id').execute();
  return { users: users.length, links: links.length };
}

async function entryTierId(vendorId: number): Promise<number> {
  const tier = await node.engine.db.selectFrom('tiers').select('id').where('vendor_id', '=', vendorId).executeTakeFirstOrThrow();
  return tier.id;
}

function expectUser(user: any, expected: { email: string; first_name?: string; last_name?: string; birthdate?: number; at: number }): void {
  expect(user).toStrictEqual({
    object: 'user',
    id: expect.stringMatching(/^\d+$/),
    first_name: expected.first_name ?? 'Ana',
    last_name: expected.last_name ?? 'López',
    email_address: expected.email,
    facebook_identifier: null,
    twitter_identifier: null,
    google_identifier: null,
    linkedin_identifier: null,
    ...(expected.birthdate !== undefined ? { birthdate: expected.birthdate } : {}),
    date_created: expected.at,
    date_updated: expected.at,
    status: { id: 1, name: 'Active' },
  });
  if (expected.birthdate === undefined) expect(user).not.toHaveProperty('birthdate');
}

// ---------------------------------------------------------------------------------------------

describe('POST /user/register', () => {
  it('answers 200 with the User object: string id of digits, names, email, null social ids, Unix-second dates, Active', async () => {
    const { vendorId } = await vendor();
    node.clock.advance(1_234);
    const at = nowSec();
    const { email, user } = await registerOk(vendorId);
    expectUser(user, { email, at });
    const row = await node.engine.db.selectFrom('users').selectAll().where('id', '=', Number(user.id)).executeTakeFirstOrThrow();
    expect(row.email).toBe(email);
    expect(row.password_hash).not.toContain(PASSWORD);
    expect(row.password_hash).toMatch(/^\$argon2id\$/);
  });

  it('returns birthdate (Unix seconds) only when it was given', async () => {
    const { vendorId } = await vendor();
    const with1990 = await registerOk(vendorId, { birthdate: 631_152_000 });
    expectUser(with1990.user, { email: with1990.email, birthdate: 631_152_000, at: nowSec() });
    const before1970 = await registerOk(vendorId, { birthdate: -86_400 });
    expectUser(before1970.user, { email: before1970.email, birthdate: -86_400, at: nowSec() });
    const without = await registerOk(vendorId);
    expectUser(without.user, { email: without.email, at: nowSec() });
  });

  it('keeps the email as typed (trimmed) and the names cleaned of extra spaces', async () => {
    const { vendorId } = await vendor();
    const email = `Mixed.Case.${randomBytes(3).toString('hex')}@Example.com`;
    const reply = await post('/user/register', registration(vendorId, { email_address: `  ${email} `, first_name: '  María   José ', last_name: ' de la  Cruz ' }));
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expectUser(reply.body, { email, first_name: 'María José', last_name: 'de la Cruz', at: nowSec() });
  });

  it('accepts an omitted anonymous and an empty last name', async () => {
    const { vendorId } = await vendor();
    const body = registration(vendorId, { last_name: '' });
    delete body.anonymous;
    const reply = await post('/user/register', body);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expectUser(reply.body, { email: body.email_address as string, last_name: '', at: nowSec() });
  });

  it('accepts form fields: terms=1, vendor, birthdate and consent as strings', async () => {
    const { vendorId } = await vendor();
    const email = freshEmail('form');
    const form = new URLSearchParams({
      first_name: 'Ana',
      last_name: 'López',
      anonymous: '0',
      email_address: email,
      password: PASSWORD,
      terms: '1',
      vendor: String(vendorId),
      birthdate: '631152000',
      contact_consent: '3',
      language: '2',
    }).toString();
    const reply = await post('/user/register', form, FORM);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expectUser(reply.body, { email, birthdate: 631_152_000, at: nowSec() });
    const session = await loginOk(email, PASSWORD, vendorId);
    expect(session.user_vendor.contact_consent).toBe(3);
    expect(session.user_vendor.language).toStrictEqual({ object: 'language', id: 2, name: 'Español', code: 'es' });
  });

  it('reads a form’s empty optional fields as not given (a web form posts every field)', async () => {
    const { vendorId } = await vendor();
    const email = freshEmail('blank');
    const form = new URLSearchParams({ first_name: 'Eva', last_name: 'Ruiz', email_address: email, password: PASSWORD, terms: '1', vendor: String(vendorId), birthdate: '', contact_consent: '', language: '', cedula: '' }).toString();
    const reply = await post('/user/register', form, FORM);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.birthdate).toBeUndefined();
    // A required field sent empty is still refused by name.
    const noVendor = new URLSearchParams({ first_name: 'Eva', last_name: 'Ruiz', email_address: freshEmail('blank'), password: PASSWORD, terms: '1', vendor: '' }).toString();
    expectLegacyError(await post('/user/register', noVendor, FORM), 400, 'validation_failed', 'vendor');
  });

  it('accepts a JSON text sent with a form content type, and booleans/integers as strings', async () => {
    const { vendorId } = await vendor();
    const body = registration(String(vendorId), { terms: 'true', anonymous: 'false', contact_consent: '1' });
    const reply = await post('/user/register', JSON.stringify(body), FORM);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expectUser(reply.body, { email: body.email_address as string, at: nowSec() });
    expect((await loginOk(body.email_address as string, PASSWORD, vendorId)).user_vendor.contact_consent).toBe(1);
  });

  it('accepts terms as 1 and "1" in JSON', async () => {
    const { vendorId } = await vendor();
    for (const terms of [1, '1']) {
      const body = registration(vendorId, { terms });
      const reply = await post('/user/register', body);
      expect(reply.status, `terms=${JSON.stringify(terms)}: ${JSON.stringify(reply.body)}`).toBe(200);
    }
  });

  it('stores contact_consent and language on the vendor link (seen at login)', async () => {
    const { vendorId } = await vendor();
    const { email } = await registerOk(vendorId, { contact_consent: 2, language: 1 });
    const session = await loginOk(email, PASSWORD, vendorId);
    expect(session.user_vendor.contact_consent).toBe(2);
    expect(session.user_vendor.language).toStrictEqual({ object: 'language', id: 1, name: 'English', code: 'en' });
  });

  const invalid: Array<[string, (body: Record<string, unknown>) => void, number, string, string]> = [
    ['first_name missing', (b) => delete b.first_name, 400, 'validation_failed', 'first_name'],
    ['first_name blank', (b) => (b.first_name = '   '), 400, 'validation_failed', 'first_name'],
    ['first_name over 100 characters', (b) => (b.first_name = 'A'.repeat(101)), 400, 'validation_failed', 'first_name'],
    ['last_name missing', (b) => delete b.last_name, 400, 'validation_failed', 'last_name'],
    ['email_address missing', (b) => delete b.email_address, 400, 'validation_failed', 'email_address'],
    ['password missing', (b) => delete b.password, 400, 'validation_failed', 'password'],
    ['terms missing', (b) => delete b.terms, 400, 'validation_failed', 'terms'],
    ['vendor missing', (b) => delete b.vendor, 400, 'validation_failed', 'vendor'],
    ['vendor not a number', (b) => (b.vendor = 'abc'), 400, 'validation_failed', 'vendor'],
    ['terms=false', (b) => (b.terms = false), 400, 'validation_failed', 'terms'],
    ['terms="0"', (b) => (b.terms = '0'), 400, 'validation_failed', 'terms'],
    ['terms="yes"', (b) => (b.terms = 'yes'), 400, 'validation_failed', 'terms'],
    ['anonymous=true', (b) => (b.anonymous = true), 400, 'validation_failed', 'anonymous'],
    ['anonymous="1"', (b) => (b.anonymous = '1'), 400, 'validation_failed', 'anonymous'],
    ['a bad email', (b) => (b.email_address = 'ana@example'), 400, 'invalid_email', 'email_address'],
    ['an email with a space', (b) => (b.email_address = 'ana maria@example.com'), 400, 'invalid_email', 'email_address'],
    ['an email with a trailing dot', (b) => (b.email_address = 'ana.qa@EXAMPLE.com.'), 400, 'invalid_email', 'email_address'],
    ['an email with an empty domain label', (b) => (b.email_address = 'ana@example..com'), 400, 'invalid_email', 'email_address'],
    ['an email with a doubled dot before @', (b) => (b.email_address = 'ana..qa@example.com'), 400, 'invalid_email', 'email_address'],
    ['a 7-character password', (b) => (b.password = 'short77'), 400, 'weak_password', 'password'],
    ['a 129-character password', (b) => (b.password = 'p'.repeat(129)), 400, 'validation_failed', 'password'],
    ['contact_consent 4', (b) => (b.contact_consent = 4), 400, 'validation_failed', 'contact_consent'],
    ['contact_consent -1', (b) => (b.contact_consent = -1), 400, 'validation_failed', 'contact_consent'],
    ['language 9', (b) => (b.language = 9), 400, 'validation_failed', 'language'],
    ['birthdate not an integer', (b) => (b.birthdate = 'yesterday'), 400, 'validation_failed', 'birthdate'],
  ];

  it.each(invalid)('refuses %s and creates nothing', async (_label, change, status, reason, field) => {
    const { vendorId } = await vendor();
    const body = registration(vendorId);
    change(body);
    const before = await counts();
    expectLegacyError(await post('/user/register', body), status, reason, field);
    expect(await counts()).toStrictEqual(before);
    if (typeof body.email_address === 'string') expectLegacyError(await login(body.email_address, PASSWORD, vendorId), 401, 'invalid_credentials');
  });

  it('accepts a password of exactly 8 and of 128 characters', async () => {
    const { vendorId } = await vendor();
    for (const password of ['8 chars!', 'p'.repeat(128)]) {
      const { email } = await registerOk(vendorId, { password });
      await loginOk(email, password, vendorId);
    }
  });

  it('refuses an unknown vendor with 404 vendor_not_found and creates nothing', async () => {
    const before = await counts();
    expectLegacyError(await post('/user/register', registration(987_654_321)), 404, 'vendor_not_found', 'vendor');
    expect(await counts()).toStrictEqual(before);
  });

  it('checks the cedula for an EC vendor: a bad one is 400 invalid_national_id, a good one is stored', async () => {
    const ec = await setUpVendor(node.engine, { name: 'Café Quito', currency: 'USD', country: 'EC', store: { name: 'Centro', address1: 'Av. Amazonas', city: 'Quito' } });
    const before = await counts();
    expectLegacyError(await post('/user/register', registration(ec.vendorId, { cedula: '1710034066' })), 400, 'invalid_national_id', 'cedula');
    expectLegacyError(await post('/user/register', registration(ec.vendorId, { cedula: '12AB' })), 400, 'invalid_national_id', 'cedula');
    expect(await counts()).toStrictEqual(before);

    const { user } = await registerOk(ec.vendorId, { cedula: '170000001-9' });
    const row = await node.engine.db.selectFrom('users').select('cedula').where('id', '=', Number(user.id)).executeTakeFirstOrThrow();
    expect(row.cedula).toBe('1700000019');
  });

  it('refuses a cedula another account uses, however it is typed: 409 cedula_taken, like a taken phone or passport', async () => {
    const ec = await setUpVendor(node.engine, { name: 'Café Cuenca', currency: 'USD', country: 'EC', store: { name: 'Centro', address1: 'Calle Larga', city: 'Cuenca' } });
    await registerOk(ec.vendorId, { cedula: '1710034065' });
    const before = await counts();
    expectLegacyError(await post('/user/register', registration(ec.vendorId, { cedula: '171003406-5' })), 409, 'cedula_taken', 'cedula');
    expectLegacyError(await post('/user/register', registration(ec.vendorId, { cedula: '17.100.340.65' })), 409, 'cedula_taken', 'cedula');
    expect(await counts()).toStrictEqual(before);
  });

  it('refuses an email that already has an account, in any letter case and from any vendor: 409 email_taken', async () => {
    const a = await vendor();
    const b = await vendor();
    const { email } = await registerOk(a.vendorId);
    const before = await counts();
    expectLegacyError(await post('/user/register', registration(a.vendorId, { email_address: email })), 409, 'email_taken', 'email_address');
    expectLegacyError(await post('/user/register', registration(a.vendorId, { email_address: email.toUpperCase() })), 409, 'email_taken', 'email_address');
    expectLegacyError(await post('/user/register', registration(b.vendorId, { email_address: ` ${email.toUpperCase()} ` })), 409, 'email_taken', 'email_address');
    expect(await counts()).toStrictEqual(before);
    // The original password still works, the one of the refused registration never existed.
    await loginOk(email, PASSWORD, a.vendorId);
  });

  it('creates one account when the same email registers several times at once', async () => {
    const { vendorId } = await vendor();
    const email = freshEmail('race');
    const before = await counts();
    const replies = await Promise.all([email, email.toUpperCase(), email, email.toUpperCase()].map((address) => post('/user/register', registration(vendorId, { email_address: address }))));
    expect(replies.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
    for (const reply of replies.filter((r) => r.status === 409)) expectLegacyError(reply, 409, 'email_taken', 'email_address');
    expect(await counts()).toStrictEqual({ users: before.users + 1, links: before.links + 1 });
  });

  it('gives every account its own id', async () => {
    const { vendorId } = await vendor();
    const one = await registerOk(vendorId);
    const two = await registerOk(vendorId);
    expect(one.user.id).not.toBe(two.user.id);
  });

  it('answers malformed JSON with 400 invalid_json', async () => {
    expectLegacyError(await post('/user/register', '{"first_name": "Ana",', { 'content-type': 'application/json' }), 400, 'invalid_json');
  });
});

describe('POST /user/authenticate', () => {
  it('answers the Login session: every field, first_login true then false', async () => {
    const v = await vendor('Panadería Sol');
    const registeredAt = nowSec();
    const { email, user } = await registerOk(v.vendorId, { first_name: 'Sol', last_name: 'Vega', contact_consent: 3 });
    node.clock.advance(5_000);
    const first = await loginOk(email, PASSWORD, v.vendorId);
    const expected = {
      object: 'user_session',
      first_login: true,
      online_order_token: expect.stringMatching(SECRET),
      session_identifier: expect.stringMatching(SECRET),
      vendor_user: null,
      user_vendor: {
        object: 'user_vendor',
        language: null,
        vendor: { id: v.vendorId, name: 'Panadería Sol', object: 'vendor' },
        anonymous: false,
        reload_amount: 0,
        reload_threshold: 0,
        contact_consent: 3,
        created: registeredAt,
        billing_profile: null,
        tier: { object: 'tier', id: await entryTierId(v.vendorId), ...TIER_TEXT },
        tier_since: registeredAt,
        user: { object: 'user', id: user.id, first_name: 'Sol', last_name: 'Vega' },
      },
    };
    expect(first).toStrictEqual(expected);
    expect(first.online_order_token).not.toBe(first.session_identifier);

    node.clock.advance(5_000);
    const second = await loginOk(email, PASSWORD, v.vendorId);
    expect(second).toStrictEqual({ ...expected, first_login: false });
    expect(second.session_identifier).not.toBe(first.session_identifier);
    expect(second.online_order_token).not.toBe(first.online_order_token);
    // Both sessions work.
    expect((await profile(first.session_identifier)).status).toBe(200);
    expect((await profile(second.session_identifier)).status).toBe(200);
  });

  it('keeps only digests of the session key and the order token', async () => {
    const { vendorId } = await vendor();
    const { email } = await registerOk(vendorId);
    const session = await loginOk(email, PASSWORD, vendorId);
    const rows = await node.engine.db.selectFrom('user_sessions').selectAll().execute();
    const text = JSON.stringify(rows);
    expect(text).not.toContain(session.session_identifier);
    expect(text).not.toContain(session.online_order_token);
  });

  it('finds the account whatever the letter case of the email, and accepts form fields', async () => {
    const { vendorId } = await vendor();
    const { email } = await registerOk(vendorId);
    await loginOk(email.toUpperCase(), PASSWORD, vendorId);
    const form = new URLSearchParams({ email_address: ` ${email} `, password: PASSWORD, vendor: String(vendorId) }).toString();
    const reply = await post('/user/authenticate', form, FORM);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.object).toBe('user_session');
    expect(reply.body.first_login).toBe(false);
  });

  it('links the account to another vendor on the first login there (first_login true, its own link)', async () => {
    const a = await vendor('Café Norte');
    const b = await vendor('Café Sur');
    const { email, user } = await registerOk(a.vendorId, { contact_consent: 3, language: 2 });
    await loginOk(email, PASSWORD, a.vendorId);
    node.clock.advance(60_000);
    const linkedAt = nowSec();
    const atB = await loginOk(email, PASSWORD, b.vendorId);
    expect(atB).toStrictEqual({
      object: 'user_session',
      first_login: true,
      online_order_token: expect.stringMatching(SECRET),
      session_identifier: expect.stringMatching(SECRET),
      vendor_user: null,
      user_vendor: {
        object: 'user_vendor',
        // Consent and language belong to the vendor link: the new link starts without them.
        language: null,
        vendor: { id: b.vendorId, name: 'Café Sur', object: 'vendor' },
        anonymous: false,
        reload_amount: 0,
        reload_threshold: 0,
        contact_consent: 0,
        created: linkedAt,
        billing_profile: null,
        tier: { object: 'tier', id: await entryTierId(b.vendorId), ...TIER_TEXT },
        tier_since: linkedAt,
        user: { object: 'user', id: user.id, first_name: 'Ana', last_name: 'López' },
      },
    });
    expect((await loginOk(email, PASSWORD, b.vendorId)).first_login).toBe(false);
    const again = await loginOk(email, PASSWORD, a.vendorId);
    expect(again.first_login).toBe(false);
    expect(again.user_vendor.contact_consent).toBe(3);
    const links = await node.engine.db.selectFrom('user_vendors').select('vendor_id').where('user_id', '=', Number(user.id)).execute();
    expect(links.map((l) => l.vendor_id).sort()).toEqual([a.vendorId, b.vendorId].sort());
  });

  it('answers a wrong password and an unknown email the same: 401 invalid_credentials', async () => {
    const { vendorId } = await vendor();
    const { email } = await registerOk(vendorId);
    const wrong = await login(email, 'not the password', vendorId);
    const unknown = await login(freshEmail('nobody'), PASSWORD, vendorId);
    expectLegacyError(wrong, 401, 'invalid_credentials');
    expectLegacyError(unknown, 401, 'invalid_credentials');
    expect(wrong.body.error.errors[0].message).toBe(unknown.body.error.errors[0].message);
  });

  it('refuses an unknown vendor with 404 and missing fields with 400', async () => {
    const { vendorId } = await vendor();
    const { email } = await registerOk(vendorId);
    expectLegacyError(await login(email, PASSWORD, 987_654_321), 404, 'vendor_not_found', 'vendor');
    expectLegacyError(await post('/user/authenticate', { password: PASSWORD, vendor: vendorId }), 400, 'validation_failed', 'email_address');
    expectLegacyError(await post('/user/authenticate', { email_address: email, vendor: vendorId }), 400, 'validation_failed', 'password');
    expectLegacyError(await post('/user/authenticate', { email_address: email, password: PASSWORD }), 400, 'validation_failed', 'vendor');
  });

  describe('lockout', () => {
    it('locks the account after 5 wrong passwords in a row (429 account_locked), the right one too, for 15 minutes', async () => {
      const { vendorId } = await vendor();
      const { email } = await registerOk(vendorId);
      for (let i = 1; i <= 4; i++) expectLegacyError(await login(email, `wrong password ${i}`, vendorId), 401, 'invalid_credentials');
      const fifth = await login(email, 'wrong password 5', vendorId);
      expectLegacyError(fifth, 429, 'account_locked');

      const right = await login(email, PASSWORD, vendorId);
      expectLegacyError(right, 429, 'account_locked');
      expect(right.body.error.errors[0].message).toMatch(/15 more minutes/);
      // When to try again, as a rate limit's 429 says it.
      expect([fifth.headers.get('retry-after'), right.headers.get('retry-after')]).toEqual(['900', '900']);
      // Locked for everyone, not per vendor.
      const other = await vendor();
      expectLegacyError(await login(email, PASSWORD, other.vendorId), 429, 'account_locked');

      node.clock.advance(15 * 60_000 - 1_000);
      const late = await login(email, PASSWORD, vendorId);
      expectLegacyError(late, 429, 'account_locked');
      expect(late.body.error.errors[0].message).toMatch(/1 more minute\b/);

      node.clock.advance(1_000);
      const session = await loginOk(email, PASSWORD, vendorId);
      expect(session.object).toBe('user_session');
    });

    it('counts wrong passwords in a row only: a successful login clears the count', async () => {
      const { vendorId } = await vendor();
      const { email } = await registerOk(vendorId);
      for (let i = 0; i < 4; i++) expectLegacyError(await login(email, 'nope nope', vendorId), 401, 'invalid_credentials');
      await loginOk(email, PASSWORD, vendorId);
      for (let i = 0; i < 4; i++) expectLegacyError(await login(email, 'nope nope', vendorId), 401, 'invalid_credentials');
      await loginOk(email, PASSWORD, vendorId);
    });

    it('starts counting afresh once a lock has passed', async () => {
      const { vendorId } = await vendor();
      const { email } = await registerOk(vendorId);
      for (let i = 0; i < 5; i++) await login(email, 'nope nope', vendorId);
      node.clock.advance(15 * 60_000);
      expectLegacyError(await login(email, 'nope nope', vendorId), 401, 'invalid_credentials');
      await loginOk(email, PASSWORD, vendorId);
    });

    it('counts wrong passwords sent at the same time: 10 in parallel lock the account', async () => {
      // Each failure must count, however the requests interleave; otherwise parallel guesses
      // never reach 5 "in a row" and the lockout is no protection.
      const { vendorId } = await vendor();
      const { email } = await registerOk(vendorId);
      const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => login(email, `parallel guess ${i}`, vendorId)));
      for (const reply of replies) expect([401, 429]).toContain(reply.status);
      expectLegacyError(await login(email, PASSWORD, vendorId), 429, 'account_locked');
    });

    it('answers an unknown email exactly as a known one: locked out at the 5th wrong password (no telling which exist)', async () => {
      const { vendorId } = await vendor();
      const { email } = await registerOk(vendorId);
      const ghost = freshEmail('ghost');
      const answers = async (address: string) => {
        const replies = [];
        for (let i = 0; i < 6; i++) replies.push(await login(address, 'nope nope', vendorId));
        return replies.map((reply) => [reply.status, reply.body.error.errors[0].reason, reply.body.error.errors[0].message, reply.headers.get('retry-after')]);
      };
      expect(await answers(ghost)).toEqual(await answers(email));
    });
  });
});

describe('login sessions', () => {
  it('needs a session_key: 401 missing_credentials', async () => {
    expectLegacyError(await http(`${node.url}/user/profile`), 401, 'missing_credentials');
    expectLegacyError(await http(`${node.url}/user/profile?session_key=`), 401, 'missing_credentials');
    expectLegacyError(await post('/user/logout', {}), 401, 'missing_credentials');
  });

  it('refuses an unknown session_key: 401 invalid_session', async () => {
    expectLegacyError(await profile('pcsk_not-a-real-session-key-at-all-0000000000000'), 401, 'invalid_session');
  });

  it('the online_order_token is not a session_key', async () => {
    const { vendorId } = await vendor();
    const { email } = await registerOk(vendorId);
    const session = await loginOk(email, PASSWORD, vendorId);
    expectLegacyError(await profile(session.online_order_token), 401, 'invalid_session');
    expect((await profile(session.session_identifier)).status).toBe(200);
  });

  it('logout answers {} and ends that session only: 401 session_ended afterwards', async () => {
    const { vendorId } = await vendor();
    const { email } = await registerOk(vendorId);
    const one = await loginOk(email, PASSWORD, vendorId);
    const two = await loginOk(email, PASSWORD, vendorId);
    const out = await http(`${node.url}/user/logout?session_key=${one.session_identifier}`, { method: 'POST' });
    expect(out.status).toBe(200);
    expect(out.body).toStrictEqual({});
    expectLegacyError(await profile(one.session_identifier), 401, 'session_ended');
    expectLegacyError(await http(`${node.url}/user/logout?session_key=${one.session_identifier}`, { method: 'POST' }), 401, 'session_ended');
    expect((await profile(two.session_identifier)).status).toBe(200);
  });

  it('lasts 30 days from login: 401 session_expired afterwards', async () => {
    const { vendorId } = await vendor();
    const { email } = await registerOk(vendorId);
    const session = await loginOk(email, PASSWORD, vendorId);
    node.clock.advance(30 * 24 * 3600_000 - 1_000);
    expect((await profile(session.session_identifier)).status).toBe(200);
    node.clock.advance(1_000);
    expectLegacyError(await profile(session.session_identifier), 401, 'session_expired');
    // A new login gives a new 30 days.
    const fresh = await loginOk(email, PASSWORD, vendorId);
    expect((await profile(fresh.session_identifier)).status).toBe(200);
  });

  it('accepts the .json suffix on legacy paths', async () => {
    const { vendorId } = await vendor();
    const { email } = await registerOk(vendorId);
    const viaJson = await post('/user/authenticate.json', { email_address: email, password: PASSWORD, vendor: vendorId });
    expect(viaJson.status, JSON.stringify(viaJson.body)).toBe(200);
    const key = viaJson.body.session_identifier;
    const plain = await profile(key);
    const suffixed = await profile(key, '/user/profile.json');
    expect(plain.status).toBe(200);
    expect(suffixed.status).toBe(200);
    expect(suffixed.body).toStrictEqual(plain.body);
    const out = await http(`${node.url}/user/logout.json?session_key=${key}`, { method: 'POST' });
    expect(out.status).toBe(200);
    expect(out.body).toStrictEqual({});
    expectLegacyError(await profile(key, '/user/profile.json'), 401, 'session_ended');
  });
});
