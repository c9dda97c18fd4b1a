import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { consumerApi, expectLegacyError } from '../support/customers';
import { http, type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// Every consumer call that needs a logged-in customer refuses a missing, unknown, logged-out or
// expired session_key with 401 and the legacy envelope, before looking at anything else.

let node: TestNode;
let v: VendorCredentials;

beforeAll(async () => {
  node = await startTestNode();
  v = await node.addVendor();
});

afterAll(async () => {
  await node?.close();
});

interface Call {
  method: string;
  path: string;
  body?: unknown;
}

const CALLS: Call[] = [
  { method: 'GET', path: '/user/quick-pay/balance' },
  { method: 'GET', path: '/user/currency/balance' },
  { method: 'GET', path: '/user/reward/list' },
  { method: 'GET', path: '/user/transaction/list' },
  { method: 'PUT', path: '/user/password', body: { current_password: 'correct horse battery', password: 'a new secret 123' } },
  { method: 'GET', path: '/user/card/list' },
  { method: 'POST', path: '/user/card/add', body: { number: 'ABC123', pin: '1' } },
  { method: 'DELETE', path: '/user/card', body: { user_card: 1 } },
  { method: 'POST', path: '/user/account/deactivate', body: { password: 'correct horse battery' } },
];

const { customer } = consumerApi(() => node, { emailPrefix: 'sessions', firstName: 'Sol', lastName: 'Vega' });
const newSession = async (): Promise<string> => (await customer(v.vendorId)).sessionKey;

function call(c: Call, query: string): Promise<HttpReply> {
  return http(`${node.url}${c.path}${query}`, { method: c.method, ...(c.body !== undefined ? { body: c.body } : {}) });
}

const expect401 = (reply: HttpReply, reason: string) => expectLegacyError(reply, 401, reason, undefined, { depth: 'minimal' });

const label = (c: Call) => `${c.method} ${c.path}`;

describe.each(CALLS.map((c) => [label(c), c] as const))('%s', (_name, c) => {
  it('answers 401 missing_credentials without a session_key (or an empty one)', async () => {
    expect401(await call(c, ''), 'missing_credentials');
    expect401(await call(c, '?session_key='), 'missing_credentials');
  });

  it('answers 401 invalid_session for an unknown session_key', async () => {
    expect401(await call(c, '?session_key=pcsk_not-a-real-session'), 'invalid_session');
  });

  it('answers 401 session_ended after logout', async () => {
    const key = await newSession();
    const logout = await http(`${node.url}/user/logout?session_key=${encodeURIComponent(key)}`, { method: 'POST' });
    expect(logout.status).toBe(200);
    expect401(await call(c, `?session_key=${encodeURIComponent(key)}`), 'session_ended');
  });

  it('answers 401 session_expired 30 days after login', async () => {
    const key = await newSession();
    node.clock.advance(30 * 24 * 3600_000);
    expect401(await call(c, `?session_key=${encodeURIComponent(key)}`), 'session_expired');
  });
});

it('lets the same calls through with a live session (so the refusals above come from the session)', async () => {
  const key = await newSession();
  const statuses: Record<string, number> = {};
  for (const c of CALLS.filter((x) => x.path !== '/user/account/deactivate' && x.path !== '/user/password')) {
    statuses[label(c)] = (await call(c, `?session_key=${encodeURIComponent(key)}`)).status;
  }
  expect(statuses).toEqual({
    'GET /user/quick-pay/balance': 200,
    'GET /user/currency/balance': 200,
    'GET /user/reward/list': 200,
    'GET /user/transaction/list': 200,
    'GET /user/card/list': 200,
    'POST /user/card/add': 404, // no such card: past the session check
    'DELETE /user/card': 404, // no such link: past the session check
  });
});
