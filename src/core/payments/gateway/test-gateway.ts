import { randomBytes } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { Clock } from '../../clock';
import { isUniqueViolation } from '../../storage/errors';
import type { DB, TestGatewayChargesTable } from '../../storage/schema';
import { checkCard } from './card-input';
import { cardAmountStep } from './stripe-amounts';
import {
  type CardDetails,
  type ChargeRequest,
  type ChargeResult,
  type DeclineReason,
  isDeclineReason,
  type PaymentGateway,
  PaymentGatewayError,
  type RefundPart,
  type RefundResult,
  type TokenizeResult,
} from './payment-gateway';

// The built-in test gateway: a processor in test mode that behaves like Stripe's with its test
// card numbers. Its state lives in its own tables (test_gateway_cards, test_gateway_charges), so
// a restart of the node loses no pending charge. It keeps token -> {brand, last4, scenario}: never
// the card number, never the CVV.

/**
 * What a card does:
 * - `success`: tokenizes, every charge succeeds;
 * - `decline:<reason>`: tokenizing succeeds, every charge is declined with the reason;
 * - `late:succeeded` / `late:declined:<reason>`: a charge answers pending and completes later;
 * - `refuse:<reason>`: tokenizing is declined with the reason (the card is never stored).
 */
export type TestCardScenario = 'success' | `decline:${DeclineReason}` | 'late:succeeded' | `late:declined:${DeclineReason}` | `refuse:${DeclineReason}`;

/** The test numbers (digits only) and what they do; any other valid number behaves like 4242…4242. */
export const TEST_CARDS: Readonly<Record<string, TestCardScenario>> = {
  '4242424242424242': 'success',
  '5555555555554444': 'success',
  '378282246310005': 'success',
  '4000000000000002': 'refuse:generic_decline',
  '4000000000009995': 'refuse:insufficient_funds',
  '4000000000009987': 'refuse:lost_card',
  '4000000000009979': 'refuse:stolen_card',
  '4000000000000069': 'refuse:expired_card',
  '4000000000000127': 'refuse:incorrect_cvc',
  '4000000000000119': 'refuse:processing_error',
  // Attaches fine, then every charge is declined (Stripe: "charge fails after attach").
  '4000000000000341': 'decline:generic_decline',
  // Needs an extra step: answers pending, completes later (Stripe: always requires authentication).
  '4000002760003184': 'late:succeeded',
  // Answers pending, then declines (Stripe: authentication succeeds, then the charge is declined).
  '4000008400001629': 'late:declined:generic_decline',
};

export interface TestGatewayOptions {
  db: Kysely<DB>;
  clock: Clock;
  /** A late charge completes at its Nth status poll (default 2: pending once, then complete). */
  completeAfterPolls?: number;
  /** …or once this long has passed since it was made, by the clock (default 60 s). */
  completeAfterMs?: number;
}

export const TEST_GATEWAY_NAME = 'test';

export class TestGateway implements PaymentGateway {
  readonly name = TEST_GATEWAY_NAME;
  private readonly db: Kysely<DB>;
  private readonly clock: Clock;
  private readonly completeAfterPolls: number;
  private readonly completeAfterMs: number;
  /** Test hooks: how many coming `charge` calls lose their answer / never reach the processor. */
  private answersToLose = 0;
  private requestsToRefuse = 0;
  private refundsToDecline = 0;

  constructor(options: TestGatewayOptions) {
    this.db = options.db;
    this.clock = options.clock;
    this.completeAfterPolls = options.completeAfterPolls ?? 2;
    this.completeAfterMs = options.completeAfterMs ?? 60_000;
  }

  async tokenize(input: CardDetails, now: number): Promise<TokenizeResult> {
    const checked = checkCard(input, now);
    if (!checked.ok) return { status: 'invalid', reason: checked.reason, field: checked.field };
    const { card } = checked;
    const scenario = TEST_CARDS[card.digits] ?? 'success';
    if (scenario.startsWith('refuse:')) return { status: 'declined', reason: reasonOf(scenario) };
    const token = `tok_test_${randomBytes(12).toString('hex')}`;
    await this.db.insertInto('test_gateway_cards').values({ token, brand: card.brand, last4: card.last4, scenario, created_at: this.clock.now() }).execute();
    return {
      status: 'ok',
      card: { token, brand: card.brand, last4: card.last4, expiryMonth: card.expiryMonth, expiryYear: card.expiryYear, postalCode: card.postalCode },
    };
  }

  async charge(request: ChargeRequest): Promise<ChargeResult> {
    if (this.requestsToRefuse > 0) {
      this.requestsToRefuse -= 1;
      throw new PaymentGatewayError('test gateway: connection refused (simulated)');
    }
    const result = await this.makeCharge(request);
    if (this.answersToLose > 0) {
      this.answersToLose -= 1;
      throw new PaymentGatewayError('test gateway: socket hang up after the charge was made (simulated)');
    }
    return result;
  }

