import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownerOf, staffCall } from '../support/backoffice';
import { PASSWORD, postAt, requestResetAt, ROOMY_RATE_LIMITS, signUpAt, withSessionKey } from '../support/customers';
import { extractCode, type Mailbox, startMailbox } from '../support/mailbox';
import { CARDS } from '../support/payments';
import { http, startTestNode, type TestNode } from '../support/test-node';

// The tokens and codes a node emails (back-office invitations, resets and their links, customer
// resets and verification codes, eGift claim codes) wait in the messages outbox until sent. They
// are stored sealed under the node key, so none of them is ever in the SQLite file or its WAL in
// plain text (clearing a row after sending leaves old pages behind), and none reaches the log,
// not even when the token is used afterwards. A node with a trace-level log sends each kind
// through a real SMTP server; every token read from the mails is then searched for in the
// database file, its -wal and the log.

let node: TestNode;
let mailbox: Mailbox;

beforeAll(async () => {
  mailbox = await startMailbox();
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS, traceLog: true, messaging: { smtpUrl: mailbox.url } });
});

afterAll(async () => {
  await node?.close();
  await mailbox?.close();
});

/** The token of the one email to `to`: a back-office link's `token=`, else the `Code:` line. */
async function tokenMailedTo(to: string): Promise<string> {
  const mail = await mailbox.waitFor((m) => m.to.includes(to));
  const token = /token=(\S+)/.exec(mail.text)?.[1] ?? extractCode(mail.text);
  expect(token, mail.text).toBeDefined();
  return token!;
}

const databaseFiles = () => [join(node.dataDir, 'punchcard.db'), join(node.dataDir, 'punchcard.db-wal')].filter((file) => existsSync(file));

describe('tokens in the messages outbox', () => {
  it('are never in the database file, its WAL or the log: sealed while queued, cleared once sent, redacted when used', async () => {
    const { vendorId } = await node.addVendor('Sealed Café');
    const owner = await ownerOf(node, vendorId);
    const invitee = `invitee.${Date.now()}@staff.test`;
    expect((await staffCall(node, owner.token, 'POST', '/backoffice/staff', { email: invitee, name: 'Ivy', role: 'manager' })).status).toBe(201);
    expect((await postAt(node, '/backoffice/password-reset', { email: owner.email })).status).toBe(202);
    const customer = await signUpAt(node, vendorId);
    expect((await requestResetAt(node, customer.email, vendorId)).status).toBe(200);
    const verifier = await signUpAt(node, vendorId);
    expect((await http(`${node.url}/user/activate/email?session_identifier=${encodeURIComponent(verifier.key)}`)).status).toBe(200);
    const recipient = `gift.${Date.now()}@example.com`;
    const gift = await http(`${node.url}/vendor/${vendorId}/egift`, {
      method: 'POST',
      body: { amount: 10, buyer: { name: 'Bea', email: 'bea@example.com' }, recipient: { name: 'Rae', email: recipient }, billing: { name: 'Bea', number: CARDS.visa, expiry: { month: '12', year: '2030' }, cvv: '123', zip_code: '10001' } },
    });
    expect(gift.status, JSON.stringify(gift.body)).toBe(200);

    // Waiting (the worker may have sent some already), a row holds only a sealed value.
    const queued = await node.engine.db.selectFrom('messages_outbox').select(['status', 'params']).execute();
    expect(queued.length).toBeGreaterThanOrEqual(5);
    for (const row of queued) expect(row.status === 'sent' ? row.params : row.params?.slice(0, 3)).toBe(row.status === 'sent' ? null : 'v1.');

    await node.messaging.drain();
    const tokens = {
      invitation: await tokenMailedTo(invitee),
      staffReset: await tokenMailedTo(owner.email),
      customerReset: await tokenMailedTo(customer.email),
      verification: await tokenMailedTo(verifier.email),
      claimCode: await tokenMailedTo(recipient),
    };

    // Each one works, and using it puts it in a request the log records (redacted).
    expect((await postAt(node, '/backoffice/invitations/accept', { token: tokens.invitation, password: 'an invited password' })).status).toBe(200);
    expect((await postAt(node, '/backoffice/password-reset/confirm', { token: tokens.staffReset, password: 'a reset staff password' })).status).toBe(200);
    expect((await postAt(node, '/user/password-reset/apply', { token: tokens.customerReset, password: `${PASSWORD}-new` })).status).toBe(200);
    expect((await http(`${node.url}/user/activate?session_key=${encodeURIComponent(verifier.key)}&token=${tokens.verification}`)).status).toBe(200);
    expect((await http(`${node.url}${withSessionKey('/user/egift/claim', verifier.key)}`, { method: 'POST', body: { code: tokens.claimCode } })).status).toBe(200);
    // A request's line is written once its reply has gone, which may be just after the client read
    // it: wait for the last request's line.
    let log = '';
    for (let waited = 0; !log.includes('/user/egift/claim') && waited < 10_000; waited += 50) {
      await node.log!.flush();
      log = readFileSync(node.log!.file, 'utf8');
      if (!log.includes('/user/egift/claim')) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(log).toContain('/backoffice/password-reset/confirm');
    expect(log).toMatch(/token=%5Bredacted%5D|token=\[redacted\]/);
    // The scan sees what is written: a probe in the database is found.
    await node.engine.db.insertInto('node_meta').values({ key: 'token-scan-probe', value: 'PROBE-7f3a9c' }).execute();
    expect(databaseFiles().some((file) => readFileSync(file).toString('latin1').includes('PROBE-7f3a9c'))).toBe(true);

    for (const [kind, token] of Object.entries(tokens)) {
      for (const file of [...databaseFiles(), node.log!.file]) expect(readFileSync(file).toString('latin1').includes(token), `${kind} ${token} found in ${file}`).toBe(false);
    }
  });
});
