import { ServiceError } from '../../../shared/errors';
import { holdProgramMoney } from '../../currencies/program-money';
import { findUserVendor } from '../../customers/customer-store';
import type { CustomerSession } from '../../customers/sessions';
import { type Engine, transact } from '../../engine';
import { minorWithin, paymentLimitsOf } from '../../rules/settings/payment-limits';
import { autoReloadProfile, type BillingProfileRecord, defaultBillingProfileId, findBillingProfile } from '../billing-profiles/billing-profile';
import { refuseUnchargeableAmount } from '../gateway/card-amounts';
import { quickPayCurrencyOf } from '../quick-pay/credit-quick-pay';

/** A customer's auto reload at one vendor; amounts in minor units of the quick-pay currency. */
export interface ReloadSettings {
  amount: number;
  threshold: number;
  /** The selected profile; null when none is selected (or it was deleted). */
  profile: BillingProfileRecord | null;
  /** On only when amount, threshold and a live profile are all set. */
  enabled: boolean;
  /** Digits of the quick-pay currency (2 for USD): the wire shows major units. */
  digits: number;
}

export interface ReloadSettingsUpdate {
  /** Major units; undefined: unchanged. 0 disables. */
  amount?: number | undefined;
  threshold?: number | undefined;
  /** A billing profile number; null disables; undefined: unchanged (or the default profile when none is selected). */
  profileId?: number | null | undefined;
}

export function isAutoReloadEnabled(link: { reload_amount: number; reload_threshold: number; billing_profile_id: number | null }): boolean {
  return Number(link.reload_amount) > 0 && Number(link.reload_threshold) > 0 && link.billing_profile_id !== null;
}

/** GET /user/reload/settings (and the profile, login and onscreen replies): the current settings. */
export async function getReloadSettings(engine: Engine, owner: { vendorId: number; userId: number }): Promise<ReloadSettings> {
  const link = await findUserVendor(engine.db, owner.userId, owner.vendorId);
  if (!link) throw new ServiceError('user_not_found');
  const currency = await quickPayCurrencyOf(engine.db, owner.vendorId, { requireActive: false }).catch(() => null);
  const profile = await autoReloadProfile(engine.db, owner, link.billing_profile_id);
  const amount = Number(link.reload_amount);
  const threshold = Number(link.reload_threshold);
  return { amount, threshold, profile, enabled: amount > 0 && threshold > 0 && profile !== null, digits: currency?.digits ?? 2 };
}

/**
 * PUT /user/reload/settings: sets amount, threshold and the billing profile (each optional; what is
 * not sent stays). Auto reload is enabled only when all three are set; amount 0, threshold 0 or
 * profile null disable it. Another customer's profile is 404 billing_profile_not_found.
 */
export async function updateReloadSettings(engine: Engine, session: CustomerSession, update: ReloadSettingsUpdate): Promise<ReloadSettings> {
  const owner = { vendorId: session.vendorId, userId: session.userId };
  await transact(engine, async (trx) => {
    // Amounts in the quick-pay currency, read where its code cannot change until they are written (program-money.ts).
    await holdProgramMoney(trx, engine.dialect, owner.vendorId);
    const currency = await quickPayCurrencyOf(trx, owner.vendorId, { requireActive: false });
    // Both bounded by the program's largest reload: an auto reload is one.
    const { reloadMax } = await paymentLimitsOf(engine, owner.vendorId, trx);
    const minor = (value: number | undefined, field: string): number | undefined => {
      if (value === undefined) return undefined;
      if (!Number.isFinite(value) || value < 0) throw new ServiceError('validation_failed', `${field} must be 0 or more.`, field);
      return minorWithin(value, currency, reloadMax, field);
    };
    const amount = minor(update.amount, 'amount');
    // The amount is charged to the card; the threshold is a balance, never charged.
    if (amount !== undefined && amount > 0) refuseUnchargeableAmount(amount, currency, 'amount');
    const threshold = minor(update.threshold, 'threshold');
    const link = await findUserVendor(trx, owner.userId, owner.vendorId);
    if (!link) throw new ServiceError('user_not_found');
    let profileId = link.billing_profile_id;
    if (update.profileId === null) profileId = null;
    else if (update.profileId !== undefined) profileId = (await findBillingProfile(trx, owner, update.profileId)).id;
    const nextAmount = amount ?? Number(link.reload_amount);
    const nextThreshold = threshold ?? Number(link.reload_threshold);
    if (update.profileId === undefined && profileId === null && nextAmount > 0 && nextThreshold > 0) {
      profileId = await defaultBillingProfileId(trx, owner);
    }
    await trx
      .updateTable('user_vendors')
      .set({ reload_amount: nextAmount, reload_threshold: nextThreshold, billing_profile_id: profileId, updated_at: engine.clock.now() })
      .where('id', '=', link.id)
      .execute();
  });
  return getReloadSettings(engine, owner);
}
