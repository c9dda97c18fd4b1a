import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOwner } from '../../src/core/staff/add-owner';
import { invitedStaff, ownerOf, signIn, STAFF_PASSWORD, staffCall } from '../support/backoffice';
import { type Mailbox, startMailbox } from '../support/mailbox';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Staff accounts over real HTTP: sign-in with lockout, the one-time link of `punchcard init`,
// sessions that expire, sign-out here and everywhere, invitations and resets through a real SMTP
// server, owners-only staff management, and the audit log of it.

let node: TestNode;
let mailbox: Mailbox;

beforeAll(async () => {
  mailbox = await startMailbox();
  node = await startTestNode({ messaging: { smtpUrl: mailbox.url } });
});

afterAll(async () => {
  await node?.close();
  await mailbox?.close();
});

const post = (path: string, body: unknown, token?: string) => http(`${node.url}${path}`, { method: 'POST', body, ...(token ? { token } : {}) });
const me = (token: string) => http(`${node.url}/backoffice/me`, { token });
const MINUTE = 60_000;

/** The link of an emailed invitation or reset, and its token. */
async function mailedToken(to: string): Promise<{ link: string; token: string; subject: string }> {
  await node.messaging.drain();
  const mail = await mailbox.waitFor((m) => m.to.includes(to));
  const link = /(http\S+#\/(?:accept|reset)\?token=(\S+))/.exec(mail.text);
  expect(link, mail.text).not.toBeNull();
  return { link: link![1]!, token: link![2]!, subject: mail.subject };
}

describe('sign-in', () => {
  it('answers a session token for the right password, and the same 401 for a wrong password or an unknown email', async () => {
    const { vendorId } = await node.addVendor();
    const owner = await ownerOf(node, vendorId);
    const reply = await me(owner.token);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ email: owner.email, role: 'owner', store_id: null, status: 'active' });

    const wrong = await post('/backoffice/sign-in', { email: owner.email, password: 'not the password' });
    const unknown = await post('/backoffice/sign-in', { email: 'nobody@staff.test', password: STAFF_PASSWORD });
    expect([wrong.status, wrong.body.code]).toEqual([401, 'invalid_credentials']);
    expect(unknown.body).toEqual({ ...wrong.body });
  });

  it('locks the account for 15 minutes after 5 wrong passwords in a row, even for the right one', async () => {
    const { vendorId } = await node.addVendor();
    const owner = await ownerOf(node, vendorId);
    for (let i = 0; i < 4; i++) expect((await post('/backoffice/sign-in', { email: owner.email, password: `wrong-${i}-pass` })).status).toBe(401);
    const fifth = await post('/backoffice/sign-in', { email: owner.email, password: 'wrong-5-pass' });
    expect([fifth.status, fifth.body.code]).toEqual([429, 'account_locked']);
    const right = await post('/backoffice/sign-in', { email: owner.email, password: STAFF_PASSWORD });
    expect([right.status, right.body.code]).toEqual([429, 'account_locked']);
    expect(right.headers.get('retry-after')).toBe('900');
    node.clock.advance(15 * MINUTE);
    expect((await post('/backoffice/sign-in', { email: owner.email, password: STAFF_PASSWORD })).status).toBe(200);
  });

  it('refuses bad input with 400 and a field', async () => {
    const reply = await post('/backoffice/sign-in', { email: 'a@b.test' });
    expect([reply.status, reply.body.code, reply.body.field]).toEqual([400, 'validation_failed', 'password']);
  });
});

