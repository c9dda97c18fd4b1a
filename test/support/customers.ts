import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import PostalMime from 'postal-mime';
import { expect } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import type { Mailbox, ParsedMail } from './mailbox';
import { http, type HttpReply, type TestNode } from './test-node';

// Customers over real HTTP, for the API tests of the legacy customer calls (test/api/users-*,
// test/api/consumer-*): sign-up and login, session_key URLs, the legacy error envelope, fresh
// emails and phones, and the outbox. `xAt(node, …)` helpers take the node; `customerApi` and
// `consumerApi` bind the same calls to a file's node.

// ---------------------------------------------------------------------------------------------
// constants

/** The password of every customer the users-* tests register. */
export const PASSWORD = 'correct horse 1';
/** The password of every customer the consumer-* tests register. */
export const CONSUMER_PASSWORD = 'correct horse battery';
/** The headers of a form-encoded body. */
export const FORM: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
/** One rate limit far above anything a test does. */
export const ROOMY = { perClient: 100_000, perAccount: 100_000, windowSeconds: 60 };
/** Every rate limit roomy, for a node whose tests must never meet one (the limits have their own file). */
export const ROOMY_RATE_LIMITS = { login: ROOMY, passwordReset: ROOMY, codeEntry: ROOMY, lookup: ROOMY, messageSend: ROOMY, register: ROOMY, storeHistory: ROOMY, staffSignIn: ROOMY };

// ---------------------------------------------------------------------------------------------
// fresh values

let emailCount = 0;
/** An email address no other test uses: `<tag>.<n>.<random hex>@example.com`. */
export function freshEmail(tag = 'user'): string {
  return `${tag}.${++emailCount}.${randomBytes(3).toString('hex')}@example.com`;
}

let phoneCount = 0;
/** A valid Ecuadorian mobile number no other test uses: { national 0991<series>…, e164 +593991<series>… }. */
export function freshPhone(series = '2'): { national: string; e164: string } {
  const digits = String(10_000 + ++phoneCount).slice(-5);
  return { national: `0991${series}${digits}`, e164: `+593991${series}${digits}` };
}

// ---------------------------------------------------------------------------------------------
// the legacy error envelope

/** Which parts of the legacy error envelope `expectLegacyError` checks; the default is 'full' depth. */
export interface LegacyErrorChecks {
  /**
   * 'full': everything (content type, the keys of body, error and entry, reference_id, more_info, the message's type);
   * 'basic': the body's keys, object, code, one entry with reason and message;
   * 'minimal': 'basic' without the body's keys.
   */
  depth?: 'full' | 'basic' | 'minimal';
  /** Also check error.more_info is null (always checked at 'full' depth). */
  moreInfoNull?: boolean;
  /** Also check the message carries no stack trace. */
  noStackTrace?: boolean;
}

/** Expects `{error: {code, reference_id, more_info: null, errors: [{reason, message, field?}]}, object: 'error'}` with this status, reason and field. */
export function expectLegacyError(reply: HttpReply, status: number, reason: string, field?: string, checks: LegacyErrorChecks = {}): void {
  const depth = checks.depth ?? 'full';
  const full = depth === 'full';
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  if (full) expect(reply.headers.get('content-type') ?? '').toMatch(/application\/json/);
  const body = reply.body;
  if (depth !== 'minimal') expect(Object.keys(body).sort()).toEqual(['error', 'object']);
  expect(body.object).toBe('error');
  if (full) expect(Object.keys(body.error).sort()).toEqual(['code', 'errors', 'more_info', 'reference_id']);
  expect(body.error.code).toBe(status);
  if (full) expect(typeof body.error.reference_id).toBe('string');
  if (full || checks.moreInfoNull) expect(body.error.more_info).toBeNull();
  expect(body.error.errors).toHaveLength(1);
  const [entry] = body.error.errors;
  expect(entry.reason).toBe(reason);
  if (full) expect(typeof entry.message).toBe('string');
  expect(entry.message.length).toBeGreaterThan(0);
  if (checks.noStackTrace) expect(entry.message).not.toMatch(/\n\s+at /);
  if (full) for (const key of Object.keys(entry)) expect(['reason', 'message', 'field']).toContain(key);
  if (field !== undefined) expect(entry.field).toBe(field);
}

/** `expectLegacyError` with these checks fixed, for a file that always checks the envelope the same way. */
export function legacyErrorCheck(checks: LegacyErrorChecks): (reply: HttpReply, status: number, reason: string, field?: string) => void {
  return (reply, status, reason, field) => expectLegacyError(reply, status, reason, field, checks);
}

// ---------------------------------------------------------------------------------------------
// calls on a given node

