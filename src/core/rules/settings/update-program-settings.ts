import type { Kysely } from 'kysely';
import { minorUnitDigits } from '../../../shared/currency-codes';
import { MAX_AMOUNT, MAX_DAYS } from '../../../shared/schemas/rules';
import { type Engine, transact, type VendorScope } from '../../engine';
import type { DB } from '../../storage/schema';
import { lockVendor, wholeOrNull } from '../rule-fields';
import { tierCurrencyToCount } from '../tiers/tier-currency';
import { loadProgramSettings, type ProgramSettingsRecord } from './program-settings';

export interface ProgramSettingsChanges {
  pointsExpiryDays?: number | null | undefined;
  referralPoints?: number | undefined;
  /** Minor units of the quick-pay currency; null: back to the default. */
  egiftMaxAmount?: number | null | undefined;
  reloadMaxAmount?: number | null | undefined;
  /** `curr_` id of an active loyalty currency of the program: what its tiers count. */
  tierCurrency?: string | undefined;
}

/**
 * Changes only what was sent. The expiry applies to points earned from now on: each earning entry
 * carries its own expiry date when it is written, so points already earned keep theirs. The payment
 * limits apply from the next request on (the program cache sees the write); customers' auto reload
 * amounts set before stay as they are. The tier currency counts from the next judgement of a tier
 * on (an order, a void, the hourly demotion); nobody moves by the change itself, as with thresholds.
 */
export function updateProgramSettings(engine: Engine, scope: VendorScope, changes: ProgramSettingsChanges): Promise<ProgramSettingsRecord> {
  return transact(engine, async (trx) => {
    // The vendor row first, as a currency's delete or code change takes it (delete-currency.ts): on
    // PostgreSQL the tier currency chosen below is then not one being deleted or given a code meanwhile.
    await lockVendor(trx, engine, scope.vendorId);
    const current = await loadProgramSettings(trx, scope.vendorId);
    const next = { ...current };
    if (changes.pointsExpiryDays !== undefined) next.pointsExpiryDays = wholeOrNull(changes.pointsExpiryDays, 'points_expiry_days', 1, MAX_DAYS);
    if (changes.referralPoints !== undefined) next.referralPoints = wholeOrNull(changes.referralPoints, 'referral_points', 0, MAX_AMOUNT) ?? 0;
    if (changes.egiftMaxAmount !== undefined) {
      // At least the smallest eGift (one major unit), or no eGift could be sold.
      const smallest = 10 ** (await quickPayDigits(trx, scope.vendorId));
      next.egiftMaxAmount = wholeOrNull(changes.egiftMaxAmount, 'egift_max_amount', smallest, MAX_AMOUNT);
    }
    if (changes.reloadMaxAmount !== undefined) next.reloadMaxAmount = wholeOrNull(changes.reloadMaxAmount, 'reload_max_amount', 1, MAX_AMOUNT);
    const tierCurrency = changes.tierCurrency === undefined ? undefined : await tierCurrencyToCount(trx, scope.vendorId, changes.tierCurrency);
    if (tierCurrency) next.tierCurrency = tierCurrency.public_id;
    const changed = (['pointsExpiryDays', 'referralPoints', 'egiftMaxAmount', 'reloadMaxAmount', 'tierCurrency'] as const).some((k) => changes[k] !== undefined);
    if (!changed) return current;
    await trx
      .updateTable('vendors')
      .set({
        points_expiry_days: next.pointsExpiryDays,
        referral_points: next.referralPoints,
        egift_max_amount: next.egiftMaxAmount,
        reload_max_amount: next.reloadMaxAmount,
        ...(tierCurrency && { tier_currency_id: tierCurrency.id }),
        updated_at: engine.clock.now(),
      })
      .where('id', '=', scope.vendorId)
      .execute();
    return next;
  });
}

/** Digits of the program's quick-pay currency; 2 when it offers none yet (the limit waits for one). */
async function quickPayDigits(db: Kysely<DB>, vendorId: number): Promise<number> {
  const row = await db.selectFrom('vendors as v').innerJoin('currencies as c', 'c.id', 'v.quick_pay_currency_id').select('c.code').where('v.id', '=', vendorId).executeTakeFirst();
  if (!row?.code) return 2;
  return minorUnitDigits(row.code);
}