describe('the one-time sign-in link of punchcard init', () => {
  it('signs the owner in once; a second use is refused', async () => {
    const { vendorId } = await node.addVendor();
    const { signInToken, staff } = await addOwner(node.engine, { vendorId, email: `link.${Date.now()}@staff.test` });
    expect(signInToken).toMatch(/^pcsl_/);
    const first = await post('/backoffice/sign-in/link', { token: signInToken });
    expect(first.status).toBe(200);
    expect(first.body.staff).toMatchObject({ id: staff.id, role: 'owner' });
    expect((await me(first.body.token)).status).toBe(200);
    const again = await post('/backoffice/sign-in/link', { token: signInToken });
    expect([again.status, again.body.code]).toEqual([400, 'invalid_code']);
  });

  it('expires after 24 hours', async () => {
    const { vendorId } = await node.addVendor();
    const { signInToken } = await addOwner(node.engine, { vendorId, email: `late.${Date.now()}@staff.test` });
    node.clock.advance(24 * 60 * MINUTE);
    const reply = await post('/backoffice/sign-in/link', { token: signInToken });
    expect([reply.status, reply.body.code]).toEqual([400, 'code_expired']);
  });
});

describe('sessions', () => {
  it('expire after 30 idle minutes, and 12 hours after sign-in however busy', async () => {
    const { vendorId } = await node.addVendor();
    const owner = await ownerOf(node, vendorId);
    node.clock.advance(29 * MINUTE);
    expect((await me(owner.token)).status).toBe(200);
    node.clock.advance(29 * MINUTE);
    expect((await me(owner.token)).status).toBe(200);
    node.clock.advance(31 * MINUTE);
    const idle = await me(owner.token);
    expect([idle.status, idle.body.code]).toEqual([401, 'session_expired']);

    const busy = await signIn(node, owner.email);
    for (let step = 0; step < 36; step++) {
      expect((await me(busy)).status).toBe(200);
      node.clock.advance(20 * MINUTE);
    }
    const old = await me(busy);
    expect([old.status, old.body.code]).toEqual([401, 'session_expired']);
  });

  it('sign-out ends this session; sign-out everywhere ends them all', async () => {
    const { vendorId } = await node.addVendor();
    const owner = await ownerOf(node, vendorId);
    const second = await signIn(node, owner.email);
    const third = await signIn(node, owner.email);
    expect((await post('/backoffice/sign-out', {}, owner.token)).status).toBe(200);
    expect((await me(owner.token)).body.code).toBe('session_ended');
    expect((await me(second)).status).toBe(200);
    const everywhere = await post('/backoffice/sign-out-everywhere', {}, second);
    expect(everywhere.body).toEqual({ sessions_ended: 2 });
    expect((await me(second)).body.code).toBe('session_ended');
    expect((await me(third)).body.code).toBe('session_ended');
  });

  it('refuses a missing or unknown token, and a customer or admin token', async () => {
    const creds = await node.addVendor();
    expect((await http(`${node.url}/backoffice/me`)).body.code).toBe('missing_credentials');
    expect((await me('pcss_unknown')).body.code).toBe('invalid_session');
    expect((await me(creds.accessToken)).body.code).toBe('invalid_session');
  });
});