  private async makeCharge(request: ChargeRequest): Promise<ChargeResult> {
    if (!Number.isSafeInteger(request.amountMinor) || request.amountMinor <= 0) throw new PaymentGatewayError('amount must be a positive integer of minor units', false);
    // Stripe's rule, refused as Stripe refuses it (an invalid request): KWD 12.345 is not chargeable.
    if (request.amountMinor % cardAmountStep(request.currency) !== 0) {
      throw new PaymentGatewayError(`amount ${request.amountMinor} of ${request.currency.toUpperCase()} must be a multiple of ${cardAmountStep(request.currency)} minor units`, false);
    }
    const existing = await this.findByKey(request.idempotencyKey);
    if (existing) return this.sameRequest(existing, request);
    const card = await this.db.selectFrom('test_gateway_cards').selectAll().where('token', '=', request.token).executeTakeFirst();
    if (!card) throw new PaymentGatewayError(`no such token ${request.token}`, false);
    const scenario = card.scenario as TestCardScenario;
    const now = this.clock.now();
    const id = `tch_${randomBytes(12).toString('hex')}`;
    const base = {
      id,
      token: request.token,
      amount: request.amountMinor,
      currency: request.currency.toUpperCase(),
      idempotency_key: request.idempotencyKey,
      polls: 0,
      refunded_at: null,
      created_at: now,
    };
    let row: Selectable<TestGatewayChargesTable>;
    if (scenario.startsWith('late:')) {
      const declined = scenario.startsWith('late:declined:');
      row = {
        ...base,
        status: 'pending',
        decline_reason: null,
        outcome: declined ? 'declined' : 'succeeded',
        outcome_reason: declined ? reasonOf(scenario) : null,
        complete_after_polls: this.completeAfterPolls,
        completes_at: now + this.completeAfterMs,
      };
    } else if (scenario.startsWith('decline:') || scenario.startsWith('refuse:')) {
      row = { ...base, status: 'declined', decline_reason: reasonOf(scenario), outcome: null, outcome_reason: null, complete_after_polls: null, completes_at: null };
    } else {
      row = { ...base, status: 'succeeded', decline_reason: null, outcome: null, outcome_reason: null, complete_after_polls: null, completes_at: null };
    }
    try {
      await this.db.insertInto('test_gateway_charges').values(row).execute();
    } catch (error) {
      // The same key sent twice at once: the first one made the charge.
      if (!isUniqueViolation(error)) throw error;
      const first = await this.findByKey(request.idempotencyKey);
      if (!first) throw error;
      return this.sameRequest(first, request);
    }
    return resultOf(row);
  }

  async getCharge(chargeId: string): Promise<ChargeResult> {
    const row = await this.db.selectFrom('test_gateway_charges').selectAll().where('id', '=', chargeId).executeTakeFirst();
    if (!row) throw new PaymentGatewayError(`no such charge ${chargeId}`, false);
    if (row.status !== 'pending') return resultOf(row);
    const polls = row.polls + 1;
    const due = (row.complete_after_polls !== null && polls >= row.complete_after_polls) || (row.completes_at !== null && this.clock.now() >= row.completes_at);
    if (!due) {
      await this.db.updateTable('test_gateway_charges').set({ polls }).where('id', '=', chargeId).execute();
      return resultOf(row);
    }
    const status = row.outcome === 'declined' ? 'declined' : 'succeeded';
    const declineReason = status === 'declined' ? (row.outcome_reason ?? 'generic_decline') : null;
    // Only the poll that moves it out of pending writes the outcome.
    await this.db.updateTable('test_gateway_charges').set({ polls, status, decline_reason: declineReason }).where('id', '=', chargeId).where('status', '=', 'pending').execute();
    const after = await this.db.selectFrom('test_gateway_charges').selectAll().where('id', '=', chargeId).executeTakeFirstOrThrow();
    return resultOf(after);
  }

  async findCharge(idempotencyKey: string): Promise<ChargeResult | null> {
    const row = await this.findByKey(idempotencyKey);
    // A pending one is looked at like a status poll (it may complete now).
    return row ? this.getCharge(row.id) : null;
  }

  /**
   * A whole refund (no `part`) is made once however often it is asked (the idempotency key is the
   * charge's). A partial one is made once per key, and refused when the charge has less left to
   * give back than it asks (as Stripe refuses it), or when a test declines it (declineNextRefunds).
   */
  async refund(chargeId: string, idempotencyKey: string, part?: RefundPart): Promise<RefundResult> {
    if (this.requestsToRefuse > 0) {
      this.requestsToRefuse -= 1;
      throw new PaymentGatewayError('test gateway: connection refused (simulated)');
    }
    const row = await this.db.selectFrom('test_gateway_charges').selectAll().where('id', '=', chargeId).executeTakeFirst();
    if (!row) throw new PaymentGatewayError(`no such charge ${chargeId}`, false);
    const result = part ? await this.refundPart(row, idempotencyKey, part) : await this.refundWhole(row);
    if (this.answersToLose > 0) {
      this.answersToLose -= 1;
      throw new PaymentGatewayError('test gateway: connection reset after the refund was made (simulated)');
    }
    return result;
  }

