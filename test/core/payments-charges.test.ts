import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertUser, linkUserToVendor } from '../../src/core/customers/customer-store';
import { type Engine, startEngine, transact } from '../../src/core/engine';
import { findBalanceMismatches } from '../../src/core/ledger/ledger';
import { addBillingProfile } from '../../src/core/payments/billing-profiles/manage-billing-profiles';
import { type ChargeRequest, type PaymentGateway, PaymentGatewayError } from '../../src/core/payments/gateway/payment-gateway';
import { reloadQuickPay, reloadStatus } from '../../src/core/payments/reloads/reload-quick-pay';
import { openSqlite } from '../../src/core/storage/database';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { ManualClock } from '../support/clock';
import { makeTempDir } from '../support/temp-dir';

// Charges when the gateway's answer is lost: the charge happened at the processor but the node
// never heard back. The reload answers 503 payment_gateway_unavailable and keeps its charge
// `created`; a retry with the same idempotency key (or a status poll) sends it again under the same
// gateway key, so the processor answers the first charge, and the balance is credited once.

let engine: Engine;
let dir: { path: string; remove(): void };
const clock = new ManualClock();
let session: { sessionId: number; userId: number; vendorId: number };
let real: PaymentGateway;
let loseNextAnswer = false;
let down = false;

beforeAll(async () => {
  dir = makeTempDir();
  engine = await startEngine({ database: openSqlite(`${dir.path}/charges.db`), nodeKey: randomBytes(32), clock, role: 'store' });
  real = engine.payments;
  // A gateway whose network is flaky: it may be down, or charge and lose the answer.
  engine.payments = {
    name: real.name,
    tokenize: (card, now) => real.tokenize(card, now),
    charge: async (request: ChargeRequest) => {
      if (down) throw new PaymentGatewayError('connection refused');
      const result = await real.charge(request);
      if (loseNextAnswer) {
        loseNextAnswer = false;
        throw new PaymentGatewayError('socket hang up');
      }
      return result;
    },
    getCharge: (id) => real.getCharge(id),
    findCharge: (key) => real.findCharge(key),
    refund: (id, key) => real.refund(id, key),
    detach: (token) => real.detach(token),
  };
  const vendor = await setUpVendor(engine, { name: 'Flaky', currency: 'USD', country: 'US', store: { name: 'Main', address1: '1 Main', city: 'X' } });
  const user = await transact(engine, async (trx) => {
    const row = await insertUser(trx, engine, { email: null, email_key: null, password_hash: null, first_name: 'F', last_name: 'L', phone: null, cedula: null, birthdate: null, first_vendor_id: vendor.vendorId });
    await linkUserToVendor(trx, engine, { userId: row.id, vendorId: vendor.vendorId });
    return row;
  });
  session = { sessionId: 0, userId: user.id, vendorId: vendor.vendorId };
});

afterAll(async () => {
  await engine?.close();
  dir?.remove();
});

const balance = async () => Number((await engine.db.selectFrom('ledger_accounts').select('balance').where('holder_id', '=', session.userId).executeTakeFirst())?.balance ?? 0);
const processorCharges = async () => (await engine.db.selectFrom('test_gateway_charges').select('id').execute()).length;
const year = () => String(new Date(clock.now()).getUTCFullYear() + 2);

describe('a lost gateway answer', () => {
  it('is 503 payment_gateway_unavailable; the retry with the same key credits once and charges once', async () => {
    const profile = await addBillingProfile(engine, session, { number: '4242424242424242', expiryMonth: '01', expiryYear: year(), cvv: '123' });
    loseNextAnswer = true;
    await expect(reloadQuickPay(engine, session, { profileId: profile.id, amount: 20, idempotencyKey: 'lost-1' })).rejects.toMatchObject({ code: 'payment_gateway_unavailable', status: 503 });
    expect(await processorCharges()).toBe(1);
    expect(await balance()).toBe(0);
    const row = await engine.db.selectFrom('payment_charges').selectAll().where('idempotency_key', '=', `user:${session.userId}:lost-1`).executeTakeFirstOrThrow();
    expect(row.status).toBe('created');

    const retry = await reloadQuickPay(engine, session, { profileId: profile.id, amount: 20, idempotencyKey: 'lost-1' });
    expect(retry.charge).toMatchObject({ id: row.id, status: 'succeeded' });
    expect(await processorCharges()).toBe(1);
    expect(await balance()).toBe(2000);
    expect(await findBalanceMismatches(engine.db)).toEqual([]);
  });

  it('a status poll re-sends a charge that never got an answer, under the same gateway key', async () => {
    const profile = await addBillingProfile(engine, session, { number: '5555555555554444', expiryMonth: '01', expiryYear: year(), cvv: '123' });
    const before = await balance();
    down = true;
    await expect(reloadQuickPay(engine, session, { profileId: profile.id, amount: 5 })).rejects.toMatchObject({ code: 'payment_gateway_unavailable' });
    const row = await engine.db.selectFrom('payment_charges').selectAll().where('billing_profile_id', '=', profile.id).executeTakeFirstOrThrow();
    await expect(reloadStatus(engine, session, row.id)).rejects.toMatchObject({ code: 'payment_gateway_unavailable' });
    down = false;
    const charges = await processorCharges();
    expect((await reloadStatus(engine, session, row.id)).charge.status).toBe('succeeded');
    expect((await reloadStatus(engine, session, row.id)).charge.status).toBe('succeeded');
    expect(await processorCharges()).toBe(charges + 1);
    expect(await balance()).toBe(before + 500);
  });
});
