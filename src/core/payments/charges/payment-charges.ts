import type { Kysely, Selectable, Transaction } from 'kysely';
import { ServiceError } from '../../../shared/errors';
import { holdProgramMoney } from '../../currencies/program-money';
import { type Engine, transact } from '../../engine';
import { nextObjectId } from '../../storage/ids';
import type { DB, PaymentChargesTable } from '../../storage/schema';
import { type ChargeResult, PaymentGatewayError } from '../gateway/payment-gateway';
import { quickPayCurrencyOf } from '../quick-pay/credit-quick-pay';
import { oneAtATime } from './one-at-a-time';

// Charges through the gateway port, recorded in payment_charges. A charge moves
// created -> pending -> succeeded | declined (or straight from created to a final state), or
// created -> failed when the gateway never saw it (reconcile-charges.ts, after a deadline). Exactly
// one transition reaches a final state, guarded by the row's status in the UPDATE, and the
// purpose's `settle` step (credit quick pay, fund an eGift…) runs in that same transaction: the
// money reaches a balance once, however many times the result is reported or polled.
//
// The gateway is never called inside a database transaction.

export type ChargeRow = Selectable<PaymentChargesTable>;
export type ChargePurpose = 'reload' | 'auto_reload' | 'egift';

export interface NewCharge {
  vendorId: number;
  /** The paying customer; null for a guest (an eGift paid with card details). */
  userId: number | null;
  billingProfileId: number | null;
  /** The gateway token to charge (a profile's, or one just tokenized for a guest). */
  token: string;
  purpose: ChargePurpose;
  /** Integer minor units of `currency`, > 0. */
  amountMinor: number;
  /** ISO 4217 code (the vendor's quick-pay currency). */
  currency: string;
  /** The quick-pay currency's id: what a reload settling late credits (never the program's later one). */
  currencyId: number;
  /**
   * The client's idempotency key, already scoped to the caller (`user:<id>:<key>`,
   * `guest:<key>`…); null: every call is a new charge.
   */
  idempotencyKey: string | null;
  /** What was asked (e.g. `reload:<profile>:<amount>`): the same key with another fingerprint is a 409. */
  fingerprint: string;
  /** A guest buyer's contact as the purchase took it (an eGift bought with card details), for staff to reach them; never card data. */
  guestBuyer?: { name: string; email: string } | null;
}

/**
 * What runs in the transaction that records a charge's state: `pending` when the gateway first
 * answers that the result comes late (created -> pending, once), `succeeded` / `declined` when the
 * charge reaches its final state (once). A purpose that must not lose track of a charge the
 * gateway may complete later (an eGift's gift row) records it in `pending`, so no crash between
 * two transactions can leave a pending charge without it.
 */
export interface ChargeSettlement {
  pending?(trx: Transaction<DB>, charge: ChargeRow): Promise<void>;
  succeeded?(trx: Transaction<DB>, charge: ChargeRow): Promise<void>;
  declined?(trx: Transaction<DB>, charge: ChargeRow): Promise<void>;
}

/**
 * Final: `succeeded`, `declined`, or `failed` (the gateway never saw the charge and the
 * reconciliation job gave up on it after its deadline: nothing was taken, nothing is credited).
 */
export function isFinal(charge: Pick<ChargeRow, 'status'>): boolean {
  return charge.status === 'succeeded' || charge.status === 'declined' || charge.status === 'failed';
}

/**
 * How long a `created` charge (no answer from the gateway) may still be re-sent under its gateway
 * key by a retry or a poll. Past it the charge is only looked up (findCharge), never re-sent: a
 * processor forgets idempotency keys (Stripe after 24 h), and the reconciliation job marks a charge
 * the gateway never saw `failed` at CHARGE_GIVE_UP_MS, so no re-send can race that.
 */
export const CHARGE_RESEND_WINDOW_MS = 23 * 3600_000;

/** The key the engine sends to the gateway for a charge row: retries of the row never charge twice. */
export function gatewayKeyOf(chargeId: number): string {
  return `punchcard-charge-${chargeId}`;
}