/** `path` with the customer's session: `<path>?session_key=<key, URL-encoded>`. */
export function withSessionKey(path: string, key: string): string {
  return `${path}?session_key=${encodeURIComponent(key)}`;
}

/** POSTs `body` to `path` on the node (an object as JSON, a string as is). */
export function postAt(node: TestNode, path: string, body: unknown, headers?: Record<string, string>): Promise<HttpReply> {
  return http(`${node.url}${path}`, { method: 'POST', body, ...(headers ? { headers } : {}) });
}

/** GETs `path` on the node with `query` as the query string. */
export function lookupAt(node: TestNode, path: string, query: Record<string, string | number>): Promise<HttpReply> {
  const params = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
  return http(`${node.url}${path}?${params.toString()}`);
}

/** The body of POST /user/register for Ana López with a fresh email and PASSWORD, terms accepted; `overrides` win. */
export function registration(vendorId: number | string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { first_name: 'Ana', last_name: 'López', anonymous: false, email_address: freshEmail(), password: PASSWORD, terms: true, vendor: vendorId, ...overrides };
}

/** Registers a customer (`registration` + `overrides`), expecting 200: the email, the password and the User object. */
export async function registerOkAt(node: TestNode, vendorId: number, overrides: Record<string, unknown> = {}): Promise<{ email: string; password: string; user: any }> {
  const body = registration(vendorId, overrides);
  const reply = await postAt(node, '/user/register', body);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return { email: body.email_address as string, password: body.password as string, user: reply.body };
}

/**
 * A guest the counter registers by phone alone (POST /onscreen/register with the store's key): no
 * email, so no way into the app until one is added. `e164` is the number as the node stores it.
 */
export async function phoneOnlyGuestAt(node: TestNode, apiKey: string, phone: { number: string; code: string; e164: string }, names: { first_name?: string; last_name?: string } = {}): Promise<number> {
  const opened = await http(`${node.url}/onscreen/register?api_key=${encodeURIComponent(apiKey)}`, { method: 'POST', body: { phone_number: { number: phone.number, code: phone.code }, ...names } });
  expect(opened.status, JSON.stringify(opened.body)).toBe(201);
  const guest = await node.engine.db.selectFrom('users').select(['id', 'email']).where('phone', '=', phone.e164).executeTakeFirstOrThrow();
  expect(guest.email).toBeNull();
  return Number(guest.id);
}

/** POST /user/authenticate. */
export function loginAt(node: TestNode, email: string, password: string, vendorId: number | string): Promise<HttpReply> {
  return postAt(node, '/user/authenticate', { email_address: email, password, vendor: vendorId });
}

/** POST /user/authenticate, expecting 200: the Login session. */
export async function loginOkAt(node: TestNode, email: string, password: string, vendorId: number | string): Promise<any> {
  const reply = await loginAt(node, email, password, vendorId);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body;
}

/** A customer registered and logged in at one vendor. */
export interface Customer {
  email: string;
  userId: number;
  vendorId: number;
  /** The session_key of the login. */
  key: string;
}

/** Registers a customer (`registration` + `overrides`) and logs in, both expecting 200. */
export async function signUpAt(node: TestNode, vendorId: number, overrides: Record<string, unknown> = {}): Promise<Customer> {
  const { email, user } = await registerOkAt(node, vendorId, overrides);
  const session = await loginOkAt(node, email, PASSWORD, vendorId);
  return { email, userId: Number(user.id), vendorId, key: session.session_identifier };
}

/** GET /user/email/exists. */
export function emailExistsAt(node: TestNode, email: string, vendorId: number): Promise<HttpReply> {
  return lookupAt(node, '/user/email/exists', { email, vendor: vendorId });
}

/** POST /user/password-reset/reset. */
export function requestResetAt(node: TestNode, email: string, vendorId: number): Promise<HttpReply> {
  return postAt(node, '/user/password-reset/reset', { email_address: email, vendor: vendorId });
}

/** The node's outbox files ending in `suffix` (oldest name first) with their text; none while there is no outbox folder. */
export function outboxFilesAt(node: TestNode, suffix: string): Array<{ file: string; text: string }> {
  const dir = join(node.dataDir, 'outbox');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(suffix))
    .sort()
    .map((file) => ({ file, text: readFileSync(join(dir, file), 'utf8') }));
}

/** The SMS files of the node's outbox (`*.sms.json`), oldest first: file name, recipient and text. */
export function smsFilesAt(node: TestNode): Array<{ file: string; to: string; text: string }> {
  return outboxFilesAt(node, '.sms.json').map(({ file, text }) => ({ file, ...(JSON.parse(text) as { to: string; text: string }) }));
}

