import type { Kysely, Selectable } from 'kysely';
import { ServiceError } from '../../shared/errors';
import { vendorMoneyDigits } from '../currencies/vendor-money';
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
  return { user, link, vendor, tier, moneyDigits: await vendorMoneyDigits(db, vendorId) };
}
