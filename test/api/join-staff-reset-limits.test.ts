import { afterEach, describe, expect, it } from 'vitest';
import { ownerOf, STAFF_PASSWORD } from '../support/backoffice';
import { FORM, freshEmail, registerOkAt } from '../support/customers';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Anonymous calls that were not rate limited: the referral page's sign-up (POST /join: it
// registers an account, and its 409 tells whether an email exists), a back-office password
// reset (POST /backoffice/password-reset: it emails the address) and the back-office sign-in
// (POST /backoffice/sign-in: its lockout stops guessing one account, not one password tried on
// many). They count per client and per email in the node's database like the customer calls
// (users-limits.test.ts), at the defaults of register, passwordReset and staffSignIn; a refusal is
// 429 rate_limited with Retry-After.

const nodes: TestNode[] = [];
afterEach(async () => {
  for (const node of nodes.splice(0)) await node.close();
});

async function start(): Promise<TestNode> {
  const node = await startTestNode();
  nodes.push(node);
  return node;
}

describe('POST /backoffice/password-reset', () => {
  it('by default: 3 per email (any case, any form) and 10 per client in 15 minutes; a limited request emails nobody', async () => {
    const node = await start();
    const { vendorId } = await node.addVendor();
    const owner = await ownerOf(node, vendorId);
    const reset = (email: unknown) => http(`${node.url}/backoffice/password-reset`, { method: 'POST', body: { email } });
    const resetsQueued = async () => (await node.engine.db.selectFrom('messages_outbox').select('id').where('recipient', '=', owner.email).where('template', '=', 'staff_password_reset').execute()).length;

    expect((await reset(owner.email)).status).toBe(202);
    expect((await reset(` ${owner.email.toUpperCase()} `)).status).toBe(202);
    // Bad input is a 400 and is not counted.
    expect((await reset({ not: 'an email' })).status).toBe(400);
    expect((await reset(owner.email)).status).toBe(202);
    // A one-item array is refused (400, not counted); the fourth plain request is limited.
    expect((await reset([owner.email])).status).toBe(400);
    const limited = await reset(owner.email);
    expect([limited.status, limited.body.code]).toEqual([429, 'rate_limited']);
    expect(limited.headers.get('retry-after')).toBe('900');
    expect(await resetsQueued()).toBe(3);

    node.clock.advance(900_000);
    expect((await reset(owner.email)).status).toBe(202);
    // Per client: 10 requests whatever the emails (the owner's one above counts).
    for (let i = 0; i < 9; i++) expect((await reset(freshEmail('staff'))).status).toBe(202);
    const perClient = await reset(freshEmail('staff'));
    expect([perClient.status, perClient.body.code]).toEqual([429, 'rate_limited']);
    expect(await resetsQueued()).toBe(4);
  });
});

describe('POST /backoffice/sign-in', () => {
  const signIn = (node: TestNode, body: unknown) => http(`${node.url}/backoffice/sign-in`, { method: 'POST', body });

  it('by default: 20 per client in 15 minutes whatever the emails (one password sprayed across staff); a limited request makes no session', async () => {
    const node = await start();
    const { vendorId } = await node.addVendor();
    const owner = await ownerOf(node, vendorId); // one sign-in: counted

    // Bad input is a 400 and is not counted.
    for (let i = 0; i < 3; i++) expect((await signIn(node, { email: owner.email })).status).toBe(400);
    // One password tried on many staff emails: each a 401, until the client's 20th request.
    for (let i = 0; i < 19; i++) expect((await signIn(node, { email: freshEmail('staff'), password: 'Summer2026!' })).status).toBe(401);
    const sprayed = await signIn(node, { email: freshEmail('staff'), password: 'Summer2026!' });
    expect([sprayed.status, sprayed.body.code]).toEqual([429, 'rate_limited']);
    expect(sprayed.headers.get('retry-after')).toBe('900');
    // The right password too: no session is made for a limited request.
    const right = await signIn(node, { email: owner.email, password: STAFF_PASSWORD });
    expect([right.status, right.body.code]).toEqual([429, 'rate_limited']);

    node.clock.advance(900_000);
    expect((await signIn(node, { email: owner.email, password: STAFF_PASSWORD })).status).toBe(200);
  });

  it('and 10 per email, in any case and form (the validated value); a one-item array is refused, not counted', async () => {
    const node = await start();
    const email = freshEmail('staff');
    expect((await signIn(node, { email: [email], password: 'guess-array-password' })).status).toBe(400);
    // From one client the lockout answers first (the 5th wrong password), as for any email; the
    // per-email count goes on underneath and refuses the 11th whatever the client.
    const codes = [];
    for (let i = 0; i < 10; i++) codes.push((await signIn(node, { email: i % 2 ? ` ${email.toUpperCase()} ` : email, password: `guess-${i}-password` })).body.code);
    expect(codes).toEqual([...Array<string>(4).fill('invalid_credentials'), ...Array<string>(6).fill('account_locked')]);
    const eleventh = await signIn(node, { email, password: 'guess-10-password' });
    expect([eleventh.status, eleventh.body.code]).toEqual([429, 'rate_limited']);
    expect((await signIn(node, { email: freshEmail('staff'), password: 'guess-11-password' })).status).toBe(401);
  });
});

