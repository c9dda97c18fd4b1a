import type { Kysely, Selectable } from 'kysely';
import { minorUnitDigits } from '../../shared/currency-codes';
import { ServiceError } from '../../shared/errors';
import type { DB, TiersTable } from '../storage/schema';
import { findUserVendor, loadUser, loadVendor, type UserRow, type UserVendorRow, type VendorRow } from './customer-store';

export type TierRow = Selectable<TiersTable>;

/** An account seen from one vendor: the person, the vendor's part, the vendor and the tier. */
export interface Membership {
  user: UserRow;
  link: UserVendorRow;
  vendor: VendorRow;
  tier: TierRow | null;
  /** Digits of the vendor's quick-pay currency (reload amounts are stored in its minor units). */
  moneyDigits: number;
}

export async function loadMembership(db: Kysely<DB>, userId: number, vendorId: number): Promise<Membership> {
  const [user, vendor, link] = await Promise.all([loadUser(db, userId), loadVendor(db, vendorId), findUserVendor(db, userId, vendorId)]);
  if (!link) throw new ServiceError('user_not_found');
  const tier = link.tier_id === null ? null : ((await db.selectFrom('tiers').selectAll().where('id', '=', link.tier_id).executeTakeFirst()) ?? null);
  const currency =
    vendor.quick_pay_currency_id === null
      ? undefined
      : await db.selectFrom('currencies').select('code').where('id', '=', vendor.quick_pay_currency_id).executeTakeFirst();
  return { user, link, vendor, tier, moneyDigits: currency?.code ? minorUnitDigits(currency.code) : 2 };
}

/** Minor units to the decimal amount the legacy interface shows (2050 -> 20.5 in USD). */
export function toMajorUnits(minor: number, digits: number): number {
  return minor / 10 ** digits;
}

export function toMinorUnits(major: number, digits: number): number {
  return Math.round(major * 10 ** digits);
}
