import type { Kysely } from 'kysely';
import { ServiceError } from '../../../shared/errors';
import { type Engine, transact, type VendorScope } from '../../engine';
import { lockRow } from '../../storage/dialect';
import { nextObjectId } from '../../storage/ids';
import type { DB } from '../../storage/schema';
import { PaymentGatewayError } from '../gateway/payment-gateway';
import { creditQuickPay, quickPayCurrencyOf } from '../quick-pay/credit-quick-pay';

// Charges the node cannot settle on its own become exceptions an admin lists and resolves, instead
// of log lines: an eGift charge found paid with no gift row (the buyer got a 503 and never retried),
// and a late reload refused because the program switched its quick-pay currency since.

export type PaymentExceptionKind = 'paid_without_gift' | 'reload_refused';

export interface PaymentExceptionRecord {
  id: number;
  kind: PaymentExceptionKind;
  /**
   * open → refunding (the gateway is being asked) → refunded, or open → credited; open → settled
   * when the charge settled by itself meanwhile (the buyer's retry sent the gift, a later pass
   * credited the reload), so neither a refund nor a credit may pay it a second time.
   */
  status: 'open' | 'refunding' | 'refunded' | 'credited' | 'settled';
  chargeId: number;
  purpose: string;
  /** Minor units of `currency`. */
  amount: number;
  currency: string;
  userId: number | null;
  /** A guest eGift buyer's contact as the purchase took it (no account behind the charge); null otherwise or before migration 0041. */
  guestBuyer: { name: string; email: string } | null;
  resolution: string | null;
  createdAt: number;
  resolvedAt: number | null;
}

/** Records the exception once per charge and kind (the reconciliation job meets it every pass). */
export async function recordPaymentException(engine: Engine, input: { vendorId: number; chargeId: number; kind: PaymentExceptionKind }): Promise<void> {
  await engine.db
    .insertInto('payment_exceptions')
    .values({
      id: await nextObjectId(engine.db, engine.nodeId),
      vendor_id: input.vendorId,
      charge_id: input.chargeId,
      kind: input.kind,
      status: 'open',
      resolution: null,
      refund_id: null,
      transaction_id: null,
      created_at: engine.clock.now(),
      resolved_at: null,
    })
    .onConflict((oc) => oc.columns(['charge_id', 'kind']).doNothing())
    .execute();
}

/**
 * Closes the charge's open exception of `kind` as settled: called where the charge settles by
 * itself (a gift row made on the buyer's retry, a reload credited), in that same transaction.
 */
export async function closeSettledException(db: Kysely<DB>, engine: Engine, chargeId: number, kind: PaymentExceptionKind): Promise<void> {
  await db
    .updateTable('payment_exceptions')
    .set({ status: 'settled', resolution: 'settled', resolved_at: engine.clock.now() })
    .where('charge_id', '=', chargeId)
    .where('kind', '=', kind)
    .where('status', '=', 'open')
    .execute();
}

function exceptionsOf(db: Kysely<DB>, vendorId: number) {
  return db
    .selectFrom('payment_exceptions as x')
    .innerJoin('payment_charges as c', 'c.id', 'x.charge_id')
    .select(['x.id', 'x.kind', 'x.status', 'x.charge_id', 'x.resolution', 'x.created_at', 'x.resolved_at', 'c.purpose', 'c.amount', 'c.currency', 'c.user_id', 'c.gateway_charge_id', 'c.status as charge_status', 'c.credited_at', 'c.buyer_name', 'c.buyer_email'])
    .select((eb) => eb.exists(eb.selectFrom('egifts as g').select('g.id').whereRef('g.charge_id', '=', 'x.charge_id')).as('has_gift'))
    .where('x.vendor_id', '=', vendorId);
}

/** The exception's charge settled by itself since it was recorded (older rows than the hooks). */
function settledMeanwhile(row: Row): boolean {
  return row.kind === 'paid_without_gift' ? Boolean(row.has_gift) : row.credited_at !== null;
}

type Row = Awaited<ReturnType<ReturnType<typeof exceptionsOf>['executeTakeFirstOrThrow']>>;

const toRecord = (row: Row): PaymentExceptionRecord => ({
  id: row.id,
  kind: row.kind as PaymentExceptionKind,
  status: row.status as PaymentExceptionRecord['status'],
  chargeId: row.charge_id,
  purpose: row.purpose,
  amount: Number(row.amount),
  currency: row.currency,
  userId: row.user_id,
  guestBuyer: row.user_id === null && row.buyer_email ? { name: row.buyer_name ?? '', email: row.buyer_email } : null,
  resolution: row.resolution,
  createdAt: row.created_at,
  resolvedAt: row.resolved_at,
});