export function loadCharge(db: Kysely<DB>, chargeId: number): Promise<ChargeRow | undefined> {
  return db.selectFrom('payment_charges').selectAll().where('id', '=', chargeId).executeTakeFirst();
}

/**
 * Asks the gateway to charge, once per idempotency key: a retry with the same key and the same
 * request returns the charge as it stands (re-sending it to the gateway with the same gateway key
 * if the first attempt never got an answer); the same key for another request is 409
 * idempotency_key_reused. A gateway that cannot be reached is 503 payment_gateway_unavailable and
 * leaves the charge `created`, to be re-driven by a retry or a status poll.
 */
export async function requestCharge(engine: Engine, input: NewCharge, settlement: ChargeSettlement): Promise<ChargeRow> {
  if (!Number.isSafeInteger(input.amountMinor) || input.amountMinor <= 0) throw new RangeError('a charge is a positive integer of minor units');
  if (input.idempotencyKey === null) return chargeOnce(engine, input, settlement);
  // The same key twice at once in this node: the second waits for the first (one-at-a-time.ts).
  return oneAtATime(engine, `${input.vendorId}:${input.idempotencyKey}`, () => chargeOnce(engine, input, settlement));
}

async function chargeOnce(engine: Engine, input: NewCharge, settlement: ChargeSettlement): Promise<ChargeRow> {
  const known = input.idempotencyKey === null ? undefined : await findByKey(engine.db, input.vendorId, input.idempotencyKey);
  // The same key twice at once: whichever request inserts first makes the charge, the other finds it.
  const charge = known ?? (await insertOrFindCharge(engine, input));
  if (charge.fingerprint !== input.fingerprint) throw new ServiceError('idempotency_key_reused', undefined, 'idempotency_key');
  if (charge.status !== 'created') return charge;
  return driveCharge(engine, charge, input.token, settlement);
}

/**
 * Brings a charge up to date with the gateway: a `created` one is (re)sent with its gateway key, a
 * `pending` one is looked up; a final one is returned as it is. Polling twice settles once.
 */
export async function refreshCharge(engine: Engine, charge: ChargeRow, token: string | null, settlement: ChargeSettlement): Promise<ChargeRow> {
  // `refunded` (staff gave the money back, payment-exceptions.ts) is as final as it gets.
  if (isFinal(charge) || charge.status === 'refunded') return charge;
  if (charge.status === 'created') {
    // Without a token to re-send (a deleted profile, the auto-reload poll), look it up instead.
    if (token === null) return lookUpCharge(engine, charge, settlement);
    return driveCharge(engine, charge, token, settlement);
  }
  if (charge.gateway_charge_id === null) return charge;
  const result = await callGateway(() => engine.payments.getCharge(charge.gateway_charge_id!));
  return recordResult(engine, charge.id, result, settlement);
}

/**
 * A `created` charge (its answer was lost, or it never reached the gateway) looked up at the
 * gateway by its gateway key, without re-sending it: recorded (and settled) when the gateway has
 * it, returned unchanged when it has not.
 */
export async function lookUpCharge(engine: Engine, charge: ChargeRow, settlement: ChargeSettlement): Promise<ChargeRow> {
  if (charge.status !== 'created') return charge;
  const result = await callGateway(() => engine.payments.findCharge(gatewayKeyOf(charge.id)));
  return result ? recordResult(engine, charge.id, result, settlement) : charge;
}

async function driveCharge(engine: Engine, charge: ChargeRow, token: string, settlement: ChargeSettlement): Promise<ChargeRow> {
  if (engine.clock.now() - charge.created_at >= CHARGE_RESEND_WINDOW_MS) return lookUpCharge(engine, charge, settlement);
  const result = await callGateway(() =>
    engine.payments.charge({
      token,
      amountMinor: Number(charge.amount),
      currency: charge.currency,
      idempotencyKey: gatewayKeyOf(charge.id),
      description: `Punchcard ${charge.purpose} ${charge.id}`,
    }),
  );
  return recordResult(engine, charge.id, result, settlement);
}

