import { isServiceError } from '../../../shared/errors';
import type { Engine } from '../../engine';
import { type ChargeRow, type ChargeSettlement, gatewayKeyOf, recordResult } from '../charges/payment-charges';
import { egiftChargeSettlement } from '../egifts/egift-settlement';
import { type ChargeResult, PaymentGatewayError } from '../gateway/payment-gateway';
import { reloadSettlement } from '../reloads/charge-billing-profile';
import { recordPaymentException } from '../exceptions/payment-exceptions';

// Reconciliation of charges whose outcome the node does not know. A charge stays `created` when
// the gateway could not be reached or its answer was lost (503 payment_gateway_unavailable): the
// processor may nevertheless have taken the money. A charge stays `pending` while nobody polls it
// (a customer who never asks for the reload's status). The node's jobs run this every few
// minutes: each such charge is asked of the gateway under the node's own key
// (`punchcard-charge-<id>`, findCharge) or by its gateway id (getCharge), never re-sent, and
// settles through the charge's own settlement, guarded by its status: a reload is credited once
// however many times this runs, an eGift is finished only if its gift row exists. A charge the
// gateway never saw is marked `failed` once CHARGE_GIVE_UP_MS has passed since it was made.

/** A `created` charge younger than this may still be in flight (or about to be retried): left alone. */
export const RECONCILE_GRACE_MS = 2 * 60_000;
/** A charge the gateway has still not seen this long after it was made is given up: `failed`. */
export const CHARGE_GIVE_UP_MS = 24 * 3600_000;
/** How often the node's jobs run the reconciliation. */
export const RECONCILE_INTERVAL_MS = 5 * 60_000;

export interface ReconcileReport {
  /** Charges looked at in this pass. */
  checked: number;
  /** Moved to succeeded (and settled: a reload credited, an eGift with its row sent). */
  succeeded: number;
  /** Moved to declined (settled as a decline). */
  declined: number;
  /** Moved from created to pending (the gateway's result comes late). */
  pending: number;
  /** Not seen by the gateway and past CHARGE_GIVE_UP_MS: marked failed. */
  failed: number;
  /** Not seen by the gateway (yet): asked again next time. */
  notFound: number;
  /**
   * Paid at the gateway, but the settlement refused (the program switched its quick-pay currency
   * since the reload was charged): left as it was for a later pass or staff, by id.
   */
  refused: number[];
  /** eGift charges found paid with no gift row (the buyer got a 503): for the buyer's retry or staff, by id. */
  paidWithoutGift: number[];
  /** Paid at the gateway while staff refund them (a refused reload): left as they were, by id. */
  refunding: number[];
  /** The gateway could not be reached, or something else failed: asked again next time. */
  errors: number;
}

/**
 * One pass: every charge still `created` for longer than RECONCILE_GRACE_MS, and every `pending`
 * one, oldest first (at most `batchSize`). Safe to run twice at once or on two nodes: every move
 * is a guarded update and its settlement runs in the same transaction.
 */
export async function reconcileCharges(engine: Engine, options: { batchSize?: number } = {}): Promise<ReconcileReport> {
  const now = engine.clock.now();
  const charges = await engine.db
    .selectFrom('payment_charges')
    .selectAll()
    .where((eb) => eb.or([eb.and([eb('status', '=', 'created'), eb('created_at', '<=', now - RECONCILE_GRACE_MS)]), eb('status', '=', 'pending')]))
    .orderBy('created_at')
    .orderBy('id')
    .limit(options.batchSize ?? 200)
    .execute();
  const report: ReconcileReport = { checked: charges.length, succeeded: 0, declined: 0, pending: 0, failed: 0, notFound: 0, refused: [], paidWithoutGift: [], refunding: [], errors: 0 };
  for (const charge of charges) {
    try {
      await reconcileOne(engine, charge, report);
    } catch (error) {
      if (isServiceError(error) && error.code === 'currency_not_active') {
        report.refused.push(charge.id);
        await recordPaymentException(engine, { vendorId: charge.vendor_id, chargeId: charge.id, kind: 'reload_refused' });
      } else if (isServiceError(error) && error.code === 'payment_refund_pending') report.refunding.push(charge.id);
      else report.errors += 1;
    }
  }
  return report;
}

async function reconcileOne(engine: Engine, charge: ChargeRow, report: ReconcileReport): Promise<void> {
  let result: ChargeResult | null;
  try {
    result =
      charge.status === 'pending' && charge.gateway_charge_id !== null
        ? await engine.payments.getCharge(charge.gateway_charge_id)
        : await engine.payments.findCharge(gatewayKeyOf(charge.id));
  } catch (error) {
    if (error instanceof PaymentGatewayError) {
      report.errors += 1;
      return;
    }
    throw error;
  }
  if (result === null) {
    if (charge.status === 'created' && engine.clock.now() - charge.created_at >= CHARGE_GIVE_UP_MS && (await giveUp(engine, charge))) report.failed += 1;
    else report.notFound += 1;
    return;
  }
  const after = await recordResult(engine, charge.id, result, await settlementOf(engine, charge));
  if (after.status === charge.status) return;
  if (after.status === 'succeeded') {
    report.succeeded += 1;
    if (charge.purpose === 'egift') {
      const gift = await engine.db.selectFrom('egifts').select('id').where('charge_id', '=', charge.id).executeTakeFirst();
      if (!gift) {
        report.paidWithoutGift.push(charge.id);
        await recordPaymentException(engine, { vendorId: charge.vendor_id, chargeId: charge.id, kind: 'paid_without_gift' });
      }
    }
  } else if (after.status === 'declined') report.declined += 1;
  else if (after.status === 'pending') report.pending += 1;
}

/** The charge's own settlement, as its purpose settles a late result. */
async function settlementOf(engine: Engine, charge: ChargeRow): Promise<ChargeSettlement> {
  if (charge.purpose === 'egift') return egiftChargeSettlement(engine);
  if (charge.user_id === null) return {};
  const profile =
    charge.billing_profile_id === null ? undefined : await engine.db.selectFrom('billing_profiles').selectAll().where('id', '=', charge.billing_profile_id).executeTakeFirst();
  return reloadSettlement(engine, { vendorId: charge.vendor_id, userId: charge.user_id }, profile ?? null);
}

/**
 * A charge the gateway never saw, past its deadline: `failed` (nothing taken, nothing credited,
 * never re-sent: retries of it answer card_processing_error). Guarded: a charge another call moved
 * meanwhile is left as that call left it.
 */
async function giveUp(engine: Engine, charge: ChargeRow): Promise<boolean> {
  const now = engine.clock.now();
  const moved = await engine.db
    .updateTable('payment_charges')
    .set({ status: 'failed', decline_reason: 'processing_error', updated_at: now, completed_at: now })
    .where('id', '=', charge.id)
    .where('status', '=', 'created')
    .executeTakeFirst();
  return Number(moved.numUpdatedRows) === 1;
}