describe('invitations (by email, through SMTP)', () => {
  it('an owner invites a manager, who chooses a password from the emailed link and is signed in', async () => {
    const { vendorId } = await node.addVendor('Café Luna');
    const owner = await ownerOf(node, vendorId);
    const email = `ana.${Date.now()}@cafeluna.test`;
    // store_id null (as the screens send it) stays null, not a coerced 0.
    const invited = await staffCall(node, owner.token, 'POST', '/backoffice/staff', { email, name: 'Ana', role: 'manager', store_id: null });
    expect(invited.status).toBe(201);
    expect(invited.body).toMatchObject({ email, name: 'Ana', role: 'manager', status: 'invited', store_id: null });

    const { link, token, subject } = await mailedToken(email);
    expect(subject).toBe(`${owner.email} invited you to the Café Luna back office`);
    expect(link.startsWith(`${node.url}/admin#/accept?token=pcsi_`)).toBe(true);
    expect((await post('/backoffice/sign-in', { email, password: STAFF_PASSWORD })).status).toBe(401);

    const short = await post('/backoffice/invitations/accept', { token, password: 'short' });
    expect([short.status, short.body.code]).toEqual([400, 'weak_password']);
    const accepted = await post('/backoffice/invitations/accept', { token, password: STAFF_PASSWORD });
    expect(accepted.status).toBe(200);
    expect(accepted.body.staff).toMatchObject({ email, role: 'manager', status: 'active' });
    expect((await me(accepted.body.token)).status).toBe(200);
    expect((await post('/backoffice/invitations/accept', { token, password: STAFF_PASSWORD })).body.code).toBe('invalid_code');
    await signIn(node, email);
  });

  it('refuses a taken email, an unknown role, a store manager without a store or with another vendor’s store', async () => {
    const mine = await node.addVendor();
    const other = await node.addVendor();
    const owner = await ownerOf(node, mine.vendorId);
    const invite = (body: unknown) => staffCall(node, owner.token, 'POST', '/backoffice/staff', body);
    const taken = await invite({ email: owner.email, name: 'X', role: 'manager' });
    expect([taken.status, taken.body.code]).toEqual([409, 'staff_email_taken']);
    const role = await invite({ email: 'r@staff.test', name: 'X', role: 'cashier' });
    expect([role.status, role.body.code, role.body.field]).toEqual([400, 'validation_failed', 'role']);
    const noStore = await invite({ email: 's@staff.test', name: 'X', role: 'store_manager' });
    expect([noStore.status, noStore.body.field]).toEqual([400, 'store_id']);
    const foreign = await invite({ email: 's@staff.test', name: 'X', role: 'store_manager', store_id: other.storeId });
    expect([foreign.status, foreign.body.code]).toEqual([404, 'store_not_found']);
    const list = await staffCall(node, owner.token, 'GET', '/backoffice/staff');
    expect(list.body.items.map((s: { email: string }) => s.email)).toEqual([owner.email]);
  });
});

