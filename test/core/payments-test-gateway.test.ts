import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Engine, startEngine } from '../../src/core/engine';
import { checkCard } from '../../src/core/payments/gateway/card-input';
import { paymentGatewayConfigFrom } from '../../src/core/payments/gateway/select-gateway';
import { TEST_CARDS, TestGateway } from '../../src/core/payments/gateway/test-gateway';
import { openSqlite } from '../../src/core/storage/database';
import { ManualClock } from '../support/clock';
import { CARDS } from '../support/payments';
import { makeTempDir } from '../support/temp-dir';

// The built-in test gateway on its own: Stripe's test numbers, card checks by card-validator and
// the engine clock, idempotent charges, late results completed by polls or time, refunds, and
// state that survives a restart of the node.

let engine: Engine;
let clock: ManualClock;
let gateway: TestGateway;
let dir: { path: string; remove(): void };

beforeAll(async () => {
  dir = makeTempDir();
  clock = new ManualClock();
  engine = await startEngine({ database: openSqlite(`${dir.path}/gw.db`), nodeKey: randomBytes(32), clock, role: 'store' });
  gateway = engine.payments as TestGateway;
});

afterAll(async () => {
  await engine?.close();
  dir?.remove();
});

const year = () => String(new Date(clock.now()).getUTCFullYear() + 2);
const card = (number: string, overrides: Partial<{ expiryMonth: string; expiryYear: string; cvv: string }> = {}) => ({
  number,
  expiryMonth: '06',
  expiryYear: year(),
  cvv: number.startsWith('37') ? '1234' : '123',
  ...overrides,
});
let keyCount = 0;
const newKey = () => `k-${++keyCount}`;

async function tokenOf(number: string): Promise<string> {
  const result = await gateway.tokenize(card(number), clock.now());
  if (result.status !== 'ok') throw new Error(`expected a token for ${number}: ${JSON.stringify(result)}`);
  return result.card.token;
}