export interface ListExceptionsOptions {
  /** open (with refunds whose answer was lost) | one status | all (or absent). */
  status?: string | undefined;
  /** A page of the list (the back office's); absent: the whole list (the admin token's). */
  limit?: number | undefined;
  offset?: number | undefined;
}

/** The statuses a filter lists (null: all). A refund whose outcome the gateway left unknown is still staff's to finish, so listed as open. */
function statusesOf(status: string | undefined): string[] | null {
  if (status === 'open') return ['open', 'refunding'];
  return status && status !== 'all' ? [status] : null;
}

/** GET /payment-exceptions: the vendor's exceptions, open ones (or all), newest first (ties by id, so pages never overlap). */
export async function listPaymentExceptions(engine: Engine, scope: VendorScope, options: ListExceptionsOptions = {}): Promise<PaymentExceptionRecord[]> {
  const statuses = statusesOf(options.status);
  let query = exceptionsOf(engine.db, scope.vendorId)
    .$if(statuses !== null, (qb) => qb.where('x.status', 'in', statuses!))
    .orderBy('x.created_at', 'desc')
    .orderBy('x.id', 'desc');
  if (options.limit !== undefined) query = query.limit(options.limit).offset(options.offset ?? 0);
  return (await query.execute()).map(toRecord);
}

