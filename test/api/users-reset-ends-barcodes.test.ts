import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { customerApi, freshEmail, ROOMY_RATE_LIMITS, withSessionKey } from '../support/customers';
import { inStoreApi } from '../support/in-store';
import { extractCode, type Mailbox, startMailbox } from '../support/mailbox';
import { http, startTestNode, type TestNode } from '../support/test-node';

// docs/decisions.md "An email belongs to whoever proves the mailbox": the reset that hands an account
// opened with someone else's email to its owner ends every other session, and every app barcode
// drawn before it (found in review: the squatter's barcode still checked in as the account for its
// 15 minutes, spending the owner's points at the counter).

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

const { vendorName, post, signUp, requestReset, newMail } = customerApi(() => node, { vendorName: 'Squat', phoneSeries: '7', mailbox: () => mailbox });
const api = inStoreApi(() => node);

describe('a password reset takes an account back from whoever opened it with the owner’s email', () => {
  it('the squatter’s app barcode, drawn before the reset, no longer checks in as the account', async () => {
    const v = await setUpVendor(node.engine, { name: vendorName('Squat EC'), currency: 'USD', country: 'EC', store: { name: 'Centro', address1: 'Av. 10', city: 'Quito' } });
    const email = freshEmail('squatted');
    const squatter = await signUp(v.vendorId, { email_address: email, first_name: 'Mallory' });
    const drawn = await http(`${node.url}${withSessionKey('/user/token/request', squatter.key)}`, { method: 'POST', body: { token_type: 2 } });
    expect(drawn.status, JSON.stringify(drawn.body)).toBe(200);

    const mail = await newMail(email, () => requestReset(email, v.vendorId));
    const applied = await post('/user/password-reset/apply', { token: extractCode(mail.text), password: 'my own account 2' });
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    // The squatter's session is over...
    expect((await http(`${node.url}${withSessionKey('/user/profile', squatter.key)}`)).status).toBe(401);
    // ...and what it drew should be too: it identifies the owner's account at the counter.
    const checkIn = await api.checkIn(v.apiKey, drawn.body.token);
    expect(checkIn.status, JSON.stringify(checkIn.body)).toBe(404);
  });
});
