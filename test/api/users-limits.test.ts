import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMITS } from '../../src/server/http/rate-limits';
import { extractCode } from '../support/mailbox';
import { http, type HttpReply, startTestNode, type TestNode, type TestNodeOptions } from '../support/test-node';

// Rate limits of the sensitive customer calls over real HTTP: 429 rate_limited with Retry-After,
// per client (IP) and per account or looked-up value, lifted when the window has passed. Each test
// runs its own node so the in-memory counters start empty.

const PASSWORD = 'correct horse 1';
const SMALL = { perClient: 3, perAccount: 2, windowSeconds: 60 };
const ROOMY = { perClient: 100_000, perAccount: 100_000, windowSeconds: 60 };

const nodes: TestNode[] = [];
afterEach(async () => {
  for (const node of nodes.splice(0)) await node.close();
});

async function start(options: TestNodeOptions = {}): Promise<TestNode> {
  const node = await startTestNode(options);
  nodes.push(node);
  return node;
}

let emailCount = 0;
function freshEmail(tag = 'user'): string {
  return `${tag}.${++emailCount}.${randomBytes(3).toString('hex')}@example.com`;
}

function post(node: TestNode, path: string, body: unknown): Promise<HttpReply> {
  return http(`${node.url}${path}`, { method: 'POST', body });
}

async function register(node: TestNode, vendorId: number, email = freshEmail()): Promise<string> {
  const reply = await post(node, '/user/register', { first_name: 'Ana', last_name: 'López', anonymous: false, email_address: email, password: PASSWORD, terms: true, vendor: vendorId });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return email;
}

function login(node: TestNode, email: string, vendorId: number, password = PASSWORD): Promise<HttpReply> {
  return post(node, '/user/authenticate', { email_address: email, password, vendor: vendorId });
}

function emailExists(node: TestNode, email: string, vendorId: number): Promise<HttpReply> {
  return http(`${node.url}/user/email/exists?${new URLSearchParams({ email, vendor: String(vendorId) }).toString()}`);
}

function requestReset(node: TestNode, email: string, vendorId: number): Promise<HttpReply> {
  return post(node, '/user/password-reset/reset', { email_address: email, vendor: vendorId });
}

