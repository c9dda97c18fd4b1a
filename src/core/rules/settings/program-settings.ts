import type { Kysely } from 'kysely';
import { ServiceError } from '../../../shared/errors';
import type { DB } from '../../storage/schema';
import { tierCurrencyOf } from '../tiers/tier-currency';
import { DEFAULT_EGIFT_MAX_MINOR, DEFAULT_RELOAD_MAX_MINOR } from './payment-limits';

/** Program-wide settings of the rules a vendor manages. */
export interface ProgramSettingsRecord {
  /** Earned points expire this many days after they were earned; null: never. */
  pointsExpiryDays: number | null;
  /** Points a member gets when someone joins through their referral link; 0: none. */
  referralPoints: number;
  /** Largest eGift, minor units of the quick-pay currency; null: the default (egiftMaxAmountDefault). */
  egiftMaxAmount: number | null;
  /** Largest single reload (and auto reload amount and threshold), minor units; null: the default. */
  reloadMaxAmount: number | null;
  egiftMaxAmountDefault: number;
  reloadMaxAmountDefault: number;
  /** The loyalty currency the program's tiers count (`curr_` id; null: the program has none). */
  tierCurrency: string | null;
}

export async function loadProgramSettings(db: Kysely<DB>, vendorId: number): Promise<ProgramSettingsRecord> {
  const row = await db
    .selectFrom('vendors')
    .select(['points_expiry_days', 'referral_points', 'egift_max_amount', 'reload_max_amount'])
    .where('id', '=', vendorId)
    .executeTakeFirst();
  if (!row) throw new ServiceError('vendor_not_found');
  const tierCurrency = await tierCurrencyOf(db, vendorId);
  return {
    pointsExpiryDays: row.points_expiry_days,
    referralPoints: Number(row.referral_points),
    egiftMaxAmount: row.egift_max_amount === null ? null : Number(row.egift_max_amount),
    reloadMaxAmount: row.reload_max_amount === null ? null : Number(row.reload_max_amount),
    egiftMaxAmountDefault: DEFAULT_EGIFT_MAX_MINOR,
    reloadMaxAmountDefault: DEFAULT_RELOAD_MAX_MINOR,
    tierCurrency: tierCurrency?.public_id ?? null,
  };
}
