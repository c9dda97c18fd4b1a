import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settlePendingEgifts } from '../../src/core/payments/egifts/settle-pending-egifts';
import { type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { freshEmail, PASSWORD, registration, ROOMY_RATE_LIMITS, withSessionKey } from '../support/customers';
import { extractCode, type Mailbox, startMailbox } from '../support/mailbox';
import { http, type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// Raw card numbers never reach the database, its WAL or the logs: after every eGift flow (guest
// cards that succeed, decline for each reason, fail the Luhn check or report late; a gift paid
// with a billing profile; the claim), the SQLite file, its -wal file, the node's log file and the
// emails sent are scanned for every test card number, with and without spaces.

const TEST_CARDS = [
  '4242 4242 4242 4242',
  '5555 5555 5555 4444',
  '3782 822463 10005',
  '4000 0000 0000 0002',
  '4000 0000 0000 9995',
  '4000 0000 0000 9987',
  '4000 0000 0000 9979',
  '4000 0000 0000 0069',
  '4000 0000 0000 0127',
  '4000 0000 0000 0119',
  '4000 0000 0000 0341',
  '4242 4242 4242 4241',
  '4000 0027 6000 3184',
  '4000 0084 0000 1629',
];

let node: TestNode;
let mailbox: Mailbox;
let vendor: VendorCredentials;

beforeAll(async () => {
  mailbox = await startMailbox();
  // The node's logger at its most talkative, into a file like `punchcard store` writes.
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS, traceLog: true, messaging: { smtpUrl: mailbox.url } });
  vendor = await node.addVendor('Scan Café');
});

afterAll(async () => {
  await node?.close();
  await mailbox?.close();
});

/** Registers a customer at the vendor over HTTP and logs in: the session_key. */
async function signUp(overrides: Record<string, unknown> = {}): Promise<string> {
  const body = registration(vendor.vendorId, overrides);
  const registered = await http(`${node.url}/user/register`, { method: 'POST', body });
  expect(registered.status, JSON.stringify(registered.body)).toBe(200);
  const login = await http(`${node.url}/user/authenticate`, { method: 'POST', body: { email_address: body.email_address, password: PASSWORD, vendor: vendor.vendorId } });
  expect(login.status, JSON.stringify(login.body)).toBe(200);
  return login.body.session_identifier;
}

/** A guest eGift paid with `number`; the same body is sent again as the retry. */
function giftBody(number: string) {
  const digits = number.replace(/\s/g, '');
  return {
    amount: 10,
    buyer: { name: 'Mateo', email: freshEmail('buyer') },
    recipient: { name: 'Ana', email: freshEmail('ana') },
    message: 'Enjoy',
    billing: { name: 'Mateo', number, expiry: { month: '12', year: '2030' }, cvv: digits.length === 15 ? '1234' : '123', zip_code: '10001' },
  };
}

function gift(body: unknown, key: string): Promise<HttpReply> {
  return http(`${node.url}/vendor/${vendor.vendorId}/egift`, { method: 'POST', body, headers: { 'idempotency-key': key } });
}

function readIfExists(file: string): string {
  return existsSync(file) ? readFileSync(file).toString('latin1') : '';
}

describe('the card-number scan after the eGift flows', () => {
  it('finds no test card number in the database, its WAL, the log or the emails', async () => {
    // Every test card as a guest eGift, with and without spaces, each retried with its key.
    const outcomes: Record<string, number> = {};
    for (const [i, number] of TEST_CARDS.entries()) {
      for (const written of [number, number.replace(/\s/g, '')]) {
        const body = giftBody(written);
        const first = await gift(body, `scan-${i}-${written.length}`);
        const retry = await gift(body, `scan-${i}-${written.length}`);
        expect(retry.status, JSON.stringify(retry.body)).toBe(first.status);
        outcomes[first.status] = (outcomes[first.status] ?? 0) + 1;
      }
    }
    // Successes, late results (200 Pending), declines (422) and the Luhn failure (400) all ran.
    expect(outcomes).toEqual({ 200: 10, 422: 16, 400: 2 });

    // Late results settle through the job.
    // (each late card was polled once by its retry; the job's poll is the second)
    expect(await settlePendingEgifts(node.engine)).toEqual({ settled: 4, failed: 0 });

    // A gift paid with a saved card, and the claims.
    const buyer = await signUp();
    const added = await http(`${node.url}${withSessionKey('/user/billing-profile/add', buyer)}`, {
      method: 'POST',
      body: { name: 'Mateo', number: '4242 4242 4242 4242', expiry_month: '12', expiry_year: '2030', cvv: '123', description: 'mine', zip_code: '10001' },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    const recipient = freshEmail('claimer');
    const paid = await http(`${withSessionKey(`${node.url}/vendor/${vendor.vendorId}/egift`, buyer)}`, {
      method: 'POST',
      body: { amount: 40, recipient: { name: 'Ana', email: recipient }, user_billingprofile: added.body.id },
    });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    await node.messaging.drain();
    const mail = await mailbox.waitFor((m) => m.to.includes(recipient));
    const claimer = await signUp({ email_address: recipient });
    const claimed = await http(`${node.url}${withSessionKey('/user/egift/claim', claimer)}`, { method: 'POST', body: { code: extractCode(mail.text) } });
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
    await node.messaging.drain();
    await node.log!.flush();

    const files = {
      database: readIfExists(join(node.dataDir, 'punchcard.db')),
      wal: readIfExists(join(node.dataDir, 'punchcard.db-wal')),
      log: readIfExists(node.log!.file),
      emails: mailbox.messages.map((m) => m.raw).join('\n'),
    };
    // The scan reads real content: the gifts' recipients are in the database files, the requests in the log.
    expect(files.database.length + files.wal.length).toBeGreaterThan(0);
    expect(files.database.includes(recipient) || files.wal.includes(recipient)).toBe(true);
    expect(files.log).toContain(`/vendor/${vendor.vendorId}/egift`);
    expect(mailbox.messages.length).toBeGreaterThan(5);

    for (const number of TEST_CARDS) {
      for (const form of [number, number.replace(/\s/g, '')]) {
        for (const [name, text] of Object.entries(files)) {
          expect(text.includes(form), `${form} found in the ${name}`).toBe(false);
        }
      }
    }
  });
});