describe('an invitation not accepted in time (72 hours)', () => {
  it('is sent again by inviting the same email: a new link, 72 hours more, the old link dead; no second account', async () => {
    const { vendorId } = await node.addVendor('Café Sol');
    const owner = await ownerOf(node, vendorId);
    const email = `late.${Date.now()}@cafesol.test`;
    /** The token of the newest invitation to `email`: one whose token none of `seen` is. */
    const nextToken = async (...seen: string[]) => {
      await node.messaging.drain();
      const mail = await mailbox.waitFor((m) => m.to.includes(email) && !seen.some((token) => m.text.includes(token)));
      const link = /(http\S+#\/accept\?token=(\S+))/.exec(mail.text);
      expect(link, mail.text).not.toBeNull();
      return { link: link![1]!, token: link![2]! };
    };
    const first = await staffCall(node, owner.token, 'POST', '/backoffice/staff', { email, name: 'Lu', role: 'store_manager', store_id: (await node.engine.db.selectFrom('stores').select('id').where('vendor_id', '=', vendorId).executeTakeFirstOrThrow()).id });
    expect(first.status).toBe(201);
    const firstExpiry = new Date(node.clock.now() + 72 * 3_600_000).toISOString();
    expect(first.body.invitation).toEqual({ expires_at: firstExpiry, expired: false });
    /** The list's entry of `email` (GET /backoffice/staff): its invitation, by the node's clock. */
    const listed = async () => (await staffCall(node, owner.token, 'GET', '/backoffice/staff')).body.items.find((s: { email: string }) => s.email === email);
    expect((await listed()).invitation).toEqual({ expires_at: firstExpiry, expired: false });
    const { token: oldToken } = await nextToken();
    node.clock.advance(72 * 3_600_000 + MINUTE);
    expect((await post('/backoffice/invitations/accept', { token: oldToken, password: STAFF_PASSWORD })).body.code).toBe('code_expired');
    owner.token = await signIn(node, owner.email);
    expect((await listed()).invitation).toEqual({ expires_at: firstExpiry, expired: true });
    // Accounts that are not waiting have none (null, not absent).
    const ownerEntry = (await staffCall(node, owner.token, 'GET', '/backoffice/staff')).body.items.find((s: { email: string }) => s.email === owner.email);
    expect(ownerEntry).toHaveProperty('invitation', null);

    // Invited again (as a manager now): 200 with the same account, updated, and a new email.
    const again = await staffCall(node, owner.token, 'POST', '/backoffice/staff', { email: email.toUpperCase(), name: 'Lucía', role: 'manager', store_id: null });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toMatchObject({ id: first.body.id, email, name: 'Lucía', role: 'manager', store_id: null, status: 'invited' });
    const secondExpiry = new Date(node.clock.now() + 72 * 3_600_000).toISOString();
    expect(again.body.invitation).toEqual({ expires_at: secondExpiry, expired: false });
    expect((await listed()).invitation).toEqual({ expires_at: secondExpiry, expired: false });
    const { token: newToken, link } = await nextToken(oldToken);
    expect(newToken).not.toBe(oldToken);
    expect(link.startsWith(`${node.url}/admin#/accept?token=pcsi_`)).toBe(true);
    const list = await staffCall(node, owner.token, 'GET', '/backoffice/staff');
    expect(list.body.items.filter((s: { email: string }) => s.email === email)).toHaveLength(1);
    const audit = await staffCall(node, owner.token, 'GET', '/backoffice/audit?object_type=staff&limit=1');
    expect(audit.body.items[0]).toMatchObject({ action: 'staff.reinvite', object_id: String(first.body.id), before: { name: 'Lu', role: 'store_manager', status: 'invited' }, after: { name: 'Lucía', role: 'manager', status: 'invited' } });

    // Sent again before it expired: the newer link works, every older one is dead.
    const third = await staffCall(node, owner.token, 'POST', '/backoffice/staff', { email, name: 'Lucía', role: 'manager' });
    expect(third.status).toBe(200);
    const { token: latest } = await nextToken(oldToken, newToken);
    expect((await post('/backoffice/invitations/accept', { token: newToken, password: STAFF_PASSWORD })).body.code).toBe('invalid_code');
    // The new one lasts 72 hours from the re-send.
    node.clock.advance(71 * 3_600_000);
    const accepted = await post('/backoffice/invitations/accept', { token: latest, password: STAFF_PASSWORD });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.body.staff).toMatchObject({ email, role: 'manager', status: 'active' });
    expect((await post('/backoffice/invitations/accept', { token: oldToken, password: STAFF_PASSWORD })).body.code).toBe('invalid_code');

    // Accepted: inviting the email again is 409 staff_email_taken, as for another vendor's invited account.
    owner.token = await signIn(node, owner.email);
    expect((await listed()).invitation).toBeNull();
    const taken = await staffCall(node, owner.token, 'POST', '/backoffice/staff', { email, name: 'Lucía', role: 'manager' });
    expect([taken.status, taken.body.code]).toEqual([409, 'staff_email_taken']);
    const elsewhere = await node.addVendor();
    const otherOwner = await ownerOf(node, elsewhere.vendorId);
    const pending = `pending.${Date.now()}@cafesol.test`;
    expect((await staffCall(node, owner.token, 'POST', '/backoffice/staff', { email: pending, name: 'P', role: 'manager' })).status).toBe(201);
    const foreign = await staffCall(node, otherOwner.token, 'POST', '/backoffice/staff', { email: pending, name: 'P', role: 'manager' });
    expect([foreign.status, foreign.body.code]).toEqual([409, 'staff_email_taken']);
    expect(await node.engine.db.selectFrom('staff_accounts').select(['vendor_id', 'name']).where('email_key', '=', pending).execute()).toEqual([{ vendor_id: vendorId, name: 'P' }]);
  });
});