  private async refundWhole(row: Selectable<TestGatewayChargesTable>): Promise<RefundResult> {
    if (row.status !== 'succeeded') return { refundId: `tre_${row.id.slice(4)}`, status: 'failed' };
    await this.db.updateTable('test_gateway_charges').set({ refunded_at: this.clock.now() }).where('id', '=', row.id).where('refunded_at', 'is', null).execute();
    return { refundId: `tre_${row.id.slice(4)}`, status: 'succeeded' };
  }

  private async refundPart(row: Selectable<TestGatewayChargesTable>, key: string, part: RefundPart): Promise<RefundResult> {
    const seen = await this.db.selectFrom('test_gateway_refunds').selectAll().where('idempotency_key', '=', key).executeTakeFirst();
    if (seen) {
      if (seen.charge_id !== row.id || Number(seen.amount) !== part.amountMinor) throw new PaymentGatewayError('idempotency key reused with other parameters', false);
      return { refundId: seen.id, status: seen.status === 'succeeded' ? 'succeeded' : 'failed' };
    }
    if (!Number.isSafeInteger(part.amountMinor) || part.amountMinor <= 0 || part.currency.toUpperCase() !== row.currency) throw new PaymentGatewayError('refund amount must be a positive integer of the charge\'s currency', false);
    const given = await this.db.selectFrom('test_gateway_refunds').select((eb) => eb.fn.sum<number>('amount').as('total')).where('charge_id', '=', row.id).where('status', '=', 'succeeded').executeTakeFirst();
    const left = row.refunded_at !== null ? 0 : Number(row.amount) - Number(given?.total ?? 0);
    let status: 'succeeded' | 'failed' = row.status === 'succeeded' && part.amountMinor <= left ? 'succeeded' : 'failed';
    if (status === 'succeeded' && this.refundsToDecline > 0) {
      this.refundsToDecline -= 1;
      status = 'failed';
    }
    const id = `tre_${randomBytes(12).toString('hex')}`;
    try {
      await this.db.insertInto('test_gateway_refunds').values({ id, charge_id: row.id, amount: part.amountMinor, idempotency_key: key, status, created_at: this.clock.now() }).execute();
    } catch (error) {
      // The same key sent twice at once (two processes finishing one pay-back): the first one made it.
      if (!isUniqueViolation(error)) throw error;
      return this.refundPart(row, key, part);
    }
    return { refundId: id, status };
  }

  /** Test hook: the next `count` partial refunds are refused by the processor (nothing is given back). */
  declineNextRefunds(count = 1): void {
    this.refundsToDecline = count;
  }

  /** Forgets the card behind the token: charging it afterwards fails like an unknown token. */
  async detach(token: string): Promise<void> {
    if (this.requestsToRefuse > 0) {
      this.requestsToRefuse -= 1;
      throw new PaymentGatewayError('test gateway: connection refused (simulated)');
    }
    await this.db.deleteFrom('test_gateway_cards').where('token', '=', token).execute();
  }

  /** Test hook: a saved card starts behaving otherwise (its funds ran out, it was reported lost…). */
  async setCardScenario(token: string, scenario: TestCardScenario): Promise<void> {
    const updated = await this.db.updateTable('test_gateway_cards').set({ scenario }).where('token', '=', token).executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) throw new Error(`no such test token ${token}`);
  }

  /**
   * Test hook: the next `count` charges (or refunds) are made but their answer is lost on the way
   * back: the call fails as if the connection dropped, like a processor that charged and timed out.
   */
  loseNextAnswers(count = 1): void {
    this.answersToLose = count;
  }

  /** Test hook: the next `count` charge (or refund) requests never reach the processor (nothing is done). */
  refuseNextRequests(count = 1): void {
    this.requestsToRefuse = count;
  }

  private findByKey(key: string) {
    return this.db.selectFrom('test_gateway_charges').selectAll().where('idempotency_key', '=', key).executeTakeFirst();
  }

  private sameRequest(row: { token: string; amount: number; currency: string } & ChargeRow, request: ChargeRequest): ChargeResult {
    if (row.token !== request.token || Number(row.amount) !== request.amountMinor || row.currency !== request.currency.toUpperCase()) {
      throw new PaymentGatewayError('idempotency key reused with other parameters', false);
    }
    return resultOf(row);
  }
}

interface ChargeRow {
  id: string;
  status: string;
  decline_reason: string | null;
}

function resultOf(row: ChargeRow): ChargeResult {
  const status = row.status === 'succeeded' || row.status === 'declined' ? row.status : 'pending';
  return status === 'declined'
    ? { chargeId: row.id, status, declineReason: isDeclineReason(row.decline_reason) ? row.decline_reason : 'generic_decline' }
    : { chargeId: row.id, status };
}

function reasonOf(scenario: string): DeclineReason {
  const reason = scenario.slice(scenario.lastIndexOf(':') + 1);
  return isDeclineReason(reason) ? reason : 'generic_decline';
}
