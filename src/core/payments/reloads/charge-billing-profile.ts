import type { Transaction } from 'kysely';
import { ServiceError } from '../../../shared/errors';
import type { Engine } from '../../engine';
import { holderBalance } from '../../ledger/ledger';
import type { DB } from '../../storage/schema';
import { recordAutoReloadRan, recordReloadEvent } from '../../webhooks/events';
import { type BillingProfileRow, findBillingProfile, maskedCard, type ProfileOwner } from '../billing-profiles/billing-profile';
import { type ChargeRow, type ChargeSettlement, requestCharge } from '../charges/payment-charges';
import { recordTransaction } from '../../orders/record-transaction';
import { refuseBlockedPayer } from '../../customer-care/blocked';
import { refuseUnchargeableAmount } from '../gateway/card-amounts';
import { declineCode } from '../gateway/payment-errors';
import { settleOwnException } from '../exceptions/payout-guard';
import { creditQuickPay, quickPayCurrencyOf } from '../quick-pay/credit-quick-pay';

export interface ProfileCharge {
  profileId: number;
  /** Minor units of the vendor's quick-pay currency, > 0. */
  amountMinor: number;
  purpose: 'reload' | 'auto_reload';
  /** Scoped idempotency key (see requestCharge); null: a new charge. */
  idempotencyKey: string | null;
}

/** The receipts of a reload's history record: how it was paid. No card number, ever. */
export function reloadReceipts(charge: ChargeRow, profile: Pick<BillingProfileRow, 'id' | 'brand' | 'last4'> | null): Record<string, unknown>[] {
  return [
    {
      object: 'receipt',
      type: charge.purpose,
      payment_method: 'card',
      card: profile ? maskedCard(profile.last4) : null,
      card_type: profile?.brand ?? null,
      user_billingprofile: profile?.id ?? null,
      transaction: charge.id,
    },
  ];
}

/**
 * What a reload charge does when it reaches its final status, in that same transaction. Succeeded:
 * credits the same amount to the customer's quick-pay balance (ledger entry + history record with
 * `quickpay.loaded`), once: the charge row's credited_at is claimed first. The credit is in the
 * charge's own currency; if the program has since switched its quick-pay currency the settlement
 * throws 422 currency_not_active, so the whole transaction rolls back and the charge stays as it
 * was (created or pending, nothing credited) for a later poll or staff. Declined: nothing moves.
 * For an auto reload the outbox row is finished too, and a declined one leaves a history record
 * (status "Declined", nothing loaded) so the customer sees what happened.
 */
export function reloadSettlement(engine: Engine, owner: ProfileOwner, profile: Pick<BillingProfileRow, 'id' | 'brand' | 'last4'> | null): ChargeSettlement {
  return {
    async succeeded(trx: Transaction<DB>, charge: ChargeRow) {
      // A late reload refused before (currency switched, then switched back) is settled now,
      // unless staff are refunding it.
      await settleOwnException(trx, engine, charge.id, 'reload_refused');
      const now = engine.clock.now();
      const claimed = await trx.updateTable('payment_charges').set({ credited_at: now }).where('id', '=', charge.id).where('credited_at', 'is', null).executeTakeFirst();
      if (Number(claimed.numUpdatedRows) !== 1) return;
      const currencyId = await creditCurrencyOf(trx, charge);
      const { transactionId } = await creditQuickPay(trx, engine, {
        vendorId: owner.vendorId,
        userId: owner.userId,
        amountMinor: Number(charge.amount),
        currencyId,
        kind: 'reload',
        referenceType: 'payment_charge',
        referenceId: String(charge.id),
        receipts: reloadReceipts(charge, profile),
      });
      await trx.updateTable('payment_charges').set({ transaction_id: transactionId }).where('id', '=', charge.id).execute();
      await recordReloadEvent(trx, engine, 'reload.succeeded', { id: charge.id, vendorId: charge.vendor_id });
      await finishAutoReload(trx, engine, charge, 'completed', now);
    },
    async declined(trx: Transaction<DB>, charge: ChargeRow) {
      const now = engine.clock.now();
      await recordReloadEvent(trx, engine, 'reload.failed', { id: charge.id, vendorId: charge.vendor_id });
      if (charge.purpose !== 'auto_reload') return;
      const balance = await quickPayBalanceIn(trx, owner);
      const transactionId = await recordTransaction(trx, engine, {
        vendorId: owner.vendorId,
        userId: owner.userId,
        storeId: null,
        orderId: null,
        kind: 'reload',
        occurredAt: now,
        total: Number(charge.amount),
        quickPayUsed: 0,
        quickPayLoaded: 0,
        quickPayBalance: balance,
        items: [],
        taxes: [],
        receipts: reloadReceipts(charge, profile).map((r) => ({ ...r, decline_reason: declineCode(charge.decline_reason) })),
        rewards: [],
        status: 'Declined',
      });
      await trx.updateTable('payment_charges').set({ transaction_id: transactionId }).where('id', '=', charge.id).execute();
      await finishAutoReload(trx, engine, charge, 'declined', now);
    },
  };
}

