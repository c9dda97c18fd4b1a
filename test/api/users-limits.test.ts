import { afterEach, describe, expect, it } from 'vitest';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { DEFAULT_RATE_LIMITS } from '../../src/server/http/rate-limits';
import { emailExistsAt, expectLegacyError, freshEmail, loginAt, outboxFilesAt, PASSWORD, postAt, registerOkAt, requestResetAt, ROOMY } from '../support/customers';
import { extractCode } from '../support/mailbox';
import { http, type HttpReply, startTestNode, type TestNode, type TestNodeOptions } from '../support/test-node';

// Rate limits of the sensitive customer calls over real HTTP: 429 rate_limited with Retry-After,
// per client (IP) and per account or looked-up value, lifted when the window has passed. Each test
// runs its own node so the in-memory counters start empty.

const SMALL = { perClient: 3, perAccount: 2, windowSeconds: 60 };

const nodes: TestNode[] = [];
afterEach(async () => {
  for (const node of nodes.splice(0)) await node.close();
});

async function start(options: TestNodeOptions = {}): Promise<TestNode> {
  const node = await startTestNode(options);
  nodes.push(node);
  return node;
}

/** 429 rate_limited, with Retry-After in whole seconds (and the same wait in the message). */
function expectLimited(reply: HttpReply, retryAfter: number): void {
  expectLegacyError(reply, 429, 'rate_limited');
  expect(reply.headers.get('retry-after')).toBe(String(retryAfter));
  expect(reply.body.error.errors[0].message).toBe(`Too many requests. Please wait ${retryAfter} seconds and try again.`);
}

function expectNotLimited(reply: HttpReply): void {
  expect(reply.status, JSON.stringify(reply.body)).not.toBe(429);
  expect(reply.headers.get('retry-after')).toBeNull();
}

// ---------------------------------------------------------------------------------------------

describe('POST /user/authenticate', () => {
  it('limits logins per account (email, any case): 429 with Retry-After, lifted after the window', async () => {
    const node = await start({ rateLimits: { login: SMALL } });
    const { vendorId } = await node.addVendor();
    const { email } = await registerOkAt(node, vendorId);
    expect((await loginAt(node, email, PASSWORD, vendorId)).status).toBe(200);
    node.clock.advance(10_000);
    expect((await loginAt(node, email.toUpperCase(), PASSWORD, vendorId)).status).toBe(200);
    // Third call with this email (third from this client too, which is still allowed): the account limit.
    expectLimited(await loginAt(node, email, PASSWORD, vendorId), 50);
    node.clock.advance(20_500);
    // Both windows are over the limit now; the longer wait is announced (29.5 s rounded up).
    expectLimited(await loginAt(node, ` ${email} `, PASSWORD, vendorId), 30);
    node.clock.advance(29_500);
    expect((await loginAt(node, email, PASSWORD, vendorId)).status).toBe(200);
  });

  it('limits logins per client whatever the emails', async () => {
    const node = await start({ rateLimits: { login: SMALL } });
    const { vendorId } = await node.addVendor();
    const emails = [freshEmail(), freshEmail(), freshEmail(), freshEmail()];
    for (const email of emails.slice(0, 3)) expectLegacyError(await loginAt(node, email, PASSWORD, vendorId), 401, 'invalid_credentials');
    node.clock.advance(1_000);
    expectLimited(await loginAt(node, emails[3]!, PASSWORD, vendorId), 59);
    node.clock.advance(59_000);
    expectLegacyError(await loginAt(node, emails[3]!, PASSWORD, vendorId), 401, 'invalid_credentials');
  });

  it('a limited login does not count as a wrong password', async () => {
    const node = await start({ rateLimits: { login: { perClient: 100, perAccount: 4, windowSeconds: 60 } } });
    const { vendorId } = await node.addVendor();
    const { email } = await registerOkAt(node, vendorId);
    for (let i = 0; i < 4; i++) expectLegacyError(await loginAt(node, email, 'wrong password', vendorId), 401, 'invalid_credentials');
    for (let i = 0; i < 3; i++) expectLimited(await loginAt(node, email, 'wrong password', vendorId), 60);
    node.clock.advance(60_000);
    // Four wrong passwords counted, not seven: the right one works instead of meeting a lockout.
    expect((await loginAt(node, email, PASSWORD, vendorId)).status).toBe(200);
  });

  it('by default: 10 per email and 20 per client a minute', async () => {
    const node = await start();
    const { vendorId } = await node.addVendor();
    const { email } = await registerOkAt(node, vendorId);
    for (let i = 0; i < 10; i++) expectNotLimited(await loginAt(node, email, PASSWORD, vendorId));
    expectLimited(await loginAt(node, email, PASSWORD, vendorId), 60);

    node.clock.advance(60_000);
    for (let i = 0; i < 20; i++) expectLegacyError(await loginAt(node, freshEmail('nobody'), PASSWORD, vendorId), 401, 'invalid_credentials');
    expectLimited(await loginAt(node, freshEmail('nobody'), PASSWORD, vendorId), 60);
  });
});

