import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sendScheduledEgifts } from '../../src/core/payments/egifts/send-scheduled-egifts';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { type Customer, freshEmail, legacyErrorCheck, outboxFilesAt, ROOMY_RATE_LIMITS, signUpAt, withSessionKey } from '../support/customers';
import { expectBalancesAddUp } from '../support/in-store';
import { paymentsApi } from '../support/payments';
import { http, type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// eGifts as real clients send them (issue 12), over real HTTP: a saved card named as billing: {id},
// `vendor` in the body, and send_date (empty or absent: now; a future one schedules the email,
// the card being charged at once; the node's job sends it on the day).

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});

afterEach(async () => {
  await expectBalancesAddUp(node);
});

afterAll(async () => {
  await node?.close();
});

const expectLegacyError = legacyErrorCheck({ depth: 'basic', noStackTrace: true });
const { addProfileOk } = paymentsApi(() => node);
const DAY_MS = 86_400_000;
const nowSec = () => Math.floor(node.clock.now() / 1000);

function giftBody(overrides: Record<string, unknown> = {}) {
  return { amount: 15, recipient: { name: 'Ana López', email: freshEmail('ana') }, message: 'For you', ...overrides };
}

function buy(vendorId: number, body: unknown, session?: string): Promise<HttpReply> {
  const path = `/vendor/${vendorId}/egift`;
  return http(`${node.url}${session ? withSessionKey(path, session) : path}`, { method: 'POST', body });
}

async function mailsTo(email: string): Promise<number> {
  await node.messaging.drain();
  return outboxFilesAt(node, '.eml').filter((f) => f.text.includes(email)).length;
}

async function buyerWithCard(v: VendorCredentials): Promise<{ buyer: Customer; profile: number }> {
  const buyer = await signUpAt(node, v.vendorId);
  const profile = await addProfileOk(buyer.key);
  return { buyer, profile: profile.id };
}

const charges = async (vendorId: number) => (await node.engine.db.selectFrom('payment_charges').select('id').where('vendor_id', '=', vendorId).where('purpose', '=', 'egift').execute()).length;

describe('POST /vendor/{vendor_id}/egift as real clients send it', () => {
  it('charges a saved card named billing: {id}, with vendor in the body and an empty send_date: sent now', async () => {
    const v = await node.addVendor();
    const { buyer, profile } = await buyerWithCard(v);
    const body = giftBody({ billing: { id: profile }, vendor: String(v.vendorId), send_date: '' });
    const reply = await buy(v.vendorId, body, buyer.key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ status: 'Sent', sent: nowSec(), send_date: null, billing: { user_billingprofile: profile, card: 'xxxx xxxx xxxx 4242' } });
    expect(await mailsTo(body.recipient.email)).toBe(1);
  });

  it('schedules a gift with a future send_date: charged now, emailed by the job on the day', async () => {
    const v = await node.addVendor();
    const { buyer, profile } = await buyerWithCard(v);
    const when = nowSec() + 2 * 86_400;
    const body = giftBody({ user_billingprofile: profile, send_date: when });
    const reply = await buy(v.vendorId, body, buyer.key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ status: 'Scheduled', sent: null, send_date: when, transaction_status: { id: 1, name: 'Complete' } });
    const charge = await node.engine.db.selectFrom('payment_charges').select('status').where('id', '=', Number(reply.body.transaction)).executeTakeFirstOrThrow();
    expect(charge.status).toBe('succeeded');
    expect(await mailsTo(body.recipient.email)).toBe(0);

    node.clock.advance(DAY_MS);
    expect(await sendScheduledEgifts(node.engine)).toEqual({ sent: 0, failed: 0 });
    expect(await mailsTo(body.recipient.email)).toBe(0);

    node.clock.advance(DAY_MS);
    expect(await sendScheduledEgifts(node.engine)).toEqual({ sent: 1, failed: 0 });
    expect(await mailsTo(body.recipient.email)).toBe(1);
    const row = await node.engine.db.selectFrom('egifts').select(['status', 'sent_at']).where('id', '=', reply.body.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'sent', sent_at: node.clock.now() });
    expect(await sendScheduledEgifts(node.engine)).toEqual({ sent: 0, failed: 0 });
    expect(await mailsTo(body.recipient.email)).toBe(1);
  });

  it('reads send_date as an ISO date, and a past one as now', async () => {
    const v = await node.addVendor();
    const { buyer, profile } = await buyerWithCard(v);
    const day = new Date(node.clock.now() + 3 * DAY_MS).toISOString().slice(0, 10);
    const later = await buy(v.vendorId, giftBody({ billing: { id: profile }, send_date: day }), buyer.key);
    expect(later.status, JSON.stringify(later.body)).toBe(200);
    expect(later.body).toMatchObject({ status: 'Scheduled', send_date: Date.parse(day) / 1000 });
    const past = await buy(v.vendorId, giftBody({ billing: { id: profile }, send_date: '2020-01-01' }), buyer.key);
    expect(past.body).toMatchObject({ status: 'Sent', send_date: null });
  });

  it('refuses bad send dates, a mismatched vendor and a saved card without its session, charging nothing', async () => {
    const v = await node.addVendor();
    const { buyer, profile } = await buyerWithCard(v);
    for (const send_date of ['tomorrow', '2026-13-45', nowSec() + 400 * 86_400, -5]) {
      expectLegacyError(await buy(v.vendorId, giftBody({ billing: { id: profile }, send_date }), buyer.key), 400, 'validation_failed');
    }
    expectLegacyError(await buy(v.vendorId, giftBody({ billing: { id: profile }, vendor: v.vendorId + 1 }), buyer.key), 400, 'validation_failed');
    expectLegacyError(await buy(v.vendorId, giftBody({ billing: { id: 'x' } }), buyer.key), 400, 'validation_failed');
    expectLegacyError(await buy(v.vendorId, giftBody({ billing: { id: profile } })), 401, 'missing_credentials');
    expect(await charges(v.vendorId)).toBe(0);
  });

  it("refuses another customer's saved card (404) and a session of another vendor (403)", async () => {
    const v = await node.addVendor();
    const { profile } = await buyerWithCard(v);
    const other = await signUpAt(node, v.vendorId);
    expectLegacyError(await buy(v.vendorId, giftBody({ billing: { id: profile } }), other.key), 404, 'billing_profile_not_found');
    const elsewhere = await node.addVendor();
    const { buyer: stranger, profile: theirs } = await buyerWithCard(elsewhere);
    expectLegacyError(await buy(v.vendorId, giftBody({ billing: { id: theirs } }), stranger.key), 403, 'forbidden');
    expect(await charges(v.vendorId)).toBe(0);
  });
});
