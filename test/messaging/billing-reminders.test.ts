import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { remindExpiringBillingProfiles } from '../../src/core/payments/reminders/remind-expiring-billing-profiles';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { startJobs } from '../../src/server/node/jobs';
import { type Customer, ROOMY_RATE_LIMITS, signUpAt, withSessionKey } from '../support/customers';
import { type Mailbox, type ParsedMail, startMailbox } from '../support/mailbox';
import { http, startTestNode, type TestNode } from '../support/test-node';

// The expiry reminder job: a saved card (billing profile) in its last month of validity gets one
// email to its owner, through the outbox and a real SMTP server, in the owner's language; running
// the job again sends nothing more. Cards are added over HTTP; the job is run as the node runs it
// (startJobs calls the same function at start and hourly).

let node: TestNode;
let mailbox: Mailbox;
let luna: VendorCredentials;
let sol: VendorCredentials;

/** 10 Feb 2027, 09:00 UTC: cards expiring 02/2027 are in their last month. */
const FEB_10_2027 = Date.UTC(2027, 1, 10, 9, 0, 0);

beforeAll(async () => {
  mailbox = await startMailbox();
  node = await startTestNode({ messaging: { smtpUrl: mailbox.url }, rateLimits: ROOMY_RATE_LIMITS });
  node.clock.set(FEB_10_2027);
  luna = await node.addVendor('Café Luna');
  sol = await node.addVendor('Café Sol');
  await node.engine.db.updateTable('vendors').set({ language: 'es' }).where('id', '=', sol.vendorId).execute();
});

afterAll(async () => {
  await node?.close();
  await mailbox?.close();
});