describe('GET /user/email/exists (and the other look-ups)', () => {
  it('limits per looked-up value and per client, 429 with Retry-After, lifted after the window', async () => {
    const node = await start({ rateLimits: { lookup: SMALL } });
    const { vendorId } = await node.addVendor();
    const email = freshEmail();
    expect((await emailExistsAt(node, email, vendorId)).status).toBe(200);
    expect((await emailExistsAt(node, email.toUpperCase(), vendorId)).status).toBe(200);
    expectLimited(await emailExistsAt(node, email, vendorId), 60);
    node.clock.advance(60_000);
    expect((await emailExistsAt(node, email, vendorId)).body).toStrictEqual({ exists: false, vendor: { id: vendorId, name: 'Vendor 1' } });

    // Per client: three different emails, then a fourth is refused.
    node.clock.advance(60_000);
    for (let i = 0; i < 3; i++) expect((await emailExistsAt(node, freshEmail(), vendorId)).status).toBe(200);
    node.clock.advance(15_000);
    expectLimited(await emailExistsAt(node, freshEmail(), vendorId), 45);
    node.clock.advance(45_000);
    expect((await emailExistsAt(node, freshEmail(), vendorId)).status).toBe(200);
  });

  it('limits mobile and cedula look-ups per value too', async () => {
    const node = await start({ rateLimits: { lookup: SMALL } });
    const { vendorId } = await node.addVendor();
    const mobile = (value: string) => http(`${node.url}/user/mobile/exists?mobile=${encodeURIComponent(value)}&vendor=${vendorId}`);
    const cedula = (value: string) => http(`${node.url}/user/cedula/exists?cedula=${value}&vendor=${vendorId}`);
    for (let i = 0; i < 2; i++) expect((await mobile('+593991888001')).body).toStrictEqual({ available: true });
    expectLimited(await mobile('+593991888001'), 60);
    for (let i = 0; i < 2; i++) expect((await cedula('1710034065')).status).toBe(200);
    expectLimited(await cedula('1710034065'), 60);
  });

  it('counts a mobile or cedula per value as the node reads it: +593 99… and 099… are one number, dots and dashes do not make another cedula', async () => {
    const node = await start({ rateLimits: { lookup: { perClient: 100, perAccount: 2, windowSeconds: 60 } } });
    const { vendorId } = await setUpVendor(node.engine, { name: 'Farmacia Quito', currency: 'USD', country: 'EC', store: { name: 'Centro', address1: 'Av. Amazonas', city: 'Quito' } });
    const mobile = (value: string, vendor = vendorId) => http(`${node.url}/user/mobile/exists?mobile=${encodeURIComponent(value)}&vendor=${vendor}`);
    const cedula = (value: string) => http(`${node.url}/user/cedula/exists?cedula=${encodeURIComponent(value)}&vendor=${vendorId}`);

    expect((await mobile('+593991888002')).body).toStrictEqual({ available: true });
    expect((await mobile('0991888002')).body).toStrictEqual({ available: true });
    expectLimited(await mobile('099 188 8002'), 60);
    expectLimited(await mobile('+593 99 188 8002'), 60);
    // Another number is its own count; an unknown vendor is still the route's 404.
    expect((await mobile('0991888003')).status).toBe(200);
    expectLegacyError(await mobile('0991888004', 987_654_321), 404, 'vendor_not_found', 'vendor');

    expect((await cedula('1710034065')).status).toBe(200);
    expect((await cedula('171003406-5')).status).toBe(200);
    expectLimited(await cedula('17.100.340.65'), 60);
    expect((await cedula('1700000019')).status).toBe(200);
  });

  it('by default: 10 per value and 30 per client a minute', async () => {
    const node = await start();
    const { vendorId } = await node.addVendor();
    const email = freshEmail();
    for (let i = 0; i < 10; i++) expectNotLimited(await emailExistsAt(node, email, vendorId));
    expectLimited(await emailExistsAt(node, email, vendorId), 60);
    node.clock.advance(60_000);
    for (let i = 0; i < 30; i++) expectNotLimited(await emailExistsAt(node, freshEmail(), vendorId));
    expectLimited(await emailExistsAt(node, freshEmail(), vendorId), 60);
  });
});