/**
 * The currency a reload charge credits: the one it was charged in, which must still be the
 * vendor's quick-pay currency. A charge from before migration 0009 without one is matched by its
 * ISO code. Refused (422 currency_not_active), never converted or credited in another currency.
 */
async function creditCurrencyOf(trx: Transaction<DB>, charge: ChargeRow): Promise<number> {
  const current = await quickPayCurrencyOf(trx, charge.vendor_id, { requireActive: false });
  const currencyId = charge.currency_id ?? (current.code === charge.currency ? current.id : null);
  if (currencyId !== current.id) {
    throw new ServiceError(
      'currency_not_active',
      'This reload was paid in a currency the program no longer uses for quick pay, so it could not be added to your balance. Please contact the program.',
      'transaction',
    );
  }
  return currencyId;
}

/**
 * An auto reload's charge finishes its outbox row (found by the charge's key `auto_reload:<row id>`).
 * A row the worker gave up on (failed) or cancelled while its charge's answer was lost is finished
 * too when the reconciliation job learns the charge's outcome: its history must say what happened.
 */
async function finishAutoReload(trx: Transaction<DB>, engine: Engine, charge: ChargeRow, status: 'completed' | 'declined', now: number): Promise<void> {
  const rowId = charge.purpose === 'auto_reload' ? /^auto_reload:(\d+)$/.exec(charge.idempotency_key ?? '')?.[1] : undefined;
  if (rowId === undefined) return;
  const finished = await trx
    .updateTable('auto_reloads')
    .set({ status, charge_id: charge.id, finished_at: now, updated_at: now })
    .where('id', '=', Number(rowId))
    .where('status', 'in', ['queued', 'pending', 'failed', 'cancelled'])
    .executeTakeFirst();
  if (Number(finished.numUpdatedRows) === 1) await recordAutoReloadRan(trx, engine, { id: Number(rowId), vendorId: charge.vendor_id });
}

async function quickPayBalanceIn(trx: Transaction<DB>, owner: ProfileOwner): Promise<number> {
  const currency = await quickPayCurrencyOf(trx, owner.vendorId, { requireActive: false });
  return holderBalance(trx, { holderType: 'user', holderId: owner.userId, currencyId: currency.id });
}

/**
 * Charges one of the customer's billing profiles and, when the gateway reports success, credits
 * the same amount to their quick-pay balance exactly once. Another customer's or another vendor's
 * profile is 404 billing_profile_not_found; a customer the program blocked 403 customer_blocked. Returns the charge as it stands: `succeeded` (credited),
 * `pending` (poll with refreshReload) or `declined` (nothing moved).
 */
export async function chargeBillingProfile(engine: Engine, owner: ProfileOwner, input: ProfileCharge): Promise<{ charge: ChargeRow; profile: BillingProfileRow }> {
  // A blocked customer's card is not charged: neither a reload, nor an auto reload, nor a retry's re-send.
  await refuseBlockedPayer(engine.db, owner.vendorId, owner.userId);
  const profile = await findBillingProfile(engine.db, owner, input.profileId);
  if (profile.gateway !== engine.payments.name) throw new ServiceError('card_processing_error', 'This saved card belongs to another payment service. Please add it again.', 'user_billingprofile');
  const currency = await quickPayCurrencyOf(engine.db, owner.vendorId);
  refuseUnchargeableAmount(input.amountMinor, currency, 'amount');
  const charge = await requestCharge(
    engine,
    {
      vendorId: owner.vendorId,
      userId: owner.userId,
      billingProfileId: profile.id,
      token: profile.token,
      purpose: input.purpose,
      amountMinor: input.amountMinor,
      currency: currency.code,
      currencyId: currency.id,
      idempotencyKey: input.idempotencyKey,
      fingerprint: `${input.purpose}:${profile.id}:${input.amountMinor}:${currency.code}`,
    },
    reloadSettlement(engine, owner, profile),
  );
  return { charge, profile };
}