describe('POST /join (the referral page)', () => {
  /** Posts the sign-up form as a browser does; the reply is a page. */
  const join = async (node: TestNode, fields: Record<string, string>) => {
    const response = await fetch(`${node.url}/join?lang=en`, { method: 'POST', headers: FORM, body: new URLSearchParams({ first_name: 'Noor', last_name: 'Haddad', terms: 'true', ...fields }).toString() });
    return { status: response.status, retryAfter: response.headers.get('retry-after'), html: await response.text() };
  };

  it('by default: 5 per email (any case) and 20 per client in 10 minutes; a refusal is the page, 429 with Retry-After, and registers nobody', async () => {
    const node = await start();
    const { vendorId } = await node.addVendor();
    await registerOkAt(node, vendorId);
    const { referral_code: code } = await node.engine.db.selectFrom('user_vendors').select('referral_code').where('vendor_id', '=', vendorId).executeTakeFirstOrThrow();
    const email = freshEmail('friend');

    // A weak password is refused in the form (400) and counts: the limit is on attempts.
    for (let i = 0; i < 5; i++) expect((await join(node, { code: code!, email_address: i % 2 ? email.toUpperCase() : email, password: 'short' })).status).toBe(400);
    const limited = await join(node, { code: code!, email_address: email, password: 'a good long password' });
    expect([limited.status, limited.retryAfter]).toEqual([429, '600']);
    expect(limited.html).toContain('data-code="rate_limited"');
    expect(limited.html).toContain('Please wait 600 seconds');
    expect(await node.engine.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst()).toBeUndefined();

    node.clock.advance(600_000);
    expect((await join(node, { code: code!, email_address: email, password: 'a good long password' })).status).toBe(201);
    expect(await node.engine.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst()).toBeDefined();
    // Per client: 20 attempts whatever the emails, unknown codes included (guessing codes counts).
    for (let i = 0; i < 19; i++) expect((await join(node, { code: i % 3 ? code! : 'nope', email_address: freshEmail('friend'), password: 'short' })).status).not.toBe(429);
    const perClient = await join(node, { code: code!, email_address: freshEmail('friend'), password: 'a good long password' });
    expect(perClient.status).toBe(429);
  });

  it('says it in Spanish on the Spanish page', async () => {
    const node = await start();
    const email = freshEmail('amiga');
    for (let i = 0; i < 5; i++) await join(node, { code: 'nope', email_address: email, password: 'short' });
    const response = await fetch(`${node.url}/join?lang=es`, { method: 'POST', headers: FORM, body: new URLSearchParams({ code: 'nope', first_name: 'Lía', last_name: 'Mora', email_address: email, password: 'short', terms: 'true' }).toString() });
    expect(response.status).toBe(429);
    expect(await response.text()).toContain('Espere 600 segundos');
  });
});
