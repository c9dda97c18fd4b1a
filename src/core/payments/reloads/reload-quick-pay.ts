import { ServiceError } from '../../../shared/errors';
import { holderBalance } from '../../ledger/ledger';
import { minorWithin, paymentLimitsOf } from '../../rules/settings/payment-limits';
import type { CustomerSession } from '../../customers/sessions';
import type { Engine } from '../../engine';
import { isBlockedIn } from '../../customer-care/blocked';
import { type BillingProfileRecord, toBillingProfileRecord } from '../billing-profiles/billing-profile';
import { type ChargeRow, loadCharge, refreshCharge } from '../charges/payment-charges';
import { refuseRefundedCharge } from '../exceptions/payout-guard';
import { refuseUnchargeableAmount } from '../gateway/card-amounts';
import { declineError } from '../gateway/payment-errors';
import { isDeclineReason } from '../gateway/payment-gateway';
import { type QuickPayCurrency, quickPayCurrencyOf } from '../quick-pay/credit-quick-pay';
import { chargeBillingProfile, reloadSettlement } from './charge-billing-profile';

/** What a client may send as an idempotency key: 1-255 visible ASCII characters. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

export interface ReloadInput {
  profileId: number;
  /** Major units, as the client sends it (25 or 25.5). */
  amount: number;
  /** The client's Idempotency-Key; absent: every request is a new charge. */
  idempotencyKey?: string | null | undefined;
}

export interface ReloadOutcome {
  charge: ChargeRow;
  /** The charged profile (kept visible after the profile is deleted, for a reload made before). */
  profile: BillingProfileRecord | null;
  currency: QuickPayCurrency;
  /** The customer's quick-pay balance now, minor units. */
  balance: number;
}

/** Reads an idempotency key sent by a client; 400 when it is not 1-255 visible ASCII characters. */
export function cleanIdempotencyKey(key: string | null | undefined): string | null {
  if (key === undefined || key === null || key === '') return null;
  if (!IDEMPOTENCY_KEY.test(key)) throw new ServiceError('validation_failed', 'The idempotency key must be 1 to 255 visible ASCII characters.', 'idempotency_key');
  return key;
}

/**
 * A positive amount in the currency's minor units, at most the program's largest reload (a guard
 * against typos, not a gateway limit: payment-limits.ts).
 */
export function reloadAmountMinor(amount: number, currency: QuickPayCurrency, maxMinor: number, field = 'amount'): number {
  if (!Number.isFinite(amount) || amount <= 0) throw new ServiceError('validation_failed', `${field} must be more than 0.`, field);
  return minorWithin(amount, currency, maxMinor, field);
}

/**
 * POST /user/billing-profile/reload: charges one of the customer's billing profiles and, on
 * success, adds the same amount to their quick-pay balance (exactly once). A decline changes no
 * balance and is a 422 naming the reason; a late result is returned `pending` (poll
 * reloadStatus). The same idempotency key again returns the same charge without charging again.
 */
export async function reloadQuickPay(engine: Engine, session: CustomerSession, input: ReloadInput): Promise<ReloadOutcome> {
  const owner = { vendorId: session.vendorId, userId: session.userId };
  const key = cleanIdempotencyKey(input.idempotencyKey);
  const currency = await quickPayCurrencyOf(engine.db, owner.vendorId);
  const amountMinor = reloadAmountMinor(input.amount, currency, (await paymentLimitsOf(engine, owner.vendorId)).reloadMax);
  refuseUnchargeableAmount(amountMinor, currency, 'amount');
  const { charge, profile } = await chargeBillingProfile(engine, owner, {
    profileId: input.profileId,
    amountMinor,
    purpose: 'reload',
    idempotencyKey: key === null ? null : `user:${owner.userId}:${key}`,
  });
  // `failed`: the gateway never saw the charge and the reconciliation job gave up on it (a retry of
  // the same key long after a 503): nothing was taken; answered like the processing error it was.
  if (charge.status === 'declined' || charge.status === 'failed') throw declineError(isDeclineReason(charge.decline_reason) ? charge.decline_reason : 'generic_decline', 'user_billingprofile');
  refuseRefundedCharge(charge);
  return { charge, profile: toBillingProfileRecord(profile), currency, balance: await holderBalance(engine.db, { holderType: 'user', holderId: owner.userId, currencyId: currency.id }) };
}

/**
 * GET /user/billing-profile/reload/status: the customer's reload charge with this transaction id.
 * A pending one is asked of the gateway and completed (credited once) when it reports success; a
 * charge the gateway declined late is reported as declined in the reply, not as an error.
 */
export async function reloadStatus(engine: Engine, session: CustomerSession, chargeId: number): Promise<ReloadOutcome> {
  const owner = { vendorId: session.vendorId, userId: session.userId };
  let charge = Number.isSafeInteger(chargeId) ? await loadCharge(engine.db, chargeId) : undefined;
  if (!charge || charge.user_id !== owner.userId || charge.vendor_id !== owner.vendorId || (charge.purpose !== 'reload' && charge.purpose !== 'auto_reload')) {
    throw new ServiceError('reload_not_found', undefined, 'transaction');
  }
  const profileRow =
    charge.billing_profile_id === null ? undefined : await engine.db.selectFrom('billing_profiles').selectAll().where('id', '=', charge.billing_profile_id).executeTakeFirst();
  // Refunded by staff (a late reload the program could not credit): the wire has no such status.
  refuseRefundedCharge(charge);
  // A charge that never reached the gateway is re-sent only while its profile lives, and never
  // for a customer the program blocked since (it is only looked up: what was taken is credited).
  const resendable = profileRow && profileRow.deleted_at === null && profileRow.gateway === engine.payments.name && !(await isBlockedIn(engine.db, owner.vendorId, owner.userId));
  const token = resendable ? profileRow.token : null;
  charge = await refreshCharge(engine, charge, token, reloadSettlement(engine, owner, profileRow ?? null));
  // The wire knows Complete, Pending and Declined: a charge given up as `failed` (never taken) is
  // reported declined, with its reason (processing_error).
  if (charge.status === 'failed') charge = { ...charge, status: 'declined', decline_reason: charge.decline_reason ?? 'processing_error' };
  const currency = await quickPayCurrencyOf(engine.db, owner.vendorId, { requireActive: false });
  return { charge, profile: profileRow ? toBillingProfileRecord(profileRow) : null, currency, balance: await holderBalance(engine.db, { holderType: 'user', holderId: owner.userId, currencyId: currency.id }) };
}