describe('test gateway', () => {
  it('is the default gateway, chosen by PUNCHCARD_PAYMENT_GATEWAY', () => {
    expect(gateway).toBeInstanceOf(TestGateway);
    expect(paymentGatewayConfigFrom({})).toEqual({ kind: 'test' });
    expect(paymentGatewayConfigFrom({ PUNCHCARD_PAYMENT_GATEWAY: 'stripe', PUNCHCARD_STRIPE_SECRET_KEY: 'sk_test_x' })).toEqual({ kind: 'stripe', secretKey: 'sk_test_x' });
    expect(() => paymentGatewayConfigFrom({ PUNCHCARD_PAYMENT_GATEWAY: 'stripe' })).toThrow(/PUNCHCARD_STRIPE_SECRET_KEY/);
    expect(() => paymentGatewayConfigFrom({ PUNCHCARD_PAYMENT_GATEWAY: 'paypal' })).toThrow(/Unknown payment gateway/);
  });

  it('tokenizes the success cards with brand, last four and expiry, keeping token -> brand, last4, scenario only', async () => {
    for (const [number, brand, last4] of [
      [CARDS.visa, 'Visa', '4242'],
      [CARDS.mastercard, 'Mastercard', '4444'],
      [CARDS.amex, 'American Express', '0005'],
    ] as const) {
      const result = await gateway.tokenize({ ...card(number), postalCode: ' 10001 ' }, clock.now());
      expect(result).toEqual({ status: 'ok', card: { token: expect.stringMatching(/^tok_test_/), brand, last4, expiryMonth: 6, expiryYear: Number(year()), postalCode: '10001' } });
      if (result.status !== 'ok') continue;
      const row = await engine.db.selectFrom('test_gateway_cards').selectAll().where('token', '=', result.card.token).executeTakeFirstOrThrow();
      expect(Object.keys(row).sort()).toEqual(['brand', 'created_at', 'last4', 'scenario', 'token']);
      expect(row).toMatchObject({ brand, last4, scenario: 'success' });
    }
  });

  it('declines the decline cards at tokenize with their reasons, storing nothing', async () => {
    const before = (await engine.db.selectFrom('test_gateway_cards').select('token').execute()).length;
    const reasons: Record<string, string> = {};
    for (const number of [CARDS.genericDecline, CARDS.insufficientFunds, CARDS.lostCard, CARDS.stolenCard, CARDS.expiredCard, CARDS.incorrectCvc, CARDS.processingError]) {
      const result = await gateway.tokenize(card(number), clock.now());
      reasons[number.slice(-4)] = result.status === 'declined' ? result.reason : result.status;
    }
    expect(reasons).toEqual({
      '0002': 'generic_decline',
      '9995': 'insufficient_funds',
      '9987': 'lost_card',
      '9979': 'stolen_card',
      '0069': 'expired_card',
      '0127': 'incorrect_cvc',
      '0119': 'processing_error',
    });
    expect((await engine.db.selectFrom('test_gateway_cards').select('token').execute()).length).toBe(before);
  });

  it('checks the card with card-validator and the clock: Luhn, length, brand CVV size, expiry month', () => {
    const now = clock.now();
    const thisYear = new Date(now).getUTCFullYear();
    const thisMonth = new Date(now).getUTCMonth() + 1;
    expect(checkCard(card(CARDS.luhnFailure), now)).toEqual({ ok: false, reason: 'invalid_number', field: 'number' });
    expect(checkCard(card('4242'), now)).toMatchObject({ ok: false, reason: 'invalid_number' });
    expect(checkCard(card(CARDS.visa, { cvv: '1234' }), now)).toMatchObject({ ok: false, reason: 'invalid_cvv' });
    expect(checkCard(card(CARDS.amex, { cvv: '123' }), now)).toMatchObject({ ok: false, reason: 'invalid_cvv' });
    expect(checkCard(card(CARDS.visa, { expiryMonth: '0' }), now)).toMatchObject({ ok: false, reason: 'invalid_expiry', field: 'expiry_month' });
    expect(checkCard(card(CARDS.visa, { expiryYear: String(thisYear + 21) }), now)).toMatchObject({ ok: false, reason: 'invalid_expiry', field: 'expiry_year' });
    // Good through the end of the expiry month, by the engine's clock.
    expect(checkCard(card(CARDS.visa, { expiryMonth: String(thisMonth), expiryYear: String(thisYear) }), now)).toMatchObject({ ok: true });
    const later = Date.UTC(thisYear, thisMonth, 1); // the first day of the next month
    expect(checkCard(card(CARDS.visa, { expiryMonth: String(thisMonth), expiryYear: String(thisYear) }), later)).toMatchObject({ ok: false, reason: 'invalid_expiry' });
    expect(checkCard(card('4242-4242-4242-4242', { expiryYear: String((thisYear + 1) % 100) }), now)).toMatchObject({ ok: true, card: { digits: '4242424242424242', expiryYear: thisYear + 1 } });
  });

  it('charges once per idempotency key; the same key for another amount is refused', async () => {
    const token = await tokenOf(CARDS.visa);
    const key = newKey();
    const first = await gateway.charge({ token, amountMinor: 1000, currency: 'usd', idempotencyKey: key });
    expect(first).toEqual({ chargeId: expect.stringMatching(/^tch_/), status: 'succeeded' });
    expect(await gateway.charge({ token, amountMinor: 1000, currency: 'USD', idempotencyKey: key })).toEqual(first);
    await expect(gateway.charge({ token, amountMinor: 1001, currency: 'USD', idempotencyKey: key })).rejects.toThrow(/idempotency key reused/);
    expect((await engine.db.selectFrom('test_gateway_charges').select('id').where('token', '=', token).execute()).length).toBe(1);
    await expect(gateway.charge({ token: 'tok_test_unknown', amountMinor: 1, currency: 'USD', idempotencyKey: newKey() })).rejects.toThrow(/no such token/);
  });

  it('declines charges on 4000 0000 0000 0341 and on a card given a decline scenario', async () => {
    expect(await gateway.charge({ token: await tokenOf(CARDS.chargeDeclined), amountMinor: 500, currency: 'USD', idempotencyKey: newKey() })).toMatchObject({
      status: 'declined',
      declineReason: 'generic_decline',
    });
    const token = await tokenOf(CARDS.visa);
    await gateway.setCardScenario(token, 'decline:stolen_card');
    expect(await gateway.charge({ token, amountMinor: 500, currency: 'USD', idempotencyKey: newKey() })).toMatchObject({ status: 'declined', declineReason: 'stolen_card' });
  });

  it('reports a late result pending, completing it at the second poll; a later poll repeats it', async () => {
    const { chargeId, status } = await gateway.charge({ token: await tokenOf(CARDS.late), amountMinor: 700, currency: 'USD', idempotencyKey: newKey() });
    expect(status).toBe('pending');
    expect(await gateway.getCharge(chargeId)).toEqual({ chargeId, status: 'pending' });
    expect(await gateway.getCharge(chargeId)).toEqual({ chargeId, status: 'succeeded' });
    expect(await gateway.getCharge(chargeId)).toEqual({ chargeId, status: 'succeeded' });
    const declined = await gateway.charge({ token: await tokenOf(CARDS.lateDeclined), amountMinor: 700, currency: 'USD', idempotencyKey: newKey() });
    await gateway.getCharge(declined.chargeId);
    expect(await gateway.getCharge(declined.chargeId)).toEqual({ chargeId: declined.chargeId, status: 'declined', declineReason: 'generic_decline' });
  });

  it('completes a late result once its delay has passed, and survives a restart (a new gateway on the same tables)', async () => {
    const { chargeId } = await gateway.charge({ token: await tokenOf(CARDS.late), amountMinor: 700, currency: 'USD', idempotencyKey: newKey() });
    const restarted = new TestGateway({ db: engine.db, clock, completeAfterPolls: 100, completeAfterMs: 60_000 });
    expect(await restarted.getCharge(chargeId)).toMatchObject({ status: 'pending' });
    clock.advance(60_000);
    expect(await restarted.getCharge(chargeId)).toMatchObject({ status: 'succeeded' });
  });

  it('refunds a succeeded charge, not a declined one', async () => {
    const ok = await gateway.charge({ token: await tokenOf(CARDS.visa), amountMinor: 900, currency: 'USD', idempotencyKey: newKey() });
    expect(await gateway.refund(ok.chargeId, newKey())).toMatchObject({ status: 'succeeded' });
    const row = await engine.db.selectFrom('test_gateway_charges').select('refunded_at').where('id', '=', ok.chargeId).executeTakeFirstOrThrow();
    expect(row.refunded_at).toBe(clock.now());
    const declined = await gateway.charge({ token: await tokenOf(CARDS.chargeDeclined), amountMinor: 900, currency: 'USD', idempotencyKey: newKey() });
    expect(await gateway.refund(declined.chargeId, newKey())).toMatchObject({ status: 'failed' });
  });

  it('finds a charge by its idempotency key (null when it never arrived), and simulates lost answers and refused requests', async () => {
    const token = await tokenOf(CARDS.visa);
    const lostKey = newKey();
    gateway.loseNextAnswers(1);
    await expect(gateway.charge({ token, amountMinor: 300, currency: 'USD', idempotencyKey: lostKey })).rejects.toThrow(/socket hang up/);
    // The money was taken: the charge is there under the key, and a re-send answers it.
    const found = await gateway.findCharge(lostKey);
    expect(found).toMatchObject({ status: 'succeeded' });
    expect(await gateway.charge({ token, amountMinor: 300, currency: 'USD', idempotencyKey: lostKey })).toEqual(found);

    const refusedKey = newKey();
    gateway.refuseNextRequests(1);
    await expect(gateway.charge({ token, amountMinor: 300, currency: 'USD', idempotencyKey: refusedKey })).rejects.toThrow(/connection refused/);
    expect(await gateway.findCharge(refusedKey)).toBeNull();
    expect(await gateway.findCharge('never-sent')).toBeNull();

    // A late charge found by key is polled like getCharge.
    const lateKey = newKey();
    await gateway.charge({ token: await tokenOf(CARDS.late), amountMinor: 300, currency: 'USD', idempotencyKey: lateKey });
    expect(await gateway.findCharge(lateKey)).toMatchObject({ status: 'pending' });
    expect(await gateway.findCharge(lateKey)).toMatchObject({ status: 'succeeded' });
  });

  it('lists every test number the compat notes name', () => {
    for (const number of Object.values(CARDS)) {
      if (number === CARDS.luhnFailure) continue;
      expect(TEST_CARDS[number.replace(/ /g, '')], number).toBeDefined();
    }
  });
});