async function addCard(c: Customer, number: string, month: string, year: string): Promise<number> {
  const reply = await http(`${node.url}${withSessionKey('/user/billing-profile/add', c.key)}`, {
    method: 'POST',
    body: { name: 'Card Holder', number, expiry_month: month, expiry_year: year, cvv: number.length === 15 ? '1234' : '123', description: 'card', zip_code: '10001' },
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return Number(reply.body.id);
}

async function mailsTo(email: string): Promise<ParsedMail[]> {
  await node.messaging.drain();
  return mailbox.messages.filter((m) => m.to.includes(email));
}

describe('reminders for billing profiles that expire soon', () => {
  it('emails each owner once in the last month of a card, in their language, and again only for the next card', async () => {
    const ana = await signUpAt(node, luna.vendorId, { first_name: 'Ana' });
    const lucia = await signUpAt(node, sol.vendorId, { first_name: 'Lucía' });
    const john = await signUpAt(node, sol.vendorId, { first_name: 'John', language: 1 });
    const bob = await signUpAt(node, luna.vendorId, { first_name: 'Bob' });

    const anaFeb = await addCard(ana, '4242424242424242', '02', '2027');
    const anaMar = await addCard(ana, '5555555555554444', '03', '2027');
    await addCard(ana, '378282246310005', '12', '2030');
    await addCard(lucia, '5555555555554444', '2', '2027');
    await addCard(john, '4242424242424242', '02', '2027');
    // A card deleted before its last month: no reminder, no further charges.
    const bobFeb = await addCard(bob, '4242424242424242', '02', '2027');
    const removed = await http(`${node.url}${withSessionKey('/user/billing-profile', bob.key)}`, { method: 'DELETE', body: { user_billingProfile_id: bobFeb } });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);

    expect(await remindExpiringBillingProfiles(node.engine)).toEqual({ queued: 3 });
    // Running again (the next hour, a restart, a second node) queues nothing more.
    expect(await remindExpiringBillingProfiles(node.engine)).toEqual({ queued: 0 });

    const [toAna] = await mailsTo(ana.email);
    expect(await mailsTo(ana.email)).toHaveLength(1);
    expect(toAna!.subject).toBe('Café Luna: your Visa card ending in 4242 expires soon');
    expect(toAna!.text).toMatch(/^Hi Ana,$/m);
    expect(toAna!.text).toContain('The Visa card ending in 4242 that you saved in your Café Luna account expires at the end of 02/2027.');
    expect(toAna!.html).toContain('<html lang="en">');

    const toLucia = await mailsTo(lucia.email);
    expect(toLucia).toHaveLength(1);
    expect(toLucia[0]!.subject).toBe('Café Sol: su tarjeta Mastercard terminada en 4444 vence pronto');
    expect(toLucia[0]!.text).toMatch(/^¡Hola, Lucía!$/m);
    expect(toLucia[0]!.text).toContain('vence al final de 02/2027');
    expect(toLucia[0]!.html).toContain('<html lang="es">');

    // A customer who chose English at a Spanish-speaking vendor reads English.
    const toJohn = await mailsTo(john.email);
    expect(toJohn.map((m) => m.subject)).toEqual(['Café Sol: your Visa card ending in 4242 expires soon']);
    expect(await mailsTo(bob.email)).toEqual([]);

    const marked = await node.engine.db.selectFrom('billing_profiles').select(['id', 'expiry_reminded_at']).where('id', 'in', [anaFeb, anaMar, bobFeb]).orderBy('id').execute();
    expect(marked).toEqual(
      [
        { id: anaFeb, expiry_reminded_at: FEB_10_2027 },
        { id: anaMar, expiry_reminded_at: null },
        { id: bobFeb, expiry_reminded_at: null },
      ].sort((a, b) => a.id - b.id),
    );
    const outbox = await node.engine.db.selectFrom('messages_outbox').select(['template', 'status', 'params']).where('template', '=', 'billing_profile_expiring').execute();
    expect(outbox).toHaveLength(3);
    expect(outbox.every((row) => row.status === 'sent' && row.params === null)).toBe(true);

    // March: the March card's turn, once; February's is not reminded again.
    node.clock.set(Date.UTC(2027, 2, 1, 0, 30));
    expect(await remindExpiringBillingProfiles(node.engine)).toEqual({ queued: 1 });
    expect(await remindExpiringBillingProfiles(node.engine)).toEqual({ queued: 0 });
    const march = await mailsTo(ana.email);
    expect(march.map((m) => m.subject)).toEqual([
      'Café Luna: your Visa card ending in 4242 expires soon',
      'Café Luna: your Mastercard card ending in 4444 expires soon',
    ]);
    expect(march[1]!.text).toContain('expires at the end of 03/2027');
  });

  it('does not remind before the last month, nor after the card has expired', async () => {
    node.clock.set(Date.UTC(2027, 3, 20, 12, 0));
    const eva = await signUpAt(node, luna.vendorId, { first_name: 'Eva' });
    await addCard(eva, '4242424242424242', '05', '2027');
    expect(await remindExpiringBillingProfiles(node.engine)).toEqual({ queued: 0 });
    node.clock.set(Date.UTC(2027, 5, 1, 0, 0));
    expect(await remindExpiringBillingProfiles(node.engine)).toEqual({ queued: 0 });
    expect(await mailsTo(eva.email)).toEqual([]);
  });

  it('is one of the jobs a node runs at start (startJobs), queueing once across runs', async () => {
    node.clock.set(Date.UTC(2027, 6, 3, 8, 0));
    const zoe = await signUpAt(node, luna.vendorId, { first_name: 'Zoe' });
    await addCard(zoe, '4242424242424242', '07', '2027');
    // The jobs' timers are driven by hand: the first run one second after start, then hourly.
    vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval'] });
    try {
      const stop = startJobs(node.engine);
      await vi.advanceTimersByTimeAsync(1_000);
      await vi.advanceTimersByTimeAsync(3_600_000);
      await stop();
    } finally {
      vi.useRealTimers();
    }
    // The outbox worker may have begun sending while the timers were fake: the hour's jump then
    // fired the SMTP client's own timeouts and the reminder waits for its retry, dated by the node's
    // clock (a loaded CI machine hit that once). A day later any retry is due; one mail either way.
    node.clock.set(Date.UTC(2027, 6, 4, 8, 0));
    const mails = await mailsTo(zoe.email);
    expect(mails.map((m) => m.subject)).toEqual(['Café Luna: your Visa card ending in 4242 expires soon']);
  });
});