describe('POST /user/password-reset/reset', () => {
  it('limits per email and per client, 429 with Retry-After, lifted after the window', async () => {
    const node = await start({ rateLimits: { passwordReset: { perClient: 3, perAccount: 2, windowSeconds: 900 } } });
    const { vendorId } = await node.addVendor();
    const { email } = await registerOkAt(node, vendorId);
    for (let i = 0; i < 2; i++) expect((await requestResetAt(node, email, vendorId)).body).toStrictEqual({});
    node.clock.advance(100_000);
    expectLimited(await requestResetAt(node, email.toUpperCase(), vendorId), 800);
    // Only two reset emails were queued.
    const queued = await node.engine.db.selectFrom('messages_outbox').select('id').where('recipient', '=', email).execute();
    expect(queued).toHaveLength(2);

    // The client is over its 3 as well now.
    expectLimited(await requestResetAt(node, freshEmail(), vendorId), 800);
    node.clock.advance(800_000);
    expect((await requestResetAt(node, email, vendorId)).body).toStrictEqual({});
  });

  it('by default: 3 per email and 10 per client in 15 minutes', async () => {
    const node = await start();
    const { vendorId } = await node.addVendor();
    const { email } = await registerOkAt(node, vendorId);
    for (let i = 0; i < 3; i++) expectNotLimited(await requestResetAt(node, email, vendorId));
    expectLimited(await requestResetAt(node, email, vendorId), 900);
    node.clock.advance(900_000);
    for (let i = 0; i < 10; i++) expectNotLimited(await requestResetAt(node, freshEmail(), vendorId));
    expectLimited(await requestResetAt(node, freshEmail(), vendorId), 900);
  });
});