describe('password reset (by email, through SMTP)', () => {
  it('emails a link; the new password works, the old one and every session end', async () => {
    const { vendorId } = await node.addVendor('Panadería Sol');
    const owner = await ownerOf(node, vendorId);
    const asked = await post('/backoffice/password-reset', { email: owner.email.toUpperCase() });
    expect(asked.status).toBe(202);
    const { token, subject, link } = await mailedToken(owner.email);
    expect(subject).toBe('Reset your Panadería Sol back office password');
    expect(link).toContain('/admin#/reset?token=pcsr_');
    const done = await post('/backoffice/password-reset/confirm', { token, password: 'a brand new password' });
    expect(done.status).toBe(200);
    expect((await me(owner.token)).body.code).toBe('session_ended');
    expect((await post('/backoffice/sign-in', { email: owner.email, password: STAFF_PASSWORD })).status).toBe(401);
    await signIn(node, owner.email, 'a brand new password');
    expect((await post('/backoffice/password-reset/confirm', { token, password: 'another new password' })).body.code).toBe('invalid_code');
  });

  it('never builds the emailed link from the Host header: the node address, or its --public-url', async () => {
    const { vendorId } = await node.addVendor('Panadería Host');
    const owner = await ownerOf(node, vendorId);
    const status = await postWithHost(node.url, '/backoffice/password-reset', { email: owner.email }, 'attacker.example');
    expect(status).toBe(202);
    const { link } = await mailedToken(owner.email);
    expect(link.startsWith(`${node.url}/admin#/reset?token=`), link).toBe(true);

    const configured = await startTestNode({ messaging: { smtpUrl: mailbox.url }, publicUrl: 'https://loyalty.example.com/' });
    try {
      const other = await ownerOf(configured, (await configured.addVendor('Panadería Pública')).vendorId);
      expect(await postWithHost(configured.url, '/backoffice/password-reset', { email: other.email }, 'attacker.example')).toBe(202);
      await configured.messaging.drain();
      const mail = await mailbox.waitFor((m) => m.to.includes(other.email));
      expect(mail.text).toContain('https://loyalty.example.com/admin#/reset?token=pcsr_');
      expect(mail.text).not.toContain('attacker.example');
    } finally {
      await configured.close();
    }
  });

  it('answers the same for an unknown email and sends nothing', async () => {
    const before = mailbox.messages.length;
    const reply = await post('/backoffice/password-reset', { email: 'ghost@staff.test' });
    expect([reply.status, reply.body]).toEqual([202, {}]);
    await node.messaging.drain();
    expect(mailbox.messages.length).toBe(before);
  });
});