function expectLegacyError(reply: HttpReply, status: number, reason: string, field?: string): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  expect(reply.headers.get('content-type') ?? '').toMatch(/application\/json/);
  const body = reply.body;
  expect(Object.keys(body).sort()).toEqual(['error', 'object']);
  expect(body.object).toBe('error');
  expect(Object.keys(body.error).sort()).toEqual(['code', 'errors', 'more_info', 'reference_id']);
  expect(body.error.code).toBe(status);
  expect(typeof body.error.reference_id).toBe('string');
  expect(body.error.more_info).toBeNull();
  expect(body.error.errors).toHaveLength(1);
  const [entry] = body.error.errors;
  expect(entry.reason).toBe(reason);
  expect(typeof entry.message).toBe('string');
  expect(entry.message.length).toBeGreaterThan(0);
  for (const key of Object.keys(entry)) expect(['reason', 'message', 'field']).toContain(key);
  if (field !== undefined) expect(entry.field).toBe(field);
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
    const email = await register(node, vendorId);
    expect((await login(node, email, vendorId)).status).toBe(200);
    node.clock.advance(10_000);
    expect((await login(node, email.toUpperCase(), vendorId)).status).toBe(200);
    // Third call with this email (third from this client too, which is still allowed): the account limit.
    expectLimited(await login(node, email, vendorId), 50);
    node.clock.advance(20_500);
    // Both windows are over the limit now; the longer wait is announced (29.5 s rounded up).
    expectLimited(await login(node, ` ${email} `, vendorId), 30);
    node.clock.advance(29_500);
    expect((await login(node, email, vendorId)).status).toBe(200);
  });

  it('limits logins per client whatever the emails', async () => {
    const node = await start({ rateLimits: { login: SMALL } });
    const { vendorId } = await node.addVendor();
    const emails = [freshEmail(), freshEmail(), freshEmail(), freshEmail()];
    for (const email of emails.slice(0, 3)) expectLegacyError(await login(node, email, vendorId), 401, 'invalid_credentials');
    node.clock.advance(1_000);
    expectLimited(await login(node, emails[3]!, vendorId), 59);
    node.clock.advance(59_000);
    expectLegacyError(await login(node, emails[3]!, vendorId), 401, 'invalid_credentials');
  });

  it('a limited login does not count as a wrong password', async () => {
    const node = await start({ rateLimits: { login: { perClient: 100, perAccount: 4, windowSeconds: 60 } } });
    const { vendorId } = await node.addVendor();
    const email = await register(node, vendorId);
    for (let i = 0; i < 4; i++) expectLegacyError(await login(node, email, vendorId, 'wrong password'), 401, 'invalid_credentials');
    for (let i = 0; i < 3; i++) expectLimited(await login(node, email, vendorId, 'wrong password'), 60);
    node.clock.advance(60_000);
    // Four wrong passwords counted, not seven: the right one works instead of meeting a lockout.
    expect((await login(node, email, vendorId)).status).toBe(200);
  });

  it('by default: 10 per email and 20 per client a minute', async () => {
    const node = await start();
    const { vendorId } = await node.addVendor();
    const email = await register(node, vendorId);
    for (let i = 0; i < 10; i++) expectNotLimited(await login(node, email, vendorId));
    expectLimited(await login(node, email, vendorId), 60);

    node.clock.advance(60_000);
    for (let i = 0; i < 20; i++) expectLegacyError(await login(node, freshEmail('nobody'), vendorId), 401, 'invalid_credentials');
    expectLimited(await login(node, freshEmail('nobody'), vendorId), 60);
  });
});