describe('messages and codes', () => {
  it('by default: 5 verification messages per account an hour', async () => {
    const node = await start({ rateLimits: { login: ROOMY } });
    const { vendorId } = await node.addVendor();
    const { email } = await registerOkAt(node, vendorId);
    const key = (await loginAt(node, email, PASSWORD, vendorId)).body.session_identifier;
    const send = () => http(`${node.url}/user/activate/email?session_identifier=${key}`);
    for (let i = 0; i < 5; i++) expect((await send()).body).toStrictEqual({});
    expectLimited(await send(), 3600);
    // Another account from the same client still may (10 per client).
    const { email: other } = await registerOkAt(node, vendorId);
    const otherKey = (await loginAt(node, other, PASSWORD, vendorId)).body.session_identifier;
    expect((await http(`${node.url}/user/activate/email?session_identifier=${otherKey}`)).body).toStrictEqual({});
    node.clock.advance(3600_000);
    expect((await send()).body).toStrictEqual({});
  });

  it('by default: 10 code entries in 15 minutes (activate)', async () => {
    const node = await start({ rateLimits: { login: ROOMY } });
    const { vendorId } = await node.addVendor();
    const { email } = await registerOkAt(node, vendorId);
    const key = (await loginAt(node, email, PASSWORD, vendorId)).body.session_identifier;
    const activate = (token: string) => http(`${node.url}/user/activate?session_key=${key}&token=${token}`);
    for (let i = 0; i < 10; i++) expectLegacyError(await activate('000000'), 400, 'invalid_code');
    expectLimited(await activate('000000'), 900);
    node.clock.advance(900_000);
    expectLegacyError(await activate('000000'), 400, 'invalid_code');
  });

  it('limits password-reset/apply per client: a guessed token cannot be brute-forced', async () => {
    const node = await start({ rateLimits: { codeEntry: SMALL } });
    const apply = () => postAt(node, '/user/password-reset/apply', { token: 'ABCD-EFGH-JKMN-PQRS', password: 'a new password' });
    for (let i = 0; i < 3; i++) expectLegacyError(await apply(), 400, 'invalid_code');
    expectLimited(await apply(), 60);
    node.clock.advance(60_000);
    expectLegacyError(await apply(), 400, 'invalid_code');
  });

  it('limits deletion confirm per client, and deletion submit per account', async () => {
    const node = await start({ rateLimits: { login: ROOMY, codeEntry: SMALL, messageSend: SMALL } });
    const { vendorId } = await node.addVendor();
    const { email } = await registerOkAt(node, vendorId);
    const session = (await loginAt(node, email, PASSWORD, vendorId)).body;
    const userId = session.user_vendor.user.id;
    const submit = () => http(`${node.url}/vendor/${vendorId}/customers/${userId}/submit?session_key=${session.session_identifier}`, { method: 'DELETE' });
    for (let i = 0; i < 2; i++) expect((await submit()).body).toStrictEqual({});
    expectLimited(await submit(), 60);

    const confirm = (code: string) => http(`${node.url}/vendor/${vendorId}/customers`, { method: 'DELETE', body: { code } });
    for (let i = 0; i < 3; i++) expectLegacyError(await confirm('ABCD-EFGH-JKMN-PQRS'), 400, 'invalid_code');
    expectLimited(await confirm('ABCD-EFGH-JKMN-PQRS'), 60);

    // After the window the real code (from the outbox file) still deletes.
    node.clock.advance(60_000);
    expect((await submit()).body).toStrictEqual({});
    await node.messaging.drain();
    // No SMTP server here: emails are .eml files (quoted-printable) in the outbox folder.
    const raw = outboxFilesAt(node, '.eml').at(-1)!.text;
    const code = extractCode(raw.replace(/=\r?\n/g, '').replace(/\r/g, ''));
    expect(code).toMatch(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);
    expect((await confirm(code!)).body).toStrictEqual({});
  });

  it('the defaults are the table of docs/decisions.md', () => {
    expect(DEFAULT_RATE_LIMITS).toStrictEqual({
      login: { perClient: 20, perAccount: 10, windowSeconds: 60 },
      passwordReset: { perClient: 10, perAccount: 3, windowSeconds: 900 },
      codeEntry: { perClient: 10, perAccount: 10, windowSeconds: 900 },
      lookup: { perClient: 30, perAccount: 10, windowSeconds: 60 },
      messageSend: { perClient: 10, perAccount: 5, windowSeconds: 3600 },
      register: { perClient: 20, perAccount: 5, windowSeconds: 600 },
      storeHistory: { perClient: 120, perAccount: 60, windowSeconds: 60 },
      staffSignIn: { perClient: 20, perAccount: 10, windowSeconds: 900 },
      personalData: { perClient: 20, perAccount: 5, windowSeconds: 3600 },
      staffPersonalData: { perClient: 120, perAccount: 60, windowSeconds: 3600 },
    });
  });
});