/** Runs `action` (which must answer {}), delivers the outbox, and returns the one new email to `to`. */
export async function newMailAt(node: TestNode, mailbox: Mailbox, to: string, action: () => Promise<HttpReply>): Promise<ParsedMail> {
  const seen = new Set(mailbox.messages);
  const reply = await action();
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  expect(reply.body).toStrictEqual({});
  await node.messaging.drain();
  const mail = await mailbox.waitFor((m) => !seen.has(m) && m.to.includes(to));
  expect(mailbox.messages.filter((m) => !seen.has(m) && m.to.includes(to))).toHaveLength(1);
  return mail;
}

/** PUT /user/profile {phone_number: {number, code}} with the session, expecting 200: the phone as stored. */
export async function setPhoneAt(node: TestNode, c: Customer, number: string, code: string): Promise<string> {
  const reply = await http(`${node.url}${withSessionKey('/user/profile', c.key)}`, { method: 'PUT', body: { phone_number: { number, code } } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  const row = await node.engine.db.selectFrom('users').select('phone').where('id', '=', c.userId).executeTakeFirstOrThrow();
  return row.phone!;
}

/**
 * The two-step account deletion over HTTP: submit, read the emailed code from the outbox, confirm
 * (and, with `expectDeleted`, check the row). `forfeitBalances`: the customer gives up money still
 * held at the program (else both steps refuse it).
 */
export async function deleteAccountAt(node: TestNode, c: Customer, options: { expectDeleted?: boolean; forfeitBalances?: boolean } = {}): Promise<void> {
  const before = new Set(outboxFilesAt(node, '.eml').map((f) => f.file));
  const forfeit = options.forfeitBalances ? { forfeit_balances: true } : {};
  const submit = await http(`${node.url}${withSessionKey(`/vendor/${c.vendorId}/customers/${c.userId}/submit`, c.key)}`, { method: 'DELETE', body: forfeit });
  expect(submit.status, JSON.stringify(submit.body)).toBe(200);
  await node.messaging.drain();
  const fresh = outboxFilesAt(node, '.eml').filter((f) => !before.has(f.file));
  const texts = await Promise.all(fresh.map(async (f) => (await PostalMime.parse(f.text)).text ?? ''));
  const code = /\b[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}\b/.exec(texts.find((t) => t.includes('delete')) ?? '')?.[0];
  expect(code, 'deletion code in the outbox').toBeDefined();
  const confirm = await http(`${node.url}/vendor/${c.vendorId}/customers`, { method: 'DELETE', body: { code, ...forfeit } });
  expect(confirm.status, JSON.stringify(confirm.body)).toBe(200);
  if (options.expectDeleted) {
    const row = await node.engine.db.selectFrom('users').select('status').where('id', '=', c.userId).executeTakeFirstOrThrow();
    expect(row.status).toBe('deleted');
  }
}

// ---------------------------------------------------------------------------------------------
// users-* tests: the calls above bound to the file's node

/** How `customerApi` names vendors and numbers phones, and where it reads mail. */
export interface CustomerApiOptions {
  /** Default vendor names are `<vendorName> <n>` (default 'Vendor'). */
  vendorName?: string;
  /** The digit after 0991 in `freshPhone` numbers (default '2'). */
  phoneSeries?: string;
  /** The SMTP mailbox the node delivers to, for `newMail`. */
  mailbox?: () => Mailbox;
}

/** A vendor added by `customerApi().vendor`, with its name. */
export type NamedVendor = VendorCredentials & { name: string };

/** The customer calls of the users-* tests on the node `nodeOf()` returns (read at each call). */
export function customerApi(nodeOf: () => TestNode, options: CustomerApiOptions = {}) {
  let vendorCount = 0;
  const vendorName = (prefix = options.vendorName ?? 'Vendor') => `${prefix} ${++vendorCount}`;
  const getProfile = (key: string, path = '/user/profile') => http(`${nodeOf().url}${withSessionKey(path, key)}`);
  return {
    /** The next default vendor name: `<prefix> <n>`, one count for the whole file. */
    vendorName,
    /** Adds a vendor (`<vendorName> <n>` unless named) and returns its credentials and name. */
    vendor: async (name = vendorName()): Promise<NamedVendor> => ({ ...(await nodeOf().addVendor(name)), name }),
    /** The node's clock in Unix seconds. */
    nowSec: () => Math.floor(nodeOf().clock.now() / 1000),
    /** `freshPhone` in this file's series. */
    freshPhone: () => freshPhone(options.phoneSeries),
    /** `postAt` on the file's node. */
    post: (path: string, body: unknown, headers?: Record<string, string>) => postAt(nodeOf(), path, body, headers),
    /** `lookupAt` on the file's node. */
    lookup: (path: string, query: Record<string, string | number>) => lookupAt(nodeOf(), path, query),
    /** `lookup`, expecting 200: the body. */
    lookupOk: async (path: string, query: Record<string, string | number>): Promise<any> => {
      const reply = await lookupAt(nodeOf(), path, query);
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      return reply.body;
    },
    /** POST /user/register with `registration(vendorId, overrides)`. */
    register: (vendorId: number | string, overrides: Record<string, unknown> = {}) => postAt(nodeOf(), '/user/register', registration(vendorId, overrides)),
    /** `registerOkAt` on the file's node. */
    registerOk: (vendorId: number, overrides: Record<string, unknown> = {}) => registerOkAt(nodeOf(), vendorId, overrides),
    /** `loginAt` on the file's node. */
    login: (email: string, password: string, vendorId: number | string) => loginAt(nodeOf(), email, password, vendorId),
    /** `loginOkAt` on the file's node. */
    loginOk: (email: string, password: string, vendorId: number | string) => loginOkAt(nodeOf(), email, password, vendorId),
    /** `signUpAt` on the file's node. */
    signUp: (vendorId: number, overrides: Record<string, unknown> = {}) => signUpAt(nodeOf(), vendorId, overrides),
    /** GET /user/profile (or `path`) with the session. */
    getProfile,
    /** GET /user/profile, expecting 200: the User profile. */
    profileOk: async (key: string): Promise<any> => {
      const reply = await getProfile(key);
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      return reply.body;
    },
    /** PUT /user/profile with the session. */
    putProfile: (key: string, body: unknown, headers?: Record<string, string>) =>
      http(`${nodeOf().url}${withSessionKey('/user/profile', key)}`, { method: 'PUT', body, ...(headers ? { headers } : {}) }),
    /** `requestResetAt` on the file's node. */
    requestReset: (email: string, vendorId: number) => requestResetAt(nodeOf(), email, vendorId),
    /** `smsFilesAt` on the file's node. */
    smsFiles: () => smsFilesAt(nodeOf()),
    /** `newMailAt` on the file's node and `options.mailbox`. */
    newMail: (to: string, action: () => Promise<HttpReply>) => {
      if (!options.mailbox) throw new Error('customerApi: newMail needs options.mailbox');
      return newMailAt(nodeOf(), options.mailbox(), to, action);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// consumer-* tests

/** Who `consumerApi().customer` registers: `<emailPrefix>-<n>@example.test`, named firstName lastName. */
export interface ConsumerApiOptions {
  emailPrefix: string;
  firstName: string;
  lastName: string;
}

/** A customer registered by `consumerApi().customer`, logged in at its vendor. */
export interface ConsumerCustomer {
  userId: number;
  sessionKey: string;
  email: string;
  password: string;
}

/** The customer calls of the consumer-* tests on the node `nodeOf()` returns (read at each call). */
export function consumerApi(nodeOf: () => TestNode, options: ConsumerApiOptions) {
  let seq = 0;
  const authenticate = async (email: string, password: string, vendorId: number): Promise<HttpReply> => {
    nodeOf().clock.advance(61_000); // the login limiter (per IP, per minute) counts on the node's clock
    return http(`${nodeOf().url}/user/authenticate`, { method: 'POST', body: { email_address: email, password, vendor: vendorId } });
  };
  const login = async (email: string, password: string, vendorId: number): Promise<string> => {
    const auth = await authenticate(email, password, vendorId);
    expect(auth.status, JSON.stringify(auth.body)).toBe(200);
    return auth.body.session_identifier;
  };
  const key = (c: ConsumerCustomer | string) => encodeURIComponent(typeof c === 'string' ? c : c.sessionKey);
  return {
    /** POST /user/authenticate, a minute after the last one (the login limiter counts on the node's clock). */
    authenticate,
    /** `authenticate`, expecting 200: the session_key. */
    login,
    /** The URL-encoded session_key of a customer (or the key itself). */
    key,
    /** The node's clock in Unix seconds. */
    nowSec: () => Math.floor(nodeOf().clock.now() / 1000),
    /** The node's URL of `path` with the customer's session_key. */
    sessionUrl: (path: string, c: ConsumerCustomer | string) => `${nodeOf().url}${path}?session_key=${key(c)}`,
    /** Registers a new customer at the vendor (CONSUMER_PASSWORD, no `anonymous` field) and logs in. */
    customer: async (vendorId: number): Promise<ConsumerCustomer> => {
      const email = `${options.emailPrefix}-${++seq}@example.test`;
      const password = CONSUMER_PASSWORD;
      const reg = await http(`${nodeOf().url}/user/register`, {
        method: 'POST',
        body: { first_name: options.firstName, last_name: options.lastName, email_address: email, password, terms: true, vendor: vendorId },
      });
      expect(reg.status, JSON.stringify(reg.body)).toBe(200);
      return { userId: Number(reg.body.id), sessionKey: await login(email, password, vendorId), email, password };
    },
  };
}