describe('GET /user/email/exists (and the other look-ups)', () => {
  it('limits per looked-up value and per client, 429 with Retry-After, lifted after the window', async () => {
    const node = await start({ rateLimits: { lookup: SMALL } });
    const { vendorId } = await node.addVendor();
    const email = freshEmail();
    expect((await emailExists(node, email, vendorId)).status).toBe(200);
    expect((await emailExists(node, email.toUpperCase(), vendorId)).status).toBe(200);
    expectLimited(await emailExists(node, email, vendorId), 60);
    node.clock.advance(60_000);
    expect((await emailExists(node, email, vendorId)).body).toStrictEqual({ exists: false, vendor: { id: vendorId, name: 'Vendor 1' } });

    // Per client: three different emails, then a fourth is refused.
    node.clock.advance(60_000);
    for (let i = 0; i < 3; i++) expect((await emailExists(node, freshEmail(), vendorId)).status).toBe(200);
    node.clock.advance(15_000);
    expectLimited(await emailExists(node, freshEmail(), vendorId), 45);
    node.clock.advance(45_000);
    expect((await emailExists(node, freshEmail(), vendorId)).status).toBe(200);
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

  it('by default: 10 per value and 30 per client a minute', async () => {
    const node = await start();
    const { vendorId } = await node.addVendor();
    const email = freshEmail();
    for (let i = 0; i < 10; i++) expectNotLimited(await emailExists(node, email, vendorId));
    expectLimited(await emailExists(node, email, vendorId), 60);
    node.clock.advance(60_000);
    for (let i = 0; i < 30; i++) expectNotLimited(await emailExists(node, freshEmail(), vendorId));
    expectLimited(await emailExists(node, freshEmail(), vendorId), 60);
  });
});

describe('POST /user/password-reset/reset', () => {
  it('limits per email and per client, 429 with Retry-After, lifted after the window', async () => {
    const node = await start({ rateLimits: { passwordReset: { perClient: 3, perAccount: 2, windowSeconds: 900 } } });
    const { vendorId } = await node.addVendor();
    const email = await register(node, vendorId);
    for (let i = 0; i < 2; i++) expect((await requestReset(node, email, vendorId)).body).toStrictEqual({});
    node.clock.advance(100_000);
    expectLimited(await requestReset(node, email.toUpperCase(), vendorId), 800);
    // Only two reset emails were queued.
    const queued = await node.engine.db.selectFrom('messages_outbox').select('id').where('recipient', '=', email).execute();
    expect(queued).toHaveLength(2);

    // The client is over its 3 as well now.
    expectLimited(await requestReset(node, freshEmail(), vendorId), 800);
    node.clock.advance(800_000);
    expect((await requestReset(node, email, vendorId)).body).toStrictEqual({});
  });

  it('by default: 3 per email and 10 per client in 15 minutes', async () => {
    const node = await start();
    const { vendorId } = await node.addVendor();
    const email = await register(node, vendorId);
    for (let i = 0; i < 3; i++) expectNotLimited(await requestReset(node, email, vendorId));
    expectLimited(await requestReset(node, email, vendorId), 900);
    node.clock.advance(900_000);
    for (let i = 0; i < 10; i++) expectNotLimited(await requestReset(node, freshEmail(), vendorId));
    expectLimited(await requestReset(node, freshEmail(), vendorId), 900);
  });
});

describe('messages and codes', () => {
  it('by default: 5 verification messages per account an hour', async () => {
    const node = await start({ rateLimits: { login: ROOMY } });
    const { vendorId } = await node.addVendor();
    const email = await register(node, vendorId);
    const key = (await login(node, email, vendorId)).body.session_identifier;
    const send = () => http(`${node.url}/user/activate/email?session_identifier=${key}`);
    for (let i = 0; i < 5; i++) expect((await send()).body).toStrictEqual({});
    expectLimited(await send(), 3600);
    // Another account from the same client still may (10 per client).
    const other = await register(node, vendorId);
    const otherKey = (await login(node, other, vendorId)).body.session_identifier;
    expect((await http(`${node.url}/user/activate/email?session_identifier=${otherKey}`)).body).toStrictEqual({});
    node.clock.advance(3600_000);
    expect((await send()).body).toStrictEqual({});
  });

  it('by default: 10 code entries in 15 minutes (activate)', async () => {
    const node = await start({ rateLimits: { login: ROOMY } });
    const { vendorId } = await node.addVendor();
    const email = await register(node, vendorId);
    const key = (await login(node, email, vendorId)).body.session_identifier;
    const activate = (token: string) => http(`${node.url}/user/activate?session_key=${key}&token=${token}`);
    for (let i = 0; i < 10; i++) expectLegacyError(await activate('000000'), 400, 'invalid_code');
    expectLimited(await activate('000000'), 900);
    node.clock.advance(900_000);
    expectLegacyError(await activate('000000'), 400, 'invalid_code');
  });

  it('limits password-reset/apply per client: a guessed token cannot be brute-forced', async () => {
    const node = await start({ rateLimits: { codeEntry: SMALL } });
    const apply = () => post(node, '/user/password-reset/apply', { token: 'ABCD-EFGH-JKMN-PQRS', password: 'a new password' });
    for (let i = 0; i < 3; i++) expectLegacyError(await apply(), 400, 'invalid_code');
    expectLimited(await apply(), 60);
    node.clock.advance(60_000);
    expectLegacyError(await apply(), 400, 'invalid_code');
  });

  it('limits deletion confirm per client, and deletion submit per account', async () => {
    const node = await start({ rateLimits: { login: ROOMY, codeEntry: SMALL, messageSend: SMALL } });
    const { vendorId } = await node.addVendor();
    const email = await register(node, vendorId);
    const session = (await login(node, email, vendorId)).body;
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
    const dir = join(node.dataDir, 'outbox');
    const last = readdirSync(dir).filter((f) => f.endsWith('.eml')).sort().at(-1)!;
    const raw = readFileSync(join(dir, last), 'utf8');
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
    });
  });
});