/** How many exceptions the same filter lists (a page's `total`). */
export async function countPaymentExceptions(engine: Engine, scope: VendorScope, status: string | undefined): Promise<number> {
  const statuses = statusesOf(status);
  const row = await engine.db
    .selectFrom('payment_exceptions as x')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('x.vendor_id', '=', scope.vendorId)
    .$if(statuses !== null, (qb) => qb.where('x.status', 'in', statuses!))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface ResolveOptions {
  /** Runs in the transaction that resolves the exception (the back office's audit entry), not when it is refused. */
  onResolved?: (trx: Kysely<DB>) => Promise<void>;
}

/**
 * POST /payment-exceptions/:id/resolve: `refund` gives the money back through the gateway (the
 * charge becomes `refunded`, so nothing reconciles it again); `credit` adds the amount to the
 * customer's quick pay in the program's current quick-pay currency (same ISO code only; the charge
 * becomes `succeeded` and credited). A resolved exception is 409; a credit with no customer to
 * credit, or a refund the gateway refuses, 422.
 */
export async function resolvePaymentException(engine: Engine, scope: VendorScope, id: number, action: 'refund' | 'credit', options: ResolveOptions = {}): Promise<PaymentExceptionRecord> {
  const row = await exceptionsOf(engine.db, scope.vendorId).where('x.id', '=', id).executeTakeFirst();
  if (!row) throw new ServiceError('payment_exception_not_found');
  // A refund left half-way (the gateway unreachable after the claim) may be asked again.
  if (row.status !== 'open' && !(row.status === 'refunding' && action === 'refund')) throw new ServiceError('invalid_status_transition', 'This payment exception is already resolved.');
  if (action === 'refund') {
    if (!row.gateway_charge_id) throw new ServiceError('business_rule', 'The gateway never confirmed this charge: there is nothing to refund.');
    await takeException(engine, scope, row, (trx) => claimForRefund(trx, row.id));
    let refund;
    try {
      refund = await engine.payments.refund(row.gateway_charge_id, `punchcard-exception-${row.id}`);
    } catch (error) {
      // Unreachable or no answer: the gateway may have refunded. The exception stays `refunding`
      // (listed with the open ones) so only a refund, under the same idempotency key, can follow;
      // meanwhile the charge's own settlement pays nothing (payout-guard.ts).
      if (error instanceof PaymentGatewayError) throw new ServiceError('payment_gateway_unavailable');
      throw error;
    }
    if (refund.status === 'failed') {
      await releaseRefundClaim(engine, row.id);
      throw new ServiceError('business_rule', 'The gateway refused the refund.');
    }
    const now = engine.clock.now();
    await transact(engine, async (trx) => {
      // The charge's row first, as everywhere a charge and its exception change together.
      await trx.updateTable('payment_charges').set({ status: 'refunded', updated_at: now, completed_at: now }).where('id', '=', row.charge_id).execute();
      const moved = await trx.updateTable('payment_exceptions').set({ status: 'refunded', resolution: 'refund', refund_id: refund.refundId, resolved_at: now }).where('id', '=', row.id).where('status', '=', 'refunding').executeTakeFirst();
      if (Number(moved.numUpdatedRows) === 1) await options.onResolved?.(trx);
    });
  } else {
    if (row.user_id === null) throw new ServiceError('business_rule', 'No customer account is behind this charge: refund it instead.');
    await takeException(engine, scope, row, async (trx) => {
      await creditException(trx, engine, scope, row);
      await options.onResolved?.(trx);
    });
  }
  return toRecord((await exceptionsOf(engine.db, scope.vendorId).where('x.id', '=', id).executeTakeFirstOrThrow())!);
}

/**
 * Runs `resolve` in a transaction that first takes the charge's row, as the charge's own settlement
 * does before it pays out (payout-guard.ts), then reads the exception again: whichever of the two
 * comes second sees what the other did. An exception whose charge settled by itself meanwhile is
 * closed as settled instead (409).
 */
async function takeException(engine: Engine, scope: VendorScope, row: Row, resolve: (trx: Kysely<DB>) => Promise<void>): Promise<void> {
  const settled = await transact(engine, async (trx) => {
    await lockRow(trx, engine.dialect, 'payment_charges', row.charge_id);
    const fresh = await exceptionsOf(trx, scope.vendorId).where('x.id', '=', row.id).executeTakeFirstOrThrow();
    if (fresh.status === 'open' && settledMeanwhile(fresh)) {
      await closeSettledException(trx, engine, fresh.charge_id, fresh.kind as PaymentExceptionKind);
      return true;
    }
    await resolve(trx);
    return false;
  });
  if (settled) throw new ServiceError('invalid_status_transition', 'This charge has settled since (the gift was sent or the reload credited): there is nothing to resolve.');
}

/**
 * Takes the exception for a refund before the gateway is asked, so a credit (or the charge settling
 * by itself) cannot also pay it; a second refund of the same exception shares the gateway's
 * idempotency key, so the money goes back once.
 */
async function claimForRefund(trx: Kysely<DB>, id: number): Promise<void> {
  const claimed = await trx.updateTable('payment_exceptions').set({ status: 'refunding' }).where('id', '=', id).where('status', 'in', ['open', 'refunding']).executeTakeFirst();
  if (Number(claimed.numUpdatedRows) !== 1) throw new ServiceError('invalid_status_transition', 'This payment exception is already resolved.');
}

/** The credit action: the amount to the customer's quick pay, in the program's current quick-pay currency (same ISO code only). */
async function creditException(trx: Kysely<DB>, engine: Engine, scope: VendorScope, row: Row): Promise<void> {
  const now = engine.clock.now();
  const currency = await quickPayCurrencyOf(trx, scope.vendorId);
  if (currency.code !== row.currency) throw new ServiceError('business_rule', `The program's quick pay is in ${currency.code ?? 'no currency'} now, not ${row.currency}: refund it instead.`);
  const moved = await trx.updateTable('payment_exceptions').set({ status: 'credited', resolution: 'credit', resolved_at: now }).where('id', '=', row.id).where('status', '=', 'open').executeTakeFirst();
  if (Number(moved.numUpdatedRows) !== 1) throw new ServiceError('invalid_status_transition', 'This payment exception is already resolved.');
  const { transactionId } = await creditQuickPay(trx, engine, {
    vendorId: scope.vendorId,
    userId: row.user_id!,
    amountMinor: Number(row.amount),
    kind: 'reload',
    referenceType: 'payment_charge',
    referenceId: String(row.charge_id),
    receipts: [{ payment_exception: row.id }],
  });
  await trx.updateTable('payment_exceptions').set({ transaction_id: transactionId }).where('id', '=', row.id).execute();
  await trx
    .updateTable('payment_charges')
    .set({ status: 'succeeded', credited_at: now, transaction_id: transactionId, currency_id: currency.id, updated_at: now, completed_at: now })
    .where('id', '=', row.charge_id)
    .execute();
}

/** The gateway refused the refund: the exception is open again for staff to try again or credit. */
async function releaseRefundClaim(engine: Engine, id: number): Promise<void> {
  await engine.db.updateTable('payment_exceptions').set({ status: 'open' }).where('id', '=', id).where('status', '=', 'refunding').execute();
}