async function callGateway<T extends ChargeResult | null>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof PaymentGatewayError) throw new ServiceError('payment_gateway_unavailable');
    throw error;
  }
}

/** Writes what the gateway said; the one call that makes the charge final also settles it. */
export async function recordResult(engine: Engine, chargeId: number, result: ChargeResult, settlement: ChargeSettlement): Promise<ChargeRow> {
  return transact(engine, async (trx) => {
    const now = engine.clock.now();
    if (result.status === 'pending') {
      const moved = await trx
        .updateTable('payment_charges')
        .set({ status: 'pending', gateway_charge_id: result.chargeId, updated_at: now })
        .where('id', '=', chargeId)
        .where('status', '=', 'created')
        .executeTakeFirst();
      const charge = (await loadCharge(trx, chargeId))!;
      if (Number(moved.numUpdatedRows) === 1) await settlement.pending?.(trx, charge);
      return charge;
    }
    const moved = await trx
      .updateTable('payment_charges')
      .set({
        status: result.status,
        gateway_charge_id: result.chargeId,
        decline_reason: result.status === 'declined' ? (result.declineReason ?? 'generic_decline') : null,
        updated_at: now,
        completed_at: now,
      })
      .where('id', '=', chargeId)
      .where('status', 'in', ['created', 'pending'])
      .executeTakeFirst();
    const charge = (await loadCharge(trx, chargeId))!;
    if (Number(moved.numUpdatedRows) === 1) {
      if (result.status === 'succeeded') await settlement.succeeded?.(trx, charge);
      else await settlement.declined?.(trx, charge);
      return (await loadCharge(trx, chargeId))!;
    }
    return charge;
  });
}

function findByKey(db: Kysely<DB>, vendorId: number, key: string): Promise<ChargeRow | undefined> {
  return db.selectFrom('payment_charges').selectAll().where('vendor_id', '=', vendorId).where('idempotency_key', '=', key).executeTakeFirst();
}

/**
 * Inserts the charge, or returns the one another request made with the same key meanwhile. The key
 * is looked up again after taking the id: every insert holds the id counter until it commits, so
 * that read sees any charge made with the key. Without it, on PostgreSQL, the insert could wait on
 * the key's index entry held by the first request's still-open result update (a non-HOT update
 * adds one) while that request waits for the id counter this one holds: a deadlock.
 */
async function insertOrFindCharge(engine: Engine, input: NewCharge): Promise<ChargeRow> {
  return transact(engine, async (trx) => {
    // A charge is money in the quick-pay currency, read by the caller before this transaction: its
    // code cannot change until the charge is written, and one changed since is refused, nothing charged.
    await holdProgramMoney(trx, engine.dialect, input.vendorId);
    const current = await quickPayCurrencyOf(trx, input.vendorId, { requireActive: false });
    if (current.id !== input.currencyId || current.code !== input.currency) {
      throw new ServiceError('currency_not_active', 'The program changed its quick-pay currency just now: nothing was charged. Please try again.');
    }
    const now = engine.clock.now();
    const id = await nextObjectId(trx, engine.nodeId);
    const existing = input.idempotencyKey === null ? undefined : await findByKey(trx, input.vendorId, input.idempotencyKey);
    if (existing) return existing;
    const row: ChargeRow = {
      id,
      vendor_id: input.vendorId,
      user_id: input.userId,
      billing_profile_id: input.billingProfileId,
      purpose: input.purpose,
      amount: input.amountMinor,
      currency: input.currency,
      currency_id: input.currencyId,
      gateway: engine.payments.name,
      gateway_charge_id: null,
      idempotency_key: input.idempotencyKey,
      fingerprint: input.fingerprint,
      status: 'created',
      decline_reason: null,
      transaction_id: null,
      credited_at: null,
      created_at: now,
      updated_at: now,
      completed_at: null,
      buyer_name: input.guestBuyer?.name ?? null,
      buyer_email: input.guestBuyer?.email ?? null,
    };
    await trx.insertInto('payment_charges').values(row).execute();
    return row;
  });
}