describe('managing staff (owners only) and the audit log', () => {
  it('changes a role, disables (ending sessions), and records each change with before and after', async () => {
    const { vendorId, storeId } = await node.addVendor();
    const owner = await ownerOf(node, vendorId);
    const manager = await invitedStaff(node, owner, 'manager');
    const moved = await staffCall(node, owner.token, 'PUT', `/backoffice/staff/${manager.id}`, { role: 'store_manager', store_id: storeId });
    expect(moved.body).toMatchObject({ role: 'store_manager', store_id: storeId });
    expect((await me(manager.token)).body.role).toBe('store_manager');
    const disabled = await staffCall(node, owner.token, 'PUT', `/backoffice/staff/${manager.id}`, { status: 'disabled' });
    expect(disabled.body.status).toBe('disabled');
    expect((await me(manager.token)).body.code).toBe('session_ended');
    expect((await post('/backoffice/sign-in', { email: manager.email, password: STAFF_PASSWORD })).body.code).toBe('staff_disabled');

    const audit = await staffCall(node, owner.token, 'GET', '/backoffice/audit?limit=2');
    expect(audit.body.total).toBe(4);
    expect(audit.body.items).toHaveLength(2);
    const [last, previous] = audit.body.items;
    expect(last).toMatchObject({ actor: owner.email, staff_id: owner.id, action: 'staff.update', object_type: 'staff', object_id: String(manager.id) });
    expect(last.before.status).toBe('active');
    expect(last.after.status).toBe('disabled');
    expect(previous.before).toMatchObject({ role: 'manager', store_id: null });
    expect(previous.after).toMatchObject({ role: 'store_manager', store_id: storeId });
    const older = await staffCall(node, owner.token, 'GET', '/backoffice/audit?limit=2&offset=2');
    expect(older.body.items.map((e: { action: string }) => e.action)).toEqual(['staff.invite', 'staff.create']);
    expect(older.body.items[1].actor).toBe('cli');
    expect(JSON.stringify(audit.body)).not.toMatch(/password|argon2/);
  });

  it('keeps one active owner', async () => {
    const { vendorId } = await node.addVendor();
    const owner = await ownerOf(node, vendorId);
    const self = await staffCall(node, owner.token, 'PUT', `/backoffice/staff/${owner.id}`, { role: 'manager' });
    expect([self.status, self.body.code]).toEqual([409, 'last_owner']);
    const second = await invitedStaff(node, owner, 'owner');
    expect((await staffCall(node, second.token, 'PUT', `/backoffice/staff/${owner.id}`, { role: 'manager' })).status).toBe(200);
  });

  it('disables an invited account (its link dies); enabled again it is invited, never active without a password', async () => {
    const { vendorId } = await node.addVendor('Café Brasa');
    const owner = await ownerOf(node, vendorId);
    const email = `pending.${Date.now()}@cafebrasa.test`;
    const invited = await staffCall(node, owner.token, 'POST', '/backoffice/staff', { email, name: 'Teo', role: 'manager' });
    expect(invited.status).toBe(201);
    const { token: firstToken } = await mailedToken(email);
    const put = (body: unknown) => staffCall(node, owner.token, 'PUT', `/backoffice/staff/${invited.body.id}`, body);
    const listed = async () => (await staffCall(node, owner.token, 'GET', '/backoffice/staff')).body.items.find((s: { email: string }) => s.email === email);
    /** No way in without a chosen password: sign-in fails, and a reset request mails nothing. */
    const cannotSignIn = async () => {
      const attempt = await post('/backoffice/sign-in', { email, password: STAFF_PASSWORD });
      expect([attempt.status, attempt.body.code]).toEqual([401, 'invalid_credentials']);
      const before = mailbox.messages.length;
      expect((await post('/backoffice/password-reset', { email })).status).toBe(202);
      await node.messaging.drain();
      expect(mailbox.messages.length).toBe(before);
    };

    // Invited: only accepting makes it active (409, nothing changed).
    const early = await put({ status: 'active' });
    expect([early.status, early.body.code, early.body.field]).toEqual([409, 'invalid_status_transition', 'status']);
    expect(await listed()).toMatchObject({ status: 'invited', invitation: { expired: false } });

    // Disabled: the emailed link is dead, for good.
    const disabled = await put({ status: 'disabled' });
    expect([disabled.status, disabled.body.status]).toEqual([200, 'disabled']);
    await cannotSignIn();
    const whileDisabled = await post('/backoffice/invitations/accept', { token: firstToken, password: STAFF_PASSWORD });
    expect([whileDisabled.status, whileDisabled.body.code]).toEqual([400, 'invalid_code']);

    // Enabled again: back to invited (its invitation shown expired, to be sent again), not active.
    const enabled = await put({ status: 'active' });
    expect([enabled.status, enabled.body.status]).toEqual([200, 'invited']);
    expect(await listed()).toMatchObject({ status: 'invited', invitation: { expired: true } });
    await cannotSignIn();
    const oldLink = await post('/backoffice/invitations/accept', { token: firstToken, password: STAFF_PASSWORD });
    expect([oldLink.status, oldLink.body.code]).toEqual([400, 'invalid_code']);
    await cannotSignIn();
    const audit = await staffCall(node, owner.token, 'GET', '/backoffice/audit?object_type=staff&limit=2');
    expect(audit.body.items.map((e: { before: { status: string }; after: { status: string } }) => [e.before.status, e.after.status])).toEqual([
      ['disabled', 'invited'],
      ['invited', 'disabled'],
    ]);

    // A new invitation is the way in: Teo chooses a password, and only then signs in.
    const again = await staffCall(node, owner.token, 'POST', '/backoffice/staff', { email, name: 'Teo', role: 'manager' });
    expect([again.status, again.body.status]).toEqual([200, 'invited']);
    await node.messaging.drain();
    const mail = await mailbox.waitFor((m) => m.to.includes(email) && !m.text.includes(firstToken));
    const accepted = await post('/backoffice/invitations/accept', { token: /#\/accept\?token=(\S+)/.exec(mail.text)![1], password: STAFF_PASSWORD });
    expect([accepted.status, accepted.body.staff?.status]).toEqual([200, 'active']);
    await signIn(node, email);
  });

  it('enables a disabled account that chose a password (or an owner made with a sign-in link) as active again', async () => {
    const { vendorId } = await node.addVendor();
    const owner = await ownerOf(node, vendorId);
    const manager = await invitedStaff(node, owner, 'manager');
    const linked = await addOwner(node.engine, { vendorId, email: `linked.${Date.now()}@staff.test` });
    for (const id of [manager.id, linked.staff.id]) {
      expect((await staffCall(node, owner.token, 'PUT', `/backoffice/staff/${id}`, { status: 'disabled' })).body.status).toBe('disabled');
      expect((await staffCall(node, owner.token, 'PUT', `/backoffice/staff/${id}`, { status: 'active' })).body.status).toBe('active');
    }
    await signIn(node, manager.email);
  });

  it('disabling kills every link the account was sent (sign-in link, password reset): enabled again, none of them works', async () => {
    const { vendorId } = await node.addVendor();
    const owner = await ownerOf(node, vendorId);
    const linked = await addOwner(node.engine, { vendorId, email: `relinked.${Date.now()}@staff.test` });
    const manager = await invitedStaff(node, owner, 'manager');
    expect((await post('/backoffice/password-reset', { email: manager.email })).status).toBe(202);
    const reset = await mailedToken(manager.email);
    for (const id of [linked.staff.id, manager.id]) {
      expect((await staffCall(node, owner.token, 'PUT', `/backoffice/staff/${id}`, { status: 'disabled' })).body.status).toBe('disabled');
      expect((await staffCall(node, owner.token, 'PUT', `/backoffice/staff/${id}`, { status: 'active' })).body.status).toBe('active');
    }
    const link = await post('/backoffice/sign-in/link', { token: linked.signInToken });
    expect([link.status, link.body.code]).toEqual([400, 'invalid_code']);
    const confirm = await post('/backoffice/password-reset/confirm', { token: reset.token, password: 'a brand new password' });
    expect([confirm.status, confirm.body.code]).toEqual([400, 'invalid_code']);
    // the manager's own password still works; the owner asks for a new link the usual way
    await signIn(node, manager.email);
  });

  it('never reaches another vendor’s staff', async () => {
    const a = await ownerOf(node, (await node.addVendor()).vendorId);
    const b = await ownerOf(node, (await node.addVendor()).vendorId);
    const reply = await staffCall(node, a.token, 'PUT', `/backoffice/staff/${b.id}`, { name: 'Mine now' });
    expect([reply.status, reply.body.code]).toEqual([404, 'staff_not_found']);
  });
});

/** POSTs JSON with a Host header of the caller's choosing (fetch does not let one be set): the status. */
function postWithHost(url: string, path: string, body: unknown, host: string): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ hostname, port, path, method: 'POST', headers: { host, 'content-type': 'application/json' } }, (reply) => {
      reply.resume();
      reply.on('end', () => resolve(reply.statusCode ?? 0));
    });
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}
