import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customerApi, expectLegacyError, PASSWORD, ROOMY_RATE_LIMITS, withSessionKey } from '../support/customers';
import { extractCode, type Mailbox, startMailbox } from '../support/mailbox';
import { http, type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// A customer asks for a reset, then remembers the password and changes it in the app. The emailed
// token must not undo that change for the rest of its hour: whoever reads the mailbox later (a
// shared family inbox, a phone left unlocked) would set a password of their own. Real HTTP, a real
// SMTP server.

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

const { vendor, signUp, post, loginOk, login, putProfile, newMail, requestReset } = customerApi(() => node, { vendorName: 'Panadería', mailbox: () => mailbox });

async function emailedResetToken(email: string, vendorId: number): Promise<string> {
  const mail = await newMail(email, () => requestReset(email, vendorId));
  return extractCode(mail.text)!;
}

function applyReset(token: string, password: string): Promise<HttpReply> {
  return post('/user/password-reset/apply', { token, password });
}

function changePassword(key: string, current: string, password: string): Promise<HttpReply> {
  return http(`${node.url}${withSessionKey('/user/password', key)}`, { method: 'PUT', body: `current_password=${encodeURIComponent(current)}&password=${encodeURIComponent(password)}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
}

describe('a password the customer changes ends the resets asked for before', () => {
  it('PUT /user/password: the earlier token is refused and the new password stays', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    const token = await emailedResetToken(c.email, v.vendorId);

    const changed = await changePassword(c.key, PASSWORD, 'chosen in the app 1');
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);

    expectLegacyError(await applyReset(token, 'from the old email 1'), 400, 'invalid_code', 'token');
    await loginOk(c.email, 'chosen in the app 1', v.vendorId);
    expectLegacyError(await login(c.email, 'from the old email 1', v.vendorId), 401, 'invalid_credentials');
  });

  it('PUT /user/profile with password: the same', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    const token = await emailedResetToken(c.email, v.vendorId);

    const changed = await putProfile(c.key, { current_password: PASSWORD, password: 'chosen in the app 2' });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);

    expectLegacyError(await applyReset(token, 'from the old email 2'), 400, 'invalid_code', 'token');
    await loginOk(c.email, 'chosen in the app 2', v.vendorId);
  });

  it('a profile change without a new password leaves the token working, and a reset asked for after the change works', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    const kept = await emailedResetToken(c.email, v.vendorId);
    const renamed = await putProfile(c.key, { first_name: 'Zoë' });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect((await applyReset(kept, 'reset after a rename')).status).toBe(200);

    const d = await signUp(v.vendorId);
    expect((await changePassword(d.key, PASSWORD, 'chosen in the app 3')).status).toBe(200);
    const later = await emailedResetToken(d.email, v.vendorId);
    expect((await applyReset(later, 'reset after the change')).status).toBe(200);
    await loginOk(d.email, 'reset after the change', v.vendorId);
  });
});
